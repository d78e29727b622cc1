"""A project's name from a folder: the name of the git repository the folder is in, else the
folder's own name. Standard library only: the hook command (`cwd`) and the MCP edge (the
client's roots) both map folders to projects with it (#26)."""

from pathlib import Path

MAX_PROJECT_CHARS = 100
MAX_DEPTH = 64
"""Folders walked up at most looking for the repository's root."""


def clean_project(name: str | None) -> str | None:
    """A project name on one line, at most MAX_PROJECT_CHARS; None for an empty one."""
    flat = " ".join((name or "").split())[:MAX_PROJECT_CHARS]
    return flat or None


def project_of_folder(folder: str | Path) -> str | None:
    """The project a folder belongs to: its git root's name, else its own name; None for no
    folder, the file-system root or the home folder (no project lives there)."""
    if not str(folder).strip():
        return None
    path = Path(folder).expanduser()
    if not path.is_absolute() or path == Path(path.anchor) or path == Path.home():
        return None
    for depth, candidate in enumerate([path, *path.parents]):
        if depth >= MAX_DEPTH or candidate == Path.home():
            break
        if _is_repository(candidate):
            return clean_project(candidate.name)
    return clean_project(path.name)


def _is_repository(folder: Path) -> bool:
    try:
        return (folder / ".git").exists()
    except OSError:  # a folder we may not look into
        return False
