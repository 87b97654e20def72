"""SQuAD evaluation: is the quoted sentence the answer, and are unanswerable questions refused?

`qa eval squad FILE` takes reading-comprehension data in SQuAD's JSON format
(v1.1, or v2.0 with its unanswerable questions), writes each article as one
Markdown document (title as heading, paragraphs separated by blank lines),
indexes them with the product and asks every question through `Index.ask`, as a
user would: the whole collection is searched, not the question's paragraph.

Answers are compared as SQuAD compares them (lower-case, punctuation and the
articles a/an/the removed, spaces collapsed), by containment: a quote is right
when a gold answer is contained in it.

- quote@1: answerable questions whose first quote contains a gold answer;
- quote@any: ... whose quotes, any of them, contain one;
- passage@5: ... for which one of the top five passages searched contains one;
- false_refusal: answerable questions answered "not found";
- refused_impossible: SQuAD 2.0's unanswerable questions answered "not found";
- opens_with_answer: ... whose answer opens with a gold answer: the words before its first
  full stop or citation marker ("1871. It was built in 1871 [1]") are at most
  OPENING_WORDS and contain one;
- short_openings: answers (to any question) that open with at most SHORT_OPENING words
  before their first full stop or marker, and wrong_short_openings: the share of those
  that hold no gold answer (a value said first that is wrong);
- ask_p50_ms: the median time of `Index.ask`.

The figures are also given per article (`by_article`): with no rule fitted inside a
run, each article's figures are what leaving that article out of the tuning would
score on it, so a rule is judged by every article's figures, not by their sum alone.
Articles can also be split by the parity of the CRC-32 of their title, so the split
holds for any SQuAD file ("even", "odd").
"""

import json
import re
import string
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

import numpy as np

from qa.evaluation.retrieval import save_chart
from qa.indexing.chunking import split_sentences

_PUNCTUATION = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_MARKER = re.compile(r"\[\d+\]")
OPENING_WORDS, SHORT_OPENING = 12, 5
READER_FOLDS = 3  # the development articles are cut in three to fit the reader


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    answers: tuple[str, ...]  # empty for an unanswerable question

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


@dataclass(frozen=True, slots=True)
class Article:
    title: str
    paragraphs: tuple[str, ...]
    questions: tuple[Question, ...]

    @property
    def filename(self) -> str:
        return f"{quote(self.title, safe='')}.md"

    def markdown(self) -> str:
        return f"# {self.title.replace('_', ' ')}\n\n" + "\n\n".join(self.paragraphs) + "\n"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one question got: whether it was answered, where the gold answer was found,
    the answer's score (what the refusal threshold is compared with) and the time taken."""

    answerable: bool
    found: bool
    first_right: bool
    any_right: bool
    passage_right: bool
    score: float
    seconds: float
    article: str = ""
    opening_words: int = 0  # words before the answer's first full stop or marker
    opening_right: bool = False  # ... and they contain a gold answer


def normalize(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(c for c in text.lower() if c not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def contains_answer(text: str, answers: Sequence[str]) -> bool:
    """Whether `text` contains one of `answers`, both normalised, on word boundaries."""
    haystack = f" {normalize(text)} "
    return any(f" {normalize(a)} " in haystack for a in answers if normalize(a))


def opening(text: str) -> str:
    """What an answer says before its first full stop or citation marker: the end of the
    first sentence, as the index splits sentences, that ends with a full stop; not an
    abbreviation's ("D.C.") nor a bracket the excerpt leaves open ("Sky UK Limited
    (formerly BSkyB… [1]")."""
    end = next((b for a, b in split_sentences(text) if text[a:b].rstrip().endswith(".")),
               len(text))
    return _MARKER.split(text[:end], maxsplit=1)[0].strip().removesuffix(".")


def fold_of(title: str, folds: int) -> int:
    """The fold (0 to folds - 1) of the article titled `title`: the CRC-32 of the title
    modulo `folds`, so the same for any SQuAD file."""
    return zlib.crc32(title.encode()) % folds


def load_squad(path: str | Path, split: str = "all") -> list[Article]:
    """Articles of a SQuAD v1.1 or v2.0 JSON file, all or one half of them (see module
    doc), or one fold of three ("fold0", "fold1", "fold2": `fold_of`)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    articles = []
    for article in data["data"]:
        title = article["title"]
        if split in ("even", "odd") and fold_of(title, 2) != (split == "odd") or \
                split.startswith("fold") and fold_of(title, READER_FOLDS) != int(split[4:]):
            continue
        paragraphs = tuple(p["context"].strip() for p in article["paragraphs"])
        questions = tuple(
            Question(q["id"], q["question"], () if q.get("is_impossible") else
                     tuple(dict.fromkeys(a["text"] for a in q["answers"])))
            for p in article["paragraphs"] for q in p["qas"]
        )
        articles.append(Article(title, paragraphs, questions))
    if not articles:
        raise ValueError(f"{path} holds no articles for split {split!r}")
    return articles


def write_corpus(articles: Sequence[Article], folder: Path) -> None:
    """One Markdown file per article; files already there with the same text are kept,
    so a second run embeds nothing."""
    folder.mkdir(parents=True, exist_ok=True)
    for article in articles:
        path = folder / article.filename
        body = article.markdown()
        if not path.is_file() or path.read_text(encoding="utf-8") != body:
            path.write_text(body, encoding="utf-8")


def ask_all(index, articles: Sequence[Article], mode: str = "extractive") -> list[Outcome]:
    """Ask every question of `articles` in `index` (an `qa.Index` of their corpus)."""
    outcomes = []
    for article, question in ((a, q) for a in articles for q in a.questions):
        started = time.perf_counter()
        answer = index.ask(question.text, mode=mode)
        seconds = time.perf_counter() - started
        quotes = [c.quote for c in answer.citations] if answer.found else []
        passages = [hit.text for hit in index.search(question.text, k=5)]
        opened = opening(answer.text) if answer.found else ""
        outcomes.append(Outcome(
            question.answerable, answer.found,
            bool(quotes) and contains_answer(quotes[0], question.answers),
            any(contains_answer(q, question.answers) for q in quotes),
            any(contains_answer(p, question.answers) for p in passages),
            answer.score, seconds, article.title, len(opened.split()),
            contains_answer(opened, question.answers),
        ))
    return outcomes


def metrics(outcomes: Sequence[Outcome]) -> dict[str, float | int]:
    """The figures of the module docstring, from the outcome of every question."""
    answerable = [o for o in outcomes if o.answerable]
    impossible = [o for o in outcomes if not o.answerable]

    def share(items: Sequence[Outcome], test) -> float:
        return sum(map(test, items)) / len(items) if items else 0.0

    short = [o for o in outcomes if o.found and 0 < o.opening_words <= SHORT_OPENING]

    return {
        "questions": len(outcomes), "answerable": len(answerable), "impossible": len(impossible),
        "quote@1": share(answerable, lambda o: o.found and o.first_right),
        "quote@any": share(answerable, lambda o: o.found and o.any_right),
        "passage@5": share(answerable, lambda o: o.passage_right),
        "false_refusal": share(answerable, lambda o: not o.found),
        "refused_impossible": share(impossible, lambda o: not o.found),
        "opens_with_answer": share(answerable, lambda o: o.found and o.opening_right
                                   and o.opening_words <= OPENING_WORDS),
        "short_openings": len(short),
        "wrong_short_openings": share(short, lambda o: not o.opening_right),
        "ask_p50_ms": float(np.median([o.seconds for o in outcomes]) * 1000) if outcomes else 0.0,
    }


def by_article(outcomes: Sequence[Outcome]) -> dict[str, dict[str, float | int]]:
    """`metrics` of each article's questions, by article title, in the order asked."""
    titles = dict.fromkeys(o.article for o in outcomes)
    return {title: metrics([o for o in outcomes if o.article == title]) for title in titles}


def refusal_curve(outcomes: Sequence[Outcome], thresholds: Sequence[float]) -> list[dict]:
    """What the figures would be if answers scoring below each threshold were refused
    (answers already refused stay refused): the trade-off the threshold sets."""
    curve = []
    for threshold in thresholds:
        figures = metrics(refuse_below(outcomes, threshold))
        curve.append({"threshold": threshold, **{name: figures[name] for name in (
            "quote@1", "quote@any", "false_refusal", "refused_impossible")}})
    return curve


def refuse_below(outcomes: Sequence[Outcome], threshold: float) -> list[Outcome]:
    """The outcomes as they are when answers scoring below `threshold` are refused, as
    `Index.ask` refuses them when `Settings.answer_threshold` is `threshold`."""
    return [o if o.score >= threshold else
            replace(o, found=False, first_right=False, any_right=False, opening_right=False)
            for o in outcomes]


def plot_curve(curve: list[dict], current: float, title: str, path: Path) -> None:
    """Refused unanswerable questions against false refusals and quote@1, as the threshold
    moves; the product's own threshold marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    thresholds = [point["threshold"] for point in curve]
    for name in ("refused_impossible", "false_refusal", "quote@1"):
        axes.plot(thresholds, [point[name] for point in curve], marker=".", label=name)
    axes.axvline(current, color="grey", linestyle="--", label=f"answer_threshold = {current:.3g}")
    axes.set_xlabel("refusal threshold (answerability probability)")
    save_chart(figure, axes, title, path)
