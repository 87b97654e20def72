"""The keyword query's words: every word of the question (before issue 21) against every
word but those half the passages or more hold, on answers and retrieval, paired.

Both rules run in one process on the same index, one after the other per part (the
same questions, the same vectors), so only the keyword query differs. The rules are
FTS5 queries: the keyword half is FTS5's throughout (the SQLite backend's Tantivy index,
the product's keyword engine, is set aside; benchmarks/query.py compares the two):

* SciFact (BEIR): nDCG@10, recall@10 and MRR@10 of hybrid and keyword search, on an
  index built by `qa eval beir DIR --index CACHE_DIR` (only read);
* the keyword stage's cost on that index (`--cost`): each rule's FTS5 query for 50
  candidates, the rules alternating query by query, p50 / mean ms and the share of
  chunks matched; with rules leaving out words held by a quarter, a tenth and a
  twentieth of the passages, for comparison;
* SQuAD: quote@1, quote@any, passage@5, false refusals and refused unanswerable
  questions per article, each asked against the index of all articles, as
  `qa eval squad` does (the product's refusal threshold; the index is built here).

    python benchmarks/keyword_rule.py --beir ../shared/datasets/scifact --index /tmp/x-scifact \
        --squad ../shared/datasets/squad/squad2-dev-subset.json [--cost] [--shares]
"""

import argparse
import os
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).parent))
from query import every_word_query, fts5_keywords  # noqa: E402

from qa import evaluate, squad  # noqa: E402
from qa.backends.sqlite import keyword_query  # noqa: E402
from qa.index import Index  # noqa: E402
from qa.settings import Settings  # noqa: E402

SQUAD_FIGURES = ("quote@1", "quote@any", "passage@5", "false_refusal", "refused_impossible")


def rules(index: Index, shares: bool = False) -> dict:
    """The keyword query of every word (before issue 21) and the product's, in `index`;
    with `shares`, also those leaving out the words a quarter or a tenth of the passages
    hold (faster, but no longer free: they change scores)."""
    store = index.backend.store()
    compared = {"every word (before)": every_word_query,
                "common words out": lambda text, _=None: keyword_query(text, store)}
    if shares:
        compared.update({f"held by >= {s} out": share_rule(store, s) for s in (0.25, 0.1)})
    return compared


@contextmanager
def fts5_rule(index: Index, query):
    """FTS5 as the index's keyword half for the block, its MATCH made by `query` (replaced
    where the backend looks it up: its own module, not the package that re-exports it)."""
    from qa.backends.sqlite import backend

    before = backend.keyword_query
    backend.keyword_query = query
    try:
        with fts5_keywords(index.backend):
            yield
    finally:
        backend.keyword_query = before


def share_rule(store, share: float):
    """Every word but those `share` of the passages or more hold (for comparison)."""
    import re

    from qa.stemming import index_term

    def query(text: str, _=None) -> str | None:
        words = list(dict.fromkeys(w.lower() for w in re.findall(r"\w+", text)))
        holding, passages = store.term_frequencies([index_term(w) for w in words])
        kept = [w for w in words if holding[index_term(w)] < share * passages] or words
        return " OR ".join(f'"{w}"' for w in kept) or None

    return query


def cost(dataset: Path, cache: Path) -> None:
    import statistics
    import time

    _, queries, _ = evaluate.load_beir(dataset)
    index = Index.open(cache / "index")
    store = index.backend.store()
    compared = {**rules(index), "common words out, ORDER BY rank (before)": None,
                **{f"held by >= {s} out": share_rule(store, s) for s in (0.25, 0.1, 0.05)}}
    times: dict[str, list[float]] = {name: [] for name in compared}
    texts = list(queries.values())
    for i, text in enumerate(texts):
        for name in compared if i % 2 else list(compared)[::-1]:
            start = time.perf_counter()
            if compared[name] is None:  # the same query, sorted by FTS5's rank column
                store._query("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
                             "ORDER BY rank LIMIT 50", (keyword_query(text, store),))
            else:
                store.keyword_search(compared[name](text, store), 50)
            times[name].append((time.perf_counter() - start) * 1e3)
    compared["common words out, ORDER BY rank (before)"] = compared["common words out"]
    chunks = store._chunk_count()
    print(f"\nkeyword stage, {len(texts)} queries, load {os.getloadavg()[0]:.1f}")
    print(f"{'rule':<24}{'p50 ms':>9}{'mean ms':>9}{'matched':>9}")
    for name, values in times.items():
        matched = statistics.median(store._query(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
            (compared[name](text, store),))[0][0] for text in texts)
        print(f"{name:<24}{statistics.median(values):>9.2f}{statistics.fmean(values):>9.2f}"
              f"{matched / chunks:>9.1%}")
    index.close()


def beir(dataset: Path, cache: Path, shares: bool) -> None:
    _, queries, qrels = evaluate.load_beir(dataset)
    index = Index.open(cache / "index")
    print(f"{dataset.name}: {len(queries)} queries, load {os.getloadavg()[0]:.1f}")
    print(f"{'rule':<24}{'mode':<9}{'nDCG@10':>9}{'recall@10':>11}{'MRR@10':>9}")
    for name, rule in rules(index, shares).items():
        with fts5_rule(index, rule):
            results = evaluate.evaluate_beir(index, queries, qrels, ["hybrid", "keyword"])
        for mode, figures in results.items():
            print(f"{name:<24}{mode:<9}{figures['ndcg@10']:>9.4f}{figures['recall@10']:>11.4f}"
                  f"{figures['mrr@10']:>9.4f}")
    index.close()


def squad_articles(path: Path, shares: bool) -> None:
    articles = squad.load_squad(path)
    threshold = Settings().min_score
    with tempfile.TemporaryDirectory(prefix="qa-keyword-rule-") as folder:
        squad.write_corpus(articles, Path(folder) / "corpus")
        index = Index.create(Path(folder) / "index", replace(Settings(), min_score=0.0))
        index.add([Path(folder) / "corpus"])
        print(f"\n{path.name}: {len(articles)} articles, load {os.getloadavg()[0]:.1f}")
        print(f"{'article':<24}{'rule':<22}" + "".join(f"{f:>19}" for f in SQUAD_FIGURES))
        every: dict[str, list] = {name: [] for name in rules(index, shares)}
        for article in articles:
            for name, rule in rules(index, shares).items():
                with fts5_rule(index, rule):
                    outcomes = squad.ask_all(index, [article])
                every[name] += outcomes
                print_squad(article.title, name, outcomes, threshold)
        for name, outcomes in every.items():
            print_squad("all", name, outcomes, threshold)
        index.close()


def print_squad(title: str, rule: str, outcomes: list, threshold: float) -> None:
    figures = squad.metrics(squad.refuse_below(outcomes, threshold))
    print(f"{title[:23]:<24}{rule:<22}" + "".join(f"{figures[f]:>19.3f}" for f in SQUAD_FIGURES),
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", type=Path, help="BEIR folder (corpus.jsonl, queries.jsonl, "
                                                  "qrels/test.tsv)")
    parser.add_argument("--index", type=Path, help="the --index CACHE_DIR of `qa eval beir`")
    parser.add_argument("--cost", action="store_true", help="time the keyword stage too")
    parser.add_argument("--squad", type=Path, help="a SQuAD-format JSON file")
    parser.add_argument("--shares", action="store_true",
                        help="also compare leaving out words a quarter or a tenth hold")
    args = parser.parse_args()
    if args.beir:
        beir(args.beir, args.index, args.shares)
    if args.beir and args.cost:
        cost(args.beir, args.index)
    if args.squad:
        squad_articles(args.squad, args.shares)


if __name__ == "__main__":
    main()
