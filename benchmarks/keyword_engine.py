"""Keyword engine: the product's FTS5 keyword stage against Tantivy (PyPI `tantivy`), the
Rust engine whose posting lists keep per-block maximum scores (block-max WAND), so a
top-50 query skips most matching passages instead of scoring them all.

A decision experiment, not product code. Per part it prints tables, with the load
average beside every timing (the machine is shared):

1. build: Tantivy indexes, on disk in the work folder, of the chunks of an existing qa
   index (title and text, as the FTS5 table `chunks_fts` holds them; the index folder is
   copied first and only the copy is opened); build time, size, files, segments;
2. SciFact keyword stage: per test query, the product's `SQLiteBackend.keyword_search`
   (FTS5, `keyword_query`) and each Tantivy variant's top 50, taking turns query by
   query; p50 / p95 / mean ms;
3. SciFact retrieval: hybrid nDCG@10 / recall@10 / MRR@10 and keyword-only nDCG@10 with
   FTS5, then with each Tantivy variant as the keyword half (the backend's
   `keyword_search` swapped for the run; the dense half, the fusion and the metrics are
   the product's own), and per query against FTS5: better / worse, the mean difference
   of hybrid nDCG@10 and its paired bootstrap 95% interval;
   with --squad, SQuAD answers (quote@1, passage@5, refusals) with either keyword half;
4. scale: synthetic passages as benchmarks/scale.py writes them (its Zipf text and
   questions, into the product's store; the vectors are 8-d placeholders, the dense half
   is not measured here), Tantivy built from the store: build time, size, keyword top-50
   p50 / p95, and FTS5's on the same store for the sizes given to --fts5-sizes; then an
   incremental change (delete 1% of the passages, add 1,000, one commit, reload) and a
   check that no deleted passage comes back.

The variants (VARIANTS) differ in layout (title and text as two fields, each scored on
its own, or one field, scored over the whole passage as FTS5's bm25() does) and in
stemming (Tantivy's `en_stem`, an English Snowball "Porter2" stemmer, or the product's
own Porter stems from `qa.stemming`, indexed with Tantivy's whitespace tokenizer). A
Tantivy query is built from terms, never parsed: the question goes through the same
analysis as the index, and each distinct term becomes a TermQuery per field, all SHOULD
clauses of one BooleanQuery, so no user text is read as query syntax. Terms held by half
the passages or more are left out, as the product's `keyword_query` does, unless the
variant keeps every word. Searches do not count matches (`count=False`): counting visits
every match, which is the work the pruning saves.

    nice /work/main/.venv/bin/python benchmarks/keyword_engine.py \
        --beir /work/shared/datasets/scifact --index /tmp/scifact-cache/index \
        --squad /work/shared/datasets/squad/squad2-dev-subset.json \
        --sizes 100000 1000000 --fts5-sizes 100000 1000000 --workdir /tmp
"""

import argparse
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import tantivy

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).parent))
from keyword_rule import SQUAD_FIGURES, print_squad  # noqa: E402
from scale import WORDS_PER_SENTENCE, Text, fill_store  # noqa: E402

from qa import evaluate, squad  # noqa: E402
from qa.backends import MAX_KEYWORDS  # noqa: E402
from qa.backends.sqlite import DATABASE, SQLiteBackend  # noqa: E402
from qa.backends.sqlite.store import Store  # noqa: E402
from qa.stemming import index_term  # noqa: E402

CANDIDATES = 50  # qa.search.MIN_CANDIDATES: what search and ask take from each half
TARGET_KEYWORD_P50_MS = 6.0
WRITER_HEAP = 256_000_000
Search = Callable[[str, int], list[int]]


def load1() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def rss_mb() -> float:
    """The process's resident memory now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def folder_size(folder: Path) -> tuple[float, int]:
    """(MB, number of files) of a folder."""
    files = [f for f in folder.iterdir() if f.is_file()]
    return sum(f.stat().st_size for f in files) / 1e6, len(files)


@dataclass(frozen=True)
class Variant:
    """How passages and questions become Tantivy terms.

    one_field: title and text indexed as one field, BM25 over the whole passage as FTS5
    scores it (else two fields, each scored on its own and the scores summed);
    porter: words stemmed in Python as the product stems them (`qa.stemming.index_term`:
    unaccented, Porter) and indexed by Tantivy's whitespace tokenizer (else `en_stem`:
    Tantivy's own tokenizer and English Snowball stemmer, "Porter2");
    every_word: keep the terms that half the passages or more hold.
    """

    one_field: bool
    porter: bool
    every_word: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        return ("body",) if self.one_field else ("title", "text")


VARIANTS = {
    "tantivy: title+text, en_stem": Variant(one_field=False, porter=False),
    "tantivy: one field, en_stem": Variant(one_field=True, porter=False),
    "tantivy: one field, Porter": Variant(one_field=True, porter=True),
    "tantivy: one field, Porter, every word": Variant(one_field=True, porter=True,
                                                      every_word=True),
}
SCALE_VARIANTS = ("tantivy: one field, Porter", "tantivy: one field, Porter, every word")
FTS5 = "FTS5 (product keyword_search)"
EN_STEM = (  # what Tantivy's `en_stem` is, to turn a question into its terms
    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    .filter(tantivy.Filter.remove_long(40))
    .filter(tantivy.Filter.lowercase())
    .filter(tantivy.Filter.stemmer("english"))
    .build()
)
_WORD = re.compile(r"[^\W_]+")  # a run of letters and digits, as FTS5's unicode61 splits


def porter_terms(text: str) -> list[str]:
    return [index_term(word) for word in _WORD.findall(text)]


class TantivyKeywords:
    """A Tantivy index of chunks (id, title, text) on disk, searched from terms."""

    def __init__(self, folder: Path, variant: Variant, create: bool = False) -> None:
        self.variant, self.folder = variant, folder
        builder = tantivy.SchemaBuilder()
        builder.add_unsigned_field("chunk_id", indexed=True, fast=True)
        tokenizer = "whitespace" if variant.porter else "en_stem"
        for field in variant.fields:
            builder.add_text_field(field, tokenizer_name=tokenizer, index_option="freq")
        if create:
            folder.mkdir(parents=True)
        self.index = tantivy.Index(builder.build(), path=str(folder), reuse=not create)
        self.schema = self.index.schema
        self.searcher = self.index.searcher()

    def add(self, rows: Iterable[tuple[int, str, str]], writer: tantivy.IndexWriter) -> None:
        for chunk_id, title, text in rows:
            document = tantivy.Document()  # Document(chunk_id=...) would make it an i64
            document.add_unsigned("chunk_id", chunk_id)
            if self.variant.one_field:
                document.add_text("body", self.analyzed(f"{title}\n{text}"))
            else:
                document.add_text("title", self.analyzed(title))
                document.add_text("text", self.analyzed(text))
            writer.add_document(document)

    def analyzed(self, text: str) -> str:
        """The text as the field's tokenizer is given it (stemmed first if `porter`)."""
        return " ".join(porter_terms(text)) if self.variant.porter else text

    def reload(self) -> None:
        """See the last commit (a searcher is a snapshot of the segments it was made on)."""
        self.index.reload()
        self.searcher = self.index.searcher()

    def terms(self, question: str) -> list[str]:
        words = porter_terms(question) if self.variant.porter else EN_STEM.analyze(question)
        terms = list(dict.fromkeys(words))[:MAX_KEYWORDS]
        if self.variant.every_word or not terms:
            return terms
        half, field = self.searcher.num_docs / 2, self.variant.fields[-1]
        return [t for t in terms if self.searcher.doc_freq(field, t) < half] or terms

    def search(self, question: str, k: int) -> list[int]:
        """Chunk ids, best BM25 first, of the passages holding any of the question's terms."""
        terms = self.terms(question)
        if not terms:
            return []
        clauses = [(tantivy.Occur.Should, tantivy.Query.term_query(self.schema, field, term,
                                                                   index_option="freq"))
                   for term in terms for field in self.variant.fields]
        hits = self.searcher.search(tantivy.Query.boolean_query(clauses), k, count=False).hits
        return self.searcher.fast_field_values("chunk_id", [address for _, address in hits])


def chunk_rows(database: Path) -> Iterator[tuple[int, str, str]]:
    """(chunk id, title, text) of every chunk, as the product writes them to FTS5."""
    uri = f"file:{database}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as db:  # `with connect()` would not close
        yield from db.execute(
            "SELECT c.id, d.title, c.text FROM chunks c JOIN documents d ON d.id = c.document_id")


def build(database: Path, folder: Path, variant: Variant) -> tuple[TantivyKeywords, dict]:
    """A Tantivy index of the chunks in `database`, and what building it cost."""
    before, start = rss_mb(), time.perf_counter()
    engine = TantivyKeywords(folder, variant, create=True)
    writer = engine.index.writer(heap_size=WRITER_HEAP)
    engine.add(chunk_rows(database), writer)
    writer.commit()
    writer.wait_merging_threads()  # merges finish before the clock stops; the lock goes
    engine.reload()
    seconds = time.perf_counter() - start
    size, files = folder_size(folder)
    return engine, {"build_s": seconds, "mb": size, "files": files, "load": load1(),
                    "passages": engine.searcher.num_docs, "rss_delta_mb": rss_mb() - before,
                    "segments": engine.searcher.num_segments}


def build_all(database: Path, workdir: Path, names: Iterable[str],
              title: str) -> dict[str, TantivyKeywords]:
    """The variants `names`, each on an index of its own layout and stemming (built once)."""
    built: dict[tuple[bool, bool], tuple[TantivyKeywords, dict]] = {}
    engines = {}
    for name in names:
        variant = VARIANTS[name]
        layout = (variant.one_field, variant.porter)
        if layout not in built:
            folder = workdir / f"tantivy-{title}-{len(built)}".replace(" ", "")
            built[layout] = build(database, folder, variant)
            print_build(f"{title}, {name}", built[layout][1])
        engine = built[layout][0]
        engines[name] = TantivyKeywords(engine.folder, variant)
    return engines


def print_build(name: str, row: dict) -> None:
    print(f"\n{name}: Tantivy index of {row['passages']:,} passages built in "
          f"{row['build_s']:.1f} s (load {row['load']}): {row['mb']:.1f} MB in "
          f"{row['files']} files, {row['segments']} segment(s); RSS grew "
          f"{row['rss_delta_mb']:.0f} MB", flush=True)


def time_alternating(searches: dict[str, Search], questions: list[str]) -> dict[str, dict]:
    """p50 / p95 / mean ms of each search, the searches taking turns question by question
    (the order reversed every other question)."""
    times: dict[str, list[float]] = {name: [] for name in searches}
    for n, question in enumerate(questions):
        for name in searches if n % 2 else list(searches)[::-1]:
            start = time.perf_counter()
            searches[name](question, CANDIDATES)
            times[name].append((time.perf_counter() - start) * 1e3)
    return {name: {"p50": float(np.percentile(ms, 50)), "p95": float(np.percentile(ms, 95)),
                   "mean": statistics.fmean(ms)} for name, ms in times.items()}


def print_times(title: str, rows: dict[str, dict], count: int) -> None:
    print(f"\n{title}: keyword top-{CANDIDATES}, {count} questions, load {load1()} at the end")
    print(f"  {'engine':<42}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}")
    for name, row in rows.items():
        print(f"  {name:<42}{row['p50']:>9.2f}{row['p95']:>9.2f}{row['mean']:>9.2f}")


def searches_of(backend: SQLiteBackend | None,
                engines: dict[str, TantivyKeywords]) -> dict[str, Search]:
    """The keyword searches compared: the product's (if `backend`), and each Tantivy one."""
    searches: dict[str, Search] = {}
    if backend is not None:
        searches[FTS5] = lambda q, k: backend.keyword_search([q], k)[0]
    for name, engine in engines.items():
        searches[name] = engine.search
    return searches


@contextmanager
def keyword_half(backend: SQLiteBackend, search: Search) -> Iterator[None]:
    """The backend's keyword_search made by `search` for the block."""
    backend.keyword_search = (  # type: ignore[method-assign]
        lambda queries, k, within=None: [search(q, k) for q in queries])
    try:
        yield
    finally:
        del backend.keyword_search


def scifact(dataset: Path, cache_index: Path, workdir: Path) -> None:
    from qa.index import Index

    copy = workdir / "scifact-index"
    shutil.copytree(cache_index, copy, ignore=shutil.ignore_patterns("write.lock"))
    engines = build_all(copy / DATABASE, workdir, VARIANTS, "SciFact")
    _, queries, qrels = evaluate.load_beir(dataset)
    index = Index.open(copy)
    searches = searches_of(index.backend, engines)
    questions = list(queries.values())
    time_alternating(searches, questions[:20])  # warm every one up
    print_times("SciFact keyword stage", time_alternating(searches, questions), len(questions))
    print(f"  target p50 <= {TARGET_KEYWORD_P50_MS:.0f} ms")
    print(f"\nSciFact retrieval, {len(queries)} test queries (the dense half the same); "
          "hybrid nDCG@10 per query against FTS5's: better / worse, mean difference and its "
          "paired bootstrap 95% interval")
    print(f"  {'keyword half':<42}{'hybrid nDCG@10':>15}{'recall@10':>11}{'MRR@10':>8}"
          f"{'keyword nDCG@10':>17}{'better/worse':>14}{'difference [95%]':>27}")
    baseline: list[float] = []
    for name, search in searches.items():
        with nullcontext() if name == FTS5 else keyword_half(index.backend, search):
            hybrid, keyword = (rankings(index, queries, mode) for mode in ("hybrid", "keyword"))
        per_query = [evaluate.ndcg_at_k(hybrid[q], qrels[q], 10) for q in queries]
        baseline = baseline or per_query
        h, kw = evaluate.mean_metrics(hybrid, qrels), evaluate.mean_metrics(keyword, qrels)
        print(f"  {name:<42}{h['ndcg@10']:>15.4f}{h['recall@10']:>11.4f}{h['mrr@10']:>8.4f}"
              f"{kw['ndcg@10']:>17.4f}{paired(per_query, baseline)}", flush=True)
    index.close()


def rankings(index, queries: dict[str, str], mode: str) -> dict[str, list[str]]:
    """Each query's documents, best first, as `qa.evaluate.evaluate_beir` ranks them."""
    ids = list(queries)
    found = index.search_many([queries[q] for q in ids], k=evaluate.CHUNKS_PER_QUERY, mode=mode)
    return {q: evaluate.document_ranking(hits) for q, hits in zip(ids, found, strict=True)}


def paired(scores: list[float], baseline: list[float], draws: int = 10_000) -> str:
    """Queries better / worse than the baseline, and the mean difference with its paired
    bootstrap 95% interval."""
    difference = np.array(scores) - np.array(baseline)
    rng = np.random.default_rng(0)
    means = difference[rng.integers(0, len(difference), (draws, len(difference)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    counts = f"{(difference > 0).sum()}/{(difference < 0).sum()}"
    return f"{counts:>14}{difference.mean():>+11.4f} [{low:+.4f}, {high:+.4f}]"


def squad_check(path: Path, workdir: Path) -> None:
    """SQuAD answers (quote@1 ...) with FTS5, then with the scale variant as the keyword half;
    every question asked against the index of all the articles, as benchmarks/keyword_rule.py
    does (the answer's term statistics stay FTS5's: only the keyword ranking changes)."""
    from qa.index import Index
    from qa.settings import Settings

    articles = squad.load_squad(path)
    squad.write_corpus(articles, workdir / "squad-corpus")
    index = Index.create(workdir / "squad-index", replace(Settings(), min_score=0.0))
    index.add([workdir / "squad-corpus"])
    name = SCALE_VARIANTS[0]
    engine = build_all(workdir / "squad-index" / DATABASE, workdir, [name], "SQuAD")[name]
    print(f"\n{path.name}: {len(articles)} articles, load {load1()}; keyword half")
    print(f"{'':<24}{'':<22}" + "".join(f"{figure:>19}" for figure in SQUAD_FIGURES))
    for rule, search in {"FTS5": None, "tantivy": engine.search}.items():
        with nullcontext() if search is None else keyword_half(index.backend, search):
            outcomes = squad.ask_all(index, articles)
        print_squad("all", rule, outcomes, Settings().min_score)
    index.close()


def synthetic_store(size: int, folder: Path, rng: np.random.Generator,
                    text: Text) -> tuple[list[str], float]:
    """A product store of `size` synthetic passages, its questions, and the time to fill it."""
    folder.mkdir()
    store = Store(folder / DATABASE)
    start = time.perf_counter()
    placeholders = np.ones((size, 8), dtype=np.float32) / np.sqrt(8)
    picked = fill_store(store, placeholders, text, rng)
    store.close()
    return [text.question(sentence, rng) for sentence in picked], time.perf_counter() - start


def incremental(engine: TantivyKeywords, size: int, questions: list[str], text: Text,
                rng: np.random.Generator) -> str:
    """Delete 1% of the passages and add 1,000 in one commit; check none deleted comes back."""
    removed = rng.choice(np.arange(1, size + 1), size // 100, replace=False)
    words = text.sentences(1000, rng).reshape(-1, 1, WORDS_PER_SENTENCE)
    start = time.perf_counter()
    writer = engine.index.writer(heap_size=WRITER_HEAP)
    # by query: delete_documents_by_term("chunk_id", int) makes an i64 term, which no u64
    # chunk_id equals, so it silently deletes nothing
    writer.delete_documents_by_query(
        tantivy.Query.term_set_query(engine.schema, "chunk_id", removed.tolist()))
    engine.add(((size + 1 + i, "", text.passage(w)[0]) for i, w in enumerate(words)), writer)
    writer.commit()
    committed = time.perf_counter() - start
    writer.wait_merging_threads()
    engine.reload()
    back = sum(np.isin(engine.search(q, CANDIDATES), removed).sum() for q in questions)
    return (f"  delete {len(removed):,} + add 1,000, one commit: {committed * 1e3:.0f} ms "
            f"(load {load1()}); {engine.searcher.num_docs:,} passages after, "
            f"{engine.searcher.num_segments} segments; deleted passages returned: {back}")


def scale(size: int, with_fts5: bool, count: int, workdir: Path,
          rng: np.random.Generator, text: Text) -> None:
    folder = workdir / f"synthetic-{size}"
    questions, fill_s = synthetic_store(size, folder, rng, text)
    questions = (questions * (-(-count // len(questions))))[:count]
    print(f"\n{size:,} synthetic passages: product store (FTS5 included) written in "
          f"{fill_s:.0f} s (load {load1()}), database {folder_size(folder)[0]:,.0f} MB")
    engines = build_all(folder / DATABASE, workdir, SCALE_VARIANTS, f"{size:,} synthetic")
    backend = SQLiteBackend(folder) if with_fts5 else None
    searches = searches_of(backend, engines)
    time_alternating(searches, questions[:10])
    print_times(f"{size:,} synthetic", time_alternating(searches, questions), count)
    print(incremental(engines[SCALE_VARIANTS[0]], size, questions, text, rng))
    print(f"  process RSS now {rss_mb():,.0f} MB", flush=True)
    if backend is not None:
        backend.close()
    shutil.rmtree(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", type=Path, default=None, help="SciFact (BEIR layout)")
    parser.add_argument("--index", type=Path, default=None,
                        help="its qa index folder (copied; the original is only read)")
    parser.add_argument("--squad", type=Path, default=None, help="a SQuAD-format JSON file")
    parser.add_argument("--sizes", type=int, nargs="*", default=[100_000])
    parser.add_argument("--fts5-sizes", type=int, nargs="*", default=[100_000],
                        help="the synthetic sizes at which FTS5 is timed too")
    parser.add_argument("--questions", type=int, default=200, help="synthetic questions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=None,
                        help="where the indexes are made (default: the temporary folder); "
                             "removed at the end")
    args = parser.parse_args()
    print(f"tantivy {tantivy.__version__ if hasattr(tantivy, '__version__') else '?'}, "
          f"sqlite {sqlite3.sqlite_version}; load {load1()}; {os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory(dir=args.workdir) as workdir:
        if args.beir and args.index:
            scifact(args.beir, args.index, Path(workdir))
        if args.squad:
            squad_check(args.squad, Path(workdir))
        rng = np.random.default_rng(args.seed)
        text = Text(rng)
        for size in args.sizes:
            scale(size, size in args.fts5_sizes, args.questions, Path(workdir), rng, text)


if __name__ == "__main__":
    main()
