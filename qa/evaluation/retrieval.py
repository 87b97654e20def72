"""Evaluation: BEIR-compatible metrics, and the product run on a BEIR dataset.

`qa eval beir DIR` indexes the corpus with the product's own loader, chunker
and embedder (one Markdown file per document, its title as the heading),
searches with the product's own search and scores documents by their best
passage. `qa eval evidence DIR` checks the sentence the answer quotes against
SciFact's gold evidence sentences.

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
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote, unquote

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


# -- running the product on a BEIR dataset ------------------------------------------

CHUNKS_PER_QUERY = 300  # enough passages to rank 100 distinct documents


def write_corpus(corpus: dict[str, tuple[str, str]], folder: Path) -> None:
    """One Markdown file per document, its title as the heading, so the product's own
    loader reads the title. Files already there with the same text are left alone, so a
    second run re-embeds nothing."""
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, (title, text) in corpus.items():
        path = folder / f"{quote(doc_id, safe='')}.md"
        body = f"# {title}\n\n{text}\n" if title.strip() else f"{text}\n"
        if not path.is_file() or path.read_text(encoding="utf-8") != body:
            path.write_text(body, encoding="utf-8")


def doc_id(source: str) -> str:
    """The BEIR id of the document a hit came from."""
    return unquote(Path(source).stem)


def document_ranking(hits) -> list[str]:
    """Documents in the order of their best passage (a document scores its best chunk)."""
    return list(dict.fromkeys(doc_id(hit.source) for hit in hits))


def evaluate_beir(
    index, queries: dict[str, str], qrels: Qrels, modes: list[str]
) -> dict[str, dict[str, float]]:
    """Metrics per mode for `queries` searched in `index` (an `qa.Index` of the corpus)."""
    ids = list(queries)
    results = {}
    for mode in modes:
        rankings = index.search_many([queries[q] for q in ids], k=CHUNKS_PER_QUERY, mode=mode)
        runs = {qid: document_ranking(hits) for qid, hits in zip(ids, rankings, strict=True)}
        results[mode] = mean_metrics(runs, {q: qrels[q] for q in ids})
    return results


def split_queries(queries: dict[str, str], split: str) -> dict[str, str]:
    """All queries, or those with even ids (for tuning) or odd ids (held out)."""
    if split == "all":
        return queries
    parity = 0 if split == "even" else 1
    return {q: text for q, text in queries.items() if _numeric(q) % 2 == parity}


def _numeric(query_id: str) -> int:
    digits = "".join(c for c in query_id if c.isdigit())
    return int(digits) if digits else sum(map(ord, query_id))


def load_evidence(directory: str | Path) -> dict[tuple[str, str], set[int]]:
    """Gold evidence from `rationales_test.jsonl`: (query id, doc id) -> sentence indexes,
    the sets given for one pair merged (any gold sentence is a right answer)."""
    gold: dict[tuple[str, str], set[int]] = {}
    for row in _read_jsonl(Path(directory) / "rationales_test.jsonl"):
        gold.setdefault((str(row["query_id"]), str(row["doc_id"])), set()).update(row["sentences"])
    return gold


def evaluate_evidence(
    index, directory: str | Path, corpus_folder: Path, split: str = "all"
) -> dict[str, float | int]:
    """How often the answer's first quote is a gold evidence sentence: end to end, and
    with the search limited to the gold document (sentence choice alone)."""
    root = Path(directory)
    gold = load_evidence(root)
    queries = split_queries(
        {str(r["_id"]): r["text"] for r in _read_jsonl(root / "queries.jsonl")}, split
    )
    pairs = {pair: wanted for pair, wanted in gold.items() if pair[0] in queries}
    sentences = {
        str(row["_id"]): row["sentences"] for row in _read_jsonl(root / "corpus.jsonl")
        if str(row["_id"]) in {doc for _, doc in pairs}
    }
    end_to_end = given = 0
    for (query_id, doc), wanted in pairs.items():
        path = str((corpus_folder / f"{quote(doc, safe='')}.md").absolute())
        spans = _sentence_spans(index.document_text(path), sentences[doc])
        targets = [span for i in wanted if (span := spans[i]) is not None]
        claim = queries[query_id]
        end_to_end += _quotes_one_of(index.ask(claim), path, targets)
        given += _quotes_one_of(index.ask(claim, within=[path]), path, targets)
    n = max(len(pairs), 1)
    return {"pairs": len(pairs), "end_to_end": end_to_end / n, "given_document": given / n}


def _sentence_spans(text: str, sentences: Sequence[str]) -> list[tuple[int, int] | None]:
    """Where each gold sentence is in the document's text, found in order."""
    spans, offset = [], 0
    for sentence in sentences:
        start = text.find(sentence, offset)
        spans.append(None if start < 0 else (start, start + len(sentence)))
        offset = offset if start < 0 else start + len(sentence)
    return spans


def _quotes_one_of(answer, path: str, targets: list[tuple[int, int]]) -> bool:
    """Whether the answer's first quote is from `path` and mostly inside a target span."""
    if not answer.citations or answer.citations[0].hit.source != path:
        return False
    first = answer.citations[0]
    length = max(first.end - first.start, 1)
    return any(min(first.end, e) - max(first.start, s) > length / 2 for s, e in targets)


def plot_modes(results: dict[str, dict[str, float]], title: str, path: Path) -> None:
    """A grouped bar chart of every metric, one bar per mode, saved as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = list(next(iter(results.values())))
    width = 0.8 / len(results)
    figure, axes = plt.subplots(figsize=(8, 4.5))
    for i, (mode, values) in enumerate(results.items()):
        positions = [m + i * width for m in range(len(metrics))]
        bars = axes.bar(positions, [values[m] for m in metrics], width, label=mode)
        axes.bar_label(bars, fmt="%.3f", fontsize=7)
    axes.set_xticks([m + width * (len(results) - 1) / 2 for m in range(len(metrics))], metrics)
    save_chart(figure, axes, title, path)


def save_chart(figure, axes, title: str, path: Path) -> None:
    """Finish a chart of shares (0 to 1): title, legend, saved as PNG, then closed."""
    import matplotlib.pyplot as plt

    axes.set_ylim(0, 1)
    axes.set_title(title)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
