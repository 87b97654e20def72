"""Answer: a short extractive answer whose every sentence cites the passage it is from.

No language model is needed. Each sentence of the top passages is scored by five
signals, the first four chosen and weighed on reading-comprehension data (SQuAD
articles with an even title hash; the odd ones held out, see `qa eval squad`):

- coverage: the share of the question's content words (unaccented Porter stems,
  weighted by their inverse document frequency over the whole index, so "California"
  counts for little in a corpus about California) that the sentence holds;
- window coverage: the same over the sentence and its neighbours, since a
  question often names what a neighbouring sentence said ("It was built in...");
- similarity: the cosine similarity of the sentence's vector (embedded in its
  passage's context at indexing time, so no model call here) to the question's;
- answer type: a "when" question wants a date, "how many" a number, "who" and
  "where" a name the question does not already hold;
- doer: a "who did it" question ("Who has resigned...?") wants a name just before
  the asked verb, where the sentence says it happened: not negated ("no plans to
  resign"), not wished for ("called for them to resign").

Weights (fitted by a listwise softmax on the tuning articles, rounded): 4, 1.5, 6 and 2,
kept because they hold on the held-out article (docs/figures.md gives the figures). The
doer cue (weight 3) was added for questions over the seed article; it fires rarely on
SQuAD and changes none of its answers. The best sentence is quoted, and a second when it
scores close behind, is itself similar to the question and is as much an answer of the
kind asked (a date, a name, the doer) as the best is. A sentence that starts by
referring back ("It", "This", "But"...) brings its previous sentence when that holds
question words it lacks; a second quote that overlaps the first or follows it in the
same paragraph is joined to it, so no sentence is read twice. A question word that no
candidate holds is read as the closest word one does ("snowbaorder"). Headings and
labels are never quoted. A statement rather than a question (a claim to find evidence
for) is answered by the cosine and sentence-BM25 rank fusion, which finds SciFact's
evidence more often. When even the most similar sentence is not similar enough, the
answer says plainly that the documents do not contain it and cites nothing.
"""

import difflib
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from qa.search import Hit, reciprocal_rank_fusion
from qa.stemming import index_term
from qa.store import SentenceRow

ANSWER_PASSAGES = 8  # the sentences of this many top passages compete to be quoted
SIGNALS = ("coverage", "window", "similarity", "answer_type", "doer")
WEIGHTS = {"coverage": 4.0, "window": 1.5, "similarity": 6.0, "answer_type": 2.0, "doer": 3.0}
# a second quote must be an answer of the kind asked as much as the first is (a date, a
# name, the doer): not merely close behind it
_KIND = [SIGNALS.index("answer_type"), SIGNALS.index("doer")]
# A statement rather than a question (a claim to find evidence for, as in SciFact) is
# answered as before these weights: cosine and sentence BM25 fused by rank, over the top
# three passages, one quote. On SciFact's evidence that beats the question scorer
# (0.416 against 0.378 end to end, 0.612 against 0.584 with the gold document given).
CLAIM_PASSAGES = 3
BM25_K1, BM25_B = 1.2, 0.75
SECOND_QUOTE_MARGIN = 1.0  # a second sentence is quoted if it scores this close to the best
MIN_QUOTE_WORDS = 3
# a question word no candidate holds is read as a misspelling of the closest word one does
# hold, at this difflib similarity, when it has this many letters ("snowbaorder")
TYPO_SIMILARITY, MIN_TYPO_LENGTH = 0.85, 5
MAX_TYPOS = 8  # question words looked up so, at most: each is compared with every held word
NOT_FOUND = "The documents do not contain an answer to this question."
_WORD = re.compile(r"\w+")
_STOPWORDS = frozenset((
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and",
    "or", "but", "nor", "is", "are", "was", "were", "be", "been", "being", "am", "do",
    "does", "did", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "that", "this", "these", "those", "it", "its", "as", "into", "than", "then", "there",
    "their", "they", "them", "he", "him", "his", "she", "her", "hers", "has", "have", "had",
    "having", "not", "no", "can", "could", "would", "should", "will", "shall", "may",
    "might", "must", "about", "over", "under", "after", "before", "during", "between",
    "through", "up", "down", "out", "off", "also", "such", "any", "some", "many", "much",
    "more", "most", "other", "s", "i", "you", "your", "we", "our", "us", "me", "my",
))
_REFERS_BACK = re.compile(
    r"(it|its|this|these|that|those|he|his|she|her|they|their|them|but|however|also|such|"
    r"both|then|there)\b", re.IGNORECASE)
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"""[.!?:;]["'”’)\]]*\s*$""")
_QUESTION_START = re.compile(
    r"(what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|"
    r"will|would|should|has|have|had)\b", re.I)
_TIME_QUESTION = re.compile(
    r"\b(when|what year|which year|what decade|what century|what date|how long ago)\b", re.I)
_NUMBER_QUESTION = re.compile(
    r"\b(how many|how much|what percent|what percentage|how large|how big|how long|how far|"
    r"how old|how high|how tall|what population)\b", re.I)
_NAME_QUESTION = re.compile(r"\b(who|whom|whose|where)\b", re.I)
# "Who has already resigned...": the words between "who" and its verb; a copula or "did"
# there makes it a question of another kind ("Who is...", "Who did they...").
_BEFORE_VERB = frozenset((
    "has", "have", "had", "to", "will", "would", "can", "could", "should", "may", "might",
    "must", "already", "also", "else", "first", "still", "just", "now", "once", "later",
    "then", "ever", "never", "actually",
))
_NOT_A_DOER_QUESTION = frozenset(("is", "are", "was", "were", "be", "been", "do", "does", "did"))
# before a verb, these say it did not happen, or not yet: negated, wished, supposed
_NOT_HAPPENED = frozenset((
    "no", "not", "never", "nor", "neither", "without", "cannot", "t", "to", "if", "whether",
    "should", "would", "could", "might", "may", "must", "unless",
))
DOER_SPAN = 3  # words before the verb where the doer's name may stand
# a noun made from the verb names the act but does not say it happened ("his resignation")
_NOUN_ENDINGS = ("tion", "sion", "ment", "ance", "ence", "al")
_TIME = re.compile(
    r"\b(1\d{3}|20\d{2})s?\b|\b(january|february|march|april|may|june|july|august|"
    r"september|october|november|december|century|centuries)\b", re.I)
_NUMBER = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"hundred|thousand|million|billion|dozen)\b", re.I)


@dataclass(frozen=True, slots=True)
class Citation:
    """What `[n]` in an answer points to: a passage, and the sentence quoted from it.

    start, end: the quote's character offsets in the source document's text.
    """

    n: int
    hit: Hit
    quote: str
    start: int
    end: int

    def to_dict(self) -> dict:
        hit = self.hit
        return {
            "n": self.n, "source": hit.source, "title": hit.title, "text": hit.text,
            "quote": self.quote, "start": self.start, "end": self.end, "page": hit.page,
            "score": hit.score, "similarity": hit.similarity,
        }


@dataclass(frozen=True, slots=True)
class Answer:
    """A short answer with `[n]` markers; `found` is False when the documents lack it.

    mode: "extractive" (quoted sentences) or "llm" (written by a language model,
        its claims checked against the passages they cite).
    claims: for an LLM answer, each sentence with the passages it cites and whether
        they support it.
    notice: why the answer is not the one asked for (e.g. the LLM was unreachable).
    removed_markers: `[n]` markers the LLM wrote that pointed at no passage.
    score: how well the best sentence of the passages answers the question; the
        answer is "not found" when it is below `Settings.min_score`.
    """

    question: str
    text: str
    found: bool
    citations: tuple[Citation, ...]
    mode: str = "extractive"
    claims: tuple["Claim", ...] = ()
    notice: str | None = None
    removed_markers: int = 0
    score: float = 0.0

    def to_dict(self) -> dict:
        return {
            "question": self.question, "answer": self.text, "found": self.found,
            "score": round(self.score, 4),
            "citations": [citation.to_dict() for citation in self.citations],
            "mode": self.mode, "claims": [claim.to_dict() for claim in self.claims],
            "notice": self.notice, "removed_markers": self.removed_markers,
        }


@dataclass(frozen=True, slots=True)
class Claim:
    """A sentence of an LLM answer, the passages it cites, and how well they support it.

    support: the cosine similarity of the sentence to the closest sentence of the
    passages it cites; supported: whether that reaches SUPPORT_THRESHOLD.
    """

    text: str
    cites: tuple[int, ...]
    support: float
    supported: bool

    def to_dict(self) -> dict:
        return {"text": self.text, "citations": list(self.cites),
                "support": round(self.support, 4), "supported": self.supported}


def compose_answer(
    question: str, query_vector: np.ndarray, hits: Sequence[Hit],
    sentences: Sequence[SentenceRow], min_score: float,
    term_frequencies: tuple[Mapping[str, int], int],
) -> Answer:
    """Quote the sentences of the top hits that best answer the question, or say none does.

    term_frequencies: how many passages of the index hold each of
        `question_terms(question)`, and how many passages it has.
    """
    question_asked = _is_question(question)
    passages = ANSWER_PASSAGES if question_asked else CLAIM_PASSAGES
    by_chunk = {hit.chunk_id: hit for hit in hits[:passages]}
    candidates = _candidates(sentences, by_chunk)
    if not candidates:
        return Answer(question, NOT_FOUND, False, ())
    similarities = np.array([c.sentence.vector @ query_vector for c in candidates])
    score = float(similarities.max())
    if score < min_score:
        return Answer(question, NOT_FOUND, False, (), score=score)
    frequencies, passages = term_frequencies
    idf = inverse_document_frequency(frequencies, passages)
    wanted = _spellings(question, candidates, known={t for t, n in frequencies.items() if n})
    if question_asked:
        signals = _signals(question, wanted, candidates, similarities, _blend(idf, candidates))
        chosen = _best_two(signals, similarities, min_score)
    else:  # a claim: see CLAIM_PASSAGES
        scores = _fused(similarities, bm25_scores(question, [c.text for c in candidates]))
        chosen = [int(np.argmax(scores))]
    spans = _joined([(candidates[i].hit, *_with_antecedent(candidates[i], wanted, idf))
                     for i in chosen])
    numbers: dict[int, int] = {}
    citations, parts = [], []
    for hit, start, end in spans:
        quote = hit.text[start - hit.start:end - hit.start]
        n = numbers.setdefault(hit.chunk_id, len(numbers) + 1)
        citations.append(Citation(n, hit, quote, start, end))
        parts.append(f"{' '.join(quote.split())} [{n}]")
    return Answer(question, " ".join(parts), True, tuple(citations), score=score)


def _best_two(signals: np.ndarray, similarities: np.ndarray, min_score: float) -> list[int]:
    """The best candidate, and the next when it scores close behind, is itself similar
    enough to the question and is as much an answer of the kind asked (see _KIND)."""
    scores = signals @ np.array([WEIGHTS[name] for name in SIGNALS])
    best, *rest = np.argsort(-scores, kind="stable")[:2]
    return [best] + [
        i for i in rest if scores[i] >= scores[best] - SECOND_QUOTE_MARGIN
        and similarities[i] >= min_score and (signals[i, _KIND] >= signals[best, _KIND]).all()
    ]


def question_terms(question: str) -> list[str]:
    """A question's content words as the keyword index keeps them (unaccented Porter
    stems), whose IDF `compose_answer` needs."""
    return list(dict.fromkeys(index_term(word) for word in _words(question)))


def inverse_document_frequency(frequencies: Mapping[str, int], passages: int) -> dict[str, float]:
    """BM25's IDF of each term, from the number of passages (of `passages`) holding it."""
    return {term: math.log(1 + (passages - df + 0.5) / (df + 0.5))
            for term, df in frequencies.items()}


def _blend(idf: Mapping[str, float], candidates: Sequence["_Candidate"]) -> dict[str, float]:
    """The mean of each term's IDF over the index's passages and over the candidate
    sentences: the first knows the corpus, the second still tells words apart when the
    index is a handful of passages that all share them."""
    held = [{index_term(word) for word in _words(c.text)} for c in candidates]
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
    similarities: np.ndarray, idf: Mapping[str, float],
) -> np.ndarray:
    """Each candidate's SIGNALS (see the module docstring), a row each; `wanted`: the
    question's words and how the candidates spell them (`_spellings`)."""
    answer_type = _answer_type(question)
    verb = _asked_verb(question)
    rows = []
    for candidate in candidates:
        hit = candidate.hit
        window = " ".join(_text(hit, s) for s in (candidate.previous, candidate.following) if s)
        text = candidate.text
        if candidate.previous and _REFERS_BACK.match(text):  # read as "<previous> It was..."
            text = f"{_text(hit, candidate.previous)} {text}"
        rows.append((
            _coverage(wanted, text, idf),
            _coverage(wanted, f"{window} {candidate.text}", idf),
            answer_type(question, candidate.text) if answer_type else 0.0,
            _names_the_doer(question, verb, candidate.text) if verb else 0.0,
        ))
    coverage, window, typed, doer = np.array(rows).T
    return np.column_stack([coverage, window, similarities, typed, doer])


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
    words = _WORD.findall(text.lower())
    return words + ["~" + index_term(word) for word in words]


def _fused(*signals: np.ndarray) -> np.ndarray:
    """Each candidate's reciprocal-rank fusion of its ranks by the signals."""
    fused = dict(reciprocal_rank_fusion(
        [[int(i) for i in np.argsort(-signal, kind="stable")] for signal in signals]))
    return np.array([fused[i] for i in range(len(signals[0]))])


def _is_question(text: str) -> bool:
    """A question, rather than a statement to find evidence for (a claim to check)."""
    return text.rstrip().endswith("?") or bool(_QUESTION_START.match(text.lstrip()))


def _coverage(wanted: Mapping[str, str], text: str, idf: Mapping[str, float]) -> float:
    """The IDF-weighted share of the wanted words (question word: its spelling in the
    passages) that `text` holds: half for the word's stem, half for the word itself
    ("resigned" matches "resigned" best, "resign" too)."""
    total = sum(idf.get(index_term(word), 0.0) for word in wanted)
    if not total:
        return 0.0
    words = set(_words(text))
    stems = {index_term(word) for word in words}
    held = sum(idf.get(index_term(word), 0.0) * ((index_term(spelled) in stems)
                                                 + (spelled in words))
               for word, spelled in wanted.items())
    return held / (2 * total)


def _spellings(
    question: str, candidates: Sequence[_Candidate], known: set[str],
) -> dict[str, str]:
    """Each content word of the question, and how the candidates spell it: a word of
    letters that neither the index (`known`: index terms) nor the candidates hold is read
    as a misspelling of the closest word they do hold ("snowbaorder": "snowboarder")
    that starts with the same letter ("unavailable" is not a misspelt "available", nor
    "least" of "east")."""
    held = {word for candidate in candidates for word in _words(candidate.text)}
    held_terms = {index_term(word) for word in held}
    spellings = {word: word for word in _words(question)}
    unknown = [word for word in spellings if len(word) >= MIN_TYPO_LENGTH and word.isalpha()
               and index_term(word) not in known | held_terms]
    for word in unknown[:MAX_TYPOS]:
        alike = [w for w in held if w[0] == word[0]]
        spellings[word] = next(iter(
            difflib.get_close_matches(word, alike, n=1, cutoff=TYPO_SIMILARITY)), word)
    return spellings


def _answer_type(question: str):
    """What kind of answer the question asks for, as a test of a sentence; None if any."""
    if _TIME_QUESTION.search(question):
        return lambda _, text: float(bool(_TIME.search(text)))
    if _NUMBER_QUESTION.search(question):
        return lambda _, text: float(bool(_NUMBER.search(text)))
    if _NAME_QUESTION.search(question):
        return _has_new_name
    return None


def _has_new_name(question: str, text: str) -> float:
    """Whether the sentence holds a capitalised word (past its first) the question lacks."""
    asked = {word.lower() for word in _WORD.findall(question)}
    words = _WORD.findall(text)[1:]
    return float(any(w[0].isupper() and w.lower() not in asked for w in words))


def _asked_verb(question: str) -> str | None:
    """The verb a "who did it" question asks about ("Who has already resigned over the
    recording?" and "Who in the council has resigned?": "resigned"), or None for any
    other question."""
    words = _WORD.findall(question.lower())
    if words[:1] != ["who"]:
        return None
    words = words[1:]
    if words and words[0] in _STOPWORDS and words[0] not in _BEFORE_VERB:  # "in the council"
        words = words[next((i for i, w in enumerate(words) if w in _BEFORE_VERB), len(words)):]
    for word in words:
        if word in _NOT_A_DOER_QUESTION:
            return None
        if word not in _BEFORE_VERB and not word.endswith("ly"):
            return None if word in _STOPWORDS else word
    return None


def _names_the_doer(question: str, verb: str, text: str) -> float:
    """Whether the sentence says the asked verb happened and names, just before it,
    someone the question does not: "Martinez and Herrera have since resigned", but not "he
    has no plans to resign", "they called for Herrera to resign", "if Herrera resigns" or
    "calling for de León's resignation"."""
    asked = {word.lower() for word in _WORD.findall(question)}
    words = _WORD.findall(text)
    for i, word in enumerate(words):
        before = words[max(i - DOER_SPAN, 0):i]
        if index_term(word) != index_term(verb) or any(
                w.lower() in _NOT_HAPPENED for w in before) or (
                word.lower().endswith(_NOUN_ENDINGS) and len(word) > len(verb)):
            continue
        if any(w[0].isupper() and w.lower() not in asked | _STOPWORDS for w in before):
            return 1.0
    return 0.0


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


def _words(text: str) -> list[str]:
    """The content words of `text`, lower-cased (stopwords left out)."""
    return [word for word in _WORD.findall(text.lower()) if word not in _STOPWORDS]


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
    while len(lines) > 1 and not _SENTENCE_END.search(lines[0]):
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


def _quotable(text: str) -> bool:
    """A statement worth quoting: not a Markdown heading, not a label (a few words with no
    closing punctuation), not a word or two."""
    words = len(_WORD.findall(text))
    if text.lstrip().startswith("#") or words < MIN_QUOTE_WORDS:
        return False
    return words >= 8 or bool(_SENTENCE_END.search(text))


def _text(hit: Hit, sentence: SentenceRow) -> str:
    return hit.text[sentence.start - hit.start: sentence.end - hit.start]
