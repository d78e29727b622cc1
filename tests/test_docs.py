"""Docs honesty: every tool and resource the server offers is in the README."""

import re
from pathlib import Path

from mcp import Client

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


async def test_every_tool_is_documented_in_the_readme_and_has_a_description(client: Client) -> None:
    for tool in (await client.list_tools()).tools:
        assert f"`{tool.name}`" in README, tool.name
        assert tool.description and len(tool.description) > 30, tool.name


async def test_every_resource_is_documented_in_the_readme(client: Client) -> None:
    uris = [str(r.uri) for r in (await client.list_resources()).resources]
    uris += [t.uri_template for t in (await client.list_resource_templates()).resource_templates]

    for uri in uris:
        assert f"`{uri}`" in README, uri


def test_readme_starts_with_the_install_and_test_commands() -> None:
    head = README[: README.index("## ")]

    assert "uvx cortex-mcp" in head or "pip install" in head
    assert "scripts/test" in head


async def test_every_prompt_is_documented_in_the_readme(client: Client) -> None:
    for prompt in (await client.list_prompts()).prompts:
        assert f"`{prompt.name}`" in README, prompt.name


def test_every_generated_block_in_the_benchmarks_closes_and_holds_one_section() -> None:
    """A bench rewrites what lies between its markers: another section inside would be lost."""
    text = (Path(__file__).parent.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    begins = re.findall(r"<!-- ([\w-]+):begin -->", text)
    ends = re.findall(r"<!-- ([\w-]+):end -->", text)

    assert sorted(begins) == sorted(ends) == sorted(set(begins))
    for name in begins:
        block = text.split(f"<!-- {name}:begin -->", 1)[1].split(f"<!-- {name}:end -->", 1)[0]
        headings = re.findall(r"^## .*", block, re.MULTILINE)
        assert len(headings) <= 1, (name, headings)
        assert not headings or block.lstrip().startswith(headings[0]), (name, headings)
