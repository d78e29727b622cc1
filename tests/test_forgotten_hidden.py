"""Nothing forgotten is shown anywhere but where the user asks for forgotten memories (the
browser's `state` filter): not by cortex://entity/{name}, cortex://relations or the browser's
graph (issue #27, item 2)."""

import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import data_of, read_text, remember

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def test_a_forgotten_memory_and_its_relations_leave_every_view(client: Client) -> None:
    old = await remember(
        client,
        "Dana's old bank was Pellucidar",
        relations=[["Dana", "banks with", "Pellucidar"]],
    )
    await remember(client, "Dana works at the Lisbon lab", relations=[["Dana", "works at", "lab"]])
    forgotten = await client.call_tool("cortex_forget", {"memory_id": old["id"]})
    assert not forgotten.is_error

    entity = await read_text(client, "cortex://entity/Dana")
    relations = await read_text(client, "cortex://relations")
    graph = data_of(await client.call_tool("cortex_app_graph", {}))
    dana = data_of(await client.call_tool("cortex_app_graph", {"entity": "Dana"}))
    asked = data_of(await client.call_tool("cortex_app_memories", {"state": "forgotten"}))

    for shown in (entity, relations, json.dumps(graph), json.dumps(dana)):
        assert "Pellucidar" not in shown
        assert "Lisbon" in shown or "lab" in shown  # the live one is still there
    assert [m["content"] for m in asked["memories"]] == ["Dana's old bank was Pellucidar"]
    with pytest.raises(MCPError, match="no entity or memory is named 'Pellucidar'"):
        await read_text(client, "cortex://entity/Pellucidar")
