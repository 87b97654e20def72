"""OCR cost: seconds per page and peak memory of reading a scanned PDF through `qa`.

Makes a scan: --pages A4 pages of English prose drawn as pictures (PIL, DejaVu Sans
11 pt at 200 dpi, about 30 lines a page) saved as a PDF with no text layer, then loads
it with `qa.loaders.formats.load` in this process, as `qa index` does (pypdfium2 renders each
page, RapidOCR reads it). Prints the total time (the model load included), the
seconds per page (wall and process CPU), the peak resident memory of the process (ru_maxrss, the
interpreter and libraries included), the share of drawn lines OCR read exactly, and
the 1-minute load average (the machine may be shared). A measurement, not a test.

    .venv/bin/python benchmarks/ocr.py                  # 5 pages
    .venv/bin/python benchmarks/ocr.py --pages 120      # past MAX_PAGES: the bound holds
"""

import argparse
import io
import os
import resource
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from qa.loaders import ocr
from qa.loaders.formats import load

PROSE = ("the harbour master counted seven ferries before the storm reached the old "
         "lighthouse and every captain signed the ledger kept at the customs office")
WORDS = PROSE.split(" ")


def scan(pages: int) -> tuple[bytes, list[str]]:
    """A PDF of `pages` pictures of text, and the lines drawn on them."""
    font = _font()
    images, drawn = [], []
    for n in range(pages):
        image = Image.new("L", (1654, 2339), "white")  # A4 at 200 dpi
        draw = ImageDraw.Draw(image)
        for line in range(30):
            words = [WORDS[(n * 7 + line * 3 + i) % len(WORDS)] for i in range(11)]
            drawn.append(" ".join(words))
            draw.text((150, 150 + line * 66), drawn[-1], fill="black", font=font)
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=200, save_all=True, append_images=images[1:])
    return out.getvalue(), drawn


def _font():
    path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    return ImageFont.truetype(path, 31) if os.path.exists(path) else ImageFont.load_default(31)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=5)
    args = parser.parse_args()
    data, drawn = scan(args.pages)
    load_before = os.getloadavg()[0]
    start, cpu = time.perf_counter(), time.process_time()
    document = load(Path("scan.pdf"), data)
    total, cpu = time.perf_counter() - start, time.process_time() - cpu
    read = min(args.pages, ocr.MAX_PAGES)
    read_lines = set(document.text.split("\n"))
    exact = sum(line in read_lines for line in drawn[:read * 30]) / (read * 30)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"pages in the scan      {args.pages}")
    print(f"pages read by OCR      {read} (MAX_PAGES {ocr.MAX_PAGES})")
    print(f"total seconds          {total:.1f}")
    print(f"seconds per page       {total / read:.2f} wall, {cpu / read:.2f} CPU (all threads; "
          "model load included once)")
    print(f"peak RSS               {peak:.0f} MB")
    print(f"lines read exactly     {exact:.1%} of {read * 30}")
    print(f"load average (1 min)   {load_before:.2f} -> {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
