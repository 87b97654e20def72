"""Rebuilding an index beside the old one, then swapping the folders.

`qa index --rebuild` (for instance with another model) must leave the old index in use
until the new one is complete, and a crash at any moment must leave one whole index:
the new one is built in `<index>.rebuild`, then the old folder is renamed to
`<index>.old` and the new one takes its name. A crash between those two renames is
finished by the next process that opens the index (`finish_swap`). Whatever else lives in
the folder (the web app's uploads) is carried over, never deleted.
"""

import logging
import shutil
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from qa.backends import own_files
from qa.backends.locking import LOCK, write_lock
from qa.errors import QAError
from qa.indexing.ingest import Report

log = logging.getLogger(__name__)
# The index's own entries in its folder; a rebuild carries every other one over (e.g. the
# web app's uploads), and never deletes one.
_OWN_FILES = frozenset({LOCK, *own_files()})


def swap_in(path: Path, build: Callable[[Path], Report]) -> Report:
    """Build a new index with `build(folder)` beside the one at `path`, then swap it in.

    The caller holds `path`'s write lock.
    """
    fresh, old = _sibling(path, "rebuild"), _sibling(path, "old")
    for left in (fresh, old):  # by a rebuild that crashed: what it carried over comes back
        if left.exists():
            _carry_over(left, path)
            _discard(left)
        if left.exists():
            raise QAError(f"{left} holds files that are not the index's (kept by an "
                          "earlier rebuild): move them away, then rebuild again")
    report = build(fresh)
    _carry_over(path, fresh)  # what else lives in the folder stays with it
    path.rename(old)  # a crash from here on is finished by finish_swap
    fresh.rename(path)
    _carry_over(old, path)  # anything added to the old folder meanwhile
    _discard(old)
    return report


def _sibling(path: Path, suffix: str) -> Path:
    return path.with_name(f"{path.name}.{suffix}")


def finish_swap(path: Path) -> None:
    """Finish a rebuild's folder swap that a crash interrupted between its two renames:
    the old folder is moved away only once the new one is complete."""
    fresh, old = _sibling(path, "rebuild"), _sibling(path, "old")
    if path.exists() or not old.is_dir() or not fresh.is_dir():
        return
    try:
        with write_lock(old):  # the lock the rebuild held: it is not still running
            if path.exists() or not fresh.is_dir():
                return
            fresh.rename(path)
            _carry_over(old, path)
            _discard(old)
    except QAError:
        if not path.exists():  # else the rebuild finished the swap itself meanwhile
            raise


def _carry_over(source: Path, target: Path, own: frozenset[str] = _OWN_FILES) -> None:
    """Move what is not the index's own from folder `source` into `target`, merging
    folders of the same name; an entry whose name `target` already has stays."""
    for entry in source.iterdir():
        there = target / entry.name
        if entry.name in own:
            continue
        if not there.exists():
            entry.rename(there)
        elif entry.is_dir() and there.is_dir() and not entry.is_symlink():
            _carry_over(entry, there, frozenset())
            with suppress(OSError):
                entry.rmdir()


def _discard(folder: Path) -> None:
    """Delete an index folder's own files, and the folder if nothing else is left in it."""
    for name in _OWN_FILES:
        own = folder / name
        if own.is_dir() and not own.is_symlink():  # Milvus Lite's milvus.db is a folder
            shutil.rmtree(own)
        else:
            own.unlink(missing_ok=True)
    try:
        folder.rmdir()
    except OSError:
        log.warning("kept %s: it holds files that are not the index's", folder)
