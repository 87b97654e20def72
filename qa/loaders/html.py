"""HTML (.html, .htm): the main text of a page, without navigation or scripts, by
trafilatura from lxml's tree, each table that holds no other table written a row a line
by `qa.loaders.tables`; a page nested past lxml's 2048 levels gives all its text through
html.parser instead (`all_text`, which e-books and e-mail use for their XHTML too).
"""

from collections.abc import Iterator
from html import parser as html_parser
from typing import Any

from qa.loaders.base import Loaded, Reading, TextBudget
from qa.loaders.decoding import decode_text
from qa.loaders.tables import table_lines


def load_html(data: bytes, reading: Reading) -> Loaded:
    import trafilatura
    from lxml.html import HTMLParser, document_fromstring

    html = decode_text(data)
    if not html.strip():
        return "", "", ()
    # huge_tree: without it libxml2 drops everything nested deeper than 256 levels; with
    # it, deeper than 2048 (then the page's text is taken without trafilatura's help)
    parser = HTMLParser(encoding="utf-8", huge_tree=True, collect_ids=False,
                        default_doctype=False, remove_comments=True, remove_pis=True)
    tree = document_fromstring(html.encode(), parser=parser)
    metadata = trafilatura.extract_metadata(tree)
    title = metadata.title if metadata and metadata.title else ""
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        return title, reading.budget.add(all_text(html)), ()
    _html_tables_as_rows(tree, reading.budget)
    # the text taken is the page's own, bounded by its size, and the rows just charged
    text = trafilatura.extract(tree, include_comments=False, include_tables=True,
                               favor_recall=True)
    return title, text or "", ()


_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _html_tables_as_rows(tree, budget: TextBudget) -> None:
    """Replace each table holding no other table by a paragraph per row, written by
    `table_lines`, so that trafilatura keeps every row, in place, with its column names
    and the table's <caption> or the heading before it. A table of tables lays out a
    page; its inner tables hold the data."""
    for table, heading in list(_tables_with_headings(tree)):
        caption = table.xpath("string(./caption)").strip() or heading
        block = table.makeelement("div", {})
        for line in _html_table_lines(table, caption, budget):
            paragraph = block.makeelement("p", {})
            paragraph.text = line
            block.append(paragraph)
        block.tail = table.tail
        table.getparent().replace(table, block)


def _html_table_lines(table, caption: str, budget: TextBudget) -> list[str]:
    """A table's rows as `table_lines` writes them; in a table whose rows each open with a
    <th> and that has no header row (a list of properties), each row is named by its <th>."""
    trs = table.xpath("./tr|./*/tr")
    first = trs[0].xpath("./th|./td") if len(trs) > 2 else []
    if len(first) == 1 and _span(first[0], "colspan") > 1:  # one cell across the table: its title
        caption, trs = first[0].text_content(), trs[1:]
    rows = _html_grid(trs)
    header, body = _html_header(trs, rows)
    if header or not all(tr.xpath("./*[1][self::th]") for tr in trs):
        return table_lines(header, body, caption, budget=budget)
    return [line for row in rows
            for line in table_lines(row[:1], [row[1:]], caption, budget=budget)]


def _tables_with_headings(tree) -> Iterator[tuple[Any, str]]:
    """Each table that holds no other table, with the text of the last heading before it."""
    heading = ""
    for element in tree.iter():
        if element.tag in _HEADINGS:
            heading = element.text_content()
        elif element.tag == "table" and element.find(".//table") is None:
            yield element, heading


def _html_grid(trs: list) -> list[list[str]]:
    """The rows' cell texts, column by column: a cell spanning columns is followed by empty
    cells, and a cell spanning rows is repeated in each (each row names its own value)."""
    above: dict[int, tuple[int, str]] = {}  # column: (rows it still spans, its text)
    grid = []
    for tr in trs:
        cells, row = list(tr.xpath("./th|./td")), list[str]()
        while cells or len(row) in above:
            column = len(row)
            if column in above:
                left, text = above.pop(column)
                above.update({column: (left - 1, text)} if left > 1 else {})
                row.append(text)
                continue
            cell = cells.pop(0)
            span = _span(cell, "rowspan")
            if span > 1:
                above[column] = (span - 1, cell.text_content())
            row += [cell.text_content(), *[""] * (_span(cell, "colspan") - 1)]
        grid.append(row)
    return grid


def _html_header(trs: list, rows: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """The column names and the rows under them: the header row is the first row when it
    is in <thead>, when all its cells are <th>, or when the table has no <th> at all."""
    if len(rows) < 2:
        return [], rows
    first = trs[0]
    named = (first.getparent().tag == "thead" or not first.xpath("./td")
             or not any(tr.xpath("./th") for tr in trs))
    return (_spread(first), rows[1:]) if named else ([], rows)


def _spread(tr) -> list[str]:
    """A header row's names, a name spanning columns given to each of them."""
    names: list[str] = []
    for cell in tr.xpath("./th|./td"):
        names += [cell.text_content()] * _span(cell, "colspan")
    return names


def _span(cell, attribute: str) -> int:
    """The columns (colspan) or rows (rowspan) a cell spans: 1 unless it says otherwise,
    at most 100."""
    span = cell.get(attribute, "1").strip()
    return min(int(span), 100) if span.isdigit() and int(span) > 0 else 1


class _TextCollector(html_parser.HTMLParser):
    """The text of an HTML page, without scripts and styles, a block element a line.
    html.parser builds no tree, so no nesting is too deep for it."""

    _BLOCKS = frozenset({"address", "article", "aside", "blockquote", "br", "dd", "div", "dl",
                         "dt", "figcaption", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
                         "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
                         "table", "td", "th", "tr", "ul"})
    _HIDDEN = frozenset({"script", "style", "template", "noscript", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in self._HIDDEN:
            self.hidden += 1
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN and self.hidden:
            self.hidden -= 1
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def all_text(html: str) -> str:
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    lines = (" ".join(line.split()) for line in "".join(collector.parts).split("\n"))
    return "\n".join(line for line in lines if line)
