"""Refit the answerability model (`qa/answering/answerability.json`) from public data, and report it
fold by fold.

The model decides whether a question is answered, from the features of the sentence the
product would quote (`qa.answering.quoted.assess`: its similarity and the verifier's score,
`qa.answering.verifier`), and from which margin the reader's span is said before the
quote. It is fitted to the development articles of the fold the shipped reader and
verifier held out (`benchmarks/reader.py --hold-out-fold 0`, `benchmarks/verifier.py`),
since they are surer of the articles they were trained on.

Every question of those articles is searched in an index of all the development articles
(as `qa eval squad` searches, and as a folder holds more than the document asked about)
and assessed by the product (`Asker.answer_inputs`, the reader over the top passages,
`assess`): the features, the label "answerable", whether the sentence quoted first holds
a gold answer and whether the reader's span does. SQuAD's unanswerable questions reuse
their paragraph's words, so they teach nothing about a question that names what no
document holds ("the solar panels' cost" of a folder without them); every answerable
question is therefore also asked with their rarest word the article holds swapped for a
word of the training articles that no indexed article holds, and labelled unanswerable
(`near_misses`; the fold table reports them apart). Leave-one-article-out: for each
article, a model fitted to the others sets its threshold where it refuses
TARGET_FALSE_REFUSAL of their answerable questions, and is judged on the article left out.
The shipped model is fitted to every article, its threshold set from the out-of-fold
probabilities the same way, and its span margin where at most TARGET_WRONG_SPANS of the
spans it would say first (of questions answerable or not) hold no gold answer.
`--check FILE` then reports the shipped model on other articles, fitting nothing.

Run:  .venv/bin/python benchmarks/answerability.py [--write] [--check DEV.json]
"""

import argparse
import json
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from scipy.stats import binomtest

from qa import Index
from qa.answering import answerability
from qa.answering.question_kinds import content_words
from qa.answering.quoted import READ_PASSAGES, assess
from qa.answering.reader import read_passages
from qa.answering.verifier import verify
from qa.evaluation import squad
from qa.words import STOPWORDS, WORD

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "squad"
FITTED = SHARED / "squad2-dev-15articles.json"
OTHERS = SHARED / "squad2-train-10articles.json"  # where the swapped-in words come from
UNSEEN = "fold0"  # its articles the shipped reader was not trained on
TARGET_FALSE_REFUSAL = 0.04  # the folds then refuse at most 5% of their answerable questions
TARGET_WRONG_SPANS = 0.10
SEED = 13
BATCH = 512  # questions embedded at once (the embedder keeps the last 1,024)


def collect(path: Path, split: str, cache: Path) -> list[dict]:
    """One row per question: its article, features, whether it is answerable, whether
    the sentence the product would quote first holds a gold answer, and whether the
    reader's best span does."""
    indexed, articles = squad.load_squad(path), squad.load_squad(path, split)
    squad.write_corpus(indexed, cache / "corpus")
    index = Index.build([cache / "corpus"], path=cache / "index")
    rows = []
    asked = [(article, question) for article in articles for question in article.questions]
    made = near_misses(articles, indexed) if split == UNSEEN else []
    asked += made
    near = {question.id for _, question in made}
    for start in range(0, len(asked), BATCH):
        batch = asked[start:start + BATCH]
        index._embedder.embed([q.text for _, q in batch])  # one batch, then from its cache
        for article, question in batch:
            hits, inputs = index._asker.answer_inputs(question.text)
            readings = read_passages(question.text, [h.text for h in hits[:READ_PASSAGES]])
            found = assess(question.text, *inputs, asked=question.text, readings=readings,
                           verify=verify)
            if found is None:
                continue
            quote = found.candidates[found.chosen[0]].text
            rows.append({"article": article.title, "features": found.features,
                         "answerable": question.answerable, "near": question.id in near,
                         "names_unknown": found.names_unknown,
                         "right": squad.contains_answer(quote, question.answers),
                         "span_right": squad.contains_answer(found.span_text, question.answers),
                         "margin": found.span[1].margin if found.span else float("-inf")})
    index.close()
    return rows


def near_misses(articles: list[squad.Article], indexed: list[squad.Article]
                ) -> list[tuple[squad.Article, squad.Question]]:
    """The answerable questions of `articles` with their rarest word the article holds
    swapped for a word no `indexed` article holds (seeded), as unanswerable questions."""
    held = Counter(word for article in indexed for paragraph in article.paragraphs
                   for word in set(content_words(paragraph)))
    strangers = sorted({word for article in squad.load_squad(OTHERS)
                        for paragraph in article.paragraphs
                        for word in content_words(paragraph) if word.isalpha()} - set(held))
    chooser, made = random.Random(SEED), []
    for article in articles:
        words = set(content_words(article.markdown()))
        for question in article.questions:
            named = [w for w in WORD.findall(question.text) if w.isalpha()
                     and w.lower() in words and w.lower() not in STOPWORDS]
            if not question.answerable or not named:
                continue
            rarest = min(named, key=lambda w: held[w.lower()])
            stranger = chooser.choice(strangers)
            stranger = stranger.capitalize() if rarest[0].isupper() else stranger
            text = re.sub(rf"\b{re.escape(rarest)}\b", stranger, question.text, count=1)
            made.append((article, squad.Question(f"{question.id}-near", text, ())))
    return made


def threshold_for(model: answerability.Model, rows: list[dict]) -> float:
    """The probability below which TARGET_FALSE_REFUSAL of the answerable rows fall."""
    answerable = [model.probability(r["features"]) for r in rows if r["answerable"]]
    return float(np.quantile(answerable, TARGET_FALSE_REFUSAL))


def span_margin_for(rows: list[dict], answered: list[bool]) -> float:
    """The lowest reader margin from which, with 95% confidence, at most TARGET_WRONG_SPANS
    of the answered rows' spans hold no gold answer: the upper end of Wilson's interval
    of their wrong share, so that one right span above the rest sets no margin (infinite:
    no margin is that sure)."""
    stated = sorted(((r["margin"], r["span_right"]) for r, a in
                     zip(rows, answered, strict=True) if a), reverse=True)
    margin, wrong = float("inf"), 0
    for n, (value, right) in enumerate(stated, 1):
        wrong += not right
        if binomtest(wrong, n).proportion_ci(method="wilson").high <= TARGET_WRONG_SPANS:
            margin = value
    return margin


def figures(rows: list[dict], probability, threshold: float,
            span_margin: float = float("inf")) -> dict[str, float]:
    """Refusals, quote@1 and the spans said first when rows below `threshold` (or naming
    unknown names) are refused."""
    near = [r["names_unknown"] or probability(r) < threshold for r in rows if r.get("near")]
    rows = [r for r in rows if not r.get("near")]
    refused = [r["names_unknown"] or probability(r) < threshold for r in rows]
    answerable = [(r, x) for r, x in zip(rows, refused, strict=True) if r["answerable"]]
    impossible = [x for r, x in zip(rows, refused, strict=True) if not r["answerable"]]
    said = [r for r, x in zip(rows, refused, strict=True)
            if not x and r["margin"] >= span_margin]
    return {
        "answerable": len(answerable), "impossible": len(impossible),
        "quote@1": sum(r["right"] and not x for r, x in answerable) / max(len(answerable), 1),
        "false_refusal": sum(x for _, x in answerable) / max(len(answerable), 1),
        "refused_impossible": sum(impossible) / max(len(impossible), 1),
        "refused_near_misses": sum(near) / max(len(near), 1),
        "span_first": sum(r["span_right"] for r in said) / max(len(answerable), 1),
        "wrong_spans": sum(not r["span_right"] for r in said) / max(len(said), 1),
    }


def fit(rows: list[dict], threshold: float = 0.5) -> answerability.Model:
    return answerability.fit([r["features"] for r in rows], [r["answerable"] for r in rows],
                             threshold)


def folds(rows: list[dict]) -> tuple[dict[str, dict], list[float]]:
    """Leave-one-article-out figures, and each row's out-of-fold probability."""
    by_article = defaultdict(list)
    for i, row in enumerate(rows):
        by_article[row["article"]].append(i)
    report, held_out = {}, [0.0] * len(rows)
    for title, ours in by_article.items():
        others = [rows[i] for i in range(len(rows)) if rows[i]["article"] != title]
        model = fit(others)
        threshold = threshold_for(model, others)
        margin = span_margin_for(others, [model.probability(r["features"]) >= threshold
                                          and not r["names_unknown"] for r in others])
        for i in ours:
            held_out[i] = model.probability(rows[i]["features"])
        mine = [rows[i] for i in ours]
        report[title] = {
            "before": figures(mine, lambda r: r["features"]["similarity"], 0.3),
            "after": figures(mine, lambda r, m=model: m.probability(r["features"]), threshold,
                             margin),
        }
    return report, held_out


def print_table(report: dict[str, dict]) -> None:
    names = ("quote@1", "false_refusal", "refused_impossible", "refused_near_misses")
    print(f"{'article':<44}{'answerable':>11}{'impossible':>11}"
          + "".join(f"{n + ' before/after':>32}" for n in names)
          + f"{'span first':>12}{'wrong spans':>12}")
    for title, both in report.items():
        before, after = both["before"], both["after"]
        print(f"{title[:43]:<44}{after['answerable']:>11}{after['impossible']:>11}"
              + "".join(f"{before[n]:>20.3f} / {after[n]:.3f}" for n in names)
              + f"{after['span_first']:>12.3f}{after['wrong_spans']:>12.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, help="keep corpora and indexes here")
    parser.add_argument("--write", action="store_true",
                        help="write qa/answering/answerability.json")
    parser.add_argument("--check", type=Path, help="SQuAD file to report the model on")
    parser.add_argument("--rows", type=Path, help="write the rows fitted to (JSON)")
    parser.add_argument("--sample", type=Path,
                        help="write a sample of the rows fitted to (the test fixture)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        cache = args.cache or Path(temporary)
        rows = collect(FITTED, UNSEEN, cache / "fit-1")
        if args.rows:
            args.rows.write_text(json.dumps(rows))
        report, held_out = folds(rows)
        print("Leave one article out (each fitted to the others):")
        print_table(report)
        model = fit(rows)
        answerable = [p for p, r in zip(held_out, rows, strict=True) if r["answerable"]]
        threshold = float(np.quantile(answerable, TARGET_FALSE_REFUSAL))
        margin = span_margin_for(rows, [p >= threshold and not r["names_unknown"]
                                        for p, r in zip(held_out, rows, strict=True)])
        model = answerability.Model(model.weights, model.bias, model.mean, model.scale,
                                    threshold, margin)
        print(f"\nfitted to {len(rows)} questions; threshold {model.threshold:.4f}, "
              f"span said first from a margin of {model.span_margin:.2f}")
        print(json.dumps(model.to_dict()["weights"], indent=1))
        if args.sample:
            every = max(1, len(rows) // 400)
            sample = [{"features": {n: round(v, 4) for n, v in r["features"].items()},
                       "answerable": r["answerable"]} for r in rows[::every]]
            args.sample.write_text(json.dumps(sample) + "\n")
        if args.write:
            answerability.WEIGHTS_FILE.write_text(json.dumps(model.to_dict(), indent=1) + "\n")
            print(f"wrote {answerability.WEIGHTS_FILE}")
        if args.check:
            rows = collect(args.check, "all", cache / "check")
            by_article = defaultdict(list)
            for row in rows:
                by_article[row["article"]].append(row)
            print(f"\nThe fitted model on {args.check.name} (nothing fitted to it):")
            print_table({title: {
                "before": figures(ours, lambda r: r["features"]["similarity"], 0.3),
                "after": figures(ours, lambda r: model.probability(r["features"]),
                                 model.threshold, model.span_margin)}
                for title, ours in [*by_article.items(), ("all", rows)]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
