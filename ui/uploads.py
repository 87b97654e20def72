"""Checking and storing uploaded files inside the index folder: a file uploaded under the
name of an earlier upload replaces it, unless both are kept.

An upload that cannot be indexed is set aside in the `failed` folder inside the uploads
folder, where no start of `qa serve` looks for uploads left unindexed; so is one that was
being indexed when `qa serve` stopped (a marker file names the uploads being indexed
until their indexing ends), so that a file that brings the server down is not read
again at each start.
"""

import contextlib
import filecmp
import os
import re
import shutil
import tempfile
from collections.abc import Collection, Iterator
from pathlib import Path

from qa.loaders.formats import SUPPORTED_EXTENSIONS, is_supported

UPLOADS = "uploads"  # the folder, inside the index folder, that holds uploaded files
FAILED = "failed"  # the folder, inside the uploads folder, of uploads set aside
INDEXING = ".indexing-"  # a marker naming uploads being indexed, a line each
SUPPORTED = tuple(sorted(SUPPORTED_EXTENSIONS))

MAX_NAME = 120
MIB = 2**20  # uploads are limited in mebibytes (`qa serve --max-upload-mb`), as Gradio counts
PARTIAL = ".partial-"  # an upload being copied in; no stored name starts with a dot
NEW, SAME, REPLACED = "new", "same", "replaced"  # what storing an upload did
EARLIER = ".earlier-"  # a replaced upload, kept until its replacement is indexed


def safe_name(name: str, copy: int = 1) -> str:
    """A plain file name from an untrusted one: no folders, no traversal, no odd characters.

    copy: n > 1 names the nth file that would have this name, `name (n).ext`.
    """
    base = re.split(r"[\\/]", name)[-1]
    base = re.sub(r"[^\w.\-()\[\] ]", "_", base).strip(" .")
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = base, ""
    number = f" ({copy})" if copy > 1 else ""
    stem = (stem[: MAX_NAME - len(ext) - 1 - len(number)] or "upload") + number
    return f"{stem}.{ext}" if ext else stem


def limit_bytes(max_upload_mb: float) -> int:
    """The largest upload, in bytes: `max_upload_mb` mebibytes (2^20 bytes each)."""
    return int(max_upload_mb * MIB)


def rejection(name: str, size: int, max_bytes: int) -> str | None:
    """Why an upload is refused, or None if it is acceptable."""
    ext = Path(name).suffix.lower()
    if ext not in SUPPORTED:
        kind = f"“{ext}” files" if ext else "files without an extension"
        return f"{kind} are not supported (use {', '.join(SUPPORTED)})"
    if size > max_bytes:
        return f"{size / MIB:.1f} MiB is over the {max_bytes / MIB:.0f} MiB limit"
    if size == 0:
        return "the file is empty"
    return None


def store(source: Path, name: str, folder: Path, keep_both: bool = False) -> tuple[Path, str]:
    """Copy an upload into `folder` under its sanitised name: (where it is, NEW, SAME or
    REPLACED).

    If a different file has the name, the upload replaces it (an edited file uploaded
    again; the earlier one is kept until `settle_replaced`), or, with `keep_both`, becomes
    `name (2).ext` (or 3, …); if the same content has it, that file is the upload, and
    nothing is copied. The copy is made under a
    hidden name and then linked to its own, which fails if the name is taken, so that
    two uploads at once cannot take one name. Like the index's own files, uploads are
    readable by their owner only.
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if (folder / safe_name(name)).resolve().parent != folder.resolve():
        raise ValueError(f"refusing to store {name!r} outside {folder}")
    descriptor, partial = tempfile.mkstemp(dir=folder, prefix=PARTIAL)  # private: 0600
    os.close(descriptor)
    copy = Path(partial)
    try:
        shutil.copyfile(source, copy)
        number = 0
        while True:  # the first name free, holding the same content, or to replace
            number += 1
            target = folder / safe_name(name, number)
            try:
                os.link(copy, target)
                return target, NEW
            except FileExistsError:
                if not target.is_file():
                    continue
                if filecmp.cmp(copy, target, shallow=False):
                    return target, SAME
                if not keep_both:
                    try:
                        os.link(target, folder / f"{EARLIER}{target.name}")
                    except FileExistsError:  # being replaced already: both are kept
                        continue
                    os.replace(copy, target)
                    return target, REPLACED
    finally:
        copy.unlink(missing_ok=True)


def settle_replaced(path: Path) -> bool:
    """Once a replacement upload is indexed: drop the earlier file it replaced, or, if the
    replacement was set aside (it could not be read), put the earlier one back, the same
    file the index holds: whether the replacement stayed."""
    earlier = path.with_name(f"{EARLIER}{path.name}")
    if path.exists():
        earlier.unlink(missing_ok=True)
        return True
    os.replace(earlier, path)
    return False


def unindexed(folder: Path, indexed: Collection[str]) -> list[Path]:
    """Stored uploads that are not in the index (a crash, or a busy index, left them)."""
    if not folder.is_dir():
        return []
    return sorted(
        path for path in folder.iterdir()
        if path.is_file() and not path.name.startswith(".")
        and is_supported(path) and str(path) not in indexed
    )


def set_aside(path: Path) -> Path:
    """Move an upload that could not be indexed into the `failed` folder beside it, never
    over another file there: where it is now."""
    failed = path.parent / FAILED
    failed.mkdir(mode=0o700, exist_ok=True)
    number = 0
    while True:
        number += 1
        target = failed / safe_name(path.name, number)
        try:
            os.link(path, target)
        except FileExistsError:
            continue
        path.unlink()
        return target


@contextlib.contextmanager
def indexing(paths: Collection[Path], folder: Path) -> Iterator[None]:
    """While the uploads `paths` are indexed, a marker in `folder` names them; a marker
    left behind names what was being indexed when `qa serve` stopped (`interrupted`)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, marker = tempfile.mkstemp(dir=folder, prefix=INDEXING)
    with os.fdopen(descriptor, "w") as file:
        file.write("".join(f"{path.name}\n" for path in paths))
    try:
        yield
    finally:
        os.unlink(marker)


def interrupted(folder: Path) -> list[Path]:
    """The uploads that were being indexed when `qa serve` stopped, their markers removed."""
    found = []
    for marker in sorted(folder.glob(INDEXING + "*")):
        found += [folder / name for name in marker.read_text().splitlines()
                  if (folder / name).is_file()]
        marker.unlink()
    return sorted(set(found))


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
