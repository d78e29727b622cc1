"""One authorisation point: every tool and resource the server lists, tried by one token against
another token's memory and exchange and against shared memory it may only read, changes none of
them and shows none of another's. The tools and templates are enumerated from the server, so a
tool added later is tried too (issue #27, item 1)."""

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from cortex_mcp.browser.app import APP_MIME_TYPE, UI_EXTENSION
from tests.conftest import data_of, text_of
from tests.servers import STARTUP_TIMEOUT_S, http_server

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

ALICE = "alice-token-" + "a" * 32
BOB = "bob-token-" + "b" * 32
TOKENS = json.dumps(
    [
        {"token": ALICE, "agents": ["alice"]},  # shared: read
        {"token": BOB, "agents": ["bob"], "shared": "write"},
    ]
)
BOBS_SECRET = "zebrafinch"
BOBS_SAID = "walrus"
FILLERS: dict[str, Any] = {
    "content": "Alice notes the locker code",
    "query": "locker code statue harbour",
    "user_message": "hello there",
    "messages": [{"role": "user", "content": "hello there"}],
    "run_id": 1,
    "matching": "locker code",
}
"""A value for each required argument that is not the one being tried."""


@asynccontextmanager
async def clients(home: Path) -> AsyncIterator[tuple[Client, Client]]:
    """Alice (agents: alice; shared: read) and Bob (agents: bob; shared: write), over HTTP,
    both rendering MCP Apps so that the app-only tools are listed too."""
    ui = advertise(UI_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]})
    env = {"CORTEX_AUTH_TOKENS": TOKENS}
    async with http_server(home, "streamable-http", env=env) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S * 4):
            url = f"{server.base_url}/mcp"
            async with (
                create_mcp_http_client(headers={"Authorization": f"Bearer {ALICE}"}) as a_http,
                create_mcp_http_client(headers={"Authorization": f"Bearer {BOB}"}) as b_http,
                Client(streamable_http_client(url, http_client=a_http), extensions=[ui]) as alice,
                Client(streamable_http_client(url, http_client=b_http), extensions=[ui]) as bob,
            ):
                yield alice, bob


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    return data_of(result)


async def answer(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    """What the tool answered, error or not, as text."""
    try:
        result = await client.call_tool(tool, arguments)
    except MCPError as error:
        return str(error)
    return json.dumps([c.model_dump() for c in result.content]) + json.dumps(
        result.structured_content
    )


def is_string(node: dict[str, Any]) -> bool:
    return node.get("type") == "string" or any(
        branch.get("type") == "string" for branch in node.get("anyOf", [])
    )


def is_string_list(node: dict[str, Any]) -> bool:
    branches = [node, *node.get("anyOf", [])]
    return any(b.get("type") == "array" and is_string(b.get("items", {})) for b in branches)


def tries(schema: dict[str, Any], targets: list[str], own: str) -> list[dict[str, Any]]:
    """Every argument set that puts a target id into one argument able to hold it, the
    required others filled in (a memory id with the caller's own)."""
    properties: dict[str, Any] = schema.get("properties", {})
    required = list(schema.get("required", []))
    base = {name: FILLERS.get(name, own) for name in required}
    found = []
    for name, node in properties.items():
        if name == "agent_id":
            continue
        for target in targets:
            if is_string(node):
                found.append(base | {name: target})
            elif is_string_list(node):
                found.append(base | {name: [target]})
    if "scope" in properties:
        found.append(base | {"scope": "shared"})
    return [*found, base, base | {"agent_id": "bob"}]


async def snapshot(bob: Client, ids: list[str]) -> list[dict[str, Any]]:
    """The memories as Bob's token sees them through the browser."""
    shown = []
    for memory_id in ids:
        detail = await call(bob, "cortex_app_memory", memory_id=memory_id)
        memory = detail["memory"]
        shown.append({k: memory.get(k) for k in ("content", "importance", "category", "layer")})
        shown[-1] |= {"state": memory.get("state"), "superseded_by": memory.get("superseded_by")}
    return shown


async def test_no_tool_or_resource_lets_a_token_touch_another_agents_or_read_only_memory(
    cortex_home: Path,
) -> None:
    async with clients(cortex_home) as (alice, bob):
        bobs = await call(bob, "cortex_remember", content=f"Bob's locker code is {BOBS_SECRET}")
        shared = await call(
            bob, "cortex_remember", content="The team wiki is on the teal server", scope="shared"
        )
        await call(
            bob,
            "cortex_flush",
            messages=[{"role": "user", "content": f"the {BOBS_SAID} statue by the harbour"}],
        )
        said = await call(bob, "cortex_recall", query=BOBS_SAID)
        exchange = said["conversation"][0]["exchange_id"]
        own = (await call(alice, "cortex_remember", content="Alice parks in bay 9"))["id"]
        before = await snapshot(bob, [bobs["id"], shared["id"]])

        listed = (await alice.list_tools()).tools
        targets = [bobs["id"], shared["id"], exchange]
        answers: dict[str, list[str]] = {}
        for tool in listed:
            for arguments in tries(tool.input_schema, targets, own):
                answers.setdefault(tool.name, []).append(await answer(alice, tool.name, arguments))
        templates = (await alice.list_resource_templates()).resource_templates
        statics = (await alice.list_resources()).resources
        uris = [str(r.uri) for r in statics]
        for template in templates:
            for value in [*targets, "Bob", "locker", "2026-01-01", "2026-01"]:
                uri = template.uri_template
                for variable in ("memory_id", "name", "date", "month"):
                    uri = uri.replace("{" + variable + "}", value)
                uris.append(uri)
        for uri in uris:
            try:
                read = await alice.read_resource(uri)
                answers.setdefault(uri, []).append(
                    json.dumps([c.model_dump() for c in read.contents])
                )
            except MCPError as error:
                answers.setdefault(uri, []).append(str(error))

        after = await snapshot(bob, [bobs["id"], shared["id"]])
        still = await call(bob, "cortex_recall", query=BOBS_SAID)
        shared_now = await call(bob, "cortex_app_memories", scope="shared")

    leaks = {name: a for name, texts in answers.items() for a in texts if BOBS_SECRET in a}
    leaks |= {name: a for name, texts in answers.items() for a in texts if BOBS_SAID in a}
    assert leaks == {}
    assert after == before  # neither Bob's memory nor the read-only shared one changed
    assert [h["exchange_id"] for h in still["conversation"]] == [exchange]
    assert [m["id"] for m in shared_now["memories"]] == [shared["id"]]  # alice wrote none
    assert {t.name for t in listed} >= {"cortex_forget", "cortex_app_edit", "cortex_remember"}
    assert any("memory_id: is shared memory" in a for a in answers["cortex_app_edit"])
    assert any("supersedes: is shared memory" in a for a in answers["cortex_remember"])


async def test_a_token_still_changes_its_own_memory_and_writable_shared_memory(
    cortex_home: Path,
) -> None:
    async with clients(cortex_home) as (alice, bob):
        own = await call(alice, "cortex_remember", content="Alice parks in bay 9")
        edited = await call(alice, "cortex_app_edit", memory_id=own["id"], content="Bay 10")
        shared = await call(bob, "cortex_remember", content="Team lunch is at noon", scope="shared")
        replaced = await call(
            bob, "cortex_remember", content="Team lunch is at one", supersedes=shared["id"]
        )
        with pytest.raises(MCPError, match="memory_id: is shared memory"):
            await alice.call_tool("cortex_forget", {"memory_id": shared["id"]})

    assert edited["memory"]["content"] == "Bay 10"
    assert replaced["superseded_id"] == shared["id"]
