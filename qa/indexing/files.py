"""Files: finding the files to index, at their canonical paths, and opening one safely.

A file is known by its canonical path (`canonical`), so a file reached twice is indexed
once; `find_files` walks the folders named (links inside them followed only to places
inside them), and `open_regular` opens what was found without following a link that
appeared since.
"""

import errno
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG
from typing import BinaryIO

from qa.errors import LoadError

LINK_OUTSIDE = "links outside the folders given"
NAME_NOT_UTF8 = "the name is not valid UTF-8 (rename it to index it)"


@dataclass(frozen=True, slots=True)
class Found:
    """A file found to index: its canonical path, whether it was named itself (not found
    in a folder named), and why it is passed over, if it is."""

    path: Path
    named: bool
    skip: str = ""


def canonical(path: str | os.PathLike) -> Path:
    """The absolute path with symlinks, '.' and '..' resolved; a broken link (dangling, or
    a loop) resolves only its folder, so that reading it reports why it is broken."""
    path = Path(path).expanduser().absolute()
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError):
        return path.parent.resolve() / path.name


def find_files(paths: Iterable[str | os.PathLike]) -> Iterator[Found]:
    """The files named, and the files inside the folders named, recursively, each once.

    Each file is found at its canonical path (`canonical`), so a file reached twice (as
    `docs` and `docs/../docs`, or through a link) is found once. A path named is always
    taken. Inside a folder named, a symbolic link whose target is inside one of the
    folders named is that target (a linked folder's files are found at their own
    paths); a link leading elsewhere is passed over, with the reason LINK_OUTSIDE.
    Hidden files and folders (such as an index folder or .git) are passed over
    silently; files of unsupported types are found too, so the caller can report them.
    A file or folder whose name is not valid UTF-8 is passed over with NAME_NOT_UTF8
    (an index stores paths as UTF-8 text), once for a whole folder.
    """
    roots = [canonical(p) for p in paths]
    seen: set[Path] = set()
    for root in roots:
        if not is_utf8(root):
            found_here: Iterable[Found] = [Found(root, True, NAME_NOT_UTF8)]
        else:
            found_here = _walk(root, roots) if root.is_dir() else [Found(root, True)]
        for found in found_here:
            if found.path not in seen:
                seen.add(found.path)
                yield Found(found.path, found.path in roots, found.skip)


def _walk(folder: Path, roots: list[Path]) -> Iterator[Found]:
    """The files in `folder`, and its links (to files or folders) with what they lead to."""
    for place, dirs, files in os.walk(folder):  # does not descend into linked folders
        for name in sorted(n for n in dirs + files if not (n.startswith(".") or is_utf8(n))):
            yield Found(Path(place, name), False, NAME_NOT_UTF8)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and is_utf8(d))
        files = [f for f in files if is_utf8(f)]
        linked = [d for d in dirs if os.path.islink(os.path.join(place, d))]
        for name in sorted(n for n in files + linked if not n.startswith(".")):
            path = Path(place, name)
            if not path.is_symlink():
                yield Found(path, False)
                continue
            target = canonical(path)
            if not target.exists():
                yield Found(path, False)  # broken: reading it says why
            elif not any(is_within(target, root) for root in roots):
                yield Found(path, False, LINK_OUTSIDE)
            elif not target.is_dir():
                yield Found(target, False)


# a folder opened to pass through, not to list: O_PATH needs no read permission on it
_FOLDER = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW


def open_regular(path: Path) -> BinaryIO:
    """The regular file at `path` (absolute and canonical, as `find_files` gives it), opened
    for reading without following a symbolic link anywhere along the path.

    Whatever is checked next is checked through the open file, so the file cannot be
    swapped between the check and the read: a file replaced by a link (to /dev/zero, to
    a file outside the folders) after it was found is refused, not read. OSError for a
    broken link (its own reason) or any other file that cannot be opened; LoadError for
    a link that works, or anything else that is not a regular file (a pipe, a device).
    """
    folder = os.open(path.anchor, _FOLDER)
    try:
        for part in path.parts[1:-1]:
            inner = os.open(part, _FOLDER, dir_fd=folder)
            os.close(folder)
            folder = inner
        # O_NONBLOCK: opening a named pipe does not wait for a writer
        fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError as error:
        if error.errno not in (errno.ELOOP, errno.ENOTDIR):  # a link, as a file or folder
            raise
        os.stat(path)  # a broken link raises its own reason (no such file, a loop)
        raise LoadError("a symbolic link where a file was found (links are not followed "
                        "here: the path changed while it was being indexed)") from error
    finally:
        os.close(folder)
    if not S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise LoadError("not a regular file")
    return os.fdopen(fd, "rb")


def is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def is_utf8(path: str | os.PathLike) -> bool:
    """Whether the path's bytes are valid UTF-8 (else Python holds the others as lone
    surrogates, which no UTF-8 text, SQLite's or Milvus's, can store)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
