"""cortex_flush takes when each message was said, and cortex_ingest when its exchange was, as the
hooks read it from the transcript; a time that is no time, or one without its zone, is refused
naming the field, nothing logged."""

import pytest
from mcp import Client

from tests.conftest import data_of, recall, text_of

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def test_a_flushed_message_is_logged_when_it_was_said(client: Client) -> None:
    message = {"role": "user", "content": "The release train leaves on Thursdays."}
    arguments = {"messages": [message | {"said_at": "2023-01-20T16:04:00Z"}], "session_id": "s"}
    data_of(await client.call_tool("cortex_flush", arguments))

    said = (await recall(client, "when does the release train leave?"))["conversation"]

    assert [line["created_at"][:10] for line in said] == ["2023-01-20"], said


@pytest.mark.parametrize("when", ["yesterday", "2023-01-20T16:04:00"])
async def test_a_said_at_that_is_no_zoned_time_is_refused(client: Client, when: str) -> None:
    message = {"role": "user", "content": "The release train leaves on Thursdays.", "said_at": when}
    result = await client.call_tool("cortex_flush", {"messages": [message]})

    assert result.is_error and "said_at" in text_of(result), text_of(result)
    assert (await recall(client, "release train"))["conversation"] == []


async def test_an_ingested_exchange_is_logged_when_it_was_said(client: Client) -> None:
    """Found in round twelve's last read: a Stop spooled while no server ran was dated by the
    clock of the server that replayed it (cortex_ingest took no time)."""
    arguments = {
        "user_message": "The release train leaves on Thursdays.",
        "assistant_message": "Noted: Thursdays.",
        "said_at": "2023-01-20T16:04:00+01:00",
    }
    data_of(await client.call_tool("cortex_ingest", arguments))

    said = (await recall(client, "when does the release train leave?"))["conversation"]

    assert {line["created_at"][:16] for line in said} == {"2023-01-20T15:04"}, said


@pytest.mark.parametrize("when", ["yesterday", "2023-01-20T16:04:00"])
async def test_an_ingest_said_at_that_is_no_zoned_time_is_refused(
    client: Client, when: str
) -> None:
    arguments = {"user_message": "The release train leaves on Thursdays.", "said_at": when}
    result = await client.call_tool("cortex_ingest", arguments)

    assert result.is_error and "said_at" in text_of(result), text_of(result)
    assert (await recall(client, "release train"))["conversation"] == []
