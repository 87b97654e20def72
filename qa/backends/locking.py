"""The index folder's write lock: one process writes an index at a time.

The lock is the file `write.lock` in the index folder. A `--rebuild` swaps the
folder for a new one, so a process that was waiting for the old folder's lock
would hold a lock nobody else takes any more: on acquiring, the lock checks that
its file is still the one in the folder, and if not takes the new one instead.
"""

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from qa.errors import QAError

LOCK = "write.lock"
WAIT_SECONDS = 10


class _Swapped(Exception):
    """The lock file acquired is no longer the one in the index folder."""


@contextmanager
def write_lock(folder: Path) -> Iterator[None]:
    """Hold the index's lock, waiting up to WAIT_SECONDS for another writer to finish."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        lock = _lock(folder, timeout=max(0.0, deadline - time.monotonic()))
        try:
            lock.acquire()
            break
        except _Swapped:
            continue
        except Timeout as error:
            raise QAError(
                f"another process is writing the index at {folder} (waited "
                f"{WAIT_SECONDS} s); try again when it has finished"
            ) from error
        except OSError as error:
            raise QAError(f"cannot write the index at {folder}: "
                          f"{error.strerror or error}") from error
    try:
        yield
    finally:
        lock.release()


def try_write_lock(folder: Path) -> FileLock | None:
    """The index's lock if no one holds it now (never waits), else None; release it."""
    lock = _lock(folder, timeout=0)
    try:
        lock.acquire(blocking=False)
    except (Timeout, _Swapped, OSError):
        return None
    return lock


def _lock(folder: Path, timeout: float) -> FileLock:
    path = folder / LOCK

    def still_in_folder(fd: int) -> None:
        try:
            current = os.stat(path)
        except FileNotFoundError:
            current = None
        held = os.fstat(fd)
        if current is None or (current.st_dev, current.st_ino) != (held.st_dev, held.st_ino):
            raise _Swapped

    return FileLock(path, timeout=timeout, mode=0o600, on_acquired=still_in_folder)
