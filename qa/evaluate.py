"""Retrieval evaluation: BEIR-compatible metrics and a BEIR dataset loader.

The metrics reproduce what BEIR reports, so our numbers can be set beside
published BEIR tables. BEIR computes nDCG@k and Recall@k with pytrec_eval,
which wraps trec_eval 9.x (``ndcg_cut`` and ``recall`` measures), and MRR@k
with its own ``custom_metrics.mrr``:

* nDCG@k: gain is the relevance grade itself (not ``2**rel - 1``), discount is
  ``log2(rank + 1)`` with 1-based rank, and the ideal DCG is built from all of
  the query's judgements sorted by grade and cut at k. Grades <= 0 give no gain.
* Recall@k: relevant documents (grade > 0) in the top k over all relevant ones.
* MRR@k: reciprocal rank of the first relevant document in the top k, else 0.

Rankings here are ordered lists. trec_eval instead sorts a run by score, so
results can differ only where a run has tied scores. A run cannot hold a
document twice in pytrec_eval (it is a dict), so a repeated document counts
once, at its first rank, and does not take up a slot in the top k.
"""

import csv
import json
import math
from pathlib import Path

Qrels = dict[str, dict[str, int]]


def _top_k(ranked: list[str], k: int) -> list[str]:
    """Return the first k distinct doc ids of ``ranked``, in order."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return list(dict.fromkeys(ranked))[:k]


def _dcg(gains: list[int]) -> float:
    """Discounted cumulative gain of gains listed from rank 1 down."""
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, start=1) if g > 0)


def ndcg_at_k(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """Normalised DCG at k with linear gains, as trec_eval's ``ndcg_cut.k``.

    ``relevant`` maps doc id to relevance grade; unjudged docs have grade 0.
    Returns 0.0 when the query has no document with a positive grade.
    """
    top = _top_k(ranked, k)
    ideal = _dcg(sorted(relevant.values(), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return _dcg([relevant.get(doc, 0) for doc in top]) / ideal


def recall_at_k(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """Fraction of the relevant docs (grade > 0) found in the top k.

    Returns 0.0 when the query has no relevant document, as trec_eval does.
    """
    top = _top_k(ranked, k)
    wanted = {doc for doc, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted.intersection(top)) / len(wanted)


def mrr_at_k(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """Reciprocal rank of the first relevant doc (grade > 0) in the top k, else 0."""
    for rank, doc in enumerate(_top_k(ranked, k), start=1):
        if relevant.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def mean_metrics(runs: dict[str, list[str]], qrels: Qrels) -> dict[str, float]:
    """Average nDCG@10, Recall@10, Recall@100 and MRR@10 over the queries in ``qrels``.

    A query with judgements but no run counts as an empty ranking (all zeros).
    Runs for queries without judgements are ignored. BEIR's evaluator also
    drops a retrieved doc whose id equals the query id (it matters on ArguAna
    and Quora); callers that need that must filter their runs first.
    """
    if not qrels:
        raise ValueError("qrels is empty: nothing to average over")
    totals = {"ndcg@10": 0.0, "recall@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0}
    for qid, relevant in qrels.items():
        ranked = runs.get(qid, [])
        totals["ndcg@10"] += ndcg_at_k(ranked, relevant, 10)
        totals["recall@10"] += recall_at_k(ranked, relevant, 10)
        totals["recall@100"] += recall_at_k(ranked, relevant, 100)
        totals["mrr@10"] += mrr_at_k(ranked, relevant, 10)
    return {name: total / len(qrels) for name, total in totals.items()}


def _read_jsonl(path: Path) -> list[dict]:
    """Parse one JSON object per non-blank line."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _read_qrels(path: Path) -> Qrels:
    """Read a BEIR qrels TSV (header line, then query-id, corpus-id, score)."""
    qrels: Qrels = {}
    with path.open(encoding="utf-8", newline="") as f:
        rows = csv.reader(f, delimiter="\t")
        next(rows, None)
        for qid, doc_id, score, *_ in rows:
            qrels.setdefault(qid, {})[doc_id] = int(score)
    return qrels


def load_beir(
    directory: str | Path,
) -> tuple[dict[str, tuple[str, str]], dict[str, str], Qrels]:
    """Load a BEIR dataset folder's test split.

    Reads ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl``
    (``_id``, ``text``) and ``qrels/test.tsv``. Returns ``(corpus, queries,
    qrels)`` with corpus values ``(title, text)``; only queries that have test
    judgements are kept, as BEIR's GenericDataLoader does.
    """
    root = Path(directory)
    corpus = {
        str(row["_id"]): (row.get("title") or "", row.get("text") or "")
        for row in _read_jsonl(root / "corpus.jsonl")
    }
    all_queries = {str(row["_id"]): row["text"] for row in _read_jsonl(root / "queries.jsonl")}
    qrels = _read_qrels(root / "qrels" / "test.tsv")
    missing = qrels.keys() - all_queries.keys()
    if missing:
        raise ValueError(f"{len(missing)} judged queries have no text, e.g. {sorted(missing)[:3]}")
    return corpus, {qid: all_queries[qid] for qid in qrels}, qrels
