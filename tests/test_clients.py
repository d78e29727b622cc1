"""Every way a client reaches cortex-mcp, run for real: the JSON configs in clients/ and the
README's snippet (stdio entries launched as written, with the documented placeholder
/absolute/path/to/cortex-mcp replaced by this checkout or by the wheel built from it, as each
clients/*/README.md tells the user to do; remote entries connected to a streamable-HTTP server
with their bearer header), the npm wrapper packed and installed from its tarball, and the Python
example agent."""

import json
import os
import re
import shlex
import shutil
import signal
import sys
from pathlib import Path
from subprocess import DEVNULL, PIPE
from typing import Any

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from cortex_mcp import __version__
from cortex_mcp.config import Settings
from tests.launch import (  # noqa: F401 - built_dist, installed_npm_package, warm_uvx, ... are fixtures
    CHECKOUT_PLACEHOLDER,
    CLIENTS,
    DISTRIBUTION,
    LAUNCH_TIMEOUT_S,
    REPO,
    Dist,
    Uvx,
    built_dist,
    full_env,
    installed_npm_package,
    tool_names,
    warm_checkout,
    warm_uvx,
)
from tests.servers import INITIALIZE, STOP_TIMEOUT_S, http_server, stop

STDIO_CONFIGS = {
    "claude-code/.mcp.json": "mcpServers",  # the Claude Code plugin's server (#25)
    "claude-desktop/claude_desktop_config.json": "mcpServers",
    "cursor/mcp.json": "mcpServers",
    "windsurf/mcp_config.json": "mcpServers",
    "vscode/mcp.json": "servers",
}
PLUGIN_FILES = {  # the Claude Code plugin's manifest and hooks: tests/hooks/test_install.py
    "claude-code/.claude-plugin/plugin.json",
    "claude-code/hooks/hooks.json",
}
REMOTE_CONFIGS = {  # file: (servers key, URL field)
    "cursor/mcp.remote.json": ("mcpServers", "url"),
    "windsurf/mcp_config.remote.json": ("mcpServers", "serverUrl"),
    "vscode/mcp.remote.json": ("servers", "url"),
}
PLUGIN_CHECKOUT = "${CLAUDE_PLUGIN_ROOT}/../.."
"""The Claude Code plugin lives in the checkout (clients/claude-code): it runs from there."""
TOKEN = "token-for-the-client-config-tests"
TOKEN_PLACEHOLDERS = ("${env:CORTEX_AUTH_TOKEN}", "${input:cortex-token}")


def read_json(relative: str) -> Any:
    return json.loads((CLIENTS / relative).read_text(encoding="utf-8"))


def cortex_entry(relative: str, servers_key: str) -> dict[str, Any]:
    entry = read_json(relative)[servers_key]["cortex"]
    assert isinstance(entry, dict)
    return entry


def as_launched(entry: dict[str, Any], source: Path, uvx: Uvx, home: Path) -> StdioServerParameters:
    """The entry as its client runs it once the user has written the absolute path of their
    checkout or wheel (`source`) in place of the placeholder, with the tests' own uvx."""
    assert entry["command"] == "uvx"
    args = [
        arg.replace(CHECKOUT_PLACEHOLDER, str(source)).replace(PLUGIN_CHECKOUT, str(source))
        for arg in entry["args"]
    ]
    env = {**entry.get("env", {}), **uvx.env, "CORTEX_HOME": str(home)}
    return StdioServerParameters(command=str(uvx.path), args=args, env=env)


def source_of(kind: str, dist: Dist) -> Path:
    """What the user wrote in place of the placeholder: the checkout folder, or the wheel."""
    return REPO if kind == "checkout" else dist.wheel


def with_token(value: str) -> str:
    for placeholder in TOKEN_PLACEHOLDERS:
        value = value.replace(placeholder, TOKEN)
    return value


def test_every_json_config_in_clients_parses_and_is_tested_here() -> None:
    configs = {
        path.relative_to(CLIENTS).as_posix(): json.loads(path.read_text(encoding="utf-8"))
        for path in CLIENTS.rglob("*.json")
        if "npm" not in path.relative_to(CLIENTS).parts
    }

    assert set(configs) == set(STDIO_CONFIGS) | set(REMOTE_CONFIGS) | PLUGIN_FILES


@pytest.mark.parametrize("relative", sorted(STDIO_CONFIGS))
def test_stdio_config_runs_uvx_from_a_local_copy_with_our_pypi_name_never_the_foreign_one(
    relative: str,
) -> None:
    entry = cortex_entry(relative, STDIO_CONFIGS[relative])
    source = PLUGIN_CHECKOUT if relative.startswith("claude-code/") else CHECKOUT_PLACEHOLDER

    assert (entry["command"], entry["args"]) == (
        "uvx",
        ["--from", source, DISTRIBUTION],
    ), "works before anything is published: the user's checkout or wheel"
    if relative.startswith("vscode/"):
        assert entry["type"] == "stdio"


@pytest.mark.parametrize("kind", ["checkout", "wheel"])
@pytest.mark.parametrize("relative", sorted(STDIO_CONFIGS))
async def test_stdio_config_with_the_documented_path_answers_initialize_and_lists_the_tools(
    relative: str, kind: str, dist: Dist, uvx: Uvx, checkout_uvx: Uvx, cortex_home: Path
) -> None:
    entry = cortex_entry(relative, STDIO_CONFIGS[relative])
    launcher = checkout_uvx if kind == "checkout" else uvx

    names = await tool_names(as_launched(entry, source_of(kind, dist), launcher, cortex_home))

    assert {"cortex_recall", "cortex_remember"} <= names


@pytest.mark.parametrize("relative", [*sorted(STDIO_CONFIGS), "python/README.md", "npm/README.md"])
def test_each_client_readme_says_first_how_to_get_a_checkout_or_a_wheel(relative: str) -> None:
    readme = (CLIENTS / Path(relative).parent / "README.md").read_text(encoding="utf-8")
    first_section = readme.split("\n## ")[1]

    assert first_section.startswith("First:"), first_section[:80]
    assert "git clone" in first_section
    assert f"cortex_mcp_server-{__version__}-py3-none-any.whl" in first_section


def readme_json_snippet() -> dict[str, Any]:
    """The one JSON client entry in the README's "Use it from…" section."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Use it from") :]
    block = section.split("```json\n", 1)[1].split("```", 1)[0]
    parsed: dict[str, Any] = json.loads(block)
    return parsed


async def test_readme_client_snippet_with_the_checkout_path_answers_initialize(
    checkout_uvx: Uvx, cortex_home: Path
) -> None:
    entry = readme_json_snippet()["mcpServers"]["cortex"]

    names = await tool_names(as_launched(entry, REPO, checkout_uvx, cortex_home))

    assert entry["args"] == ["--from", CHECKOUT_PLACEHOLDER, DISTRIBUTION]
    assert "cortex_recall" in names


def test_readme_does_not_present_an_unpublished_command_as_the_way_in() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    use_it = readme[readme.index("## Use it from") : readme.index("## Tools")]
    unpublished = ('"args": ["cortex-mcp-server"]', '"args": ["-y", "cortex-mcp"]')

    assert "starts the same command, `uvx cortex-mcp-server`" not in use_it
    for paragraph in use_it.split("\n\n"):
        if any(command in paragraph for command in unpublished):
            assert re.search(r"[Oo]nce (`cortex-mcp-server` is on PyPI|published)", paragraph), (
                paragraph
            )


def test_vscode_remote_config_asks_for_the_token_as_a_password() -> None:
    config = read_json("vscode/mcp.remote.json")
    (token_input,) = config["inputs"]

    assert config["servers"]["cortex"]["type"] == "http"
    assert "${input:" + token_input["id"] + "}" in TOKEN_PLACEHOLDERS
    assert token_input["type"] == "promptString"
    assert token_input["password"] is True


@pytest.mark.parametrize("relative", sorted(REMOTE_CONFIGS))
async def test_remote_config_reaches_streamable_http_with_its_bearer_header(
    relative: str, cortex_home: Path
) -> None:
    servers_key, url_field = REMOTE_CONFIGS[relative]
    entry = cortex_entry(relative, servers_key)
    documented = f"127.0.0.1:{Settings.model_fields['port'].default}"
    headers = {name: with_token(value) for name, value in entry["headers"].items()}

    assert entry[url_field] == f"http://{documented}/mcp"
    assert headers == {"Authorization": f"Bearer {TOKEN}"}
    env = {"CORTEX_AUTH_TOKEN": TOKEN}
    async with http_server(cortex_home, "streamable-http", env=env) as server:
        url = entry[url_field].replace(documented, f"127.0.0.1:{server.port}")
        with anyio.fail_after(LAUNCH_TIMEOUT_S):
            async with (
                create_mcp_http_client(headers=headers) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                listed = await client.list_tools()

    assert "cortex_recall" in {tool.name for tool in listed.tools}


# The npm wrapper ------------------------------------------------------------------------------


def test_npm_package_is_cortex_mcp_with_one_bin_and_no_dependencies() -> None:
    package = read_json("npm/package.json")

    assert package["name"] == "cortex-mcp"
    assert package["version"] == __version__
    assert package["license"] == "MIT"
    assert package["bin"] == {"cortex-mcp": "bin/cortex-mcp.js"}
    assert package["engines"] == {"node": ">=18"}
    assert "bin/cortex-mcp.js" in package["files"]
    assert not any(key.endswith("ependencies") for key in package)


def wrapper_env(uvx: Uvx, dist: Dist, home: Path) -> dict[str, str]:
    return {**uvx.env, "CORTEX_MCP_UVX_FROM": str(dist.wheel), "CORTEX_HOME": str(home)}


@pytest.fixture
def only_node(tmp_path: Path) -> Path:
    """A directory with nothing but a link to node: no uvx, no python3, no python."""
    node = shutil.which("node")
    assert node is not None
    directory = tmp_path / "only-node"
    directory.mkdir()
    (directory / "node").symlink_to(node)
    return directory


@pytest.fixture
def pythons(tmp_path: Path) -> Path:
    """`python3`: a real Python that cannot import cortex_mcp (-I -S: no site-packages);
    `python`: this venv's Python, which can."""
    directory = tmp_path / "pythons"
    directory.mkdir()
    for name, flags in (("python3", " -I -S"), ("python", "")):
        script = directory / name
        script.write_text(
            f'#!/bin/sh\nexec {shlex.quote(sys.executable)}{flags} "$@"\n', encoding="utf-8"
        )
        script.chmod(0o755)
    return directory


async def test_npm_wrapper_runs_uvx_and_answers_initialize_and_tools_list(
    npm_bin: Path, dist: Dist, uvx: Uvx, cortex_home: Path
) -> None:
    server = StdioServerParameters(command=str(npm_bin), env=wrapper_env(uvx, dist, cortex_home))

    names = await tool_names(server)

    assert {"cortex_recall", "cortex_remember"} <= names


async def test_npm_wrapper_without_uvx_falls_through_to_a_python_that_has_the_package(
    npm_bin: Path, only_node: Path, pythons: Path, cortex_home: Path
) -> None:
    path = os.pathsep.join([str(only_node), str(pythons)])
    with anyio.fail_after(LAUNCH_TIMEOUT_S):
        probe = await anyio.run_process(
            [pythons / "python3", "-c", "import cortex_mcp"], stdin=DEVNULL, check=False
        )
    server = StdioServerParameters(
        command=str(npm_bin), env={"PATH": path, "CORTEX_HOME": str(cortex_home)}
    )

    names = await tool_names(server)

    assert probe.returncode != 0, "python3 is meant to lack the package"
    assert "cortex_recall" in names


@pytest.fixture
def foreign_python(tmp_path: Path) -> Path:
    """`python3` that imports a foreign `cortex_mcp` (the unrelated PyPI project `cortex-mcp`
    1.1.20 uses that import name) and lacks our distribution."""
    site = tmp_path / "foreign-site"
    (site / "cortex_mcp").mkdir(parents=True)
    (site / "cortex_mcp" / "__init__.py").write_text("", encoding="utf-8")
    (site / "cortex_mcp" / "__main__.py").write_text(
        "import sys\nsys.stdout.write('FOREIGN PROGRAM\\n')\n", encoding="utf-8"
    )
    info = site / "cortex_mcp-1.1.20.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: cortex-mcp\nVersion: 1.1.20\n", encoding="utf-8"
    )
    directory = tmp_path / "foreign-python"
    directory.mkdir()
    script = directory / "python3"
    script.write_text(
        f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(site))} exec {shlex.quote(sys.executable)} -S"
        ' "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return directory


async def test_npm_wrapper_refuses_a_python_whose_cortex_mcp_is_the_foreign_project(
    npm_bin: Path, only_node: Path, foreign_python: Path, tmp_path: Path
) -> None:
    path = os.pathsep.join([str(only_node), str(foreign_python)])
    with anyio.fail_after(LAUNCH_TIMEOUT_S):  # cwd outside the checkout: not its cortex_mcp
        probe = await anyio.run_process(
            [foreign_python / "python3", "-m", "cortex_mcp"],
            stdin=DEVNULL,
            check=False,
            cwd=tmp_path,
        )
        done = await anyio.run_process(
            [npm_bin], env={"PATH": path}, stdin=DEVNULL, check=False, cwd=tmp_path
        )
    lines = done.stderr.decode("utf-8").splitlines()

    assert probe.stdout == b"FOREIGN PROGRAM\n", "python3 does import a cortex_mcp"
    assert done.returncode == 127
    assert done.stdout == b"", "the foreign program never ran"
    assert len(lines) == 1
    assert f"{DISTRIBUTION} {__version__}" in lines[0]


async def test_npm_wrapper_with_neither_uvx_nor_the_package_says_how_to_install_in_one_line(
    npm_bin: Path, only_node: Path
) -> None:
    with anyio.fail_after(LAUNCH_TIMEOUT_S):
        done = await anyio.run_process(
            [npm_bin], env={"PATH": str(only_node)}, stdin=DEVNULL, check=False
        )
    lines = done.stderr.decode("utf-8").splitlines()

    assert done.returncode == 127
    assert done.stdout == b""
    assert len(lines) == 1
    assert "https://docs.astral.sh/uv/" in lines[0]
    assert "CORTEX_MCP_UVX_FROM" in lines[0]
    assert f"=={__version__}" not in lines[0], "no advice to install what is not published"


UV_NOT_FOUND = (
    "error: No solution found when resolving tool dependencies\n"
    f"  cause: Because {DISTRIBUTION} was not found in the package registry and you require"
    f" {DISTRIBUTION}=={__version__}, we can conclude that your requirements are unsatisfiable.\n"
)
"""What uv 0.9 writes, and exit status 1, for `uvx --from cortex-mcp-server==<v>` today."""


@pytest.fixture
def failing_uvx(tmp_path: Path) -> Path:
    """A directory whose `uvx` fails as uv does while the package is not on PyPI (it reads no
    stdin, like uv resolving), and records the arguments it was given."""
    directory = tmp_path / "failing-uvx"
    directory.mkdir()
    script = directory / "uvx"
    script.write_text(
        f"#!/bin/sh\nprintf '%s\\n' \"$*\" > {shlex.quote(str(directory / 'args'))}\n"
        f"printf %s {shlex.quote(UV_NOT_FOUND)} >&2\nexit 1\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return directory


async def test_npm_wrapper_after_a_failed_uvx_falls_back_to_a_python_that_has_the_package(
    npm_bin: Path, only_node: Path, failing_uvx: Path, pythons: Path, cortex_home: Path
) -> None:
    path = os.pathsep.join([str(only_node), str(failing_uvx), str(pythons)])
    server = StdioServerParameters(
        command=str(npm_bin), env={"PATH": path, "CORTEX_HOME": str(cortex_home)}
    )

    names = await tool_names(server)

    uvx_args = (failing_uvx / "args").read_text(encoding="utf-8")
    assert uvx_args.startswith(f"--from {DISTRIBUTION}=={__version__} cortex-mcp"), "uvx first"
    assert "cortex_recall" in names, "the initialize sent while uvx ran reached the fallback"


async def test_npm_wrapper_after_a_failed_uvx_and_no_python_names_cortex_mcp_uvx_from_in_one_line(
    npm_bin: Path, only_node: Path, failing_uvx: Path
) -> None:
    path = os.pathsep.join([str(only_node), str(failing_uvx)])
    with anyio.fail_after(LAUNCH_TIMEOUT_S):
        done = await anyio.run_process([npm_bin], env={"PATH": path}, stdin=DEVNULL, check=False)
    lines = done.stderr.decode("utf-8").splitlines()

    assert (failing_uvx / "args").exists(), "uvx was tried"
    assert done.returncode == 127
    assert done.stdout == b""
    assert len(lines) == 1, lines
    assert "CORTEX_MCP_UVX_FROM" in lines[0]
    assert f"=={__version__}" in lines[0], "names what uvx could not get"
    assert "pip install" not in lines[0]


async def test_npm_wrapper_with_its_source_pinned_shows_uvs_own_error_and_exit_code(
    npm_bin: Path, only_node: Path, failing_uvx: Path, pythons: Path, tmp_path: Path
) -> None:
    path = os.pathsep.join([str(only_node), str(failing_uvx), str(pythons)])
    env = {"PATH": path, "CORTEX_MCP_UVX_FROM": str(tmp_path / "not-a-checkout")}
    with anyio.fail_after(LAUNCH_TIMEOUT_S):
        done = await anyio.run_process([npm_bin], env=env, stdin=DEVNULL, check=False)

    assert done.returncode == 1, "uv's status: the user's own source is what failed"
    assert done.stderr.decode("utf-8") == UV_NOT_FOUND
    assert done.stdout == b""


async def test_npm_readme_entry_runs_the_checkouts_script_with_cortex_mcp_uvx_from(
    checkout_uvx: Uvx, cortex_home: Path
) -> None:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    readme = (CLIENTS / "npm" / "README.md").read_text(encoding="utf-8")
    block = readme.split("```json\n", 1)[1].split("```", 1)[0]
    entry = json.loads(block)["mcpServers"]["cortex"]
    args = [arg.replace(CHECKOUT_PLACEHOLDER, str(REPO)) for arg in entry["args"]]
    env = {k: v.replace(CHECKOUT_PLACEHOLDER, str(REPO)) for k, v in entry["env"].items()}
    env |= {**checkout_uvx.env, "CORTEX_HOME": str(cortex_home)}
    server = StdioServerParameters(command=entry["command"], args=args, env=env)

    names = await tool_names(server)

    assert entry["command"] == "node"
    assert "cortex_recall" in names


async def test_npm_wrapper_passes_arguments_through_and_propagates_the_exit_code(
    npm_bin: Path, dist: Dist, uvx: Uvx, cortex_home: Path
) -> None:
    env = full_env(wrapper_env(uvx, dist, cortex_home))
    with anyio.fail_after(LAUNCH_TIMEOUT_S):
        done = await anyio.run_process(
            [npm_bin, "--definitely-not-a-flag"], env=env, stdin=DEVNULL, check=False
        )

    assert done.returncode == 2, "argparse's usage error, through uvx and node"
    assert "unrecognized arguments: --definitely-not-a-flag" in done.stderr.decode("utf-8")


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, read from /proc."""
    children = [
        int(child)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for child in (task / "children").read_text(encoding="ascii").split()
    ]
    return children + [grandchild for child in children for grandchild in descendants(child)]


def alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie, exited but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree in /proc")
@pytest.mark.parametrize("launcher", ["uvx", "python"])
async def test_sigterm_to_the_npm_wrapper_stops_the_server_and_exits_128_plus_15(
    launcher: str,
    npm_bin: Path,
    dist: Dist,
    uvx: Uvx,
    only_node: Path,
    pythons: Path,
    cortex_home: Path,
    tmp_path: Path,
) -> None:
    if launcher == "uvx":
        env = full_env(wrapper_env(uvx, dist, cortex_home))
    else:
        env = {"PATH": os.pathsep.join([str(only_node), str(pythons)])}
        env["CORTEX_HOME"] = str(cortex_home)
    stderr_path = tmp_path / "wrapper.stderr"
    with stderr_path.open("wb") as stderr:
        wrapper = await anyio.open_process(
            [npm_bin], env=env, stdin=PIPE, stdout=PIPE, stderr=stderr
        )
    try:
        assert wrapper.stdin is not None and wrapper.stdout is not None
        with anyio.fail_after(LAUNCH_TIMEOUT_S):
            await wrapper.stdin.send(json.dumps(INITIALIZE).encode("utf-8") + b"\n")
            reply = await BufferedByteReceiveStream(wrapper.stdout).receive_until(b"\n", 1 << 20)
        server_tree = descendants(wrapper.pid)

        wrapper.send_signal(signal.SIGTERM)
        with anyio.fail_after(STOP_TIMEOUT_S):
            await wrapper.wait()
            while True:  # the server may be reparented once uvx or node is gone: poll /proc
                if not any(alive(pid) for pid in server_tree):
                    break
                await anyio.sleep(0.05)
    finally:
        await stop(wrapper)

    log = stderr_path.read_text(encoding="utf-8", errors="replace")
    assert json.loads(reply)["result"]["serverInfo"]["name"] == "cortex-mcp", log
    assert server_tree, "the wrapper started the server as its child"
    assert wrapper.returncode == 128 + signal.SIGTERM, log


# The Python example ---------------------------------------------------------------------------


async def test_python_example_agent_recalls_what_it_was_told_earlier(
    tmp_path: Path, cortex_home: Path
) -> None:
    script = tmp_path / "user-lines.txt"
    lines = ["I prefer green tea to coffee in the morning.", "Nice weather!", "Which tea is best?"]
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    agent: list[str | Path] = [CLIENTS / "python" / "agent.py", "--script", script, "--keep", "4"]
    with anyio.fail_after(LAUNCH_TIMEOUT_S):  # as its README runs it: no --server
        done = await anyio.run_process(
            [sys.executable, *agent],
            env=full_env({"CORTEX_HOME": str(cortex_home)}),
            stdin=DEVNULL,
            check=False,
        )
    log = done.stderr.decode("utf-8")
    answers = [
        line for line in done.stdout.decode("utf-8").splitlines() if line.startswith("agent> ")
    ]

    assert done.returncode == 0, log
    assert len(answers) == len(lines)
    assert "green tea" in answers[-1].split("You said:")[0], "recalled before answering"
    assert "cortex_recall=3" in log
    assert "cortex_ingest=3" in log, "ingested after every exchange"
    assert "cortex_flush=1" in log, "flushed once, when 6 messages outgrew --keep 4"


def test_no_launch_path_runs_a_bare_uvx_cortex_mcp() -> None:
    """`uvx cortex-mcp` starts an unrelated PyPI project: every mention warns against it."""
    documents = [CLIENTS.parent / "README.md", *CLIENTS.rglob("*.md"), *CLIENTS.rglob("*.py")]
    documents += [*CLIENTS.rglob("*.js"), *CLIENTS.rglob("*.json")]
    for document in documents:
        for paragraph in document.read_text(encoding="utf-8").split("\n\n"):
            flat = " ".join(paragraph.split())
            if re.search(r"uvx cortex-mcp(?![-\w])", flat):
                assert re.search(r"unrelated|never", flat), (document, flat)
            assert '"args": ["cortex-mcp"]' not in flat, document
