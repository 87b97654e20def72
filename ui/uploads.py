"""Checking and storing uploaded files inside the index folder."""

import contextlib
import re
import shutil
from pathlib import Path

from qa.documents import SUPPORTED_EXTENSIONS

UPLOADS = "uploads"  # the folder, inside the index folder, that holds uploaded files
SUPPORTED = tuple(sorted(SUPPORTED_EXTENSIONS))

MAX_NAME = 120


def safe_name(name: str) -> str:
    """A plain file name from an untrusted one: no folders, no traversal, no odd characters."""
    base = re.split(r"[\\/]", name)[-1]
    base = re.sub(r"[^\w.\- ]", "_", base).strip(" .")
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = base, ""
    stem = stem[: MAX_NAME - len(ext) - 1] or "upload"
    return f"{stem}.{ext}" if ext else stem


def rejection(name: str, size: int, max_bytes: int) -> str | None:
    """Why an upload is refused, or None if it is acceptable."""
    ext = Path(name).suffix.lower()
    if ext not in SUPPORTED:
        kind = f"“{ext}” files" if ext else "files without an extension"
        return f"{kind} are not supported (use {', '.join(SUPPORTED)})"
    if size > max_bytes:
        return f"{size / 1e6:.1f} MB is over the {max_bytes / 1e6:.0f} MB limit"
    if size == 0:
        return "the file is empty"
    return None


def store(source: Path, name: str, folder: Path) -> Path:
    """Copy an upload into `folder` under its sanitised name (replacing an older copy).

    Like the index's own files, uploads are readable by their owner only.
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    target = folder / safe_name(name)
    if target.resolve().parent != folder.resolve():
        raise ValueError(f"refusing to store {name!r} outside {folder}")
    shutil.copyfile(source, target)
    target.chmod(0o600)
    return target


def discard_cached(files: list[str], cache: Path) -> None:
    """Delete Gradio's temporary copies of uploads (and their emptied folders) once the
    index holds its own copy, so that nothing stays downloadable from Gradio's cache."""
    root = cache.resolve()
    for file in files:
        path = Path(file).resolve()
        if root not in path.parents:
            continue
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # the folder may hold another upload
            path.parent.rmdir()
