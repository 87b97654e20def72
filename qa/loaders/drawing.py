"""PDF pages drawn by PDFium in a child process, each within a deadline.

PDFium can take forever on one page: an 800-byte PDF whose page is painted with a
tiling pattern of a tiny step never returns from drawing, and a thread cannot be
stopped. So pages are drawn in a child process (`qa/loaders/draw_pages.py`, which imports only
pypdfium2 and Pillow: it starts in a fraction of a second) with its memory capped; a
page not drawn within DRAW_SECONDS has its child killed, and `NotDrawn` says so in one
line ("page 3 could not be drawn in 10 s"). Indexing (OCR of pages without text) and
the viewer (`qa.originals`) draw through here; reading a page's text stays with the
libraries, which do not draw.
"""

import os
import select
import struct
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

from qa.errors import LoadError

DRAW_SECONDS = 10  # to open the PDF, and for each page
CHILD = Path(__file__).with_name("draw_pages.py")
_HEADER = struct.Struct("!II")  # width and height; or 0 and a message's length


class NotDrawn(LoadError):  # noqa: N818 - a refusal, as LoadError is
    """A page (or the PDF) PDFium could not draw within the deadline, or at all."""


class DrawnPdf:
    """One PDF open in a child process: `pages`, and `draw` a page at a time. After a
    page runs out of time the child is gone, and every later `draw` is refused."""

    def __init__(self, data: bytes) -> None:
        self._child = subprocess.Popen([sys.executable, "-I", str(CHILD)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
        try:
            self._send(struct.pack("!Q", len(data)) + data)
            self.pages, _ = self._receive("the PDF could not be opened")
        except BaseException:
            self.close()
            raise

    def draw(self, index: int, side: int, dpi: int = 0):
        """Page `index` (from 0) as a PIL image in RGB: at `dpi` (0: any), but no side
        over `side` pixels. NotDrawn if PDFium fails or runs out of time."""
        from PIL import Image

        what = f"page {index + 1} could not be drawn"
        self._send(struct.pack("!III", index, side, dpi))
        size = self._receive(what)
        return Image.frombytes("RGB", size, self._read(size[0] * size[1] * 3, what))

    def close(self) -> None:
        """End the child, drawing or not."""
        if self._child.poll() is None:
            self._child.kill()
        self._child.wait()
        for pipe in (self._child.stdin, self._child.stdout):
            if pipe is not None:
                pipe.close()

    def __enter__(self) -> "DrawnPdf":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def _send(self, message: bytes) -> None:
        assert self._child.stdin is not None
        try:
            self._child.stdin.write(message)
            self._child.stdin.flush()
        except (BrokenPipeError, ValueError) as error:  # the child is gone (or was killed)
            raise NotDrawn("PDFium could not draw this PDF (its process ended)") from error
        self._deadline = time.monotonic() + DRAW_SECONDS

    def _receive(self, what: str) -> tuple[int, int]:
        """A reply's width and height; NotDrawn (`what`, and why) for a failure."""
        width, height = _HEADER.unpack(self._read(_HEADER.size, what))
        if width == 0:
            reason = self._read(height, what).decode("utf-8", "replace")
            raise NotDrawn(f"{what}: {reason or 'PDFium failed'}")
        return width, height

    def _read(self, size: int, what: str) -> bytes:
        """`size` bytes from the child before the deadline of the last request; else the
        child is killed, and NotDrawn says `what` could not be done in time."""
        assert self._child.stdout is not None
        pipe, parts, got = self._child.stdout.fileno(), [], 0
        while got < size:
            left = self._deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                self.close()
                raise NotDrawn(f"{what} in {DRAW_SECONDS} s")
            part = os.read(pipe, min(size - got, 1 << 20))
            if not part:
                self.close()
                raise NotDrawn(f"{what}: PDFium's process ended (out of memory?)")
            parts.append(part)
            got += len(part)
        return b"".join(parts)
