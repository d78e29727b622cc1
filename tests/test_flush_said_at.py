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


async def test_what_an_ingested_exchange_stores_is_dated_when_it_was_said(client: Client) -> None:
    """Retest16: `said_at` dated only the log lines; the memories the exchange stored (and so
    their working day and recall's date boost) were dated at the replay, as `cortex_flush`'s
    were not."""
    arguments = {
        "user_message": "I live in Lisbon.",
        "assistant_message": "Noted.",
        "said_at": "2023-01-20T16:04:00+01:00",
    }
    stored = data_of(await client.call_tool("cortex_ingest", arguments))

    found = (await recall(client, "where do I live?"))["memories"]

    assert stored["fast"] and [m["content"] for m in found] == ["I live in Lisbon."], stored
    assert found[0]["created_at"][:16] == "2023-01-20T15:04", found


@pytest.mark.parametrize(
    "when", ["yesterday", "2023-01-20T16:04:00", "0001-01-01T00:30:00+05:00", "1969-06-01T00:00Z"]
)
async def test_an_ingest_said_at_that_is_no_zoned_time_is_refused(
    client: Client, when: str
) -> None:
    arguments = {"user_message": "The release train leaves on Thursdays.", "said_at": when}
    result = await client.call_tool("cortex_ingest", arguments)

    assert result.is_error and "said_at" in text_of(result), text_of(result)
    assert (await recall(client, "release train"))["conversation"] == []


async def test_a_said_at_in_the_future_is_logged_as_now(client: Client) -> None:
    """Found re-testing (retest14 D5): cortex_flush took a time after now as now, cortex_ingest
    kept it, and recall showed "[said 2027-06-01]"."""
    arguments = {
        "user_message": "The release train leaves on Thursdays.",
        "said_at": "2099-06-01T10:00:00Z",
    }
    data_of(await client.call_tool("cortex_ingest", arguments))

    said = (await recall(client, "when does the release train leave?"))["conversation"]

    assert said and all(line["created_at"] < "2099" for line in said), said


async def test_a_flushed_said_at_before_1970_is_refused_naming_the_message(
    client: Client,
) -> None:
    """Found re-testing (retest14 D6): year 1 with an offset overflowed on the way to UTC and
    ended as a tool error naming nothing."""
    message = {"role": "user", "content": "The release train leaves on Thursdays."}
    late = message | {"said_at": "0001-01-01T00:30:00+05:00"}
    result = await client.call_tool("cortex_flush", {"messages": [message, late]})

    assert result.is_error and "messages[1].said_at" in text_of(result), text_of(result)
    assert (await recall(client, "release train"))["conversation"] == []
