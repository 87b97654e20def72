"""The viewer of the web chat: the original of a cited passage, drawn in the page.

Owned here: the viewer dialog (opened from a source card's "Open the original" or a
documents list row), what it shows by kind of file (a PDF page or an image drawn as a
picture with the quote's boxes over it, a sheet or CSV as a table with the cited rows
marked, a slide's title, text and notes, a Word document as its headings, paragraphs and
tables, any other document as its text with the quote marked), its page turning and zoom
(ui/viewer.js), and the route that downloads an original (DOWNLOAD_ROUTE). What a file
looks like comes from `qa.originals`; this module only writes HTML, everything from a file
escaped by `ui.render`.

Only files in the index, unchanged since they were indexed, are shown or downloaded.
The download route sits behind ui/guard.py (Host checks) and Gradio's login check (with
--auth, logged-in users only), and refuses a request another site's page sent.
"""

import base64
import mimetypes
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote as url_quote
from urllib.parse import urlencode

import gradio as gr
from fastapi import FastAPI, Request
from starlette.responses import PlainTextResponse, Response

from qa import DocumentInfo, Index, QAError, originals
from qa.loaders.formats import kind_of
from ui import render
from ui.events import event_data
from ui.guard import sent_from_elsewhere
from ui.render import escape, sentence

DOWNLOAD_ROUTE = render.ORIGINAL_ROUTE
TEXT_CHARS = 4000  # of a document's text shown around a quote (formats not drawn)
JS = (Path(__file__).parent / "viewer.js").read_text()
PRIVATE: dict[str, Any] = {"api_visibility": "private", "queue": False}
ELSEWHERE = "Refused: originals can only be downloaded from this app's own page."


class Viewer:
    """The viewer dialog and the download route over one index."""

    def __init__(self, index: Index, allowed: Callable[[gr.Request | None], bool],
                 label: Callable[[DocumentInfo], str], allowed_hosts: frozenset[str]) -> None:
        self.index = index
        self.allowed = allowed
        self.allowed_hosts = allowed_hosts
        self.label = label
        self.opened = 0  # a new dialog each time, though it shows the same page again

    def build(self) -> gr.HTML:
        self.dialog = gr.HTML(elem_id="qa-viewer", js_on_load=JS)
        return self.dialog

    def wire(self) -> None:
        self.dialog.click(self.show, None, self.dialog, **PRIVATE)

    def show(self, event: gr.EventData, request: gr.Request) -> str:
        """A request from the page: {"document": path, "page", "start", "end"} (the quote's
        offsets in the document's text); the dialog, or "" for a request from elsewhere."""
        data = event_data(event)
        if not self.allowed(request):
            return ""
        path = str(data.get("document") or "")
        asked = data.get("page")
        page = 0 if asked in (None, "") else _whole(asked)  # 0: none asked (`_body`)
        start, end = (_whole(data.get(key)) or 0 for key in ("start", "end"))
        self.opened += 1
        document = next((d for d in self.index.documents() if d.path == path), None)
        if document is None:
            return self._dialog(path, path, "", _error("That document is not indexed."), {})
        text = self.index.document_text(path) or ""
        quote = text[start:end] if 0 <= start < end <= len(text) else ""
        try:
            if page is None:
                raise QAError(f"there is no page {str(asked)[:20]}: pages are numbered 1, 2, 3…")
            place, body, pages = self._body(path, page, quote, text, start)
        except QAError as error:  # LoadError too: a file refused as at indexing
            place, pages, body = "", 0, _error(sentence(str(error)))
        except Exception as error:  # noqa: BLE001 - a damaged file: said, not a traceback
            reason = str(error).split("\n", 1)[0][:200] or type(error).__name__
            place, pages, body = "", 0, _error(f"The original could not be drawn: {reason}.")
        turning = {"page": max(page or 1, 1), "pages": pages, "start": start, "end": end}
        return self._dialog(path, self.label(document), place, body, turning)

    def _body(self, path: str, asked: int, quote: str, text: str, start: int
              ) -> tuple[str, str, int]:
        """(where, HTML, pages) of the original at page `asked` (0: none asked, the first
        of a paged file): pages is 0 when it is not paged."""
        kind, suffix, page = kind_of(path), Path(path).suffix.lower(), max(asked, 1)
        if kind in ("pdf", "image"):
            original = originals.read_original(self.index, path)
            draw = originals.pdf_page if kind == "pdf" else originals.image_page
            picture = draw(original, page, quote)
            where = f"page {page} of {picture.pages}" if picture.pages > 1 else ""
            return where, picture_html(picture, f"{Path(path).name} {where}".strip()), (
                picture.pages if picture.pages > 1 else 0)
        if kind == "sheet":
            data = originals.read_original(self.index, path).data
            sheet = originals.sheet(data, suffix, page, quote)
            cited = ", ".join(f"row {n}" for n in sorted(sheet.marked))
            where = ", ".join(p for p in (f"sheet {sheet.name}" if sheet.name else "", cited) if p)
            return where, sheet_html(sheet), sheet.sheets if sheet.sheets > 1 else 0
        if kind == "slides":
            slide = originals.slide(originals.read_original(self.index, path).data, page)
            return f"slide {page} of {slide.pages}", slide_html(slide, quote), slide.pages
        if kind == "word":  # no pages: a .docx says none
            return "", word_html(originals.word(originals.read_original(self.index, path).data,
                                                quote), quote), 0
        return render.place(path, asked, text, start), text_html(text, quote, start), 0

    def _dialog(self, path: str, title: str, place: str, body: str, turning: dict) -> str:
        """The dialog around a body: title and place, page turning, zoom, download, close."""
        page, pages = turning.get("page", 1), turning.get("pages", 0)
        data = "".join(f' data-{key}="{escape(str(value))}"' for key, value in
                       {"document": path, "start": turning.get("start", 0),
                        "end": turning.get("end", 0), "opened": self.opened}.items())
        turn = ""
        if pages:
            turn = (_button("qa-view-turn", "‹ Previous", "Previous page", page - 1, page <= 1)
                    + _button("qa-view-turn", "Next ›", "Next page", page + 1, page >= pages))
        download = f"{DOWNLOAD_ROUTE[1:]}?{urlencode({'path': path})}"
        return (
            f'<div class="qa-view" role="dialog" aria-modal="true" aria-labelledby="qa-view-title"'
            f"{data}><div class=\"qa-view-bar\"><div class=\"qa-view-name\">"
            f'<span class="qa-view-title" id="qa-view-title">{escape(title)}</span>'
            f'<span class="qa-view-where">{escape(Path(path).name)}'
            f"{(' · ' + escape(place)) if place else ''}</span></div>"
            f'<div class="qa-view-tools">{turn}'
            '<button type="button" class="qa-view-zoom" data-step="-1" aria-label="Zoom out">−'
            '</button><button type="button" class="qa-view-zoom" data-step="1" '
            'aria-label="Zoom in">+</button>'
            f'<a class="qa-view-download" href="{escape(download)}" download>Download original</a>'
            '<button type="button" class="qa-view-close" aria-label="Close the viewer">✕'
            f'</button></div></div><div class="qa-view-body">{body}</div></div>'
        )

    # -- the download route ------------------------------------------------------

    def add_download_route(self, app: FastAPI) -> None:
        """Serve DOWNLOAD_ROUTE on the running app, behind Gradio's login check (the one
        its /config route depends on)."""
        login = next(route.dependencies for route in app.routes  # type: ignore[attr-defined]
                     if getattr(route, "path", "") == "/config")
        app.add_api_route(DOWNLOAD_ROUTE, self.download, methods=["GET"], dependencies=login)

    def download(self, request: Request, path: str = "") -> Response:
        """An indexed file's bytes, as an attachment (never shown inline: an HTML or SVG
        file would run in the app's origin); 404 for any other path."""
        if sent_from_elsewhere(request.headers, self.allowed_hosts):
            return PlainTextResponse(ELSEWHERE, status_code=403)
        try:
            data = originals.read_original(self.index, path).data
        except QAError as error:
            return PlainTextResponse(sentence(str(error)), status_code=404)
        name = url_quote(Path(path).name)
        kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
        return Response(data, media_type=kind,
                        headers={"Content-Disposition": f"attachment; filename*=UTF-8''{name}",
                                 "X-Content-Type-Options": "nosniff"})


def _error(message: str) -> str:
    return f'<div class="qa-view-error" role="alert">{escape(message)}</div>'


def _whole(value: Any) -> int | None:
    """A whole number as the page sends it (a number, or one as text); None for anything
    else, `1e999`, `Infinity` and `NaN` included."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return int(number) if number.is_integer() else None


def _button(css: str, text: str, label: str, page: int, disabled: bool) -> str:
    off = " disabled" if disabled else ""
    return (f'<button type="button" class="{css}" data-page="{page}" aria-label="{label}"{off}>'
            f"{text}</button>")


def picture_html(picture: originals.Picture, alt: str) -> str:
    """A drawn page, the quote's boxes over it (placed in fractions: they follow the zoom)."""
    boxes = "".join(
        f'<span class="qa-view-box" style="left:{100 * x:.3f}%;top:{100 * y:.3f}%;'
        f'width:{100 * w:.3f}%;height:{100 * h:.3f}%"></span>' for x, y, w, h in picture.boxes)
    note = "" if picture.boxes else ('<div class="qa-view-note">The quote could not be placed '
                                     "on this page.</div>")
    source = base64.b64encode(picture.png).decode()
    return (f'{note}<div class="qa-view-scroll"><div class="qa-view-page">'
            f'<img class="qa-view-image" alt="{escape(alt)}" width="{picture.width}" '
            f'height="{picture.height}" src="data:image/png;base64,{source}">{boxes}</div></div>')


def sheet_html(sheet: originals.Sheet) -> str:
    """A sheet as a table: its row numbers, the header, the cited rows marked."""
    width = max([len(sheet.header), *(len(cells) for _, cells in sheet.rows)], default=0)
    head = "".join(f'<th scope="col">{escape(name)}</th>'
                   for name in sheet.header + [""] * (width - len(sheet.header)))
    rows = []
    for number, cells in sheet.rows:
        marked = number in sheet.marked
        cells = cells + [""] * (width - len(cells))
        rows.append(f'<tr{" class=qa-view-marked aria-current=true" if marked else ""}>'
                    f'<th scope="row">{number}</th>'
                    + "".join(f"<td>{escape(cell)}</td>" for cell in cells) + "</tr>")
    caption = f"Sheet {sheet.name}" if sheet.name else "Table"
    shown = ""
    if sheet.rows and (sheet.total is None or len(sheet.rows) < sheet.total):
        shown = f" · rows {sheet.rows[0][0]}–{sheet.rows[-1][0]} shown" + (
            f" of {sheet.total + 1}" if sheet.total is not None else ", more below")
    if sheet.columns > originals.SHOWN_COLUMNS:
        shown += f" · columns 1–{originals.SHOWN_COLUMNS} shown of {sheet.columns:,}"
    return (f'<div class="qa-view-table-wrap"><table class="qa-view-table">'
            f"<caption>{escape(caption)}{escape(shown)}</caption>"
            f'<thead><tr><th scope="col">Row</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def slide_html(slide: originals.Slide, quote: str) -> str:
    """A slide: its title, its text, its notes; the quote marked where it is."""
    parts = "".join(f'<div class="qa-view-text">{_marked(text, quote)}</div>'
                    for text in slide.texts)
    notes = (f'<div class="qa-view-notes"><strong>Notes</strong><br>{_marked(slide.notes, quote)}'
             "</div>") if slide.notes.strip() else ""
    return (f'<div class="qa-view-slide"><div class="qa-view-slide-title">'
            f"{_marked(slide.title, quote)}</div>{parts}{notes}</div>")


def word_html(blocks: list[originals.Block], quote: str) -> str:
    """A Word document as it has it: headings, paragraphs (the quote marked) and tables
    (the quoted rows marked)."""
    parts = []
    for block in blocks:
        if block.kind == "table":
            parts.append(_word_table(block))
        elif block.kind == "heading":
            level = min(block.level + 2, 6)  # under the dialog's own title
            parts.append(f"<h{level}>{_marked(block.text, quote)}</h{level}>")
        else:
            parts.append(f"<p>{_marked(block.text, quote)}</p>")
    return f'<div class="qa-view-text qa-view-word">{"".join(parts)}</div>'


def _word_table(block: originals.Block) -> str:
    head, *rows = block.rows or [[]]
    header = "".join(f'<th scope="col">{escape(cell)}</th>' for cell in head)
    body = "".join(
        f'<tr{" class=qa-view-marked aria-current=true" if n in block.marked else ""}>'
        + "".join(f"<td>{escape(cell)}</td>" for cell in cells) + "</tr>"
        for n, cells in enumerate(rows, 1))
    return (f'<div class="qa-view-table-wrap"><table class="qa-view-table"><thead><tr>{header}'
            f"</tr></thead><tbody>{body}</tbody></table></div>")


def _marked(text: str, quote: str) -> str:
    found = text.find(quote.strip()) if quote.strip() else -1
    spans = [(found, found + len(quote.strip()))] if found >= 0 else []
    return render.highlighted(text, spans)


def text_html(text: str, quote: str, start: int) -> str:
    """A document's text around the quote (escaped: never the file's own HTML), marked."""
    if not quote:
        start = 0
    begin = max(0, start - TEXT_CHARS // 2)
    shown = text[begin : begin + TEXT_CHARS]
    spans = [(start - begin, start - begin + len(quote))] if quote else []
    more = ("…" if begin else "", "…" if begin + TEXT_CHARS < len(text) else "")
    return (f'<div class="qa-view-text qa-view-document">{more[0]}'
            f"{render.highlighted(shown, spans)}{more[1]}</div>")
