"""The study behind the vector index design: FAISS exact, HNSW and IVF at 100k-1M vectors.

The product keeps L2-normalised 384-d float32 chunk vectors (cosine = inner
product) in SQLite and derives a FAISS index from them, keyed by the chunk row
id. Documents come and go, so the index must take incremental adds and removes,
and a removed chunk must never come back in results. Target on a 2-core
machine, single query: recall@10 vs exact >= 0.95 and p50 <= 5 ms at 1M.

``VectorIndex`` below is the candidate design, written to be lifted into the
product as is: one class over three FAISS index kinds (exact ``flat``,
``hnsw`` and ``ivf``) with the same add / remove / search / save / load /
rebuild contract. Removal marks a vector dead and filters it at search time
(HNSW cannot delete; see the class docstring); ``rebuild`` drops the dead.
The constants below record the choice this benchmark led to: exact search
under ``EXACT_MAX`` vectors, IVF-Flat (nlist = 4 * sqrt(n), nprobe 64) above.

Synthetic data: uniform random unit vectors in 384-d are a pathological case
for ANN search - all points are nearly orthogonal, a nearest neighbour is barely
nearer than a random point, and there is no structure for a graph or a
clustering to exploit - so recall on them says little about real embeddings.
The opposite mistake is as easy: well-separated Gaussian blobs let IVF's
k-means cells line up with the blobs, and IVF then looks near perfect (a first
version of this script showed IVF at recall 1.0 where real vectors give 0.85).
``ClusteredSource`` is calibrated against 20k real all-MiniLM-L6-v2 embeddings
of English passages: Zipf-sized Gaussian clusters in a space whose variance
falls off as a power law over the dimensions (real embeddings put ~25% of the
variance in 10 of 384 directions), each point with a log-normal spread (real
nearest-neighbour cosines range from ~0.4 to ~0.9), and a shared mean direction
(random pairs have cosine ~0.1). At 20k vectors both HNSW and IVF score a
little lower recall on it than on the real vectors, so it errs on the safe side.
``--vectors`` runs the same benchmark on real embeddings from an .npy file.

Threads: FAISS parallelises with OpenMP. Search latency is measured with the
default thread count and with one thread (``--threads``); builds always use the
default.

Run:  python benchmarks/ann_choice.py --sizes 100000 1000000 --queries 1000 --seed 0
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np

DIM = 384
KINDS = ("flat", "hnsw", "ivf")
APPROX_KIND = "ivf"  # chosen from this benchmark's results
EXACT_MAX = 50_000  # exact single-query p50 passes ~5 ms (1 thread) around here
MAX_DEAD_FRACTION = 0.2
DEFAULT_EFFORT = {"hnsw": 256, "ivf": 64}  # efSearch, nprobe: recall@10 ~0.95+ at 1M


class VectorIndex:
    """Inner-product index over L2-normalised float32 vectors with int64 ids.

    FAISS numbers vectors by insertion order ("labels"); ``_ids[label]`` holds
    the caller's id, or -1 once that vector is removed. Search passes an
    ``IDSelectorBitmap`` of the live labels, so a removed vector is never
    returned, whatever the index kind. This is needed because ``IndexHNSW`` has
    no ``remove_ids`` (unlinking graph nodes is not implemented in FAISS), and
    it keeps one code path for all kinds. Dead vectors still cost memory and,
    in HNSW, search effort; ``rebuild()`` drops them, and ``dead_fraction``
    says when it is worth it. A removed id may be added again (SQLite can reuse
    a rowid): it gets a new label and its old vector stays dead.

    Kinds: ``flat`` (exact, ``IndexFlatIP``), ``hnsw`` (``IndexHNSWFlat``,
    ``effort`` = efSearch) and ``ivf`` (``IndexIVFFlat``, ``effort`` = nprobe).
    Not thread-safe: callers serialise add/remove against search. rebuild()
    only reads, and FAISS releases the GIL, so it can run in a background
    thread while searches go on; adds/removes made meanwhile must be replayed.
    """

    def __init__(self, index: faiss.Index, ids: np.ndarray) -> None:
        """Wrap a populated FAISS index; ``ids[label]`` is each label's id or -1."""
        if index.ntotal != len(ids):
            raise ValueError(f"index holds {index.ntotal} vectors but {len(ids)} ids")
        self._index = index
        self._ids = np.ascontiguousarray(ids, dtype=np.int64)
        self._params: faiss.SearchParameters | None = None
        self._bitmap: np.ndarray | None = None  # must outlive the selector that points at it
        self._selector: faiss.IDSelector | None = None
        self._refresh_filter()

    @classmethod
    def build(
        cls,
        ids: np.ndarray,
        vectors: np.ndarray,
        kind: str = "auto",
        *,
        hnsw_m: int = 32,
        ef_construction: int = 128,
        effort: int | None = None,
    ) -> VectorIndex:
        """Build an index of ``kind`` over ``vectors`` (n x d) keyed by ``ids``.

        ``auto`` is exact search below ``EXACT_MAX`` vectors, else ``APPROX_KIND``.
        ``effort`` defaults to ``DEFAULT_EFFORT[kind]``.

        ``ivf`` trains k-means with nlist = 4 * sqrt(n) cells on up to 40 * nlist
        of the vectors, so it needs a few thousand vectors; rebuild it when the
        collection has grown several-fold, or its cells grow too large.
        """
        vectors = _as_matrix(vectors)
        ids = _as_ids(ids, len(vectors))
        _check_unique(ids)
        if kind == "auto":
            kind = "flat" if len(ids) < EXACT_MAX else APPROX_KIND
        index = _new_index(kind, vectors, hnsw_m, ef_construction)
        index.add(vectors)
        built = cls(index, ids)
        built.effort = DEFAULT_EFFORT.get(kind, 0) if effort is None else effort
        return built

    @property
    def kind(self) -> str:
        """One of ``flat``, ``hnsw``, ``ivf``."""
        if isinstance(self._index, faiss.IndexHNSW):
            return "hnsw"
        if isinstance(self._index, faiss.IndexIVF):
            return "ivf"
        return "flat"

    @property
    def effort(self) -> int:
        """Search effort: efSearch for hnsw, nprobe for ivf, 0 for flat."""
        if self.kind == "hnsw":
            return self._index.hnsw.efSearch
        if self.kind == "ivf":
            return self._index.nprobe
        return 0

    @effort.setter
    def effort(self, value: int) -> None:
        if self.kind == "hnsw":
            self._index.hnsw.efSearch = value
        elif self.kind == "ivf":
            self._index.nprobe = value
        self._refresh_filter()

    @property
    def nlist(self) -> int:
        """Number of IVF cells (0 for other kinds)."""
        return self._index.nlist if self.kind == "ivf" else 0

    def __len__(self) -> int:
        """Number of live (searchable) vectors."""
        return int(np.count_nonzero(self._ids >= 0))

    @property
    def dead_fraction(self) -> float:
        """Share of stored vectors that are removed but not yet dropped by rebuild()."""
        total = len(self._ids)
        return 0.0 if total == 0 else 1.0 - len(self) / total

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add vectors under new ids; an id that is live already is an error."""
        vectors = self._checked(vectors)
        ids = _as_ids(ids, len(vectors))
        _check_unique(ids)
        if np.isin(ids, self._ids).any():
            raise ValueError("some ids are already in the index; remove them first")
        self._index.add(vectors)
        self._ids = np.concatenate([self._ids, ids])
        self._refresh_filter()

    def remove(self, ids: np.ndarray) -> int:
        """Stop returning these ids at once; returns how many were live."""
        ids = np.asarray(ids, dtype=np.int64).ravel()
        hit = np.isin(self._ids, ids[ids >= 0])
        self._ids[hit] = -1
        self._refresh_filter()
        return int(np.count_nonzero(hit))

    def search(self, query: np.ndarray, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (scores, ids) for one query vector, best first; fewer if the index is small."""
        q = self._checked(query.reshape(1, -1))
        if self.kind == "hnsw" and self._index.hnsw.efSearch < k:
            raise ValueError(f"effort (efSearch) {self.effort} must be >= k={k}")
        scores, labels = self._index.search(q, k, params=self._params)
        found = labels[0] >= 0
        return scores[0][found], self._ids[labels[0][found]]

    def needs_rebuild(self) -> bool:
        """Whether rebuild() pays off now.

        True when over ``MAX_DEAD_FRACTION`` of the stored vectors are dead, when
        the live count crossed ``EXACT_MAX`` (switch between exact and
        approximate), or when an IVF index holds 4x the vectors it was trained
        for (nlist = 4 * sqrt(n) then is half what it should be).
        """
        if self.dead_fraction > MAX_DEAD_FRACTION:
            return True
        if (self.kind == "flat") != (len(self) < EXACT_MAX):
            return True
        return self.kind == "ivf" and len(self) > 4 * (self.nlist / 4) ** 2

    def rebuild(self, kind: str = "auto", **build_args: int) -> VectorIndex:
        """A new index of ``kind`` over the live vectors only; see build()."""
        labels = np.flatnonzero(self._ids >= 0)
        vectors = self._index.reconstruct_batch(labels)
        return VectorIndex.build(self._ids[labels], vectors, kind, **build_args)

    def save(self, path: str | Path) -> None:
        """Write ids and the FAISS index to one file, atomically (temp file + rename)."""
        tmp = Path(f"{path}.tmp")
        with open(tmp, "wb") as f:
            np.save(f, self._ids)
            faiss.write_index(self._index, faiss.PyCallbackIOWriter(f.write))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | Path) -> VectorIndex:
        """Read an index written by save()."""
        with open(path, "rb") as f:
            ids = np.load(f)
            index = faiss.read_index(faiss.PyCallbackIOReader(f.read))
        return cls(index, ids)

    def _checked(self, vectors: np.ndarray) -> np.ndarray:
        """``_as_matrix`` plus a check of the dimension against the index."""
        vectors = _as_matrix(vectors)
        if vectors.shape[1] != self._index.d:
            raise ValueError(f"vectors have {vectors.shape[1]} dims, index has {self._index.d}")
        return vectors

    def _refresh_filter(self) -> None:
        """Rebuild the live-label selector and search parameters after a change."""
        live = self._ids >= 0
        if live.all():
            self._params = None
            return
        self._bitmap = np.packbits(live, bitorder="little")
        self._selector = faiss.IDSelectorBitmap(len(live), faiss.swig_ptr(self._bitmap))
        if self.kind == "hnsw":
            self._params = faiss.SearchParametersHNSW(sel=self._selector, efSearch=self.effort)
        elif self.kind == "ivf":
            self._params = faiss.SearchParametersIVF(sel=self._selector, nprobe=self.effort)
        else:
            self._params = faiss.SearchParameters(sel=self._selector)


def _new_index(kind: str, vectors: np.ndarray, hnsw_m: int, ef_construction: int) -> faiss.Index:
    """An empty (trained, for ivf) FAISS index of ``kind`` for these vectors."""
    dim = vectors.shape[1]
    if kind == "flat":
        return faiss.IndexFlatIP(dim)
    if kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = ef_construction
        return index
    if kind == "ivf":
        nlist = max(1, round(4 * math.sqrt(len(vectors))))
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
        sample = np.random.default_rng(0).permutation(len(vectors))[: 40 * nlist]
        index.train(vectors[np.sort(sample)])
        index.make_direct_map()  # lets rebuild() read vectors back
        return index
    raise ValueError(f"unknown index kind {kind!r}; expected one of {KINDS}")


def _as_matrix(vectors: np.ndarray) -> np.ndarray:
    """Vectors as a C-contiguous float32 (n, d) array."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.ndim != 2:
        raise ValueError(f"expected an (n, d) array, got shape {vectors.shape}")
    return vectors


def _as_ids(ids: np.ndarray, n: int) -> np.ndarray:
    """Ids as an int64 array of length n, all >= 0."""
    ids = np.asarray(ids, dtype=np.int64).ravel()
    if len(ids) != n:
        raise ValueError(f"{len(ids)} ids for {n} vectors")
    if (ids < 0).any():
        raise ValueError("ids must be >= 0")
    return ids.copy()


def _check_unique(ids: np.ndarray) -> None:
    """Reject repeated ids within one batch."""
    if len(np.unique(ids)) != len(ids):
        raise ValueError("ids must be unique")


# ---------------------------------------------------------------- synthetic data


@dataclass
class ClusteredSource:
    """Embedding-like unit vectors: Zipf-sized Gaussian clusters in an anisotropic space."""

    mix: np.ndarray  # (d, d): standard normal @ mix has the power-law covariance
    centres: np.ndarray  # (clusters, d)
    weights: np.ndarray  # cluster sampling probabilities
    spread: float = 1.0  # median within-cluster scale, relative to the centres' spread
    spread_sigma: float = 0.7  # log-normal sigma of each point's scale

    @classmethod
    def create(
        cls, seed: int, dim: int = DIM, clusters: int = 2048, alpha: float = 0.85
    ) -> ClusteredSource:
        """Draw the space (variance of axis i ~ i**-alpha, randomly rotated) and clusters."""
        rng = np.random.default_rng(seed)
        rotation = np.linalg.qr(rng.standard_normal((dim, dim)))[0]
        variances = np.arange(1, dim + 1) ** -alpha
        mix = (rotation * np.sqrt(variances / variances.sum())).T.astype(np.float32)
        offset = rng.standard_normal(dim).astype(np.float32)
        offset *= 0.5 / np.linalg.norm(offset)  # shared mean direction, as real models have
        centres = rng.standard_normal((clusters, dim), dtype=np.float32) @ mix + offset
        weights = 1 / np.sqrt(np.arange(1, clusters + 1))
        return cls(mix, centres, weights / weights.sum())

    def sample(self, n: int, rng: np.random.Generator, chunk: int = 100_000) -> np.ndarray:
        """n unit vectors (float32), generated in chunks to bound temporary memory."""
        out = np.empty((n, self.centres.shape[1]), dtype=np.float32)
        for start in range(0, n, chunk):
            out[start : start + chunk] = self._chunk(min(chunk, n - start), rng)
        return out

    def _chunk(self, n: int, rng: np.random.Generator) -> np.ndarray:
        cluster = rng.choice(len(self.centres), n, p=self.weights)
        scale = self.spread * np.exp(self.spread_sigma * rng.standard_normal((n, 1)))
        noise = rng.standard_normal((n, self.mix.shape[0]), dtype=np.float32) @ self.mix
        x = self.centres[cluster] + noise * scale.astype(np.float32)
        faiss.normalize_L2(x)
        return x


# ---------------------------------------------------------------- measurement


def rss_mb() -> float:
    """Current resident set size of this process in MB (Linux /proc)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1e6


@contextmanager
def omp_threads(n: int) -> Iterator[None]:
    """Run FAISS with n OpenMP threads inside the block."""
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(n)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)


def time_queries(
    index: VectorIndex, queries: np.ndarray, threads: int, k: int = 10
) -> tuple[list[np.ndarray], np.ndarray]:
    """Search one query at a time with n threads; returns (id lists, per-query ms)."""
    results, ms = [], np.empty(len(queries))
    with omp_threads(threads):
        for i, q in enumerate(queries):
            start = time.perf_counter()
            results.append(index.search(q, k)[1])
            ms[i] = (time.perf_counter() - start) * 1e3
    return results, ms


def latency(index: VectorIndex, queries: np.ndarray, threads: list[int]) -> tuple[list, str]:
    """Results (from the first thread count) and "p50/p95" ms for each thread count."""
    cells, first = [], None
    for n in threads:
        results, ms = time_queries(index, queries, n)
        first = first or results
        cells.append("{:.2f}/{:.2f}".format(*np.percentile(ms, [50, 95])))
    return first, " ".join(f"{c:>13}" for c in cells)


def recall_at_10(results: list[np.ndarray], truth: list) -> float:
    """Mean |approx top-10 & exact top-10| / 10."""
    pairs = zip(results, truth, strict=True)
    return float(np.mean([len(set(r[:10].tolist()) & set(t[:10])) / 10 for r, t in pairs]))


@dataclass
class Case:
    """A benchmark data set: base vectors with ids, queries, exact top-100 ids."""

    ids: np.ndarray
    base: np.ndarray
    queries: np.ndarray
    truth: np.ndarray  # (nq, 100) ids


def make_case(base: np.ndarray, queries: np.ndarray) -> Case:
    """Key the base vectors 1..n (like SQLite rowids) and compute exact answers (BLAS)."""
    ids = np.arange(1, len(base) + 1, dtype=np.int64)
    flat = faiss.IndexFlatIP(base.shape[1])
    flat.add(base)
    return Case(ids, base, queries, ids[flat.search(queries, 100)[1]])


def cases(args: argparse.Namespace, source: ClusteredSource) -> Iterator[Case]:
    """One Case per --sizes entry, or a single one from --vectors."""
    if args.vectors:
        data = np.load(args.vectors).astype(np.float32)
        faiss.normalize_L2(data)
        yield make_case(data[: -args.queries], data[-args.queries :])
        return
    for size in args.sizes:
        rng = np.random.default_rng(args.seed + size)
        yield make_case(source.sample(size, rng), source.sample(args.queries, rng))


def saved_mb(index: VectorIndex, workdir: Path) -> float:
    """Save, reload and compare a few answers; returns the file size in MB."""
    path = workdir / "index.bin"
    index.save(path)
    loaded = VectorIndex.load(path)
    size = path.stat().st_size / 1e6
    path.unlink()
    probe = np.random.default_rng(0).standard_normal((5, DIM), dtype=np.float32)
    for q in probe:
        assert np.array_equal(index.search(q)[1], loaded.search(q)[1]), "load changed results"
    return size


def header(threads: list[int]) -> str:
    """Column titles of the results table."""
    lat = " ".join(f"{f'p50/p95 {n}T':>13}" for n in threads)
    return (
        f"{'size':>9} {'kind':<5} {'params':<24} {'build s':>8} {'RSS MB':>7} "
        f"{'file MB':>8} {lat} {'recall@10':>9}"
    )


def bench_kind(case: Case, kind: str, efforts: list[int], args: argparse.Namespace) -> None:
    """Build one kind, print a row per search effort, then check add/remove."""
    start = time.perf_counter()
    index = VectorIndex.build(
        case.ids, case.base, kind, hnsw_m=args.hnsw_m, ef_construction=args.ef_construction
    )
    build_s = time.perf_counter() - start
    rss = rss_mb()
    with tempfile.TemporaryDirectory() as tmp:
        size_mb = saved_mb(index, Path(tmp))
    queries = case.queries[: args.flat_queries] if kind == "flat" else case.queries
    truth = list(case.truth[: len(queries)])
    for effort in efforts:
        index.effort = effort
        results, cells = latency(index, queries, args.threads)
        print(
            f"{len(case.ids):>9} {kind:<5} {describe(index, args):<24} {build_s:>8.1f} "
            f"{rss:>7.0f} {size_mb:>8.0f} {cells} {recall_at_10(results, truth):>9.4f}",
            flush=True,
        )
    index.effort = DEFAULT_EFFORT.get(kind, 0)
    check_mutations(index, case, queries, args)


def describe(index: VectorIndex, args: argparse.Namespace) -> str:
    """Short parameter summary for the table."""
    if index.kind == "hnsw":
        return f"M={args.hnsw_m} efC={args.ef_construction} efS={index.effort}"
    if index.kind == "ivf":
        return f"nlist={index.nlist} nprobe={index.effort}"
    return "exact"


def check_mutations(
    index: VectorIndex, case: Case, queries: np.ndarray, args: argparse.Namespace
) -> None:
    """At the default effort, remove ids (each query's best hit + 1% at random), then add.

    Checks: removed ids never come back; recall@10 against the exact answer
    over the live vectors; each added vector is found first for its own query;
    a re-added id never shows up twice (its old vector stays dead).
    """
    nq = len(queries)
    best = case.truth[:nq, 0]
    random_ids = np.random.default_rng(args.seed).choice(case.ids, len(case.ids) // 100, False)
    removed = np.unique(np.concatenate([best, random_ids]))
    index.remove(removed)
    gone = set(removed.tolist())
    results, cells = latency(index, queries, args.threads)
    leaks = sum(len(gone.intersection(r.tolist())) for r in results)
    live_truth = [[i for i in t if i not in gone][:10] for t in case.truth[:nq].tolist()]
    recall = recall_at_10(results, live_truth)

    # Add each query vector as a new chunk: half under reused (removed) ids, half fresh.
    fresh = case.ids[-1] + 1 + np.arange(nq - nq // 2, dtype=np.int64)
    new_ids, first = np.unique(np.concatenate([best[: nq // 2], fresh]), return_index=True)
    index.add(new_ids, queries[first])
    after, _ = time_queries(index, queries[first], args.threads[0])
    found = np.mean([len(r) > 0 and r[0] == i for r, i in zip(after, new_ids, strict=True)])
    dupes = sum(len(r) != len(set(r.tolist())) for r in after)
    print(
        f"{'':>9} {index.kind:<5} after removing {len(removed)} ids: leaked {leaks}, "
        f"recall@10 {recall:.4f}, p50/p95 ms {' '.join(cells.split())} | added {len(new_ids)} "
        f"({np.isin(new_ids, removed).sum()} reused ids): found first {found:.4f}, "
        f"duplicate ids {dupes}",
        flush=True,
    )
    assert leaks == 0 and dupes == 0, "removed vectors came back"


def self_check(source: ClusteredSource, seed: int, size: int = 30_000) -> None:
    """Exercise the VectorIndex contract for every kind on small data before timing."""
    rng = np.random.default_rng(seed)
    base, ids = source.sample(size, rng), np.arange(1, size + 1, dtype=np.int64)
    for kind in KINDS:
        index = VectorIndex.build(ids, base, kind)
        try:
            index.add(ids[:1], base[:1])
            raise AssertionError("adding a live id must fail")
        except ValueError:
            pass
        assert index.remove(ids[:50]) == 50 and index.remove(ids[:50]) == 0
        rebuilt = index.rebuild(kind)
        for each in (index, rebuilt):
            hits = [each.search(v)[1] for v in base[:100]]
            assert not set(ids[:50].tolist()).intersection(np.concatenate(hits).tolist()), kind
            assert np.mean([h[0] == i for h, i in zip(hits[50:], ids[50:100], strict=True)]) >= 0.98
        assert len(rebuilt) == size - 50 and rebuilt.dead_fraction == 0.0
        assert math.isclose(index.dead_fraction, 50 / size) and rebuilt.effort == index.effort
        assert index.needs_rebuild() == (kind != "flat")  # size is below EXACT_MAX
        assert index.rebuild().kind == "flat"
    flat = VectorIndex.build(ids, base)
    assert flat.kind == "flat" and not flat.needs_rebuild()
    flat.remove(ids[: size // 4])
    assert flat.needs_rebuild()  # 25% dead
    print(f"self-check ok: build/add/remove/rebuild for {', '.join(KINDS)} on {size} vectors")


def threshold_sweep(source: ClusteredSource, args: argparse.Namespace) -> None:
    """Exact single-query latency by size, to place the exact/approximate switch."""
    print("\nexact search latency by size (switch to approximate where p50 passes ~5 ms)")
    print(f"{'size':>9} {'kind':<5} " + " ".join(f"{f'p50/p95 {n}T':>13}" for n in args.threads))
    for size in args.threshold_sizes:
        rng = np.random.default_rng(args.seed + size)
        base, queries = source.sample(size, rng), source.sample(args.flat_queries, rng)
        index = VectorIndex.build(np.arange(1, size + 1), base, "flat")
        print(f"{size:>9} flat  {latency(index, queries, args.threads)[1]}", flush=True)


def parse_args() -> argparse.Namespace:
    """Command line; defaults reproduce the report."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument(
        "--vectors",
        type=Path,
        help="(n, 384) .npy of real embeddings to use instead of synthetic data; "
        "the last --queries rows are the queries",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    p.add_argument("--hnsw-m", type=int, default=32)
    p.add_argument("--ef-construction", type=int, default=128)
    p.add_argument("--ef-search", type=int, nargs="+", default=[64, 128, 256])
    p.add_argument("--nprobe", type=int, nargs="+", default=[32, 64, 128, 256])
    p.add_argument("--flat-queries", type=int, default=100, help="queries timed on exact search")
    p.add_argument(
        "--threshold-sizes", type=int, nargs="*", default=[10_000, 25_000, 50_000, 75_000]
    )
    p.add_argument(
        "--threads",
        type=int,
        nargs="+",
        default=[faiss.omp_get_max_threads(), 1],
        help="OpenMP thread counts to time search with (builds use FAISS's default)",
    )
    return p.parse_args()


def main() -> None:
    """Self-check, then one table per size, then the exact-search latency sweep."""
    args = parse_args()
    print(
        f"faiss {faiss.__version__}, default OpenMP threads {faiss.omp_get_max_threads()}, "
        f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}, dim {DIM}, "
        f"queries {args.queries} ({args.flat_queries} for flat), seed {args.seed}"
    )
    source = ClusteredSource.create(args.seed)
    self_check(source, args.seed)
    efforts = {"flat": [0], "hnsw": args.ef_search, "ivf": args.nprobe}
    for case in cases(args, source):
        top1 = np.mean(np.sum(case.base[case.truth[:, 0] - 1] * case.queries, axis=1))
        print(f"\n{len(case.ids)} vectors; mean cosine of each query's exact top-1: {top1:.3f}")
        print(header(args.threads))
        for kind in args.kinds:
            bench_kind(case, kind, efforts[kind], args)
    if args.threshold_sizes:
        threshold_sweep(source, args)


if __name__ == "__main__":
    main()
