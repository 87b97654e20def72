"""The ask pipeline: a question and its conversation to a `Response`, the same for
`Index.ask`, the benchmarks and the evaluators.

    overview question? ─▶ a summary of the documents it names (`qa.answering.summary`)
    follow-up ─▶ standalone question (the language model rewrites it, or
               `qa.answering.conversation`)
    ─▶ hybrid search (`qa.search`) ─▶ the passages' sentences
    ─▶ only the section of a document the question names by its date (`qa.answering.lists`)
    ─▶ a value computed from a table's rows, if the question asks for one
       (`qa.answering.tables`),
       or every item of the list a list question asks for (`qa.answering.lists`)
    ─▶ the sentences' words' frequencies
    ─▶ the quoted answer (`qa.answering.quoted`)
    ─▶ a language model's answer, checked (`qa.answering.generated`)

It takes the backend and the embedder it works with, and checked arguments (`Index`
checks what users type); nothing here reads settings or the environment.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from qa.answering.conversation import standalone_question
from qa.answering.generated import llm_answer, rewrite_question
from qa.answering.lists import Section, asks_for_list, dates, list_answer, named_section
from qa.answering.question_kinds import summary_subject
from qa.answering.quoted import (
    ANSWER_PASSAGES,
    NO_DOCUMENTS,
    NOT_FOUND,
    Read,
    compose_answer,
    compose_summary,
    question_terms,
)
from qa.answering.response import Response
from qa.answering.results import Answer
from qa.answering.summary import documents_to_summarize, prose_sentences
from qa.answering.tables import table_answer
from qa.backends import Backend
from qa.backends.base import SentenceRow, recorded_dim
from qa.indexing.embedding import Embedder
from qa.llm.client import LLMConfig
from qa.search import MAX_K, Hit, Mode, search

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
        """The answer to `question` (see the module docstring); `llm` writes it, if given.
        scope: what `within` is, in words ("the collection Finance"), for a refusal to say
        that nothing there answers the question."""
        summarized = self.summary(question, history, within)
        if summarized is not None:
            return Response.of(summarized)
        query = (llm and history and rewrite_question(llm, question, history)
                 or standalone_question(question, history))
        hits, inputs = self.answer_inputs(query, k, within)
        if not hits and not self.backend.documents():  # listed only when nothing is found
            return Response.of(Answer(question, NO_DOCUMENTS, False, (), notice=NO_DOCUMENTS))
        query_vector, hits, sentences, frequencies = inputs
        text, section = "", None
        if dates(query):  # "the 3 March meeting": only that section of its document
            text, section, hits, sentences = self.section(query, hits, sentences)
        computed = (table_answer(query, hits[:ANSWER_PASSAGES], sentences, self.passages)
                    or self.listed(query, hits, text, section))
        if computed:
            return Response.of(replace(computed, question=question))
        extractive = compose_answer(query, query_vector, hits, sentences, frequencies,
                                    self.min_score, self.answer_threshold, asked=question,
                                    read=self.read)
        extractive = replace(extractive, question=question)
        if within is not None and extractive.text == NOT_FOUND:
            extractive = replace(extractive, text=not_found_in(scope or "the documents chosen"))
        if llm is None or not extractive.found:  # nothing relevant: no need to ask a model
            return Response.of(extractive)
        return Response(llm_answer(llm, question, hits[:k], extractive, self.embedder,
                                   sentences))

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
        paths = None if within is None else set(within)
        documents = [d for d in self.backend.documents() if paths is None or d.path in paths]

        def find(text: str) -> str | None:
            hits = self.search([text], 1, "hybrid", within)[1][0]
            return hits[0].source if hits else None

        def referred() -> str | None:
            return find(" ".join(history[-1])) if history else None

        chosen = documents_to_summarize(*asked, documents, referred, find)
        if chosen is None:
            return None
        hits, sentences = self.passages(*chosen)
        return compose_summary(question, hits, prose_sentences(hits, sentences), chosen)

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


def not_found_in(scope: str) -> str:
    """The refusal of a question asked within `scope` ("the collection Finance")."""
    return f"Nothing in {scope} answers this question."
