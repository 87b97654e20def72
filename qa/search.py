"""Search: hybrid retrieval of passages, dense and keyword (BM25), fused.

The backend gives the two rankings (FAISS and the Tantivy keyword index, its last
commit while a writer holds it, or one built in RAM where the folder's cannot be used;
or Milvus's dense and BM25 searches); they are combined here, the same for every backend,
by reciprocal-rank fusion (Cormack et al., 2009): a passage scores the sum of
1 / (RRF_K + rank) over the rankings it is in. Only ranks are used, never the engines'
scores. A ranked id with no stored passage is never dropped silently: see `_hits`.
"""

import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from numbers import Integral, Real
from typing import Literal, TypeVar

import numpy as np

from qa.backends import Backend
from qa.errors import QAError

log = logging.getLogger(__name__)
Mode = Literal["dense", "keyword", "hybrid"]
MODES: tuple[Mode, ...] = ("dense", "keyword", "hybrid")
Choice = TypeVar("Choice", bound=str)
RRF_K = 60
MIN_CANDIDATES = 50
MAX_K = 1000  # more passages than anyone reads; bounds the work one request can ask for


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


def check_k(k: object) -> int:
    """`k` as an int; QAError unless it is a whole number from 1 to MAX_K.

    The one check of k for the library, the CLI, the web API and the MCP tools (a
    whole float such as 5.0, as JSON clients and sliders send, counts as whole).
    """
    if isinstance(k, Real) and not isinstance(k, Integral) and float(k).is_integer():
        k = int(float(k))
    if not isinstance(k, Integral) or isinstance(k, bool) or not 1 <= int(k) <= MAX_K:
        raise QAError(f"k must be a whole number from 1 to {MAX_K}")
    return int(k)


def check_choice(name: str, value: object, choices: Sequence[Choice]) -> Choice:
    """`value` if it is one of `choices`; else QAError naming them."""
    for choice in choices:
        if isinstance(value, str) and value == choice:
            return choice
    raise QAError(f"{name} must be one of: {', '.join(choices)}")


def reciprocal_rank_fusion(rankings: list[list[int]]) -> list[tuple[int, float]]:
    """(id, fused score) best first, from rankings of ids (best first)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def search(
    backend: Backend, query_vectors: np.ndarray, queries: list[str], k: int,
    mode: Mode = "hybrid", within: Sequence[str] | None = None,
) -> list[list[Hit]]:
    """The top `k` hits for each query, given the queries' vectors.

    within: search only the documents at these paths.
    """
    candidates = max(k, MIN_CANDIDATES)
    rankings: list[list[list[int]]] = []
    if mode != "keyword":
        rankings.append(backend.dense_search(query_vectors, candidates, within))
    if mode != "dense":
        rankings.append(backend.keyword_search(queries, candidates, within))
    return [
        _hits(backend, reciprocal_rank_fusion([r[i] for r in rankings])[:k], query_vectors[i])
        for i in range(len(queries))
    ]


def _hits(backend: Backend, fused: list[tuple[int, float]], query_vector: np.ndarray) -> list[Hit]:
    """The hits of the fused ranking. An id with no stored chunk (removed since the search
    ran, or a stale vector) is left out with a warning, and the backend drops it."""
    rows = backend.chunks([chunk_id for chunk_id, _ in fused])
    missing = [chunk_id for chunk_id, _ in fused if chunk_id not in rows]
    if missing:
        log.warning("%d passage(s) found by the search are not stored (removed meanwhile, or "
                    "stale vectors): %d hit(s) instead of %d; `qa docs --stats` counts stale "
                    "vectors", len(missing), len(fused) - len(missing), len(fused))
        backend.forget_missing(missing)
    hits: list[Hit] = []
    for chunk_id, score in fused:
        row = rows.get(chunk_id)
        if row is None:
            continue
        hits.append(Hit(
            len(hits) + 1, row.id, row.source, row.title, row.text, row.start, row.end, row.page,
            round(score, 6), round(float(row.vector @ query_vector), 4),
        ))
    return hits
