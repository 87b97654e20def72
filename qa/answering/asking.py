"""The ask pipeline: a question and its conversation to a `Response`, the same for
`Index.ask`, the benchmarks and the evaluators.

Every chat input walks one registry of answer kinds, `KINDS`, in order: the first whose
`detect` holds and whose `answer` gives one answers; a kind that finds nothing to say
(a table with no unambiguous value) passes to the next.

    summary      an overview question: what the documents it names are about
                 (`qa.answering.summary`); needs no search
    (a follow-up is made standalone: the language model rewrites it, or
     `qa.answering.conversation`; then the hybrid search, `qa.search`, finds its passages
     and, when the question names a dated section, only that section's, `qa.answering.lists`)
    empty        nothing is indexed yet
    statement    input that asks nothing, as typed or made standalone: the sentence that
                 best supports it
    decisions    the decisions of the meeting a question names (`qa.answering.lists`)
    table        a value computed from a table's rows (`qa.answering.tables`)
    list         every item of the list asked for (`qa.answering.lists`)
    quoted       the sentences that answer, or a refusal (`qa.answering.quoted`); a
                 heading quoted first gives way to the list it heads; a language model,
                 when one is set, writes the answer from them, checked
                 (`qa.answering.generated`)

It takes the backend and the embedder it works with, and checked arguments (`Index`
checks what users type); nothing here reads settings or the environment.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from pathlib import Path

import numpy as np

from qa.answering.conversation import standalone_question, the_other_named, with_previous
from qa.answering.generated import llm_answer, rewrite_question
from qa.answering.lists import (
    Section,
    asks_for_list,
    decision_subject,
    decisions,
    headed_list,
    items_answer,
    list_answer,
    may_head,
    named_section,
)
from qa.answering.question_kinds import content_words, is_question, stems, summary_subject
from qa.answering.quoted import (
    ANSWER_PASSAGES,
    NO_DOCUMENTS,
    NOT_FOUND,
    Read,
    Verify,
    compose_answer,
    compose_summary,
    evidence_answer,
    question_terms,
)
from qa.answering.response import Response
from qa.answering.results import Answer
from qa.answering.summary import documents_to_summarize, named_documents, prose_sentences
from qa.answering.summary import headings as summary_headings
from qa.answering.tables import question_operation, table_answer, the_other
from qa.backends import Backend, DocumentInfo
from qa.backends.base import SentenceRow, recorded_dim
from qa.indexing.embedding import Embedder
from qa.llm.client import LLMConfig
from qa.search import MAX_K, Hit, Mode, search
from qa.stemming import index_term
from qa.words import DATE, dates

HEADER_CHARACTERS = 500  # of a document's text that say its date, if it has one
# what `compose_answer` takes besides the question: its vector, the hits, their sentences
# and the question's words' passage frequencies
AnswerInputs = tuple[np.ndarray, list[Hit], list[SentenceRow], tuple[dict[str, int], int]]


@dataclass(frozen=True, slots=True)
class Asker:
    """What answering needs: the index's backend and embedder, the refusal thresholds
    (see `Settings`) and the reader (`qa.answering.reader`)."""

    backend: Backend
    embedder: Embedder
    min_score: float
    answer_threshold: float | None = None
    read: Read | None = None
    verify: Verify | None = None

    def search(
        self, queries: list[str], k: int, mode: Mode = "hybrid", within: list[str] | None = None
    ) -> tuple[np.ndarray, list[list[Hit]]]:
        """The queries' vectors and their top `k` hits (within: only these documents)."""
        vectors = self.embedder.embed(queries)
        return vectors, search(self.backend, vectors, queries, k, mode, within)

    def ask(
        self, question: str, history: Sequence[tuple[str, str]] = (), k: int = 5,
        within: list[str] | None = None, llm: LLMConfig | None = None,
        scope: str | None = None,
    ) -> Response:
        """The answer to `question` from the first kind of `KINDS` that gives one; `llm`
        writes a quoted answer, if given. scope: what `within` is, in words ("the
        collection Finance"), for a refusal to say that nothing there answers it."""
        asked = Asked(self, question, tuple(history), k, within, llm, scope)
        for kind in KINDS:
            if kind.detect(asked):
                response = kind.answer(asked)
                if response is not None:
                    return response
        raise AssertionError("the quoted kind answers every question")

    def answer_inputs(
        self, query: str, k: int = ANSWER_PASSAGES, within: list[str] | None = None,
    ) -> tuple[list[Hit], AnswerInputs]:
        """The hits of a standalone question, and what the answer is composed from: its
        vector, the hits, their passages' sentences and its words' frequencies."""
        # the sentences of the top ANSWER_PASSAGES passages compete, whatever k asks for
        query_vectors, results = self.search([query], max(k, ANSWER_PASSAGES), "hybrid", within)
        hits = results[0]
        sentences = self.backend.sentences([hit.chunk_id for hit in hits])
        terms = question_terms(query)
        frequencies = self.backend.term_frequencies(terms) if terms else ({}, 0)
        return hits, (query_vectors[0], hits, sentences, frequencies)

    def summary(
        self, question: str, history: Sequence[tuple[str, str]], within: list[str] | None,
    ) -> Answer | None:
        """The summary an overview question asks for (see `qa.answering.summary`), or None for any
        other question."""
        asked = summary_subject(question)
        if asked is None:
            return None

        def find(text: str) -> str | None:
            return self.find(text, within)

        def referred() -> str | None:
            return find(" ".join(history[-1])) if history else None

        chosen = documents_to_summarize(*asked, self.documents(within), referred, find)
        if chosen is None:
            return None
        hits, sentences = self.passages(*chosen)
        return compose_summary(question, hits, prose_sentences(hits, sentences), chosen)

    def decided(self, question: str, within: list[str] | None) -> Answer | None:
        """The decisions of the meeting a question names (`qa.answering.lists.decisions`):
        of the document it names or, in notes of several meetings, of the section headed
        by the date it names; None when it asks for none, names no one document or that
        holds none."""
        subject = decision_subject(question)
        if not subject:
            return None
        documents = self.documents(within)
        # a date may name a meeting's file ("2025-03-14"), else only its section
        named = named_documents(subject, documents) or named_documents(
            DATE.sub(" ", subject), documents)
        if not named and dates(question):  # notes not named for meetings: by search
            named = [path for path in [self.find(subject, within)] if path]
        texts = {path: self.backend.document_text(path) or "" for path in named}
        sections = {path: named_section(question, text) for path, text in texts.items()}
        if len(named) > 1:  # names alike: the one with a section of the date named, else
            dated = [path for path in named if sections[path]]  # the one that matches best
            best = self.find(subject, within)
            named = dated if len(dated) == 1 else [path for path in named if path == best]
        if len(named) != 1:
            return None
        path, text, section = named[0], texts[named[0]], sections[named[0]]
        if section is None and dates(question) - dates(f"{path} {text[:HEADER_CHARACTERS]}"):
            return None  # "the 2 October meeting" is not the notes of 4 September
        hits, sentences = self.passages(path)
        spans = decisions(text, sorted({(s.start, s.end) for s in sentences}),
                          summary_headings(hits), section)
        if not spans:
            return None
        title = section.heading if section else hits[0].title or Path(path).name
        return items_answer(question, f"Decisions ({title})", spans, hits)

    def documents(self, within: list[str] | None) -> list[DocumentInfo]:
        """The indexed documents, or those of `within`."""
        paths = None if within is None else set(within)
        return [d for d in self.backend.documents() if paths is None or d.path in paths]

    def named_in(self, question: str, within: list[str] | None) -> list[str]:
        """The documents whose title or file name shares a word with the question
        ("contacts" of staff_contacts.csv)."""
        asked = stems(question)
        return [d.path for d in self.documents(within)
                if asked & stems(f"{d.title} {Path(d.path).stem}")]

    def find(self, text: str, within: list[str] | None) -> str | None:
        """The document whose passage best matches `text`."""
        hits = self.search([text], 1, "hybrid", within)[1][0]
        return hits[0].source if hits else None

    def section(
        self, question: str, hits: list[Hit], sentences: list[SentenceRow],
    ) -> tuple[str, Section | None, list[Hit], list[SentenceRow]]:
        """The first hit document with a section the question names by its date (see
        `qa.answering.lists`): its text, the section, and its passages and sentences inside that
        section; else ("", None) and the hits and sentences as they are."""
        for source in dict.fromkeys(hit.source for hit in hits):
            text = self.backend.document_text(source) or ""
            section = named_section(question, text)
            if section is None:
                continue
            passages, all_sentences = self.passages(source)
            inside = sorted((hit for hit in passages
                             if hit.start < section.end and section.start < hit.end),
                            key=lambda hit: hit.start)
            kept = {hit.chunk_id for hit in inside}
            return text, section, [replace(hit, rank=rank) for rank, hit in enumerate(
                inside, 1)], [s for s in all_sentences if s.chunk_id in kept
                              and section.start <= s.start and s.end <= section.end]
        return "", None, hits, sentences

    def listed(self, question: str, hits: list[Hit], text: str,
               section: Section | None) -> Answer | None:
        """Every item of the list a list question asks for (`qa.answering.lists`): from the named
        section (`text` is its document), else from the top hit's document."""
        if not hits or not asks_for_list(question, section):
            return None
        if section is None:
            text = self.backend.document_text(hits[0].source) or ""
        return list_answer(question, text, section, lambda: (
            hits if section else self.passages(hits[0].source)[0]))

    def passages(self, *paths: str) -> tuple[list[Hit], list[SentenceRow]]:
        """Every passage of the documents at `paths` (in whatever order: no question to
        embed, a zero vector finds them all) and their sentences."""
        chunks = min(sum(d.chunks for d in self.backend.documents() if d.path in paths),
                     MAX_K)
        anywhere = np.zeros((1, recorded_dim(self.backend.meta("dim"))), dtype=np.float32)
        hits = search(self.backend, anywhere, [""], chunks, "dense", list(paths))[0]
        return hits, self.backend.sentences([hit.chunk_id for hit in hits])


@dataclass(frozen=True, slots=True)
class Found:
    """What the search found for a question: its vector, the hits and their sentences
    (only a dated section's, when the question names one: `text` is then its document),
    and the question's words' passage frequencies."""

    vector: np.ndarray
    hits: list[Hit]
    sentences: list[SentenceRow]
    frequencies: tuple[dict[str, int], int]
    text: str = ""
    section: Section | None = None


class Asked:
    """One chat input as the answer kinds see it: what was typed and, searched once when
    a kind first needs them, its standalone form and what the search found."""

    def __init__(self, asker: Asker, question: str, history: tuple[tuple[str, str], ...],
                 k: int, within: list[str] | None, llm: LLMConfig | None,
                 scope: str | None) -> None:
        self.asker, self.question, self.history = asker, question, history
        self.k, self.within, self.llm, self.scope = k, within, llm, scope

    @cached_property
    def query(self) -> str:
        """The question made standalone: a follow-up's words that refer back replaced."""
        rewritten = self.llm and self.history and rewrite_question(
            self.llm, self.question, self.history)
        if rewritten:
            return rewritten
        return self.of_the_other or standalone_question(self.question, self.history)

    @cached_property
    def of_the_other(self) -> str | None:
        """A follow-up of "the other site" asked of it by name (`the_other_named`)."""
        return the_other_named(self.question, self.history, self.other_of)

    @property
    def typed(self) -> str:
        """The user's own words to read an answer by (a follow-up's "and his phone?" names
        the column asked), unless the question was asked again of the other of two: "and
        at the other site?" names no column "Site"."""
        return self.query if self.of_the_other else self.question

    def other_of(self, name: str) -> list[tuple[str, str]]:
        """The other of two things, one of which `name` names, by the tables of the
        documents found for it and for the previous question (`qa.answering.tables.
        the_other`)."""
        found = self.asker.search([name, self.history[-1][0]], ANSWER_PASSAGES, "hybrid",
                                  self.within)[1]
        paths = dict.fromkeys(hit.source for hits in found for hit in hits)
        return the_other(name, [table for path in paths
                                for table in self.asker.backend.document_tables(path) or ()])

    @cached_property
    def found(self) -> Found:
        hits, (vector, hits, sentences, frequencies) = self.asker.answer_inputs(
            self.query, self.k, self.within)
        if not dates(self.query):  # "the 3 March meeting": only that section of its document
            return Found(vector, hits, sentences, frequencies)
        text, section, hits, sentences = self.asker.section(self.query, hits, sentences)
        return Found(vector, hits, sentences, frequencies, text, section)


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of answer: `detect` tells the inputs it answers, `answer` answers one or
    passes (None) to the next kind."""

    name: str
    detect: Callable[[Asked], bool]
    answer: Callable[[Asked], Response | None]


def summarized(asked: Asked) -> Response | None:
    answer = asked.asker.summary(asked.question, asked.history, asked.within)
    return None if answer is None else Response.of(answer)


def nothing_indexed(asked: Asked) -> bool:
    return not asked.found.hits and not asked.asker.backend.documents()


def refused_empty(asked: Asked) -> Response:
    return Response.of(Answer(asked.question, NO_DOCUMENTS, False, (), notice=NO_DOCUMENTS))


def supported(asked: Asked) -> Response:
    found = asked.found
    return written(asked, evidence_answer(asked.query, found.vector, found.hits,
                                          found.sentences, asked.asker.min_score))


def computed(asked: Asked) -> Response | None:
    """A value or the rows computed from a table of the top hits; the rows a list question
    asks for, or the count of them a count asks for, else from a table of the documents it
    names ("List all contacts at York", "How many people on the contacts list are at
    York?": the contact list, though the top hits are other documents that name York)."""
    asker, query = asked.asker, asked.query
    tables = cache(asker.backend.document_tables)  # each document's read once
    answer = table_answer(query, asked.found.hits[:ANSWER_PASSAGES], asker.passages, tables)
    named = [] if answer is not None or question_operation(query) not in ("list", "count") else [
        path for path in asker.named_in(query, asked.within) if tables(path)]
    if named:
        hits = asker.search([query], ANSWER_PASSAGES, "hybrid", named)[1][0]
        answer = table_answer(query, hits, asker.passages, tables)
    return None if answer is None else Response.of(replace(answer, question=asked.question))


def decisions_listed(asked: Asked) -> Response | None:
    answer = asked.asker.decided(asked.query, asked.within)
    return None if answer is None else Response.of(replace(answer, question=asked.question))


def asks_for_items(asked: Asked) -> bool:
    return bool(asked.found.hits) and asks_for_list(asked.query, asked.found.section)


def listed(asked: Asked) -> Response | None:
    found = asked.found
    answer = asked.asker.listed(asked.query, found.hits, found.text, found.section)
    return None if answer is None else Response.of(replace(answer, question=asked.question))


def quoted_answer(asked: Asked) -> Response:
    found, asker = asked.found, asked.asker
    answer = compose_answer(
        asked.query, found.vector, found.hits, found.sentences, found.frequencies,
        asker.answer_threshold, asked=asked.typed, read=asker.read, verify=asker.verify)
    joined = None if answer.found or asked.llm else with_previous(asked.question, asked.history)
    if joined is not None:  # a follow-up the documents do not answer alone
        _, (vector, hits, sentences, frequencies) = asker.answer_inputs(
            joined, asked.k, asked.within)
        again = compose_answer(joined, vector, hits, unsaid(sentences, hits, asked.history),
                               frequencies, asker.answer_threshold, asked=asked.typed,
                               read=asker.read, verify=asker.verify)
        answer = again if again.found and shares_a_word(asked.question, again) else answer
    return written(asked, headed(asked, answer))


def headed(asked: Asked, answer: Answer) -> Answer:
    """The answer, or when it quotes a heading first, the list under that heading (a
    slide's title and its points: `qa.answering.lists.headed_list`). The document is read
    only for a quote that may be a heading."""
    if not answer.found or not may_head(answer.citations[0].quote):
        return answer
    first = answer.citations[0]
    text = asked.asker.backend.document_text(first.hit.source) or ""
    items = headed_list(text, first.start, first.end)
    listed = items and items_answer(asked.query, first.quote.strip(), items,
                                    asked.asker.passages(first.hit.source)[0])
    return listed or answer


def shares_a_word(question: str, answer: Answer) -> bool:
    """Whether the answer's first quote holds a word of the question (by stem): what the
    previous question brings in cannot answer a follow-up alone ("What is the pension
    scheme?" is not answered by the leave that was asked about before)."""
    own = {index_term(word) for word in content_words(question)}
    return bool(own & {index_term(word) for word in content_words(answer.citations[0].quote)})


def unsaid(sentences: list[SentenceRow], hits: list[Hit],
           history: Sequence[tuple[str, str]]) -> list[SentenceRow]:
    """The sentences the last answer of `history` did not quote: a follow-up asks for
    something new."""
    said = " ".join(history[-1][1].split())
    by_chunk = {hit.chunk_id: hit for hit in hits}

    def text(s: SentenceRow) -> str:
        hit = by_chunk[s.chunk_id]
        return " ".join(hit.text[s.start - hit.start:s.end - hit.start].split())

    return [s for s in sentences if s.chunk_id not in by_chunk or text(s) not in said]


def written(asked: Asked, extractive: Answer) -> Response:
    """The extractive answer as asked, or, with a language model set and something
    found, the model's answer written from the same passages and checked."""
    extractive = replace(extractive, question=asked.question)
    if asked.within is not None and extractive.text == NOT_FOUND:
        extractive = replace(extractive, text=not_found_in(asked.scope or "the documents chosen"))
    if asked.llm is None or not extractive.found:  # nothing relevant: no need to ask a model
        return Response.of(extractive)
    return Response(llm_answer(asked.llm, asked.question, asked.found.hits[:asked.k],
                               extractive, asked.asker.embedder, asked.found.sentences))


KINDS = (
    Kind("summary", lambda asked: summary_subject(asked.question) is not None, summarized),
    Kind("empty", nothing_indexed, refused_empty),
    Kind("statement", lambda asked: not (is_question(asked.question)
                                         or is_question(asked.query)), supported),
    Kind("decisions", lambda asked: decision_subject(asked.query) is not None,
         decisions_listed),
    Kind("table", lambda asked: question_operation(asked.query) is not None, computed),
    Kind("list", asks_for_items, listed),
    Kind("quoted", lambda asked: True, quoted_answer),
)


def not_found_in(scope: str) -> str:
    """The refusal of a question asked within `scope` ("the collection Finance")."""
    return f"Nothing in {scope} answers this question."
