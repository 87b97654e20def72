"""Refit the answerability model (`qa/answerability.json`) from public data, and report it
fold by fold.

Every question of the SQuAD 2.0 files given (by default the ten training articles in
shared/datasets/squad) is searched and assessed by the product (`Asker.answer_inputs`,
`qa.answer.assess`): the features of the sentence it would quote, and the label
"answerable". Leave-one-article-out: for each article, a model fitted to the others sets
its threshold where it refuses TARGET_FALSE_REFUSAL of their answerable questions, and is
judged on the article left out. The shipped model is fitted to every article, its
threshold set from the out-of-fold probabilities the same way. `--check FILE` then
reports the shipped model on other articles (the development ones), fitting nothing.

Run:  .venv/bin/python benchmarks/answerability.py [--write] [--check DEV.json]
"""

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

from qa import Index, answerability, squad
from qa.answer import assess

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "squad"
TRAIN = SHARED / "squad2-train-10articles.json"
TARGET_FALSE_REFUSAL = 0.03
BATCH = 512  # questions embedded at once (the embedder keeps the last 1,024)


def collect(path: Path, cache: Path) -> list[dict]:
    """One row per question: its article, features, whether it is answerable, and whether
    the sentence the product would quote first holds a gold answer."""
    articles = squad.load_squad(path)
    squad.write_corpus(articles, cache / "corpus")
    index = Index.build([cache / "corpus"], path=cache / "index")
    rows = []
    asked = [(article, question) for article in articles for question in article.questions]
    for start in range(0, len(asked), BATCH):
        batch = asked[start:start + BATCH]
        index._embedder.embed([q.text for _, q in batch])  # one batch, then from its cache
        for article, question in batch:
            hits, inputs = index._asker.answer_inputs(question.text)
            found = assess(question.text, *inputs, asked=question.text)
            if found is None:
                continue
            quote = found.candidates[found.chosen[0]].text
            rows.append({"article": article.title, "features": found.features,
                         "answerable": question.answerable,
                         "names_unknown": found.names_unknown,
                         "right": squad.contains_answer(quote, question.answers)})
    index.close()
    return rows


def threshold_for(model: answerability.Model, rows: list[dict]) -> float:
    """The probability below which TARGET_FALSE_REFUSAL of the answerable rows fall."""
    answerable = [model.probability(r["features"]) for r in rows if r["answerable"]]
    return float(np.quantile(answerable, TARGET_FALSE_REFUSAL))


def figures(rows: list[dict], probability, threshold: float) -> dict[str, float]:
    """Refusals and quote@1 when rows below `threshold` (or naming unknown names) are
    refused."""
    refused = [r["names_unknown"] or probability(r) < threshold for r in rows]
    answerable = [(r, x) for r, x in zip(rows, refused, strict=True) if r["answerable"]]
    impossible = [x for r, x in zip(rows, refused, strict=True) if not r["answerable"]]
    return {
        "answerable": len(answerable), "impossible": len(impossible),
        "quote@1": sum(r["right"] and not x for r, x in answerable) / max(len(answerable), 1),
        "false_refusal": sum(x for _, x in answerable) / max(len(answerable), 1),
        "refused_impossible": sum(impossible) / max(len(impossible), 1),
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
        for i in ours:
            held_out[i] = model.probability(rows[i]["features"])
        mine = [rows[i] for i in ours]
        report[title] = {
            "before": figures(mine, lambda r: r["features"]["similarity"], 0.3),
            "after": figures(mine, lambda r, m=model: m.probability(r["features"]), threshold),
        }
    return report, held_out


def print_table(report: dict[str, dict]) -> None:
    names = ("quote@1", "false_refusal", "refused_impossible")
    print(f"{'article':<44}{'answerable':>11}{'impossible':>11}"
          + "".join(f"{n + ' before/after':>32}" for n in names))
    for title, both in report.items():
        before, after = both["before"], both["after"]
        print(f"{title[:43]:<44}{after['answerable']:>11}{after['impossible']:>11}"
              + "".join(f"{before[n]:>20.3f} / {after[n]:.3f}" for n in names))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=[TRAIN])
    parser.add_argument("--cache", type=Path, help="keep corpora and indexes here")
    parser.add_argument("--write", action="store_true", help="write qa/answerability.json")
    parser.add_argument("--check", type=Path, help="SQuAD file to report the model on")
    parser.add_argument("--sample", type=Path,
                        help="write a sample of the rows fitted to (the test fixture)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        cache = args.cache or Path(temporary)
        rows = [row for i, path in enumerate(args.files)
                for row in collect(path, cache / f"fit-{i}")]
        report, held_out = folds(rows)
        print("Leave one article out (each fitted to the others):")
        print_table(report)
        model = fit(rows)
        answerable = [p for p, r in zip(held_out, rows, strict=True) if r["answerable"]]
        model = answerability.Model(model.weights, model.bias, model.mean, model.scale,
                                    float(np.quantile(answerable, TARGET_FALSE_REFUSAL)))
        print(f"\nfitted to {len(rows)} questions; threshold {model.threshold:.4f}")
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
            rows = collect(args.check, cache / "check")
            by_article = defaultdict(list)
            for row in rows:
                by_article[row["article"]].append(row)
            print(f"\nThe fitted model on {args.check.name} (nothing fitted to it):")
            print_table({title: {
                "before": figures(ours, lambda r: r["features"]["similarity"], 0.3),
                "after": figures(ours, lambda r: model.probability(r["features"]),
                                 model.threshold)} for title, ours in by_article.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
