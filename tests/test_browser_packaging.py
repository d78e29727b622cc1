"""The memory browser ships built inside the wheel: installing needs no Node."""

import zipfile

from tests.launch import Dist, built_dist  # noqa: F401 - built_dist is the `dist` fixture


def test_the_wheel_carries_the_built_app_and_host_page_but_not_their_sources(dist: Dist) -> None:
    with zipfile.ZipFile(dist.wheel) as archive:
        names = set(archive.namelist())
        app = archive.read("cortex_mcp/ui/memory-browser.html").decode("utf-8")

    assert {"cortex_mcp/ui/memory-browser.html", "cortex_mcp/ui/browse-host.html"} <= names
    assert not any(name.startswith("ui/") or "node_modules" in name for name in names)
    assert "<script" in app and 'src="http' not in app
