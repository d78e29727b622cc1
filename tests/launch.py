"""The ways people launch cortex-mcp, built for real once per test session: the wheel and sdist
from `python -m build`, `uvx --from <wheel>`, and the npm wrapper packed and installed.

Test modules import the fixtures they use (`from tests.launch import built_dist  # noqa: F401`);
pytest knows them by their `name=`. Each importing module gets its own copy of a fixture, so the
built things are kept in the session's stash, shared by all copies.

Our PyPI name is `cortex-mcp-server` (`cortex-mcp` there belongs to an unrelated project): the
tests resolve that name to the wheel built from this checkout (`uvx --from <wheel>`), never to
the index.
"""

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parent.parent
CLIENTS = REPO / "clients"
VENV_BIN = Path(sys.executable).parent

DISTRIBUTION = "cortex-mcp-server"
"""Our name on PyPI, and the console script `uvx cortex-mcp-server` runs."""

CHECKOUT_PLACEHOLDER = "/absolute/path/to/cortex-mcp"
"""What the shipped configs say in place of the user's checkout folder or wheel file."""

BUILD_TIMEOUT_S = 600
"""`python -m build` makes an isolated build environment, then the sdist, then a wheel from it."""

FIRST_UVX_TIMEOUT_S = 300
"""The first `uvx --from <wheel>` of a session downloads ~40 packages into an empty cache."""

LAUNCH_TIMEOUT_S = 60
"""Start, initialize and list the tools through uvx or node with a warm cache, on a busy CI box."""


@dataclass(frozen=True)
class Dist:
    """What `python -m build` produced."""

    wheel: Path
    sdist: Path


@dataclass(frozen=True)
class Uvx:
    """A `uvx` with its own cache in the session's tmp dir, and the environment that pins it."""

    path: Path
    env: dict[str, str]

    def command(self, source: Path, *args: str) -> list[str]:
        """`uvx --from <wheel or checkout> cortex-mcp-server <args>`."""
        return [str(self.path), "--from", str(source), DISTRIBUTION, *args]


def run(command: Sequence[str | Path], timeout_s: float, **kwargs: Any) -> str:
    """Run a command to completion; its stdout, or a failure showing both streams."""
    done = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout_s,
        check=False,
        **kwargs,
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}{done.stderr}"
    return str(done.stdout)


def program(name: str) -> Path:
    """`name` from this venv, else from PATH; fail saying how to get it."""
    local = VENV_BIN / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"`{name}` not found: pip install -e '.[dev]' installs uv, Node 18+ has npm")
    return Path(found)


MCPB_PACKAGE = "@anthropic-ai/mcpb@2"
"""The official MCP Bundle CLI (validate, pack, unpack); CI installs it into .ci-node/."""

BUILT = pytest.StashKey[Dist]()
MCPB = pytest.StashKey[Path]()
UVX = pytest.StashKey[Uvx]()
CHECKOUT_UVX = pytest.StashKey[Uvx]()
NPM_BIN = pytest.StashKey[Path]()


@pytest.fixture(scope="session", name="dist")
def built_dist(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """The sdist and wheel of this checkout, built once per session."""
    if BUILT not in request.config.stash:  # each importing module has its own copy of the fixture
        out = tmp_path_factory.mktemp("dist")
        run([sys.executable, "-m", "build", "--outdir", out, REPO], BUILD_TIMEOUT_S)
        (wheel,) = out.glob("cortex_mcp_server-*.whl")
        (sdist,) = out.glob("cortex_mcp_server-*.tar.gz")
        request.config.stash[BUILT] = Dist(wheel, sdist)
    return request.config.stash[BUILT]


@pytest.fixture(scope="session", name="uvx")
def warm_uvx(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, dist: Dist
) -> Uvx:
    """uvx with a fresh cache, warmed by one `cortex-mcp --version` run from the package index."""
    if UVX not in request.config.stash:
        env = {
            **network_settings(),
            "PATH": os.pathsep.join([str(VENV_BIN), os.environ.get("PATH", "")]),
            "UV_CACHE_DIR": str(tmp_path_factory.mktemp("uv-cache")),
            "UV_PYTHON": sys.executable,
            "UV_PYTHON_DOWNLOADS": "never",
        }
        uvx_path = program("uvx")
        warm = Uvx(uvx_path, env).command(dist.wheel, "--version")
        assert run(warm, FIRST_UVX_TIMEOUT_S, env=full_env(env)).startswith("cortex-mcp ")
        # uvx re-resolves a local wheel against the index at every start (~5 s here); once the
        # cache holds the environment, offline mode runs the same program without round trips.
        request.config.stash[UVX] = Uvx(uvx_path, {**env, "UV_OFFLINE": "1"})
    return request.config.stash[UVX]


@pytest.fixture(scope="session", name="checkout_uvx")
def warm_checkout(request: pytest.FixtureRequest, uvx: Uvx) -> Uvx:
    """The same uvx, its cache warmed once with `uvx --from <this checkout> cortex-mcp-server`
    (uv builds the checkout with its build backend, from the package index), then offline."""
    if CHECKOUT_UVX not in request.config.stash:
        online = {k: v for k, v in uvx.env.items() if k != "UV_OFFLINE"}
        warm = Uvx(uvx.path, online).command(REPO, "--version")
        assert run(warm, FIRST_UVX_TIMEOUT_S, env=full_env(online)).startswith("cortex-mcp ")
        request.config.stash[CHECKOUT_UVX] = uvx
    return request.config.stash[CHECKOUT_UVX]


@pytest.fixture(scope="session", name="npm_bin")
def installed_npm_package(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """clients/npm packed with `npm pack` and installed from the tarball into a temp prefix."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    if NPM_BIN not in request.config.stash:
        npm = program("npm")
        work = tmp_path_factory.mktemp("npm")
        cache: list[str | Path] = ["--cache", work / "cache"]
        run([npm, "pack", CLIENTS / "npm", "--pack-destination", work, *cache], 120)
        (tarball,) = work.glob("cortex-mcp-*.tgz")
        prefix = work / "prefix"
        install: list[str | Path] = ["install", "--prefix", prefix, "--offline", "--no-audit"]
        run([npm, *install, "--no-fund", *cache, tarball], 120)
        installed = prefix / "node_modules" / ".bin" / "cortex-mcp"
        assert installed.exists(), sorted(str(p) for p in prefix.rglob("*"))
        request.config.stash[NPM_BIN] = installed
    return request.config.stash[NPM_BIN]


@pytest.fixture(scope="session", name="mcpb")
def mcpb_cli(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `mcpb` CLI: from .ci-node/ (CI), else PATH, else npm-installed into a temp prefix."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    if MCPB not in request.config.stash:
        ci = REPO / ".ci-node" / "node_modules" / ".bin" / "mcpb"
        found = ci if ci.exists() else shutil.which("mcpb")
        if found is None:
            prefix = tmp_path_factory.mktemp("mcpb")
            install: list[str | Path] = ["install", "--prefix", prefix, "--no-audit", "--no-fund"]
            run([program("npm"), *install, MCPB_PACKAGE], BUILD_TIMEOUT_S)
            found = prefix / "node_modules" / ".bin" / "mcpb"
        request.config.stash[MCPB] = Path(found)
    return request.config.stash[MCPB]


def network_settings() -> dict[str, str]:
    """What uv needs from this environment to reach the package index: its own settings,
    proxies and CA bundles (MCP's stdio client passes only HOME, PATH, SHELL, TERM, USER)."""
    wanted = ("UV_", "SSL_CERT_", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
    return {k: v for k, v in os.environ.items() if k.upper().startswith(wanted)}


def full_env(extra: Mapping[str, str]) -> dict[str, str]:
    """This process's environment (already free of CORTEX_* settings in tests) plus `extra`."""
    return {**os.environ, **extra}


async def tool_names(server: StdioServerParameters) -> set[str]:
    """Start `server`, complete `initialize` and `tools/list`, and stop it."""
    with anyio.fail_after(LAUNCH_TIMEOUT_S):
        async with Client(server) as client:
            assert client.server_info is not None
            assert client.server_info.name == "cortex-mcp"
            listed = await client.list_tools()
    return {tool.name for tool in listed.tools}
