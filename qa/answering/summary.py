"""Summaries: which documents an overview question is about, and which of their
sentences stand for them.

An overview question ("What is this document about?", "Summarize the handbook", "What
are the main points?") has no sentence that answers it; it wants what the document is
and what it says (`overview`). It opens with what the document is, its title and kind
("“Board Meeting Q3 2024” is a Word document:"), and its purpose in its own words (its
first sentence of prose that is more than a greeting or a field such as "Present: ...");
then, for one document, its main points in order: under each of its headings, the
sentence that says most of that section, a decision, a figure or the section's first
sentence first ("Forecast: Revenue for the quarter was 412,000 pounds… [1]"), for at most
MAIN_POINTS sections (those with most to say). A document
without headings (an article) gives its central sentences instead. Sentences are weighed
by the sentence vectors stored at indexing time, so no model is called:

- centrality: the cosine similarity of a sentence to the centroid of the document's
  sentences (what most of it is about);
- diversity: sentences are taken one by one by maximal marginal relevance (Carbonell
  and Goldstein, 1998), so the second says something the first did not; one that
  restates a chosen sentence (cosine of REDUNDANT or more) is never taken;
- prose: a summary leads with what the document says, so a table row, a table's lead-in
  ("The table below lists…"), a heading or label, a date line or an e-mail header line
  ("From: …", "Subject: …") is never taken, nor counted in the centroid
  (`prose_sentences`), unless nothing else is there to take (a spreadsheet).

They are quoted in document order after the purpose, each cited like any quote, a line
each. Which document: one the question names (its title or file name; of names alike,
the one whose text matches the subject best), the one a follow-up refers to ("this
article", "it", "Summarize."), or the whole collection: what each of its largest
documents is, and its purpose. A subject in quotes names a document
(the web chat suggests 'What is “<a document's title or first line>” about?').
"""

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from qa.answering.question_kinds import content_words
from qa.backends import DocumentInfo
from qa.backends.base import SentenceRow
from qa.indexing.chunking import is_field_line
from qa.loaders.tables import row_fields
from qa.search import Hit
from qa.stemming import index_term
from qa.words import MONTH_NAMES, MONTHS, SECTION_NUMBER, WEEKDAYS, WORD, dates

SUMMARY_SENTENCES = 3  # quoted of one document without headings: its purpose and two more
MAIN_POINTS = 8  # of one document with headings: a point a section, the weightiest
DECISION_BONUS, FIGURE_BONUS = 0.15, 0.1  # a section's point states one first
LEAD_BONUS = 0.1  # ... or is its first sentence, which most often says what it is about
HEADING_WORDS = 12  # a heading is a line of at most this many words
PURPOSE_WORDS = 6  # a document's purpose: its first sentence of at least this many words
COLLECTION_DOCUMENTS = 5  # a collection's summary quotes its this many largest documents
MMR_LAMBDA = 0.7  # relevance against novelty in maximal marginal relevance
REDUNDANT = 0.9  # a sentence this similar to one chosen restates it: never taken
MIN_TITLE_MATCH = 0.5  # the share of the subject's words a document's name must hold
_COLLECTION = frozenset((
    "documents", "these documents", "all documents", "all the documents", "my documents",
    "files", "these files", "my files", "all files", "everything", "all", "all of them",
    "them", "these", "collection", "whole collection", "corpus", "index",
))
_REFERENCE = re.compile(
    r"^(?:|it|this|that|this one|(?:this|that|the|current) (?:document|article|file|text|"
    r"page|pdf|story|report|paper|piece|one))$")
# a subject with one of these names a document even when no title matches it
_DOCUMENT_NOUNS = frozenset((
    "document", "article", "file", "report", "paper", "handbook", "manual", "guide", "memo",
    "story", "policy", "page", "notes", "minutes", "pdf", "letter", "brochure", "faq",
    "email", "e-mail", "mail", "message", "slides", "deck", "presentation", "spreadsheet",
    "notice",
))
_QUOTES = "\"'“‘«„"
_NAME_NOISE = frozenset(("document", "article", "file", "text", "pdf", "docx", "md", "txt"))
_ENDS_SENTENCE = re.compile(r"""[.!?;]["'”’)\]]*$""")
_HEADER_FIELD = re.compile(
    r"^(?:from|to|cc|bcc|subject|date|sent|reply-to|re|fwd?|attachments?)\s*:", re.I)
_LEAD_IN = re.compile(
    r"\b(?:tables?|lists?|charts?|figures?|schedule|overview)\s+(?:below|above)\b|"
    r"\b(?:below|above|following)\s+(?:tables?|lists?|charts?|figures?|schedule)\b|"
    r"\b(?:are|is)\s+(?:listed|shown|given|set out|summari[sz]ed)\s+(?:below|above)\b",
    re.I)
_DECISION = re.compile(
    r"\b(?:agreed|decided|approved|resolved|rejected|voted|confirmed|accepted|will|must|"
    r"shall)\b", re.I)
_FIGURE = re.compile(r"\d")
_DECIMAL = re.compile(r"\d[.,]\d")
KINDS = {  # what a document of each suffix is, as an overview says it
    ".pdf": "a PDF", ".docx": "a Word document", ".odt": "an OpenDocument text",
    ".rtf": "an RTF document", ".pptx": "a slide deck", ".odp": "a slide deck",
    ".xlsx": "a spreadsheet", ".xlsm": "a spreadsheet", ".ods": "a spreadsheet",
    ".csv": "a table", ".tsv": "a table", ".md": "a Markdown document",
    ".markdown": "a Markdown document", ".txt": "a text file", ".html": "a web page",
    ".htm": "a web page", ".eml": "an e-mail", ".mbox": "a mailbox", ".epub": "an e-book",
}
# what people call a document of each kind, besides its name
_DECK, _SHEET = "slides deck presentation", "spreadsheet sheet workbook"
KIND_WORDS = {".pptx": _DECK, ".odp": _DECK, ".xlsx": _SHEET, ".xlsm": _SHEET, ".ods": _SHEET,
              ".eml": "email e-mail mail message", ".mbox": "emails e-mails mailbox"}
_BYLINE = re.compile(r"^(?:issued|prepared|approved|written|compiled|reviewed|signed|"
                     r"authori[sz]ed)\s+by\b", re.I)
_AMPERSAND = re.compile(r"\b(\w)\s*&\s*(\w)\b")
_DATE_WORDS = re.compile(
    rf"^(?:\d+(?:st|nd|rd|th)?|{MONTHS}|{WEEKDAYS}|am|pm|of|the|on|at|date|dated|updated|as)$",
    re.I)


def documents_to_summarize(
    subject: str, outright: bool, documents: Sequence[DocumentInfo],
    referred: Callable[[], str | None], find: Callable[[str], str | None],
) -> list[str] | None:
    """The paths of the documents an overview question (`qa.answering.question_kinds.
    summary_subject`) is about, or None when it is no overview question after all ("What
    was the dispute about?" asks about a dispute, not a document).

    referred(): the document the conversation is about, if any; find(text): the
    document that best matches `text`.
    """
    if not documents:
        return None
    if len(documents) == 1 and (outright or _REFERENCE.match(subject)):
        return [documents[0].path]
    if subject in _COLLECTION:
        return _largest(documents)
    if _REFERENCE.match(subject):
        path = referred()
        return [path] if path else _largest(documents)
    named = named_documents(subject, documents)
    if len(named) > 1:  # names alike: the one whose text matches the subject best
        found = find(subject)
        return [found] if found in named else named
    if named:
        return named
    nouns = {index_term(word) for word in _DOCUMENT_NOUNS}
    quoted = subject[:1] in _QUOTES  # 'What is “Harbour notes” about?' names a document
    if outright or quoted or any(index_term(w) in nouns for w in content_words(subject)):
        path = find(subject)
        return [path] if path else None
    return None


def _largest(documents: Sequence[DocumentInfo]) -> list[str]:
    ordered = sorted(documents, key=lambda d: (-d.chunks, d.path))
    return [d.path for d in ordered[:COLLECTION_DOCUMENTS]]


def named_documents(subject: str, documents: Sequence[DocumentInfo]) -> list[str]:
    """The documents whose name (`_name`, or its initials: "H&S") holds most of the
    subject's words (at least MIN_TITLE_MATCH of them), all of them on a tie. A word counts
    by how few names hold it (smoothed inverse document frequency): "the infection control
    policy" names the infection control policy, not the controlled drugs policy beside it.
    When at least half the subject's words are in some name, the words no name holds are
    left out: they say what is in it ("the booking e-mail to Brackley School")."""
    subject = _AMPERSAND.sub(r"\1\2", subject)  # "H&S": "hs", the initials of a name
    wanted = {index_term(w) for w in content_words(subject) if w not in _NAME_NOISE}
    if not wanted:
        return []
    held = {}
    for document in documents:
        words = content_words(_name(document))
        held[document.path] = {index_term(word) for word in [*words, *_initials(words)]}
    names = list(held.values())
    named = {word for word in wanted if any(word in name for name in names)}
    if 2 * len(named) >= len(wanted):  # the rest say what it is about ("to Brackley School")
        wanted = named
    weight = {word: 1 + math.log((len(names) + 1) / (1 + sum(word in n for n in names)))
              for word in wanted}
    shares = {path: sum(weight[word] for word in wanted & name) / sum(weight.values())
              for path, name in held.items()}
    best = max(shares.values())
    if best < MIN_TITLE_MATCH:
        return []
    return [path for path, share in shares.items() if share == best][:COLLECTION_DOCUMENTS]


def is_lead_in(text: str) -> bool:
    """Whether a sentence points at a table or list beside it ("Notice periods are set out
    below.", "The table below lists..."): what it introduces says more than it does."""
    return bool(_LEAD_IN.search(text))


def _initials(words: Sequence[str]) -> set[str]:
    """The initials of each run of two to four words ("health safety": "hs"), which an
    abbreviation of the name may be."""
    return {"".join(word[0] for word in words[i:i + n])
            for n in range(2, 5) for i in range(len(words) - n + 1)}


def _name(document: DocumentInfo) -> str:
    """What a document is called: its title, its file name, the words for its kind ("the
    board presentation" is a slide deck) and the month and day of a date in its file name
    ("the 3 oct meeting notes" are "2024-10-03_meeting_notes.txt")."""
    stem = Path(document.path).stem.replace("_", " ")
    dated = [f"{MONTH_NAMES[month - 1]} {MONTH_NAMES[month - 1][:3]} {day}"
             for month, day in dates(stem) if 1 <= month <= 12]
    kind = KIND_WORDS.get(Path(document.path).suffix.lower(), "")
    return " ".join([document.title, stem, kind, *dated])


def reads_as_prose(text: str) -> bool:
    """Whether a sentence says something in prose, rather than being a table row, a
    table's lead-in, a heading or label (no closing full stop), a date line, a byline
    ("Issued by ...") or an e-mail header line: only prose can stand for a document in a
    summary."""
    line = " ".join(text.split())
    words = WORD.findall(line)
    return not (
        row_fields(line) is not None or _HEADER_FIELD.match(line) or is_lead_in(line)
        or _BYLINE.match(line)
        or not _ENDS_SENTENCE.search(line) or line.lstrip().startswith("#")
        or all(_DATE_WORDS.match(word) for word in words))


def prose_sentences(hits: Sequence[Hit], sentences: Sequence[SentenceRow]) -> list[SentenceRow]:
    """The sentences (of the passages `hits`) that read as prose (`reads_as_prose`): the
    ones a summary may take; all of a document's sentences when none of them does (a
    spreadsheet's rows are all there is to it)."""
    by_chunk = {hit.chunk_id: hit for hit in hits}
    ours = [(s, by_chunk[s.chunk_id]) for s in sentences if s.chunk_id in by_chunk]
    prose = [(s, hit) for s, hit in ours
             if reads_as_prose(hit.text[s.start - hit.start:s.end - hit.start])]
    written, kept = {hit.source for _, hit in prose}, {id(s) for s, _ in prose}
    return [s for s, hit in ours if id(s) in kept or hit.source not in written]


def overview(path: str, title: str, sentences: Sequence[tuple[int, str]],
             vectors: np.ndarray, headings: Sequence[tuple[int, str]],
             points: bool) -> list[tuple[str, int]]:
    """What an overview of one document quotes (see the module docstring), in order: (the
    words that lead the quote, the index of the sentence quoted). `sentences` are the
    document's (start offset, text) in order, `vectors` their unit vectors, `headings` its
    (offset, text) in order; without `points`, only what it is and its purpose."""
    if not sentences:
        return []
    # a numbered heading ("1. Purpose") names a section, not the document
    shown = title.strip() or next((text for at, text in headings if at < sentences[0][0]
                                   and not SECTION_NUMBER.match(text)), Path(path).name)
    kind = KINDS.get(Path(path).suffix.lower(), "a document")
    purpose = next((i for i, (_, text) in enumerate(sentences)  # not "Present: Ada, Bo"
                    if len(WORD.findall(text)) >= PURPOSE_WORDS and not is_field_line(text)), 0)
    chosen = [(f"“{shown}” is {kind}:", purpose)]
    rest = [i for i in range(len(sentences)) if i != purpose]
    if not points or not rest:
        return chosen
    sections: dict[int, list[int]] = {}  # a heading after the document's first sentence
    for i in rest:
        heading = max((n for n, (at, _) in enumerate(headings) if at < sentences[i][0]),
                      default=-1)
        if heading >= 0 and headings[heading][0] > sentences[0][0]:
            sections.setdefault(heading, []).append(i)
    if not sections:
        central = central_sentences(vectors[rest], SUMMARY_SENTENCES - 1)
        return chosen + [("", rest[i]) for i in central]
    weight = _weights(vectors, [text for _, text in sentences])
    best = {max(members, key=lambda i: weight[i] + LEAD_BONUS * (i == members[0])): heading
            for heading, members in sections.items()}
    kept = sorted(sorted(best, key=lambda i: -weight[i])[:MAIN_POINTS])
    return chosen + [(f"{headings[best[i]][1]}:", i) for i in kept]


def _weights(vectors: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """How much each sentence says of its document: its similarity to the document's
    centroid, and more for a decision or a figure."""
    centroid = vectors.mean(axis=0)
    weight = _dot(vectors, centroid / (np.linalg.norm(centroid) or 1.0))
    return weight + np.array([DECISION_BONUS * bool(_DECISION.search(text))
                              + FIGURE_BONUS * bool(_FIGURE.search(text)) for text in texts])


def headings(hits: Sequence[Hit]) -> list[tuple[int, str]]:
    """The headings of passages, each once, in order: (document offset, text) of each line
    that stands alone (blank lines or the passage's ends around it; a Markdown heading, or
    a numbered or capitalised line after a blank line, may have its text right below
    it: `_opens_section`), of a few words (not a
    rule of dashes) and no closing full stop, no table row, lead-in or header (the line
    after a lead-in, a line of decimals) and no e-mail header line; its # left out."""
    found: dict[int, str] = {}
    for hit in hits:
        lines = hit.text.split("\n")
        at = hit.start
        for n, line in enumerate(lines):
            text = line.strip().lstrip("#").strip()
            after_blank = not (n and lines[n - 1].strip())
            following = lines[n + 1] if n + 1 < len(lines) else ""
            alone = line.lstrip().startswith("#") or after_blank and (
                not following.strip() or _opens_section(text, following))
            after = next((lines[m] for m in range(n - 1, -1, -1) if lines[m].strip()), "")
            if (alone and WORD.search(text) and not reads_as_prose(text)
                    and row_fields(text) is None
                    and not _HEADER_FIELD.match(text) and not is_lead_in(text)
                    and not _ENDS_SENTENCE.search(text) and not text.endswith(",")
                    and not _DECIMAL.search(text) and not is_lead_in(after)
                    and len(WORD.findall(text)) <= HEADING_WORDS):
                found.setdefault(at, text)
            at += len(line) + 1
    return sorted(found.items())


def _opens_section(line: str, following: str) -> bool:
    """Whether a line after a blank line heads the text right below it: it is numbered
    ("3. Forklift near miss") or in capitals ("FIRST AID"), and the line below is not the
    next item of a list."""
    return bool(SECTION_NUMBER.match(line) or line.isupper()) and not (
        SECTION_NUMBER.match(following) or following.isupper())


def central_sentences(vectors: np.ndarray, count: int) -> list[int]:
    """The indexes (in document order) of `count` sentences that stand for a document:
    `vectors`, its sentences' unit vectors in document order (see the module docstring)."""
    if len(vectors) <= count:
        return list(range(len(vectors)))
    centroid = vectors.mean(axis=0)
    relevance = _dot(vectors, centroid / (np.linalg.norm(centroid) or 1.0))
    chosen: list[int] = []
    closest = np.full(len(vectors), -1.0)  # each sentence's similarity to the chosen ones
    for _ in range(count):
        marginal = MMR_LAMBDA * relevance - (1 - MMR_LAMBDA) * np.maximum(closest, 0.0)
        marginal[closest >= REDUNDANT] = -np.inf  # the chosen ones among them
        best = int(np.argmax(marginal))
        if marginal[best] == -np.inf:
            break
        chosen.append(best)
        closest = np.maximum(closest, _dot(vectors, vectors[best]))
    return sorted(chosen)


def _dot(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """matrix @ vector on one thread: BLAS's threads wait on each other when the cores are
    busy, which made this product 50 times slower on a loaded two-core machine."""
    return np.einsum("ij,j->i", matrix, vector)
