"""The child process of `qa.loaders.drawing`: draws the pages of one PDF with PDFium, as asked.

Run as a script (`python -I draw_pages.py`), so it imports nothing of `qa`, only pypdfium2
and Pillow. It reads the PDF (its length, then its bytes) from stdin and says how many
pages it has; then, for each request (page index, longest side, dots per inch: three
unsigned ints), it draws that page and sends its width, height and RGB pixels, or 0, a
length and a message when PDFium fails. Its memory is capped, and it dies with its
parent: a page PDFium never finishes drawing costs only this process, which the parent
kills at its deadline.
"""

import contextlib
import ctypes
import resource
import signal
import struct
import sys

MEMORY = 2 << 30  # bytes of address space: pages are drawn at most 2,500 pixels a side
HEADER = struct.Struct("!II")


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    with contextlib.suppress(AttributeError):  # Linux: no drawing outlives the parent
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    import pypdfium2

    read, write = sys.stdin.buffer, sys.stdout.buffer
    (size,) = struct.unpack("!Q", read.read(8))
    try:
        document = pypdfium2.PdfDocument(read.read(size))
    except pypdfium2.PdfiumError as error:
        _send_error(write, str(error))
        return
    write.write(HEADER.pack(len(document), 0))
    write.flush()
    while request := read.read(12):
        index, side, dpi = struct.unpack("!III", request)
        try:
            page = document[index]
            width, height = page.get_size()  # in points, 72 to the inch
            scale = side / max(width, height, 1)
            image = page.render(scale=min(scale, dpi / 72) if dpi else scale).to_pil()
        except pypdfium2.PdfiumError as error:
            _send_error(write, str(error))
            continue
        pixels = image.convert("RGB").tobytes()
        write.write(HEADER.pack(image.width, image.height) + pixels)
        write.flush()


def _send_error(write, message: str) -> None:
    text = message.encode("utf-8", "replace")[:1000]
    write.write(HEADER.pack(0, len(text)) + text)
    write.flush()


if __name__ == "__main__":
    main()
