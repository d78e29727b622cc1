#!/usr/bin/env python3
"""Stage the MCP Bundle (.mcpb) of this checkout, for one-click install in Claude Desktop.

    scripts/build_mcpb.py [--out DIR]          # default: build/mcpb
    npx @anthropic-ai/mcpb validate DIR/manifest.json
    npx @anthropic-ai/mcpb pack DIR cortex-mcp.mcpb

The bundle uses the `uv` server type: the host runs `uv run --directory <bundle>
server/main.py`; uv brings Python and the dependencies listed in the bundle's own
pyproject.toml (this project's, which carry the local embedder where its wheels exist). The
cortex_mcp package itself travels inside the bundle (server/cortex_mcp), so the bundle
works before anything is published on PyPI.

Runs on any Python 3.11+ with the standard library alone (no virtualenv, no `mcp`): it reads
pyproject.toml and copies files. The tools the manifest lists are the ones the model sees;
tests/test_bundle.py checks them against a running server's tools/list.

`user_config` asks for the memory folder, the embedding choice and the optional OpenAI and
Anthropic keys (marked sensitive, so the host keeps them in the OS keychain).
"""

import argparse
import json
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

TOOLS = {  # name: title, as tools/list shows them to the model (the app-only tools are not here)
    "cortex_recall": "Recall memories",
    "cortex_remember": "Remember a fact",
    "cortex_ingest": "Learn from an exchange",
    "cortex_flush": "Save messages before compaction",
    "cortex_forget": "Forget a memory",
    "cortex_restore": "Restore a forgotten memory",
    "cortex_search_debug": "Explain a recall",
    "cortex_lifecycle": "Consolidate memory",
    "cortex_profile": "Write the user's profile",
    "cortex_scratchpad": "Read or write the scratchpad",
    "cortex_browse": "Open the memory browser",
}

MAIN = '''\
"""Entry point of the cortex-mcp MCP Bundle: the bundled cortex_mcp package, as
`cortex-mcp-server` runs it (uv starts this file; its folder is first on sys.path)."""

import os

# The host passes an unanswered "memory folder" as an empty CORTEX_HOME: that is the default
# folder, as the install dialog says, not a mistake worth a warning at every start.
if os.environ.get("CORTEX_HOME") == "":
    del os.environ["CORTEX_HOME"]

from cortex_mcp.cli import main  # noqa: E402 - after the environment is settled

raise SystemExit(main())
'''

USER_CONFIG: dict[str, dict[str, Any]] = {
    "memory_folder": {
        "type": "directory",
        "title": "Memory folder",
        "description": "Where cortex-mcp keeps its database, MEMORY.md and memory/. Leave empty "
        "for the default (your user data folder, e.g. ~/Library/Application Support/cortex-mcp).",
        "required": False,
    },
    "embedding": {
        "type": "string",
        "title": "Semantic search",
        "description": "auto (OpenAI when a key is set, else the bundled local model), local, "
        "openai, or none (keyword search only).",
        "default": "auto",
        "required": False,
    },
    "openai_api_key": {
        "type": "string",
        "title": "OpenAI API key (optional)",
        "description": "Used for embeddings and, without an Anthropic key, for extraction.",
        "sensitive": True,
        "required": False,
    },
    "anthropic_api_key": {
        "type": "string",
        "title": "Anthropic API key (optional)",
        "description": "Used to extract, merge and summarise memories; without any key "
        "cortex-mcp asks the client's model or falls back to rules.",
        "sensitive": True,
        "required": False,
    },
}

ENV = {
    "CORTEX_HOME": "${user_config.memory_folder}",
    "CORTEX_EMBEDDING__PROVIDER": "${user_config.embedding}",
    "OPENAI_API_KEY": "${user_config.openai_api_key}",
    "ANTHROPIC_API_KEY": "${user_config.anthropic_api_key}",
}


def project() -> dict[str, Any]:
    """The [project] table of this checkout's pyproject.toml."""
    with (REPO / "pyproject.toml").open("rb") as file:
        table: dict[str, Any] = tomllib.load(file)["project"]
    return table


def manifest(meta: dict[str, Any]) -> dict[str, Any]:
    """manifest.json (MCPB manifest 0.4, the first with the uv server type)."""
    homepage = meta["urls"]["Homepage"]
    return {
        "manifest_version": "0.4",
        "name": "cortex-mcp",
        "display_name": "cortex-mcp: long-term memory",
        "version": meta["version"],
        "description": meta["description"],
        "author": {"name": meta["authors"][0]["name"]},
        "repository": {"type": "git", "url": homepage},
        "homepage": homepage,
        "license": meta["license"],
        "keywords": meta["keywords"],
        "server": {
            "type": "uv",
            "entry_point": "server/main.py",
            "mcp_config": {
                "command": "uv",
                "args": ["run", "--directory", "${__dirname}", "server/main.py"],
                "env": ENV,
            },
        },
        "tools": [{"name": name, "description": title} for name, title in TOOLS.items()],
        "user_config": USER_CONFIG,
        "compatibility": {
            "platforms": ["darwin", "win32", "linux"],
            "runtimes": {"python": meta["requires-python"]},
        },
    }


def bundle_pyproject(meta: dict[str, Any]) -> str:
    """The bundle's pyproject.toml: dependencies only (`package = false`: nothing to build).
    The plain install's: they carry the local embedder (the `local` extra only repeats it)."""
    requirements = list(dict.fromkeys(meta["dependencies"]))
    lines = "\n".join(f"    {json.dumps(requirement)}," for requirement in requirements)
    return (
        "[project]\n"
        'name = "cortex-mcp-bundle"\n'
        f'version = "{meta["version"]}"\n'
        f'requires-python = "{meta["requires-python"]}"\n'
        f"dependencies = [\n{lines}\n]\n\n"
        "[tool.uv]\npackage = false\n"
    )


def stage(out: Path) -> Path:
    """Write the bundle's folder at `out` (replacing it) and return it."""
    meta = project()
    if out.exists():
        shutil.rmtree(out)
    (out / "server").mkdir(parents=True)
    shutil.copytree(
        REPO / "cortex_mcp",
        out / "server" / "cortex_mcp",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    (out / "server" / "main.py").write_text(MAIN, encoding="utf-8")
    (out / "pyproject.toml").write_text(bundle_pyproject(meta), encoding="utf-8")
    shutil.copy(REPO / "LICENSE", out / "LICENSE")
    text = json.dumps(manifest(meta), indent=2, ensure_ascii=False) + "\n"
    (out / "manifest.json").write_text(text, encoding="utf-8")
    return out


def main() -> int:
    """Stage the bundle; print where."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=REPO / "build" / "mcpb")
    out = stage(parser.parse_args().out.resolve())
    sys.stdout.write(f"{out}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
