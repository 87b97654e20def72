"""Markdown (.md, .markdown): the text as it is, each GitHub pipe table (found by
markdown-it, so not one inside a code block) written a row a line by `qa.loaders.tables`; the
title is the first heading.
"""

import re
from collections.abc import Iterator

from qa.loaders.base import Loaded, Reading, TextBudget
from qa.loaders.decoding import decode_text
from qa.loaders.tables import table_lines


def load_markdown(data: bytes, reading: Reading) -> Loaded:
    text = _markdown_tables(decode_text(data), reading.budget)
    heading = re.search(r"^#[ \t]+(.+)$", text, flags=re.MULTILINE)
    return (heading.group(1) if heading else ""), text, ()


# a table's delimiter row ("|---|:--:|"): only text with one is parsed for tables
_TABLE_RULE = re.compile(r"^[ \t>]*(?=[^\n]*\|)[ \t|:-]*-[ \t|:-]*$", flags=re.MULTILINE)


def _markdown_tables(text: str, budget: TextBudget) -> str:
    """Markdown with each GitHub pipe table (found by markdown-it, so not one inside a code
    block) written as one line per row by `table_lines`, named by its header row and
    captioned by the heading before it; the rest of the text is left as it is."""
    if not _TABLE_RULE.search(text):
        return budget.add(text)
    from markdown_it import MarkdownIt

    lines = text.split("\n")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    kept: list[str] = []
    done = 0  # the lines before this one are kept or written as rows
    for (first, last), rows, caption in _pipe_tables(tokens):
        kept += _charged(lines[done:first], budget)
        kept += table_lines(rows[0], rows[1:], caption, budget=budget)
        done = last
    kept += _charged(lines[done:], budget)
    return "\n".join(kept)


def _charged(lines: list[str], budget: TextBudget) -> list[str]:
    budget.charge(sum(map(len, lines)))
    return lines


def _pipe_tables(tokens) -> Iterator[tuple[list[int], list[list[str]], str]]:
    """(the table's [first, last) lines, its rows of cell texts, the heading before it)."""
    heading, lines = "", [0, 0]
    rows: list[list[str]] = []
    for token, following in zip(tokens, [*tokens[1:], None], strict=True):
        if token.type == "heading_open":
            heading = _inline_text(following)
        elif token.type == "table_open":
            rows, lines = [], token.map
        elif token.type == "tr_open":
            rows.append([])
        elif token.type in ("th_open", "td_open"):
            rows[-1].append(_inline_text(following))
        elif token.type == "table_close":
            yield lines, rows, heading


def _inline_text(token) -> str:
    """The text of an inline Markdown token, without its emphasis or link syntax."""
    parts = (token.children or []) if token is not None else []
    return "".join(part.content if part.type in ("text", "code_inline") else " "
                   for part in parts if part.type in ("text", "code_inline", "softbreak"))
