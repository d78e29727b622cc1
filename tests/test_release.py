"""The release is one step: scripts/release builds and checks the wheel, the sdist, the npm
package and the MCP Bundle, and refuses to when the versions the files state drift apart."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cortex_mcp import __version__
from tests.launch import REPO

VERSIONED = {  # file: how a test makes it drift
    "pyproject.toml": ('version = "{v}"', 'version = "9.9.9"'),
    "cortex_mcp/__init__.py": ('__version__ = "{v}"', '__version__ = "9.9.9"'),
    "server.json": ('"version": "{v}",\n  "websiteUrl"', '"version": "9.9.9",\n  "websiteUrl"'),
    "clients/npm/package.json": ('"version": "{v}"', '"version": "9.9.9"'),
}


def release(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, root / "scripts" / "release", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def copy_of_the_versioned_files(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for relative in [*VERSIONED, "scripts/release"]:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / relative, root / relative)
    return root


def test_every_file_a_release_publishes_states_the_same_version() -> None:
    done = release(REPO, "--versions-only")

    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{__version__}\n"


@pytest.mark.parametrize("relative", sorted(VERSIONED))
def test_a_version_that_drifts_stops_the_release_in_one_line_naming_the_file(
    tmp_path: Path, relative: str
) -> None:
    root = copy_of_the_versioned_files(tmp_path)
    assert release(root, "--versions-only").returncode == 0, "the copy is in step"
    before, after = VERSIONED[relative]
    text = (root / relative).read_text(encoding="utf-8")
    assert before.format(v=__version__) in text
    (root / relative).write_text(text.replace(before.format(v=__version__), after), "utf-8")

    done = release(root, "--versions-only")

    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("release: ")
    assert "9.9.9" in line
    assert relative in line or "pyproject.toml" in line


def test_a_package_of_server_json_that_drifts_is_named(tmp_path: Path) -> None:
    root = copy_of_the_versioned_files(tmp_path)
    server = json.loads((root / "server.json").read_text(encoding="utf-8"))
    server["packages"][1]["version"] = "9.9.9"
    (root / "server.json").write_text(json.dumps(server), encoding="utf-8")

    done = release(root, "--versions-only")

    assert done.returncode == 1
    assert done.stderr.startswith("release: server.json packages[npm] says 9.9.9")


def test_every_wheel_the_docs_name_is_of_this_version() -> None:
    documents = [REPO / "README.md", *sorted((REPO / "clients").rglob("README.md"))]
    named = {
        (document.relative_to(REPO).as_posix(), version)
        for document in documents
        for version in re.findall(
            r"cortex_mcp_server-(\d[^-]*)-py3", document.read_text(encoding="utf-8")
        )
    }

    assert named, "the docs say how to build a wheel and what it is called"
    assert {version for _, version in named} == {__version__}, named


def test_the_release_workflow_runs_the_release_script_on_a_version_tag() -> None:
    workflow = (REPO / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")

    assert "scripts/release" in workflow
    assert "tags:" in workflow and "v*" in workflow
    assert "npm publish" in workflow
    assert "mcp-publisher publish" in workflow
