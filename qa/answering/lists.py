"""Lists and sections: the part of a document a question names, and every item of the
list it asks for, in document order.

Meeting notes hold one meeting after another, each under a heading with its date; a
question about "the 3 March meeting" is about that section, not the nearest meeting
that shares its words. `named_section` finds it: a heading (a Markdown heading, or a
line without closing punctuation) that holds the date the question names, up to the
next heading that holds a date. Sentences outside it are not quoted.

A list question ("What items were agreed at the 3 March meeting?", "List the actions")
wants every item, not the sentence that names the most: `list_items` takes the bulleted
or numbered list of the section (or of the document) whose label ("Agreed:") and items
share most words with the question, and each of its items is quoted and cited, in
document order. A table's rows are listed by `qa.answering.tables`; a list written in a
sentence ("Present: Ada, Bo and Cy.") is quoted whole by `qa.answering.quoted`.
"""

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from qa.answering.question_kinds import (
    asks_for_people,
    content_words,
    is_list_question,
    named_things,
)
from qa.answering.quoted import quoted
from qa.answering.results import Answer
from qa.search import Hit
from qa.stemming import index_term
from qa.words import DATE, dates

_LINE = re.compile(r"[^\n]*")
_CLOSED = re.compile(r"""[.!?;]["'”’)\]]*\s*$""")
MAX_HEADING = 100  # characters of a line that can head a section
MIN_ITEM_WORDS = 2  # of the question's that a list's items share, when its label shares none
# an e-mail's header line: no heading, though short ("Subject: New rota from 1 June"); a
# "Date:" line is kept, which heads a meeting's notes as often
_HEADER_FIELD = re.compile(r"(?:from|to|cc|bcc|sent|subject):\s", re.I)
_ITEM = re.compile(r"[ \t]*(?:[-*•–]|\d{1,2}[.)]|[a-z][.)])[ \t]+(?=\S)")
# "What was agreed at the 3 March meeting?" asks for a section's list as "List..." does
_WHAT_WAS = re.compile(r"^\s*what\s+(?:was|were|did|has|have|is|are)\b", re.I)
# "What did the board decide?", "What was agreed at the June meeting?"
_WHAT = re.compile(r"^\s*(?:what|which)\b", re.I)
_DECISIONS_ASKED = re.compile(  # bounded gaps: linear on a long run of "did did did..."
    r"\bdid\s+(?:\S+\s+){0,8}?(?:decide|agree|resolve)\b|\b(?:was|were|got|been)\s+"
    r"(?:\w+\s+)?(?:decided|agreed|resolved)\b|\bdecisions?\s+(?:were\s+|was\s+)?(?:made|"
    r"taken|reached|of|from|at|in)\b", re.I)
_DECISION_WORDS = frozenset(("decide", "decided", "decides", "decision", "decisions", "agree",
                             "agreed", "resolved", "resolution", "resolutions", "got", "made",
                             "taken", "make"))
_DECISION_HEADING = re.compile(r"\b(?:decisions?|decided|agreed|resolutions?)\b", re.I)
_DECISION_LABEL = re.compile(r"^\W*(?:decisions?|decided|agreed|resolved|resolution)\W*:",
                             re.I | re.M)  # at a line's start: "Training day\nDecision: ..."
_DECIDES = re.compile(r"\b(?:decided|agreed|approved|resolved|rejected|voted)\b", re.I)
MAX_DECISIONS = 12  # quoted of one document
# words that ask for a list rather than say what is in it
_LIST_WORDS = frozenset(("item", "items", "thing", "things", "point", "points", "meeting",
                         "minutes", "section", "agenda", "list"))


@dataclass(frozen=True, slots=True)
class Section:
    """A part of a document: its heading's text and its span (from the heading's start)."""

    heading: str
    start: int
    end: int


def headings(text: str) -> list[tuple[int, str]]:
    """The lines that can head a section, with their offsets: Markdown headings, and
    short lines that end in no punctuation and are not list items nor an e-mail's header
    lines (its subject's date names no section: "What's the fee from 1 June?" of an
    e-mail "Subject: New rota from 1 June" is asked of the whole e-mail)."""
    found = []
    for match in _LINE.finditer(text):
        line = match.group().strip()
        if line and len(line) <= MAX_HEADING and (line.startswith("#") or not (
                _CLOSED.search(line) or _ITEM.match(match.group()) or line.endswith(":")
                or _HEADER_FIELD.match(line))):
            found.append((match.start(), line))
    return found


def named_section(question: str, text: str) -> Section | None:
    """The section of `text` whose heading holds a date the question names, up to the
    next heading with a date; None when the question names no date or no heading holds
    it."""
    asked = dates(question)
    if not asked:
        return None
    dated = [(start, line) for start, line in headings(text) if dates(line)]
    for i, (start, line) in enumerate(dated):
        if asked & dates(line):
            end = dated[i + 1][0] if i + 1 < len(dated) else len(text)
            return Section(line.lstrip("# "), start, end)
    return None


def list_items(question: str, text: str, start: int = 0,
               end: int | None = None) -> tuple[str, list[tuple[int, int]]] | None:
    """The label and the items (spans in `text`, without their bullets) of the list in
    text[start:end] the question asks for: the one whose label ("Actions:") holds most of
    the question's words (with the heading just above it: "Keyholders", then "Four
    people hold keys:"), then whose items do; None when there is no list, or none
    whose label holds one of them or whose items hold MIN_ITEM_WORDS ("What were the café
    sales?" is not asked of an agenda with an item "Potting Shed Café")."""
    wanted = {index_term(w) for w in content_words(DATE.sub(" ", question))
              if w not in _LIST_WORDS}
    best: tuple[tuple[int, int], str, list[tuple[int, int]]] | None = None
    for label, items in _lists(text, start, len(text) if end is None else end):
        named = f"{_heading_above(text, label, items[0][0])} {label}"
        held = (len(wanted & _stems(named)),  # the label names the list: it counts first
                len(wanted & _stems(" ".join(text[a:b] for a, b in items))))
        if (held[0] or held[1] >= MIN_ITEM_WORDS) and (best is None or held > best[0]):
            best = (held, label, items)
    return (best[1], best[2]) if best else None


def _heading_above(text: str, label: str, first_item: int) -> str:
    """The line just above a list's label when it is a heading (`may_head`), else ""."""
    at = text.rfind(label, 0, first_item)
    above = text[:at].rstrip().rsplit("\n", 1)[-1].strip() if at > 0 else ""
    return above if above and may_head(above) else ""


def may_head(quote: str) -> bool:
    """Whether a quote may be a heading: one line, without closing punctuation."""
    return "\n" not in quote.strip() and not _CLOSED.search(quote)


def headed_list(text: str, start: int, end: int) -> list[tuple[int, int]] | None:
    """The items of the list that the whole line text[start:end], a heading (`may_head`),
    heads ("Priorities for 2026" and the points under it on a slide), else None: a
    heading quoted alone says nothing, its list does."""
    line_end = text.find("\n", start)
    line = text[start:line_end].strip()
    if (line_end < 0 or text[start:end].strip() != line or not may_head(line)
            or text[:start].rsplit("\n", 1)[-1].strip()):
        return None  # not a whole line, or a sentence
    runs = _lists(text, start, len(text))
    return runs[0][1] if runs and runs[0][0] == line else None


def _stems(text: str) -> set[str]:
    return {index_term(word) for word in content_words(text)}


def _lists(text: str, start: int, end: int) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each run of list items in text[start:end] (blank lines may part them) with its
    label, the line before the run. A run's items are all numbered or all marked: a
    numbered line after marked items ("3. LONE WORKING") heads what follows."""
    lists: list[tuple[str, list[tuple[int, int]]]] = []
    label, numbered = "", False
    items: list[tuple[int, int]] = []
    for match in _LINE.finditer(text, start, end):
        line = match.group()
        bullet = _ITEM.match(line)
        if bullet and not (items and numbered != bullet.group().strip()[0].isalnum()):
            numbered = bullet.group().strip()[0].isalnum()
            items.append((match.start() + bullet.end(), match.start() + len(line.rstrip())))
        elif line.strip():
            if items:
                lists.append((label, items))
                items = []
            label = line.strip()
    if items:
        lists.append((label, items))
    return lists


def decision_subject(question: str) -> str | None:
    """What a question for a meeting's decisions names it by ("What was agreed at the
    June coordinators meeting?": "June coordinators meeting"), or None for any other
    question."""
    if not (_WHAT.match(question) and _DECISIONS_ASKED.search(question)):
        return None
    return " ".join(w for w in content_words(question) if w.lower() not in _DECISION_WORDS)


def decisions(text: str, sentences: Sequence[tuple[int, int]],
              headings: Sequence[tuple[int, str]], section: Section | None = None,
              ) -> list[tuple[int, int]]:
    """The spans of a document's decisions, or of its `section` (one meeting of notes
    that hold several), of its `sentences` (spans, in order) and
    `headings` ((offset, text), in order): the items of the lists labelled so
    ("Decisions:" and its bullets); else the sentences of a section headed by them
    ("DECISIONS", "Decisions and actions"); else the sentences labelled as one ("DECISION: ...",
    "**Agreed:** ..."); else, of a whole document, those that say something was decided,
    agreed, approved or rejected (a meeting's numbered points are its list, not the one
    point that says "approved")."""
    start, stop = (section.start, section.end) if section else (0, len(text))
    sentences = [(a, b) for a, b in sentences if start <= a and b <= stop]
    headings = [(at, heading) for at, heading in headings if start <= at < stop]
    listed = [item for label, items in _lists(text, start, stop)
              if _DECISION_LABEL.match(label) for item in items]  # "Decisions:" and a list
    if listed:  # its items, not the "Actions: ..." sentences after it
        return listed[:MAX_DECISIONS]
    for n, (at, heading) in enumerate(headings):
        if _DECISION_HEADING.search(heading):
            line_end = text.find("\n", at)
            after = len(text) if line_end < 0 else line_end  # the heading's line ends
            end = headings[n + 1][0] if n + 1 < len(headings) else stop
            inside = [(_skip_space(text, max(a, after)), b) for a, b in sentences
                      if after < b <= end]  # a sentence may run on from the heading
            if inside:
                return inside[:MAX_DECISIONS]
    for pattern in (_DECISION_LABEL,) if section else (_DECISION_LABEL, _DECIDES):
        # a labelled decision is quoted from its label's line, not the heading above it
        found = [(a + (match.start() if pattern is _DECISION_LABEL else 0), b)
                 for a, b in sentences if (match := pattern.search(text[a:b]))]
        if found:
            return found[:MAX_DECISIONS]
    return []


def _skip_space(text: str, at: int) -> int:
    return len(text) - len(text[at:].lstrip()) if text[at:].strip() else at


def asks_for_list(question: str, section: Section | None) -> bool:
    """Whether the question may ask for a list: a list question ("List...", "Which teams
    are...?"), or "What...?" about a section it names by its date ("What actions came out
    of the 5 May meeting?")."""
    return is_list_question(question) or bool(section and _WHAT.match(question))


def list_answer(question: str, text: str, section: Section | None,
                read: Callable[[], Sequence[Hit]]) -> Answer | None:
    """Every item of the list a list question asks for, from the document `text` (within
    `section`, if one is named: its longest list when none shares the question's words),
    each quoted from the passage of `read()` (the document's passages, read only when a
    list fits) that holds it; None when no list fits. Of a section, "What...?" gets a
    list only when its label or items share the question's words, unless it is "What
    was...?" or a list question ("What time did the 5 May meeting start?" is no list)."""
    start, end = (section.start, section.end) if section else (0, len(text))
    found = list_items(question, text, start, end)
    if found is None and section is not None and (  # "What was decided on 6 November?"
            is_list_question(question) or _WHAT_WAS.match(question)):
        found = max(_lists(text, start, end), key=lambda run: len(run[1]), default=None)
    if found is None or asks_for_people(question) and not all(
            named_things(question, text[a:b]) for a, b in found[1]):
        return None  # "Who was at...?" is not answered by a list of targets
    label, items = found
    where = f" ({section.heading})" if section else ""
    return items_answer(question, f"{label.lstrip('# ').rstrip(':')}{where}", items, read())


def items_answer(question: str, label: str, items: Sequence[tuple[int, int]],
                 hits: Sequence[Hit]) -> Answer | None:
    """The items (document spans) quoted and cited in order after their label and number
    ("Actions, 2 items: ..."), each from the passage of `hits` that holds it whole; None
    when a passage boundary cuts one."""
    spans = []
    for a, b in items:
        holder = next((hit for hit in hits if hit.start <= a and b <= hit.end), None)
        if holder is None:
            return None
        spans.append((holder, a, b))
    answer = quoted(question, spans, 1.0)
    return Answer(question, f"{label}, {len(items)} items: {answer.text}", True,
                  answer.citations, score=1.0)
