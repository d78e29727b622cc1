"""A secret found anywhere in one exchange (or one flush) is redacted wherever else that
exchange repeats it: tester 13 saw the password of a `cat .env` tool result redacted in the
tool row and kept verbatim in the assistant's reply ("…with password S3cr3tPassw0rd")."""

from mcp import Client

from cortex_mcp.config import Settings
from tests.conftest import data_of, inspect_database

PASSWORD = "Xq7vTr2pLm9w"
ENV = f"DATABASE_URL=postgres://admin:{PASSWORD}@db.prod:5432/app"


def stored_bytes(settings: Settings) -> str:
    """Every text the conversation log and the memories hold."""
    with inspect_database(settings.database_path) as conn:
        said = [row[0] for row in conn.execute("select content from conversation_log")]
        kept = [row[0] for row in conn.execute("select content from memories")]
    return "\n".join(said + kept)


async def test_a_password_redacted_in_a_tool_result_is_redacted_in_the_reply_too(
    client: Client, settings: Settings
) -> None:
    data_of(
        await client.call_tool(
            "cortex_ingest",
            {
                "user_message": "why does the deploy fail? check the env",
                "assistant_message": f"The DATABASE_URL points at db.prod; its secret {PASSWORD}"
                " has expired, so the deploy fails.",
                "tool_calls": [{"name": "Bash", "input": {"command": "cat .env"}, "output": ENV}],
            },
        )
    )

    stored = stored_bytes(settings)
    assert PASSWORD not in stored
    assert "its secret [REDACTED:url_password] has expired" in stored


async def test_a_secret_one_flushed_message_holds_is_redacted_in_the_others(
    client: Client, settings: Settings
) -> None:
    data_of(
        await client.call_tool(
            "cortex_flush",
            {
                "messages": [
                    {"role": "user", "content": f"my .env says {ENV}"},
                    {"role": "assistant", "content": f"So {PASSWORD} is the admin's one."},
                ]
            },
        )
    )

    assert PASSWORD not in stored_bytes(settings)


async def test_a_password_named_in_prose_is_redacted(client: Client, settings: Settings) -> None:
    data_of(
        await client.call_tool(
            "cortex_ingest",
            {
                "user_message": "why does the deploy fail?",
                "assistant_message": "The DATABASE_URL points at db.prod with password"
                " S3cr3tPassw0rd; the password reset link in the password manager expired.",
            },
        )
    )

    stored = stored_bytes(settings)
    assert "S3cr3tPassw0rd" not in stored
    assert "the password reset link in the password manager expired" in stored


async def test_a_plain_word_taken_for_a_password_is_not_hunted_through_the_exchange(
    client: Client, settings: Settings
) -> None:
    data_of(
        await client.call_tool(
            "cortex_ingest",
            {
                "user_message": "the password is probably wrong, can you check?",
                "assistant_message": "It is probably the expired one; I probably need the logs.",
            },
        )
    )

    assert "I probably need the logs" in stored_bytes(settings)
