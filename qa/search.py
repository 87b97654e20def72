"""Search: hybrid retrieval of passages, dense (FAISS) and keyword (FTS5 BM25), fused.

The two rankings are combined by reciprocal-rank fusion (Cormack et al., 2009):
a passage scores the sum of 1 / (RRF_K + rank) over the rankings it is in.
Keyword queries are built from the words of the user's text only, each quoted,
so no user text can be read as FTS5 syntax.
"""

import re
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from qa.store import Store
from qa.vectors import VectorIndex

Mode = Literal["dense", "keyword", "hybrid"]
MODES: tuple[Mode, ...] = ("dense", "keyword", "hybrid")
RRF_K = 60
MIN_CANDIDATES = 50
MAX_KEYWORDS = 64
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved passage: where it is, its text, and how well it matched.

    score: the fused (RRF) score that ranked it; similarity: the cosine
    similarity of its vector to the question's.
    """

    rank: int
    chunk_id: int
    source: str
    title: str
    text: str
    start: int
    end: int
    page: int | None
    score: float
    similarity: float

    def to_dict(self) -> dict:
        return asdict(self)


def keyword_query(text: str) -> str | None:
    """An FTS5 MATCH expression: any of the text's words, each quoted; None if it has none."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))[:MAX_KEYWORDS]
    return " OR ".join(f'"{word}"' for word in words) or None


def reciprocal_rank_fusion(rankings: list[list[int]]) -> list[tuple[int, float]]:
    """(id, fused score) best first, from rankings of ids (best first)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def search(
    store: Store, vectors: VectorIndex, query_vectors: np.ndarray, queries: list[str],
    k: int, mode: Mode = "hybrid", within: list[str] | None = None,
) -> list[list[Hit]]:
    """The top `k` hits for each query, given the queries' vectors.

    within: search only the documents at these paths.
    """
    among = None
    if within is not None:  # a small exact index of just those documents' chunks
        ids, chunk_vectors = store.document_vectors(within)
        vectors = VectorIndex.build(vectors.dim, [(ids, chunk_vectors)])
        among = ids.tolist()
    candidates = max(k, MIN_CANDIDATES)
    dense = _dense_rankings(vectors, query_vectors, candidates) if mode != "keyword" else None
    results = []
    for i, query in enumerate(queries):
        rankings = []
        if dense is not None:
            rankings.append(dense[i])
        if mode != "dense":
            rankings.append(_keyword_ranking(store, query, candidates, among))
        fused = reciprocal_rank_fusion(rankings)[:k]
        results.append(_hits(store, fused, query_vectors[i]))
    return results


def _dense_rankings(vectors: VectorIndex, query_vectors: np.ndarray, n: int) -> list[list[int]]:
    _, ids = vectors.search(query_vectors, n)
    return [[int(i) for i in row if i >= 0] for row in ids]


def _keyword_ranking(store: Store, query: str, n: int, among: list[int] | None) -> list[int]:
    match = keyword_query(query)
    return store.keyword_search(match, n, among) if match else []


def _hits(store: Store, fused: list[tuple[int, float]], query_vector: np.ndarray) -> list[Hit]:
    rows = store.chunks([chunk_id for chunk_id, _ in fused])
    hits = []
    for chunk_id, score in fused:
        row = rows.get(chunk_id)
        if row is None:  # removed since the vector index was read
            continue
        hits.append(Hit(
            len(hits) + 1, row.id, row.source, row.title, row.text, row.start, row.end, row.page,
            round(score, 6), round(float(row.vector @ query_vector), 4),
        ))
    return hits
