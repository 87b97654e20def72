"""Answer: a short extractive answer whose every sentence cites the passage it is from.

No language model is needed. Each sentence of the top passages gets named signals
(`Signals`), each with its weight in WEIGHTS; the score is their weighted sum:

- coverage: the share of the question's content words (unaccented Porter stems,
  weighted by their inverse document frequency over the whole index, so "California"
  counts for little in a corpus about California) that the sentence holds;
- window coverage: the same over the sentence and its neighbours, since a
  question often names what a neighbouring sentence said ("It was built in...");
- similarity: the cosine similarity of the sentence's vector (embedded in its
  passage's context at indexing time, so no model call here) to the question's;
- answer type and doer: whether the sentence gives what the question asks for (a
  date, a number, a name; who did it), rules of `qa.answering.question_kinds`.

Of the weights, those of coverage, window coverage, similarity and answer type were
fitted by a listwise softmax on reading-comprehension data (`qa eval squad`, judged per
article) and rounded; they replace a cosine/BM25 rank fusion that found the answer far
less often (the later signals, doer, subject, listing and the reader's, were each kept when
it helped). Last, the verifier (`qa.answering.verifier`, a model trained to tell whether a
sentence answers a question) reads the VERIFIED_CANDIDATES best sentences by those
signals, as they would be quoted, and its score joins theirs: it knows that a price asked
of non-members is the non-members' row, not "Members pay their plot rent each April". A
follow-up's own words do not say what it asks about ("and her phone number?"), so for a
follow-up it chooses nothing, and reads it both as typed and made standalone: the sentence
answers if either reading says so.
The best sentence is quoted, and a second when it
scores close behind, is itself similar to the question and is as much an answer of the
kind asked (KIND_SIGNALS) as the best is. A sentence that starts by referring back
("It", "This", "But"...) brings its previous sentence when that holds question words it
lacks; a second quote that overlaps the first or follows it in the same paragraph is
joined to it, so no sentence is read twice. A question word that no candidate holds is
read as the closest word one does ("snowbaorder"). Headings and labels are never quoted,
and a line that a sentence goes on from (it ends in a comma or in "by", or the next line
goes on in lower case) is no label: a quote is a whole sentence.

Whether to answer at all is a separate decision (`assess`, then `qa.answering.answerability`): a
small logistic regression, fitted to SQuAD 2.0's answerable and unanswerable questions,
over two features of the best sentence (`qa.answering.answerability.FEATURES`): how similar it
is, and how surely the verifier says it answers. Below its threshold the answer says plainly that
the documents do not contain it and cites nothing; a question that names something (a
name, an acronym, a number) that no passage holds is refused too, and so is one that asks
for a value of a kind (a clock time, a code, an e-mail address, a phone number, a street
address, a time for "When...?") that the sentence quoted holds none of. An answer that is
given opens with the value or the verdict asked for, taken from the quote
(`qa.answering.lead`).
A statement rather than a question (a claim to find evidence for: the "statement" kind of
`qa.answering.asking`) is answered by `evidence_answer`: the cosine and sentence-BM25 rank
fusion, which finds SciFact's evidence more often, when its most similar sentence reaches
`min_score`.
"""

import difflib
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from qa.answering import answerability
from qa.answering.lead import EXCERPT_WORDS, excerpt, excerpt_keeps, lead, row_excerpt
from qa.answering.quantities import contains, in_digits, points, untested
from qa.answering.question_kinds import (
    answer_type,
    asked_verb,
    content_words,
    is_list_question,
    lacks_asked_value,
    leads_with,
    named_things,
    names_another_label,
    names_another_period,
    names_the_doer,
    specific_names,
    spells_out,
    states_a_value,
    value_words,
    yes_no_subject,
)
from qa.answering.reader import Reading
from qa.answering.results import Answer, Citation
from qa.answering.summary import headings as summary_headings
from qa.answering.summary import is_lead_in, overview
from qa.backends.base import SentenceRow
from qa.indexing.chunking import is_field_line
from qa.loaders.tables import row_fields
from qa.search import Hit, reciprocal_rank_fusion
from qa.stemming import index_term
from qa.words import (
    PRONOUNS,
    SECTION_NUMBER,
    STOPWORDS,
    WORD,
    YES_NO,
    any_of,
    years_as_one_word,
)

ANSWER_PASSAGES = 8  # the sentences of this many top passages compete to be quoted
READ_PASSAGES = 5  # the reader (`qa.answering.reader`) reads this many top passages
Read = Callable[[str, Sequence[str]], list[Reading]]  # the reader, as `compose_answer` takes it
Verify = Callable[[str, Sequence[str]], list[float]]  # the verifier (`qa.answering.verifier`)
WEIGHTS = {"coverage": 4.0, "window": 1.5, "similarity": 6.0, "answer_type": 2.0, "doer": 3.0,
           "subject": 2.0, "listing": 2.0, "reader": 1.0, "verifier": 2.0}
VERIFIED_CANDIDATES = 3  # the verifier reads this many best candidates by the other signals
# a second quote must be an answer of the kind asked as much as the first is (a date, a
# name, the doer): not merely close behind it
KIND_SIGNALS = ("answer_type", "doer", "subject")
# A statement rather than a question (a claim to find evidence for, as in SciFact) is
# answered as before these weights: cosine and sentence BM25 fused by rank, over the top
# three passages, one quote. On SciFact's evidence that beats the question scorer
# (0.416 against 0.378 end to end, 0.612 against 0.584 with the gold document given).
CLAIM_PASSAGES = 3
BM25_K1, BM25_B = 1.2, 0.75
SECOND_QUOTE_MARGIN = 1.0  # a second sentence is quoted if it scores this close to the best
SECOND_QUOTE_SIMILARITY = 0.3  # ... and is at least this similar to the question
MIN_QUOTE_WORDS = 3
# a question word no candidate holds is read as a misspelling of the closest word one does
# hold, at this difflib similarity, when it has this many letters ("snowbaorder")
TYPO_SIMILARITY, MIN_TYPO_LENGTH = 0.85, 5
MAX_TYPOS = 8  # question words looked up so, at most: each is compared with every held word
NOT_FOUND = "The documents do not contain an answer to this question."
NO_DOCUMENTS = ("No documents are indexed yet: add some with `qa index FOLDER` or upload "
                "them in the chat.")
_NAME_RUN = re.compile(r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)+")  # "Care Plan", "Care Plan Plus"
_CAPITALISED_NEXT = re.compile(r" [A-Z]")
# a sentence opening so goes on from the one before it
_REFERS_BACK = re.compile(
    any_of((*PRONOUNS, "but", "however", "also", "such", "both", "then", "there")), re.I)
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_DIGIT = re.compile(r"\d")
_SUBJECT_LINE = re.compile(r"\s*subject:", re.I)
_ASKS = re.compile(r"\?[\s*_\"'”’)]*$")  # a sentence that ends in a question mark
_SENTENCE_END = re.compile(r"""[.!?:;]["'”’)\]]*\s*$""")
_ENDS_IN_VALUE = re.compile(r"\d[\d.,]*\s*%?\s*$")


@dataclass(frozen=True, slots=True)
class Signals:
    """How well one sentence answers the question, signal by signal (see the module
    docstring); each weighs as much as WEIGHTS says."""

    coverage: float = 0.0
    window: float = 0.0
    similarity: float = 0.0
    answer_type: float = 0.0
    doer: float = 0.0
    subject: float = 0.0
    listing: float = 0.0
    reader: float = 0.0
    verifier: float = 0.0

    def score(self) -> float:
        return sum(WEIGHTS[f.name] * getattr(self, f.name) for f in fields(self))

    def at_least(self, other: "Signals", names: Sequence[str]) -> bool:
        """Whether this sentence gives each of the `names` signals as much as `other`."""
        return all(getattr(self, name) >= getattr(other, name) for name in names)


@dataclass(frozen=True, slots=True)
class Assessment:
    """What `assess` found: the candidate sentences and their signals, the ones to quote
    (best first), the answerability features of the best (`qa.answering.answerability`), whether
    the question names something no passage holds, and the reader's best span (its
    passage's hit and the span's document offsets), if it read any."""

    candidates: Sequence["_Candidate"]
    signals: Sequence[Signals]
    chosen: Sequence[int]
    features: Mapping[str, float]
    names_unknown: bool
    wanted: Mapping[str, str]
    idf: Mapping[str, float]
    span: tuple[Hit, Reading] | None = None

    @property
    def span_text(self) -> str:
        """The words of the reader's best span, as the passage has them."""
        if self.span is None:
            return ""
        hit, reading = self.span
        return hit.text[reading.start:reading.end]


def assess(
    question: str, query_vector: np.ndarray, hits: Sequence[Hit],
    sentences: Sequence[SentenceRow], term_frequencies: tuple[Mapping[str, int], int],
    asked: str | None = None, readings: Sequence[Reading] = (), verify: Verify | None = None,
) -> Assessment | None:
    """The sentences of the top hits that best answer a question, and how likely they are
    to answer it; None when the passages hold no quotable sentence.

    term_frequencies: how many passages of the index hold each of
        `question_terms(question)`, and how many passages it has.
    asked: the user's own words, when `question` is them read with earlier turns: only a
        name they hold refuses the question when no passage holds it.
    readings: what the reader found in each of the top hits (`hits[i]` for reading i):
        a sentence holding a span weighs more the surer the reader is of it.
    verify: the verifier, which reads the VERIFIED_CANDIDATES best sentences by the other
        signals (a follow-up's best alone, with `asked` and with `question`: the higher
        score): its score joins theirs, and its score of the sentence to quote first is a
        feature.
    """
    by_chunk = {hit.chunk_id: hit for hit in hits[:ANSWER_PASSAGES]}
    candidates = _in_range(asked or question, _candidates(sentences, by_chunk))
    if not candidates:
        return None
    similarities = np.array([c.sentence.vector @ query_vector for c in candidates])
    frequencies, passages = term_frequencies
    held = {word for candidate in candidates for word in content_words(candidate.text)}
    known = {term for term, n in frequencies.items() if n}
    wanted = spellings(question, held, known)
    idf = _blend(inverse_document_frequency(frequencies, passages), candidates)
    signals = _signals(question, wanted, candidates, similarities, idf,
                       _reader_signals(candidates, hits, readings))

    def as_quoted(i: int) -> str:
        return _quoted_text(candidates[i], wanted, idf)

    user = asked or question  # a follow-up's own words: the turns before it asked elsewhere
    # they do not say what a follow-up asks about: the verifier chooses for no follow-up
    among = VERIFIED_CANDIDATES if user == question else 1
    logits = _verifier_logits(user, signals, as_quoted, verify, among) if verify else {}
    if verify and user != question:  # read as typed and made standalone: either may answer
        standalone = _verifier_logits(question, signals, as_quoted, verify, among)
        logits = {i: max(logit, standalone[i]) for i, logit in logits.items()}
    if among > 1:
        signals = [replace(s, verifier=answerability.logistic(logits[i])) if i in logits
                   else s for i, s in enumerate(signals)]
    chosen = _best_two(signals, similarities)
    features = {"similarity": max(signal.similarity for signal in signals),
                "verifier": answerability.verifier_feature(
                    [logits[chosen[0]]] if chosen[0] in logits else [])}
    span = max(((hits[r.passage], r) for r in readings), key=lambda found: found[1].margin,
               default=None)
    named = {word for name in {_named_by(c) for c in candidates} for word in content_words(name)}
    return Assessment(candidates, signals, chosen, features,
                      _names_unknown(untested(asked or question), wanted, known | held | named,
                                     [c.text for c in candidates]), wanted, idf, span)


def _verifier_logits(question: str, signals: Sequence[Signals],
                     as_quoted: Callable[[int], str], verify: Verify,
                     among: int) -> dict[int, float]:
    """The verifier's score (a logit) of each of the `among` best candidates by the other
    signals, by index, each read as it would be quoted (`as_quoted`)."""
    scores = np.array([signal.score() for signal in signals])
    best = [int(i) for i in np.argsort(-scores, kind="stable")[:among]]
    return dict(zip(best, verify(question, [as_quoted(i) for i in best]), strict=True))


def _in_range(question: str, candidates: list["_Candidate"]) -> list["_Candidate"]:
    """The candidates, less those whose range leaves out the quantity the question names
    when another's holds it ("6 years" of service: not the row "Less than 2 years" when
    the row "5 years to less than 10 years" is there). Not for a yes/no question: the
    limit that leaves it out decides it ("75 days?" of "no later than 60 days")."""
    if YES_NO.match(question):
        return candidates
    asked = points(question)
    ranged = [contains(asked, c.text) for c in candidates]
    if True not in ranged:
        return candidates
    return [c for c, inside in zip(candidates, ranged, strict=True) if inside is not False]


def _quoted_text(candidate: "_Candidate", wanted: Mapping[str, str],
                 idf: Mapping[str, float]) -> str:
    """The candidate as it would be quoted: with the sentence it refers back to, if any
    (`_with_antecedent`), so the verifier reads "It was rebuilt..." with what "it" is."""
    start, end = _with_antecedent(candidate, wanted, idf)
    return candidate.hit.text[start - candidate.hit.start:end - candidate.hit.start]


def _reader_signals(candidates: Sequence["_Candidate"], hits: Sequence[Hit],
                    readings: Sequence[Reading]) -> list[float]:
    """Each candidate's reader signal: how sure the reader is (the logistic of its margin)
    of a span that starts in the sentence, 0 for a sentence holding none."""
    signal = [0.0] * len(candidates)
    for reading in readings:
        hit = hits[reading.passage]
        start = hit.start + reading.start
        for i, c in enumerate(candidates):
            if c.hit.source == hit.source and c.sentence.start <= start < c.sentence.end:
                signal[i] = max(signal[i], answerability.logistic(reading.margin))
    return signal


def compose_answer(
    question: str, query_vector: np.ndarray, hits: Sequence[Hit],
    sentences: Sequence[SentenceRow], term_frequencies: tuple[Mapping[str, int], int],
    answer_threshold: float | None = None, asked: str | None = None,
    read: Read | None = None, verify: Verify | None = None,
) -> Answer:
    """Quote the sentences of the top hits that best answer the question, or say none does.

    A question is answered when the answerability model (`qa.answering.answerability`) finds its
    best sentence likely enough to answer it (`answer_threshold`, by default the model's
    own). `read`: the reader, which reads the top READ_PASSAGES passages; `verify`: the
    verifier, which reads the best sentences and chooses among them (`assess`).
    See `assess` for the other arguments.
    """
    readings = read(question, [hit.text for hit in hits[:READ_PASSAGES]]) if read else []
    assessment = assess(question, query_vector, hits, sentences, term_frequencies, asked,
                        readings, verify)
    if assessment is None:
        return Answer(question, NOT_FOUND, False, ())
    model = answerability.shipped()
    score = model.probability(assessment.features)
    threshold = model.threshold if answer_threshold is None else answer_threshold
    chosen = _quote_order(asked or question, assessment)
    best = assessment.candidates[chosen[0]]
    if row_fields(best.text) is None:
        answers = score >= threshold
    else:  # exact data, read unlike a question: it holds every word asked, or the model says
        answers = row_answers(question, best.text, best.hit.title, asked) and (
            score >= threshold or assessment.signals[chosen[0]].coverage >= 1.0
            or _row_holds_question(question, asked, best, assessment.candidates))
    if (not answers or assessment.names_unknown
            or lacks_asked_value(asked or question, best.text)
            or _lacks_number(asked or question, best)
            or names_another_period(asked or question, _said_up_to(best))
            or (not YES_NO.match(asked or question)  # "Screen 2?" of "Screen 1 only": No
                and names_another_label(asked or question, best.text))
            or another_row_named(asked or question, best, assessment.candidates)):
        return Answer(question, NOT_FOUND, False, (), score=score)
    candidates = assessment.candidates
    spans = _joined([(candidates[i].hit,
                      *_with_antecedent(candidates[i], assessment.wanted, assessment.idf))
                     for i in chosen])
    answer = quoted(question, spans, score)
    first_quote = answer.citations[0]
    span = _span_in(first_quote, assessment)
    sure = assessment.span is not None and assessment.span[1].margin >= model.span_margin
    first = lead(asked or question, first_quote.quote,
                 _text(best.hit, best.previous) if best.previous else "",
                 span if sure else None, decided=assessment.features["verifier"] > 0)
    if first is not None:
        opening = first if first.endswith((".", ":", "!", "?")) else f"{first}."
        answer = _cells_shown(asked or question, answer)
        return replace(answer, text=f"{opening} {answer.text}")
    span = span or _read_quote(question, first_quote.quote, read)
    clause = excerpt(first_quote.quote, *span) if span else None
    if clause is None or not excerpt_keeps(asked or question, clause, first_quote.quote):
        return answer
    return replace(answer, text=f"{clause} [{first_quote.n}] {answer.text}")


def _quote_order(question: str, assessment: Assessment) -> list[int]:
    """The sentences chosen to quote, in their order but for two things: one that holds
    the kind of value the question asks for (`lacks_asked_value`: "What's her e-mail?" of
    "Her details are on the contacts list" and her contact row) comes before one that
    lacks it, and one that names a name of the question as it is before one that names
    only a longer name ("the Care Plan" of "Care Plan Plus costs ..." and "The Care Plan
    costs ...")."""
    def worse(i: int) -> tuple[bool, bool]:
        candidate = assessment.candidates[i]
        return (lacks_asked_value(question, candidate.text),
                _names_longer(question, candidate.text))
    return sorted(assessment.chosen, key=worse)


def _names_longer(question: str, text: str) -> bool:
    """Whether the text first names a name of two or more words of the question (past its
    first word) as the start of a longer name ("Care Plan" as "Care Plan Plus")."""
    for name in _NAME_RUN.findall(question.split(maxsplit=1)[-1]):
        found = re.search(rf"\b{re.escape(name)}\b", text)
        if found and _CAPITALISED_NEXT.match(text, found.end()):
            return True
    return False


def _cells_shown(question: str, answer: Answer) -> Answer:
    """The answer with its first quote, a table row, cut to the cells asked for
    (`row_excerpt`: the other sites' or years' figures are no answer); its offsets still
    span the whole row, which the viewer marks."""
    first = answer.citations[0]
    shown = row_excerpt(question, first.quote)
    whole = f"{' '.join(first.quote.split())} [{first.n}]"
    if shown is None or not answer.text.startswith(whole):
        return answer
    return replace(answer, text=f"{shown} [{first.n}]{answer.text[len(whole):]}",
                   citations=(replace(first, quote=shown), *answer.citations[1:]))


def _read_quote(question: str, quote: str, read: Read | None) -> tuple[int, int] | None:
    """The reader's span within a long quote that its best span lies outside of (it is
    read alone: one short pass), for the clause an answer opens with."""
    if read is None or len(quote.split()) <= EXCERPT_WORDS:
        return None
    readings = read(question, [quote])
    return (readings[0].start, readings[0].end) if readings else None


def _span_in(first: Citation, assessment: Assessment) -> tuple[int, int] | None:
    """Where in the first quote the reader's best span lies (offsets in the quote), if the
    quote holds where it starts."""
    if assessment.span is None:
        return None
    hit, reading = assessment.span
    start = hit.start + reading.start - first.start
    end = min(hit.start + reading.end - first.start, len(first.quote))
    inside = hit.source == first.hit.source and 0 <= start < len(first.quote)
    return (start, end) if inside else None


def evidence_answer(claim: str, query_vector: np.ndarray, hits: Sequence[Hit],
                    sentences: Sequence[SentenceRow], min_score: float) -> Answer:
    """The sentence that best supports a statement (a claim to find evidence for), among
    the top CLAIM_PASSAGES passages, when its most similar sentence reaches `min_score`."""
    candidates = _candidates(sentences, {hit.chunk_id: hit for hit in hits[:CLAIM_PASSAGES]})
    if not candidates:
        return Answer(claim, NOT_FOUND, False, ())
    similarities = np.array([c.sentence.vector @ query_vector for c in candidates])
    score = float(similarities.max())
    if score < min_score:
        return Answer(claim, NOT_FOUND, False, (), score=score)
    scores = _fused(similarities, bm25_scores(claim, [c.text for c in candidates]))
    best = candidates[int(np.argmax(scores))]
    return quoted(claim, [(best.hit, best.sentence.start, best.sentence.end)], score)


def _lacks_number(question: str, candidate: "_Candidate") -> bool:
    """Whether a number the question names ("Level 1", "Saturday 12 April", "in 1805")
    is not said before the candidate's sentence ends: in its document's name or title,
    its passage up to it (`_up_to`: the headings above count), in digits or words, or in
    a range it bounds ("a 9 year old" of "aged 8 to 11"). Then the sentence is of another
    level, day or year. (On SQuAD's fifteen fitting articles, 0.9% of the answerable
    questions' gold sentences lack one so, 6.0% of the unanswerable ones' plausible
    sentences.) An amount the question tests ("Can I bring 3 guests?") is compared, not
    named (`untested`)."""
    text = _said_up_to(candidate)
    said = set(WORD.findall(years_as_one_word(in_digits(text)).lower())) | {
        amount.number for amount in points(question) if contains([amount], text)}
    return any(any(char.isdigit() for char in name[0])
               and not said & {form for word in name  # "under-8s", "the 1980s", "11pm"
                               for form in (word, re.sub(r"(?<=\d)(?:s|am|pm)$", "", word))}
               for name in specific_names(years_as_one_word(untested(question))))


def _said_up_to(candidate: "_Candidate") -> str:
    """What is said before the candidate's sentence ends: its document's name (`_named_by`)
    and its passage up to it (`_up_to`)."""
    return f"{_named_by(candidate)}\n{_up_to(candidate)}"


def _named_by(candidate: "_Candidate") -> str:
    """The candidate's document's file name, "_" read as a space ("board_update_q1.pptx":
    "board update q1"), and its title."""
    return f"{Path(candidate.hit.source).stem.replace('_', ' ')}\n{candidate.hit.title}"


def _up_to(candidate: "_Candidate") -> str:
    """The candidate's passage up to the end of the sentence: what it says under its
    headings ("2024 in numbers", then "Parcels issued: 5,310 (2023: 4,175)")."""
    return candidate.hit.text[:candidate.sentence.end - candidate.hit.start]


def row_answers(question: str, text: str, title: str = "", asked: str | None = None) -> bool:
    """Whether `text`, if it is a table row, can answer the question: a row is exact data,
    so it does when the quantity the question names lies in its range (`contains`), and
    does not when the question names a number or code ("2027", "Q4") that the row
    and its caption lack (another year's row; two years count as one however written,
    "24/25" as "2024-25"), or names the row it asks about by words
    that are none of its cells ("the deposit for a company car" of the van fuel card's
    row), or by a name none of whose words it holds ("the budget for the staff Christmas
    party" of the staff wages row; "the autoclave at Northgate" of Southmoor's sheet).
    Words that name the table (its caption, columns, document) select no row.
    Any other sentence can. `asked`: the user's own words, when `question` is them read
    with earlier turns (which may name the row; only the user's numbers are checked)."""
    row = row_fields(text)
    if row is None:
        return True
    user = asked or question
    ranged = {amount.number for amount in points(user) if contains([amount], text)}
    held = {word.lower() for word in WORD.findall(years_as_one_word(text))} | ranged
    if any(any(c.isdigit() for c in word) and word not in held
           for word in (w.lower() for w in WORD.findall(years_as_one_word(user)))):
        return False
    if ranged:  # "6 years" of service: the row of "5 to under 10 years"
        return True
    cells, selectors, own = (_cell_words(row), _selectors(question, row, title),
                             _selectors(user, row, title))
    names = [{index_term(word) for word in name if word.isalpha()} & own
             for name in specific_names(user)
             if not (len(name) == 1 and spells_out(name[0], text))]  # "QS": "Quarry Street"
    return (not selectors or bool(selectors & cells)) and all(
        name & cells for name in names if name)


def _row_holds_question(question: str, asked: str | None, best: "_Candidate",
                        candidates: Sequence["_Candidate"]) -> bool:
    """Whether the row `best` (its cells and columns, and its document's name: "the courier
    day rate for loans" of the loans policy's row) holds every word the user typed, the
    kind of value asked standing for its own name when no column of the table is so named
    ("What's Sam Whitcombe's mobile?" of a row with a phone number), and, for a follow-up, a word of
    each name the turns before give, though not the words of the question before ("Who
    runs the warehouse?" "Gemma Stroud is the Warehouse Lead." "what's her mobile?")."""
    row = row_fields(best.text)
    if row is None:
        return False
    columns = {index_term(word) for c in candidates if c.hit.source == best.hit.source
               and (other := row_fields(c.text)) is not None and other[0] == row[0]
               for name, _ in other[1] for word in content_words(name)}
    kind = {index_term(word) for word in content_words(
        value_words(asked or question, [name for name, _ in row[1]]))}
    held = {index_term(word) for word in content_words(f"{best.text} {_named_by(best)}")} | (
        kind if not kind & columns else set())
    typed = {index_term(word) for word in content_words(asked or question)} - {
        index_term(word) for word in PRONOUNS}
    names = [{index_term(word) for word in name} for name in specific_names(question)]
    return typed <= held and all(name & held for name in names)


def _selectors(question: str, row: tuple[str, list[tuple[str, str]]], title: str) -> set[str]:
    """The question's words (stems) that may select a row: those that name no part of its
    table (its caption, columns, document title) nor the kind of value asked that a column
    names (`value_words`: "mobile" of a row with a "phone")."""
    caption, fields = row
    columns = [name for name, _ in fields]
    table = {index_term(w) for w in content_words(" ".join([
        caption, title, value_words(question, columns), *columns]))}
    return {index_term(w) for w in content_words(question)} - table


def _cell_words(row: tuple[str, list[tuple[str, str]]]) -> set[str]:
    return {index_term(w) for w in content_words(" ".join(value for _, value in row[1]))}


def another_row_named(question: str, best: "_Candidate",
                      candidates: Sequence["_Candidate"]) -> bool:
    """Whether the best sentence is a table row and another row of its table among the
    candidates holds more of the words that select a row (`_selectors`): "Sarah Penhale's
    mobile" is not on Sarah Lomax's row, though hers has a mobile and Sarah Penhale's none."""
    row = row_fields(best.text)
    if row is None:
        return False
    selectors = _selectors(question, row, best.hit.title)
    held = len(selectors & _cell_words(row))
    others = (row_fields(c.text) for c in candidates if c.hit.source == best.hit.source)
    return any(other is not None and other[0] == row[0]
               and len(selectors & _cell_words(other)) > held for other in others)


def compose_summary(question: str, hits: Sequence[Hit], sentences: Sequence[SentenceRow],
                    documents: Sequence[str]) -> Answer:
    """An overview of each of `documents` (paths; see `qa.answering.summary`): what it is and its
    purpose, and for one document its main points in order, each quoted and cited, a
    line each; from `hits`, their passages, and `sentences`, those passages' sentences."""
    # in document order, so that a sentence two overlapping passages hold is read (and
    # its vector taken) from the first, whatever the order they were found in
    in_order = sorted(hits, key=lambda hit: (hit.source, hit.start))
    candidates = _candidates(sentences, {hit.chunk_id: replace(hit, rank=rank)
                                         for rank, hit in enumerate(in_order, 1)})
    leads, spans = [], []
    for path in documents:
        ours = sorted((c for c in candidates if c.hit.source == path),
                      key=lambda c: c.sentence.start)
        if not ours:
            continue
        quoted_here = overview(
            path, ours[0].hit.title, [(c.sentence.start, c.text) for c in ours],
            np.array([c.sentence.vector for c in ours]),
            summary_headings([hit for hit in in_order if hit.source == path]),
            points=len(documents) == 1)
        for words, i in quoted_here:
            leads.append(words)
            spans.append((ours[i].hit, ours[i].sentence.start, ours[i].sentence.end))
    if not spans:
        return Answer(question, NOT_FOUND, False, ())
    answer = quoted(question, spans, 1.0)
    lines = [f"{words} {' '.join(c.quote.split())} [{c.n}]".lstrip()
             for words, c in zip(leads, answer.citations, strict=True)]
    return replace(answer, text="\n".join(lines))


def quoted(question: str, spans: Sequence[tuple[Hit, int, int]], score: float) -> Answer:
    """An answer quoting each span (document offsets) of its passage, with `[n]` markers."""
    numbers: dict[int, int] = {}
    citations, parts = [], []
    for hit, start, end in spans:
        quote = hit.text[start - hit.start:end - hit.start]
        n = numbers.setdefault(hit.chunk_id, len(numbers) + 1)
        citations.append(Citation(n, hit, quote, start, end))
        parts.append(f"{' '.join(quote.split())} [{n}]")
    return Answer(question, " ".join(parts), True, tuple(citations), score=score)


def _best_two(signals: Sequence[Signals], similarities: np.ndarray) -> list[int]:
    """The best candidate, and the next when it scores close behind, is itself similar
    enough to the question and is as much an answer of the kind asked (KIND_SIGNALS)."""
    scores = np.array([s.score() for s in signals])
    best, *rest = np.argsort(-scores, kind="stable")[:2]
    return [best] + [
        i for i in rest if scores[i] >= scores[best] - SECOND_QUOTE_MARGIN
        and similarities[i] >= SECOND_QUOTE_SIMILARITY
        and signals[i].at_least(signals[best], KIND_SIGNALS)
    ]


def question_terms(question: str) -> list[str]:
    """A question's content words as the keyword index keeps them (unaccented Porter
    stems), whose IDF `compose_answer` needs."""
    return list(dict.fromkeys(index_term(word) for word in content_words(question)))


def inverse_document_frequency(frequencies: Mapping[str, int], passages: int) -> dict[str, float]:
    """BM25's IDF of each term, from the number of passages (of `passages`) holding it."""
    return {term: math.log(1 + (passages - df + 0.5) / (df + 0.5))
            for term, df in frequencies.items()}


def _blend(idf: Mapping[str, float], candidates: Sequence["_Candidate"]) -> dict[str, float]:
    """The mean of each term's IDF over the index's passages and over the candidate
    sentences: the first knows the corpus, the second still tells words apart when the
    index is a handful of passages that all share them."""
    held = [{index_term(word) for word in content_words(c.text)} for c in candidates]
    local = inverse_document_frequency(
        {key: sum(key in stems for stems in held) for key in idf}, len(held))
    return {term: (idf[term] + local[term]) / 2 for term in idf}


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A quotable sentence, with its passage and the sentences around it there."""

    sentence: SentenceRow
    hit: Hit
    text: str
    previous: SentenceRow | None
    following: SentenceRow | None


def _signals(
    question: str, wanted: Mapping[str, str], candidates: Sequence[_Candidate],
    similarities: np.ndarray, idf: Mapping[str, float], reader: Sequence[float],
) -> list[Signals]:
    """Each candidate's Signals; `wanted`: the question's words and how the candidates
    spell them (`spellings`); `reader`: each one's reader signal (`_reader_signals`)."""
    typed = answer_type(question)
    verb = asked_verb(question)
    subject = yes_no_subject(question)
    listing = is_list_question(question)
    counts = [named_things(question, c.text) if listing else 0 for c in candidates]
    most = max(counts, default=0) or 1
    signals = []
    for candidate, similarity, count, read in zip(candidates, similarities, counts, reader,
                                                  strict=True):
        hit = candidate.hit
        window = " ".join(_text(hit, s) for s in (candidate.previous, candidate.following) if s)
        text = candidate.text
        if candidate.previous and _REFERS_BACK.match(text):  # read as "<previous> It was..."
            text = f"{_text(hit, candidate.previous)} {text}"
        signals.append(Signals(
            coverage=_coverage(wanted, text, idf),
            window=_coverage(wanted, f"{window} {candidate.text}", idf),
            similarity=float(similarity),
            answer_type=typed(question, candidate.text) if typed else 0.0,
            doer=names_the_doer(question, verb, candidate.text) if verb else 0.0,
            subject=leads_with(subject, candidate.text),
            listing=count / most,
            reader=read,
        ))
    return signals


def bm25_scores(query: str, texts: Sequence[str]) -> np.ndarray:
    """BM25 of each text for the query, the texts themselves being the collection; words
    and their stems both count, so an exact match counts twice."""
    query_terms = set(_bm25_terms(query))
    documents = [Counter(_bm25_terms(text)) for text in texts]
    average = sum(sum(d.values()) for d in documents) / max(len(documents), 1) or 1.0
    frequency = Counter(term for d in documents for term in query_terms & d.keys())
    scores = np.zeros(len(documents))
    for i, counts in enumerate(documents):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * sum(counts.values()) / average)
        for term in query_terms & counts.keys():
            idf = math.log(1 + (len(documents) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            scores[i] += idf * counts[term] * (BM25_K1 + 1) / (counts[term] + norm)
    return scores


def _bm25_terms(text: str) -> list[str]:
    words = WORD.findall(text.lower())
    return words + ["~" + index_term(word) for word in words]


def _fused(*signals: np.ndarray) -> np.ndarray:
    """Each candidate's reciprocal-rank fusion of its ranks by the signals."""
    fused = dict(reciprocal_rank_fusion(
        [[int(i) for i in np.argsort(-signal, kind="stable")] for signal in signals]))
    return np.array([fused[i] for i in range(len(signals[0]))])


def _coverage(wanted: Mapping[str, str], text: str, idf: Mapping[str, float]) -> float:
    """The IDF-weighted share of the wanted words (question word: its spelling in the
    passages) that `text` holds: half for the word's stem, half for the word itself
    ("resigned" matches "resigned" best, "resign" too)."""
    total = sum(idf.get(index_term(word), 0.0) for word in wanted)
    if not total:
        return 0.0
    words = set(content_words(text))
    stems = {index_term(word) for word in words}
    held = sum(idf.get(index_term(word), 0.0) * ((index_term(spelled) in stems)
                                                 + (spelled in words))
               for word, spelled in wanted.items())
    return held / (2 * total)


def spellings(question: str, held: set[str], known: set[str]) -> dict[str, str]:
    """Each content word of the question, and how the passages spell it: a word of
    letters that neither the index (`known`: index terms) nor the candidate sentences
    (`held`: their words) hold is read as a misspelling of the closest word they do hold
    ("snowbaorder": "snowboarder") that starts with the same letter ("unavailable" is not
    a misspelt "available", nor "least" of "east"), or else as a short form of the
    shortest word they hold that it begins ("refurb": "refurbishment")."""
    held_terms = {index_term(word) for word in held}
    spelled = {word: word for word in content_words(question)}
    unknown = [word for word in spelled if len(word) >= MIN_TYPO_LENGTH and word.isalpha()
               and index_term(word) not in known | held_terms]
    for word in unknown[:MAX_TYPOS]:
        alike = [w for w in held if w[0] == word[0]]
        begun = sorted((w for w in alike if w.startswith(word)), key=lambda w: (len(w), w))
        spelled[word] = next(iter(
            difflib.get_close_matches(word, alike, n=1, cutoff=TYPO_SIMILARITY) + begun), word)
    return spelled


def _names_unknown(question: str, wanted: Mapping[str, str], held: set[str],
                   texts: Sequence[str] = ()) -> bool:
    """Whether a name or number of the question (`specific_names`) is held by no passage:
    none of its words, as the passages spell them (`wanted`), is in `held` (index terms
    and words of the candidate sentences), and, for an acronym, no candidate sentence
    (`texts`) spells it out ("DPO": "Data Protection Officer")."""
    return any(
        not any(index_term(wanted.get(word, word)) in held or wanted.get(word, word) in held
                for word in name)
        and not (len(name) == 1 and any(spells_out(name[0], text) for text in texts))
        for name in specific_names(question))


def _with_antecedent(candidate: _Candidate, wanted: Mapping[str, str],
                     idf: Mapping[str, float]) -> tuple[int, int]:
    """The quote's span: the sentence, and its previous one when the sentence opens by
    referring back to it and the previous one holds wanted words the sentence lacks."""
    sentence, previous = candidate.sentence, candidate.previous
    if previous is None or not _REFERS_BACK.match(candidate.text):
        return sentence.start, sentence.end
    both = f"{_text(candidate.hit, previous)} {candidate.text}"
    if _coverage(wanted, both, idf) > _coverage(wanted, candidate.text, idf):
        return previous.start, sentence.end
    return sentence.start, sentence.end


def _joined(spans: list[tuple[Hit, int, int]]) -> list[tuple[Hit, int, int]]:
    """The quotes' spans, the second joined to the first when they overlap or only space
    parts them in the same paragraph: no sentence is quoted twice ("It was approved by 75%"
    brings back the sentence before it, quoted first) and neighbours read as one quote.
    Overlapping quotes that no one passage holds both of (overlapping chunks) are cut to
    the first."""
    if len(spans) < 2 or spans[0][0].source != spans[1][0].source:
        return spans
    (hit, start, end), (other, start2, end2) = spans
    low, high = min(start, start2), max(end, end2)
    overlap = start < end2 and start2 < end
    holder = next((h for h in (hit, other) if h.start <= low and high <= h.end), None)
    if holder is None:
        return spans[:1] if overlap else spans
    gap = holder.text[min(end, end2) - holder.start:max(start, start2) - holder.start]
    if overlap or not (gap.strip() or _PARAGRAPH_BREAK.search(gap)):
        return [(holder, low, high)]
    return spans


def _candidates(sentences: Sequence[SentenceRow], by_chunk: dict[int, Hit]) -> list[_Candidate]:
    """The quotable sentences, once each (overlapping chunks repeat some), in retrieval order,
    each trimmed of headings and labels glued to its start."""
    seen: set[tuple[str, int, int]] = set()
    candidates = []
    ours = sorted((s for s in sentences if s.chunk_id in by_chunk),
                  key=lambda s: (by_chunk[s.chunk_id].rank, s.start))
    for i, sentence in enumerate(ours):
        hit = by_chunk[sentence.chunk_id]
        sentence = _without_labels(hit, sentence)
        place = (hit.source, sentence.start, sentence.end)
        text = _text(hit, sentence)
        if place in seen or not _quotable(text):
            continue
        seen.add(place)
        same = [s for s in ours[max(i - 1, 0):i + 2] if s.chunk_id == hit.chunk_id]
        previous = next((s for s in same if s.end <= sentence.start), None)
        following = next((s for s in same if s.start >= sentence.end), None)
        candidates.append(_Candidate(sentence, hit, text, previous, following))
    return candidates


def _without_labels(hit: Hit, sentence: SentenceRow) -> SentenceRow:
    """The sentence without the lines that end in no punctuation at its start or after its
    end: headings and labels a sentence splitter joins to the sentence beside them."""
    text = _text(hit, sentence)
    lines = text.split("\n")
    while len(lines) > 1 and _is_label(lines[0], lines[1]):
        lines.pop(0)
    while len(lines) > 1 and not _SENTENCE_END.search(lines[-1]) and \
            _SENTENCE_END.search(lines[-2]):
        lines.pop()
    kept = "\n".join(lines)
    if kept == text:
        return sentence
    offset = text.index(kept) + len(kept) - len(kept.lstrip())
    start = sentence.start + offset
    return SentenceRow(sentence.chunk_id, start, start + len(kept.strip()), sentence.vector)


def _is_label(line: str, following: str) -> bool:
    """Whether a line is a heading or label rather than the start of a sentence that goes
    on in the next line: it ends in no punctuation (a comma goes on), not in a word such
    as "the" or "by", the next line does not go on in lower case, and it is no field whose
    value wraps ("Present: Ada Lind, Bo Berg" / "(chair), Cy Moss")."""
    words = WORD.findall(line.lower())
    return not (_SENTENCE_END.search(line) or line.rstrip().endswith(",") or not words
                or words[-1] in STOPWORDS or following.lstrip()[:1].islower()
                or is_field_line(line))


def _quotable(text: str) -> bool:
    """A statement worth quoting: not a Markdown heading, not a label (a few words with no
    closing punctuation), not a word or two, not a table's lead-in that states no figure
    ("Notice periods are set out below.": its rows say them), not a question (an FAQ's
    "Can I take my scooter on the bus?": the lines after it answer), not an e-mail's
    subject line (it names what the e-mail is about; its body says it). A line that ends
    in a value ("Flat white 3.20", a receipt's line), states an address, a phone number
    or a time, or is a field ("Notes taken by: Jonah Ferreira") states it, though it has
    no closing punctuation, unless it is a numbered heading ("4.1 Volunteers aged 16")."""
    words = len(WORD.findall(text))
    if (text.lstrip().startswith("#") or words < MIN_QUOTE_WORDS
            or (is_lead_in(text) and not _DIGIT.search(text)) or _ASKS.search(text)
            or _SUBJECT_LINE.match(text)):
        return False
    return words >= 8 or is_field_line(text) or bool(_SENTENCE_END.search(text) or (
        _ENDS_IN_VALUE.search(text) or states_a_value(text)) and not SECTION_NUMBER.match(text))


def _text(hit: Hit, sentence: SentenceRow) -> str:
    return hit.text[sentence.start - hit.start: sentence.end - hit.start]
