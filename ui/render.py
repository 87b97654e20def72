"""HTML for answers, sources, the documents, collections and conversations lists.

Document text is untrusted. Everything that comes from a document (or a file
name) passes through `escape`, which turns every ASCII punctuation character
into a numeric character reference: no tag, attribute, Markdown or LaTeX
syntax can survive it, yet the browser shows the characters literally.
The chat renders each message as one single-line HTML block, so Markdown never
re-parses the escaped text. Document text shown to read (excerpts, context,
preview) goes through `readable`: the common Markdown of the text (headings,
emphasis, code, links) becomes the few tags this module writes itself, and
everything else is escaped as above.
"""

import re
import string
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from urllib.parse import urlencode

from qa import Answer, Citation, DocumentInfo, Hit
from qa.answering.quoted import NO_DOCUMENTS
from qa.indexing.ingest import counted
from qa.loaders.formats import kind_of
from qa.loaders.tables import row_fields
from ui.conversations import Conversation

CONTEXT_CHARS = 400  # of document text shown before and after a passage in its context
EXCERPT_CHARS = 160  # of passage text shown around its quotes in a source card
PREVIEW_CHARS = 3000  # of a document's text shown in its preview
LABEL_CHARS = 70  # of a document's first line used as its title when it has none
LINES = (".txt", ".md", ".markdown")  # whose lines are the file's own
_SPECIAL = frozenset(string.punctuation)
ORIGINAL_ROUTE = "/qa/original"  # ?path=an indexed file: its bytes (ui/viewer.py serves it)
ASK_WITHIN = "ask-within"  # ?document= or ?collection=, &question=: ui/page.js asks again
NO_DOCUMENTS_HERE = ("No documents are indexed yet: add some under Documents, and ask about "
                     "them as soon as they are indexed.")
COPY_BUTTON = (  # ui/page.js copies the answer and its sources as plain text; ui/feedback.js
    '<div class="qa-actions"><button class="qa-copy" type="button">Copy answer</button>'
    '<button class="qa-flag" type="button" title="Tell us this answer is wrong">'
    "Wrong answer</button></div>"  # asks what was wrong; its icon is drawn by ui/style.css
)
_FLAG = re.compile(r'<button class="qa-flag"[^>]*>[^<]*</button>')  # COPY_BUTTON's
FLAGGED = ('<button class="qa-flag qa-flagged" type="button" title="Marked as wrong: press to '
           'change what was wrong">Marked wrong</button>')  # as ui/feedback.js marks it
_MARKER = re.compile(r"&#91;(\d+)&#93;")
_MARKERS = re.compile(r"\[\d+\]")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*")
_INLINE = re.compile(  # groups: strong, strong, em, em, code, link text
    r"(?<![\w*])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w*])|(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)"
    r"|(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)([^_\n]+?)(?<=\S)_(?!\w)"
    r"|`([^`\n]+)`|!?\[([^\]\n]+)\]\([^)\s]+\)"
)
_INLINE_TAGS = ("strong", "strong", "em", "em", "code", "")


def escape(text: str) -> str:
    """Make untrusted text inert and literal; newlines become <br>."""
    out = "".join(f"&#{ord(ch)};" if ch in _SPECIAL else ch for ch in text)
    return re.sub(r"\r\n|\r|\n", "<br>", out)


def readable(text: str) -> str:
    """Untrusted text as safe HTML, its Markdown shown as formatting rather than symbols:
    a heading line in bold without its #, **strong**, *em*, `code`, a link as its text."""
    lines = []
    for line in re.split(r"\r\n|\r|\n", text):
        heading = _HEADING.fullmatch(line)
        lines.append(f"<strong>{_inline(heading.group(1))}</strong>" if heading else _inline(line))
    return "<br>".join(lines)


def _inline(text: str) -> str:
    out, position = [], 0
    for match in _INLINE.finditer(text):
        group = next(i for i, value in enumerate(match.groups()) if value is not None)
        tag, inner = _INLINE_TAGS[group], escape(match.group(group + 1))
        out += [escape(text[position : match.start()]),
                f"<{tag}>{inner}</{tag}>" if tag else inner]
        position = match.end()
    out.append(escape(text[position:]))
    return "".join(out)


def title_of(title: str, text: str | None, path: str) -> str:
    """What to call a document: its own title (PDF or docx metadata, first Markdown
    heading, HTML title), else, for a sheet or CSV, its file name (its first line is a
    row), else the start of its first line (a deck's: its title slide's title), else its
    file name."""
    if title.strip():
        return title.strip()
    if kind_of(path) == "sheet":  # one page a sheet (CSV: none), a line a row
        return Path(path).name
    line = (text or "").strip().split("\n", 1)[0].strip().lstrip("#").strip()
    if not line:
        return Path(path).name
    if len(line) <= LABEL_CHARS:
        return line
    return line[:LABEL_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def place(path: str, page: int | None, text: str | None, start: int) -> str:
    """Where in a document a passage starting at `start` of its text is, as its kind says
    it: "slide 3", "sheet Budget, row 7" (rows counted from the header, row 1, as in the
    file when it has no empty rows), "row 7" (CSV), "line 12" (plain text, Markdown),
    "page 4" (PDF and other paged files); "" when nothing says."""
    kind = kind_of(path)
    if kind == "slides" and page:
        return f"slide {page}"
    if kind == "sheet" and text is not None and 0 <= start <= len(text):
        gap = text.rfind("\n\n", 0, start)  # each sheet is a page, each row under its header a line
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start) % (len(text) + 1)
        row = f"row {text.count(chr(10), gap + 2 if gap >= 0 else 0, line_start) + 2}"
        caption = (row_fields(text[line_start:line_end]) or ("", []))[0]
        return f"sheet {caption}, {row}" if caption and page else row
    if page:
        return f"page {page}"
    if Path(path).suffix.lower() in LINES and text is not None and 0 <= start <= len(text):
        return f"line {text.count(chr(10), 0, start) + 1}"
    return ""


def answer_html(text: str, found: bool = True) -> str:
    """The answer (possibly partial, while streaming) with styled [n] markers; the empty
    index's answer says what to do on this page, not in a terminal."""
    text = NO_DOCUMENTS_HERE if text == NO_DOCUMENTS else text
    body = _MARKER.sub(
        r'<button type="button" class="qa-cite" title="Show source \1">&#91;\1&#93;</button>',
        escape(text),
    )
    css = "qa-answer" if found else "qa-answer qa-notfound"
    return f'<div class="{css}">{body}</div>'


def answer_text(answer: Answer) -> str:
    """The answer as the page says it: the table rows it quotes are left to its source
    cards, which show them as tables, when it says something besides them (the value
    computed from them, the cell asked for); their [n] stay, once each."""
    text, cited = answer.text, []
    for citation in answer.citations:
        if row_table(citation.quote):
            quote = re.escape(" ".join(citation.quote.split()))
            text, found = re.subn(rf"\s*{quote}\s*\[{citation.n}\]", "", text, count=1)
            cited += [citation.n] * found
    if not _MARKERS.sub("", text).strip():
        return answer.text  # the rows are all it says
    return text + "".join(f" [{n}]" for n in dict.fromkeys(cited) if f"[{n}]" not in text)


def checks_html(answer: Answer) -> str:
    """The notice of a fallback (its technical cause folded away), and the LLM claims
    that their sources do not support."""
    notes = []
    if answer.notice and answer.notice != answer.text:  # else the answer says it already
        notes.append(
            '<div class="qa-notice">The language model could not answer, so this answer '
            "quotes the documents.<details><summary>Why</summary>"
            f"{escape(answer.notice)}</details></div>"
        )
    notes += [
        '<div class="qa-unsupported">Not supported by the cited passage: '
        f"{escape(claim.text)}</div>"
        for claim in answer.claims if not claim.supported
    ]
    return "".join(notes)


def sources_html(citations: Sequence[Citation], document_text: Callable[[str], str | None]) -> str:
    """The Sources section: one card per cited passage, expandable to its context."""
    by_number: dict[int, list[Citation]] = {}
    for citation in citations:
        by_number.setdefault(citation.n, []).append(citation)
    if not by_number:
        return ""
    cards = "".join(
        _source_card(n, group, document_text(group[0].hit.source)) for n, group in by_number.items()
    )
    return f'<div class="qa-sources"><div class="qa-sources-title">Sources</div>{cards}</div>'


def _source_card(n: int, citations: list[Citation], full_text: str | None) -> str:
    """A cited passage around its highlighted quotes, expandable to its context."""
    hit = citations[0].hit
    spans = [_quote_span(c) for c in citations]
    start, end = excerpt_bounds(hit.text, spans)
    excerpt = highlighted(hit.text[start:end], [(a - start, b - start) for a, b in spans])
    excerpt = ("…" if start else "") + excerpt + ("…" if end < len(hit.text) else "")
    trimmed = start > 0 or end < len(hit.text)
    where = place(hit.source, hit.page, full_text, citations[0].start)
    page = f'<span class="qa-source-page"> · {escape(where)}</span>' if where else ""
    return (
        '<div class="qa-source">'
        f'<div class="qa-source-head"><span class="qa-source-n">{n}</span>'
        f'<span class="qa-source-name">'
        f'<span class="qa-source-title">{escape(title_of(hit.title, full_text, hit.source))}</span>'
        f'<span class="qa-source-where"><span class="qa-source-file">'
        f"{escape(Path(hit.source).name)}</span>{page}</span></span></div>"
        f'<div class="qa-passage">{excerpt}</div>{_rows(citations)}'
        f"{_context(hit, highlighted(hit.text, spans), full_text, trimmed)}"
        f"{open_link(hit.source, hit.page, citations[0].start, citations[0].end)}</div>"
    )


def open_link(source: str, page: int | None, start: int, end: int) -> str:
    """A source card's link to its original: the page opens it in the viewer (ui/page.js,
    ui/viewer.py); followed as a link, without the page's script, it downloads the file."""
    query = urlencode({"path": source, **({"page": page} if page else {}), "start": start,
                       "end": end})
    return (f'<a class="qa-open-original" href="{escape(ORIGINAL_ROUTE[1:] + "?" + query)}">'
            "Open the original</a>")


def _rows(citations: Sequence[Citation]) -> str:
    """The table rows a card's citations quote: one table, or one a quote."""
    joined = row_table("\n".join(c.quote.strip() for c in citations))
    return joined or "".join(row_table(c.quote) for c in citations)


def nearest_html(hit: Hit, full_text: str | None, question: str,
                 collections: Sequence[str] = ()) -> str:
    """Under a refusal: the passage nearest the question, marked as no answer, with
    offers to ask the question again within its document or a collection holding it
    (ui/page.js sets the "Ask within" choice)."""
    title = escape(title_of(hit.title, full_text, hit.source))
    where = place(hit.source, hit.page, full_text, hit.start)
    start, end = excerpt_bounds(hit.text, [(0, min(len(hit.text), EXCERPT_CHARS))])
    excerpt = readable(hit.text[start:end]) + ("…" if end < len(hit.text) else "")
    offers = [("document", hit.source, Path(hit.source).name),
              *(("collection", name, f"the collection “{name}”") for name in collections)]
    links = "".join(_ask_within({kind: value, "question": question}, label)
                    for kind, value, label in offers)
    return (
        '<div class="qa-nearest" role="note">'
        '<div class="qa-nearest-title">Not an answer: the closest passage found, in case '
        "it helps</div>"
        f'<div class="qa-nearest-name"><span class="qa-source-title">{title}</span> '
        f'<span class="qa-source-where">{escape(Path(hit.source).name)}'
        f"{' · ' + escape(where) if where else ''}</span></div>"
        f'<div class="qa-passage">{excerpt}</div>'
        f'<div class="qa-nearest-links">{open_link(hit.source, hit.page, hit.start, hit.end)}'
        f"{links}</div></div>"
    )


def _ask_within(query: dict[str, str], label: str) -> str:
    href = escape(f"{ASK_WITHIN}?{urlencode(query, errors='replace')}")  # a lone surrogate
    return f'<a class="qa-ask-within" href="{href}">Ask within {escape(label)}</a>'


def row_table(quote: str) -> str:
    """A quoted table row ("Offices: Team: Design; Floor: 4.") as a small table of its
    columns and values, under its caption; a quote of several rows (a line each) as a
    table of those rows under their columns; "" for a quote that is not rows."""
    read = [row_fields(line) for line in quote.strip().split("\n")]
    rows = [row for row in read if row is not None]
    if not rows or len(rows) < len(read):
        return ""
    caption = escape(rows[0][0])
    head = f"<caption>{caption}</caption>" if caption else ""
    if len(rows) == 1:
        cells = "".join(f"<tr><th>{escape(name)}</th><td>{escape(value)}</td></tr>"
                        for name, value in rows[0][1])
        return f'<div class="qa-rows-wrap"><table class="qa-row">{head}{cells}</table></div>'
    names = list(dict.fromkeys(name for row in rows for name, _ in row[1]))
    header = "".join(f'<th scope="col">{escape(name)}</th>' for name in names)
    body = "".join("<tr>" + "".join(f"<td>{escape(dict(row[1]).get(name, ''))}</td>"
                                    for name in names) + "</tr>" for row in rows)
    return (f'<div class="qa-rows-wrap"><table class="qa-row qa-rows">{head}'
            f"<thead><tr>{header}</tr></thead><tbody>{body}</tbody></table></div>")


def excerpt_bounds(text: str, spans: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """Where to cut a passage so that its quotes show with some text around them."""
    placed = [span for span in spans if span[0] < span[1]] or [(0, 0)]
    first, last = min(a for a, _ in placed), max(b for _, b in placed)
    start, end = max(0, first - EXCERPT_CHARS), min(len(text), last + EXCERPT_CHARS)
    if start > 0:
        start = text.find(" ", start, first) + 1 or start
    if end < len(text):
        space = text.rfind(" ", last, end)
        end = space if space >= 0 else end
    while start < first and text[start].isspace():
        start += 1
    while end > last and text[end - 1].isspace():
        end -= 1
    return start, end


def _quote_span(citation: Citation) -> tuple[int, int]:
    """Offsets of the quote inside its passage, or (0, 0) if it cannot be placed."""
    text, quote = citation.hit.text, citation.quote.strip()
    start, end = citation.start - citation.hit.start, citation.end - citation.hit.start
    if 0 <= start < end <= len(text) and text[start:end].strip():
        return start, end
    found = text.find(quote) if quote else -1
    return (found, found + len(quote)) if found >= 0 else (0, 0)


def highlighted(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Escaped text with the given (start, end) spans wrapped in <mark>."""
    out, position = [], 0
    for start, end in sorted(s for s in spans if s[0] < s[1]):
        start = max(start, position)
        if start >= end:
            continue
        out.append(readable(text[position:start]))
        out.append(f'<mark class="qa-quote">{readable(text[start:end])}</mark>')
        position = end
    out.append(readable(text[position:]))
    return "".join(out)


def _context(hit: Hit, passage: str, full_text: str | None, trimmed: bool) -> str:
    """The whole passage inside its surrounding text, behind a <details> toggle."""
    if not full_text:
        return ""
    start = hit.start if full_text[hit.start : hit.end] == hit.text else full_text.find(hit.text)
    if start < 0:
        return ""
    end = start + len(hit.text)
    before = _trim_left(full_text[max(0, start - CONTEXT_CHARS) : start], start > CONTEXT_CHARS)
    after = _trim_right(full_text[end : end + CONTEXT_CHARS], end + CONTEXT_CHARS < len(full_text))
    if not (trimmed or before.strip() or after.strip()):
        return ""
    return (
        '<details class="qa-context"><summary>Show in context</summary>'
        f'<div class="qa-context-text">{readable(before)}'
        f'<span class="qa-context-passage">{passage}</span>{readable(after)}</div></details>'
    )


def _trim_left(text: str, cut: bool) -> str:
    return "…" + text[text.find(" ") + 1 :] if cut and " " in text else text


def _trim_right(text: str, cut: bool) -> str:
    return text[: text.rfind(" ")] + "…" if cut and " " in text else text


def documents_html(
    documents: Sequence[DocumentInfo], label: Callable[[DocumentInfo], str],
    preview: tuple[str, str] | None = None,
    collections: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """The indexed files, each with its title (`label`), folder and name, passages, when
    indexed, the collections holding it (`collections`: path to names), and buttons to
    preview or remove it; `preview` is (path, preview_html) to show under that document's
    row."""
    if not documents:
        return '<div class="qa-docs-empty">No documents yet. Upload some below.</div>'
    shown, html = preview or ("", "")
    rows = "".join(
        _document_row(d, label(d), (collections or {}).get(d.path, ()))
        + (f'<li class="qa-doc-preview">{html}</li>' if d.path == shown else "")
        for d in documents
    )
    count = counted(len(documents), "document")
    return f'<div class="qa-docs-count">{count}</div><ul class="qa-docs">{rows}</ul>'


def _document_row(document: DocumentInfo, label: str, collections: Sequence[str]) -> str:
    path = Path(document.path)
    passages = counted(document.chunks, "passage")
    target = escape(document.path)
    held = "".join(f'<span class="qa-doc-collection">{escape(name)}</span>'
                   for name in collections)
    held = f'<span class="qa-doc-collections">In {held}</span>' if held else ""
    return (
        f'<li class="qa-doc" data-path="{target}">'
        f'<button class="qa-doc-open" data-path="{target}" title="Preview">'
        f'<span class="qa-doc-title">{escape(label)}</span>'
        f'<span class="qa-doc-where"><span class="qa-doc-file">{escape(path.name)}</span> · '
        f"{escape(str(path.parent))}</span>"
        f'<span class="qa-doc-meta">{passages} · indexed {when(document.indexed_at)}</span>'
        f"{held}</button>"
        f'<button class="qa-doc-view" data-path="{target}" '
        f'aria-label="View the original of {escape(path.name)}">View</button>'
        f'<button class="qa-doc-remove" data-path="{target}" data-name="{escape(path.name)}" '
        f'title="Remove {escape(path.name)}" aria-label="Remove {escape(path.name)}">✕</button>'
        "</li>"
    )


def preview_html(document: DocumentInfo, label: str, text: str) -> str:
    """The start of a document's text, with its title and where it is."""
    shown = text[:PREVIEW_CHARS]
    more = len(text) - len(shown)
    tail = f'<div class="qa-preview-more">… {more:,} more characters</div>' if more > 0 else ""
    return (
        f'<div class="qa-preview"><div class="qa-preview-title">{escape(label)}</div>'
        f'<div class="qa-doc-where">{escape(document.path)}</div>'
        f'<div class="qa-preview-text">{readable(shown)}</div>{tail}'
        '<button class="qa-preview-close" type="button" title="Close the preview" '
        'aria-label="Close the preview">✕</button></div>'
    )


def when(indexed_at: str) -> str:
    """An ISO timestamp as local time, e.g. '2 Dec 16:39' (as given if it is not ISO)."""
    try:
        local = datetime.fromisoformat(indexed_at).astimezone()
    except ValueError:
        return escape(indexed_at)
    return f"{local.day} {local:%b %H:%M}"


def status_html(notes: Sequence[tuple[bool, str]]) -> str:
    """Outcome lines of an upload or removal, each marked as success or problem."""
    items = "".join(
        f'<li class="{"qa-ok" if ok else "qa-problem"}">{escape(text)}</li>' for ok, text in notes
    )
    return f'<ul class="qa-status">{items}</ul>' if items else ""


def collections_html(counts: Mapping[str, int]) -> str:
    """The collections, each with how many documents it holds and buttons to rename or
    delete it."""
    if not counts:
        return ('<div class="qa-colls-empty">No collections yet. Create one to group '
                "documents and ask within them.</div>")
    rows = "".join(_collection_row(name, count) for name, count in counts.items())
    return f'<ul class="qa-colls">{rows}</ul>'


def _collection_row(name: str, count: int) -> str:
    shown = escape(name)
    documents = counted(count, "document")
    return (
        f'<li class="qa-coll"><span class="qa-coll-name">{shown}</span>'
        f'<span class="qa-coll-count">{documents}</span>'
        f'<button class="qa-coll-rename" data-action="rename" data-name="{shown}" '
        f'aria-label="Rename {shown}">Rename</button>'
        f'<button class="qa-coll-delete" data-action="delete" data-name="{shown}" '
        f'title="Delete {shown}" aria-label="Delete {shown}">✕</button></li>'
    )


def scope_html(text: str) -> str:
    """The line under an answer saying which documents it was asked within ("": none)."""
    return f'<div class="qa-scope">{escape(text)}</div>' if text else ""


def model_html(model: str | None, base_url: str | None, saved_key: bool) -> str:
    """The line saying which language model writes answers, if any (never its key)."""
    if not model:
        return '<div class="qa-hint">No language model is in use.</div>'
    key = " · a key is saved" if saved_key else ""
    return (f'<div class="qa-model-line">In use: <strong>{escape(model)}</strong> at '
            f"{escape(base_url or '')}{key}</div>")


def sentence(text: str) -> str:
    """A message as a sentence: capital first letter, final full stop."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


FEEDBACK_FORM = (
    '<form class="qa-feedback" role="dialog" aria-labelledby="qa-feedback-title" hidden>'
    '<div class="qa-feedback-title" id="qa-feedback-title">What was wrong with this answer?</div>'
    '<label for="qa-feedback-correct">The right answer (optional)</label>'
    '<textarea id="qa-feedback-correct" rows="3"></textarea>'
    '<label class="qa-feedback-refuse"><input type="checkbox" id="qa-feedback-refuse"> '
    "It should have said the documents do not hold the answer</label>"
    '<div class="qa-feedback-buttons"><button type="submit" class="qa-feedback-send">'
    'Mark as wrong</button><button type="button" class="qa-feedback-cancel">Cancel</button>'
    "</div></form>"
)


def marked_wrong(shown: str) -> str:
    """A kept answer's HTML with its Wrong answer button marked, as when it was pressed."""
    return _FLAG.sub(FLAGGED, shown, count=1)


def feedback_html(note: str = "") -> str:
    """The form that marks an answer wrong (ui/feedback.js opens it under the answer's
    button), and a line saying what became of the last one."""
    shown = f'<div class="qa-feedback-note" role="status">{escape(note)}</div>' if note else ""
    return FEEDBACK_FORM + shown


def conversations_html(
    conversations: Sequence[Conversation], current: str, search: str = ""
) -> str:
    """The kept conversations, latest first: title and date, the current one marked, each
    with buttons to rename, export (Markdown, JSON) or delete it."""
    if not conversations:
        empty = (f"No conversation holds “{escape(search)}”." if search.strip()
                 else "Your conversations are kept here, on this server.")
        return f'<div class="qa-conv-empty">{empty}</div>'
    rows = "".join(_conversation_row(c, c.id == current) for c in conversations)
    return f'<ul class="qa-convs">{rows}</ul>'


def _conversation_row(conversation: Conversation, current: bool) -> str:
    title, key = escape(conversation.title), escape(conversation.id)
    count = conversation.questions
    questions = counted(count, "question")

    def action(name: str, text: str, label: str) -> str:
        return (f'<button class="qa-conv-{name}" data-action="{name}" data-id="{key}" '
                f'data-title="{title}" title="{label}" aria-label="{label}: {title}">'
                f"{text}</button>")

    marked = (" qa-conv-current", ' aria-current="true"') if current else ("", "")
    return (
        f'<li class="qa-conv{marked[0]}">'
        f'<button class="qa-conv-open" data-action="open" data-id="{key}"{marked[1]}>'
        f'<span class="qa-conv-title">{title}</span>'
        f'<span class="qa-conv-meta">{when(conversation.updated_at)} · {questions}</span></button>'
        f'<span class="qa-conv-actions">{action("rename", "Rename", "Rename")}'
        f'{action("md", "MD", "Export as Markdown")}{action("json", "JSON", "Export as JSON")}'
        f'{action("delete", "✕", "Delete")}</span></li>'
    )
