"""The `qa` command: index folders, ask and search from the terminal, list and remove documents.

Other packages add commands through the `qa.commands` entry-point group: each entry
point names a function `register(commands, common)` that adds a subparser to
`commands` (with `common` as a parent, for the shared options) and sets its `run`.
That is how `ui` adds `qa serve` without `qa` importing `ui`.
"""

import argparse
import functools
import importlib.metadata
import json
import logging
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from qa.backends import KINDS, BackendConfig
from qa.errors import QAError, printable
from qa.evaluation.squad import READER_FOLDS
from qa.search import MAX_K, MODES
from qa.settings import Settings

DEFAULT_INDEX = ".qa-index"
COMMANDS_GROUP = "qa.commands"
BROKEN_PIPE = 128 + 13  # the exit status of a process ended by SIGPIPE
INTERRUPTED = 128 + 2  # the exit status of a process ended by SIGINT (Ctrl-C)
_USER_DOC = (__doc__ or "").split("\n\n", 1)[0]  # `qa --help`'s; the rest is for developers
Register = Callable[[argparse._SubParsersAction, argparse.ArgumentParser], None]


def main(
    argv: Sequence[str] | None = None, commands: Mapping[str, Register] | None = None
) -> int:
    """Run `qa` with the commands of the `qa.commands` entry points and `commands`."""
    args = _parser({**_plugin_commands(), **(commands or {})}).parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s: %(message)s")
    try:
        status = args.run(args)
        sys.stdout.flush()  # here, so that a closed pipe is noticed while it can be handled
        return status
    except QAError as error:
        print(f"qa: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away, e.g. `qa search ... | head -1`
        # Python's own recipe: send what is still buffered nowhere, so that flushing
        # at exit does not fail again, and exit as a process killed by SIGPIPE would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE
    except KeyboardInterrupt:  # Ctrl-C: each document is committed whole, or not at all
        print("\nqa: interrupted; what was indexed before is intact (run qa index again "
              "to finish)", file=sys.stderr)
        return INTERRUPTED


def _common_options(defaults: bool) -> argparse.ArgumentParser:
    """Options accepted before and after the command; only the first copy sets defaults,
    so that `qa --index X ask ...` is not undone by the command's own default."""
    def default(value):
        return value if defaults else argparse.SUPPRESS

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--index", default=default(os.environ.get("QA_INDEX", DEFAULT_INDEX)),
                        help="the index folder (default: $QA_INDEX or .qa-index)")
    common.add_argument("--backend", choices=KINDS, default=default(None),
                        help="where the index lives: sqlite (files in the index folder) or "
                             "milvus (default: $QA_BACKEND or sqlite)")
    common.add_argument("--milvus-uri", metavar="URI", default=default(None),
                        help="a Milvus Lite file (*.db) or server (http://host:19530); default: "
                             "$QA_MILVUS_URI or milvus.db in the index folder. A token, if the "
                             "server needs one, is read from $QA_MILVUS_TOKEN")
    common.add_argument("--model", default=default(None),
                        help="embedding model, by name or path (default: the index's own, "
                             "or the bundled all-MiniLM-L6-v2 for a new index)")
    common.add_argument("-v", "--verbose", action="store_true", default=default(False),
                        help="log what happens")
    return common


def _plugin_commands() -> dict[str, Register]:
    """The commands other installed packages add (entry-point group `qa.commands`)."""
    return {ep.name: ep.load() for ep in importlib.metadata.entry_points(group=COMMANDS_GROUP)}


def _parser(plugins: Mapping[str, Register]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qa", description=_USER_DOC,
                                     parents=[_common_options(defaults=True)])
    common = _common_options(defaults=False)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    index = commands.add_parser("index", parents=[common], help="index files and folders")
    index.add_argument("paths", nargs="*", help="files and folders (default with --rebuild: "
                                                "every document already indexed)")
    index.add_argument("--rebuild", action="store_true",
                       help="index everything afresh, e.g. after changing --model")
    index.add_argument("--precision", choices=("bfloat16", "float32"), default=None,
                       help="what the model computes in (default: the index's own; for a new "
                            "index bfloat16 where the CPU has it natively, else float32)")
    index.add_argument("--strict", action="store_true", help="exit 1 if any file failed")
    index.add_argument("--max-file-mb", type=float, default=Settings().max_file_mb,
                       help="skip larger files (default: %(default)g)")
    index.add_argument("--no-ocr", dest="ocr", action="store_false",
                       help="do not read images and scanned PDF pages by OCR (slow)")
    index.add_argument("--max-ocr-pages", dest="ocr_pages", type=int,
                       default=Settings().ocr_pages, metavar="N",
                       help="read at most N pages by OCR in this run; files that need more "
                            "are skipped, for the next run (default: %(default)s)")
    index.add_argument("--ray", nargs="?", const=True, default=False, metavar="ADDRESS",
                       help="read and embed the files on a Ray cluster: a local one (this "
                            "machine's CPUs) without ADDRESS, else auto, HOST:PORT or "
                            "ray://HOST:10001")
    index.add_argument("--collection", metavar="NAME",
                       help="put the documents in this collection (created if needed)")
    index.set_defaults(run=_index)

    for name, run, help_text in (("ask", _ask, "answer a question with citations"),
                                 ("search", _search, "list the passages that match best")):
        command = commands.add_parser(name, parents=[common], help=help_text)
        command.add_argument("question")
        command.add_argument("-k", type=float, default=None,
                             help=f"how many passages (1 to {MAX_K})")
        command.add_argument("--json", action="store_true", help="print JSON")
        command.add_argument("--collection", action="append", metavar="NAME",
                             help="only the documents of this collection (repeatable)")
        command.add_argument("--within", action="append", metavar="PATH",
                             help="only this document, or the documents under this folder "
                                  "(repeatable)")
        command.set_defaults(run=run)
    commands.choices["search"].add_argument(  # checked by the library, as -k is
        "--mode", default="hybrid", help=f"{', '.join(MODES)} (default: %(default)s)"
    )
    commands.choices["ask"].add_argument(
        "--llm", action="store_true", help="have the configured language model write the answer"
    )
    add_llm_options(commands.choices["ask"])

    docs = commands.add_parser("docs", parents=[common], help="list the indexed documents")
    docs.add_argument("--json", action="store_true", help="print JSON")
    docs.add_argument("--stats", action="store_true",
                      help="print the counts of documents, chunks and vectors instead")
    docs.set_defaults(run=_docs)

    for register in plugins.values():
        register(commands, common)

    mcp = commands.add_parser("mcp", parents=[common],
                              help="serve search and ask to AI assistants (MCP over stdio)")
    add_llm_options(mcp)
    mcp.set_defaults(run=_mcp)

    _add_eval(commands, common)

    _add_collections(commands, common)

    remove = commands.add_parser("remove", parents=[common], help="remove documents")
    remove.add_argument("paths", nargs="+", help="files, or folders to remove all within")
    remove.set_defaults(run=_remove)
    return parser


def add_llm_options(command: argparse.ArgumentParser) -> None:
    group = command.add_argument_group(
        "language model", "an OpenAI-compatible endpoint (Ollama, llama.cpp server, vLLM, "
        "OpenAI); defaults from QA_LLM_BASE_URL, QA_LLM_MODEL, QA_LLM_API_KEY, QA_LLM_TIMEOUT")
    group.add_argument("--llm-base-url", metavar="URL", help="e.g. http://127.0.0.1:11434/v1")
    group.add_argument("--llm-model", metavar="NAME")
    group.add_argument("--llm-api-key", metavar="KEY")
    group.add_argument("--llm-first-token-timeout", type=float, metavar="SECONDS",
                       help="wait at most this long for the answer to start (default 120; "
                            "$QA_LLM_FIRST_TOKEN_TIMEOUT)")
    group.add_argument("--llm-max-tokens", type=int, metavar="N",
                       help="the longest answer the model may write (default 512; "
                            "$QA_LLM_MAX_TOKENS)")
    group.add_argument("--llm-timeout", type=float, metavar="SECONDS",
                       help="wait at most this long to connect, and between parts of "
                            "the answer (default 20)")
    group.add_argument("--llm-total-timeout", type=float, metavar="SECONDS",
                       help="wait at most this long for the whole answer (default 600; "
                            "$QA_LLM_TOTAL_TIMEOUT)")


def llm_config(args: argparse.Namespace):
    from qa.llm.client import LLMConfig

    config = LLMConfig.from_env()
    if args.llm_base_url and args.llm_model:
        config = LLMConfig(args.llm_base_url, args.llm_model)
    elif args.llm_base_url or args.llm_model:
        raise QAError("give both --llm-base-url and --llm-model")
    if config and args.llm_api_key:
        config = replace(config, api_key=args.llm_api_key)
    if config and args.llm_timeout:
        config = replace(config, timeout=args.llm_timeout)
    if config and args.llm_first_token_timeout:
        config = replace(config, first_token_timeout=args.llm_first_token_timeout)
    if config and args.llm_max_tokens:
        config = replace(config, max_tokens=args.llm_max_tokens)
    if config and args.llm_total_timeout:
        config = replace(config, total_timeout=args.llm_total_timeout)
    return config


def _add_eval(commands, common: argparse.ArgumentParser) -> None:
    evaluation = commands.add_parser("eval", help="measure retrieval and answers on a dataset")
    kinds = evaluation.add_subparsers(required=True, metavar="KIND")
    beir = kinds.add_parser("beir", help="nDCG@10, Recall@10/100, MRR@10 on a BEIR dataset")
    beir.add_argument("--mode", choices=[*MODES, "all"], default="all")
    beir.add_argument("--plot", metavar="FILE", help="save a bar chart of the modes (PNG)")
    beir.set_defaults(run=_eval_beir)
    evidence = kinds.add_parser(
        "evidence", help="how often the quoted sentence is gold evidence (SciFact rationales)"
    )
    evidence.set_defaults(run=_eval_evidence)
    squad = kinds.add_parser(
        "squad", help="whether the quoted sentence holds the answer (SQuAD v1.1/v2.0 JSON)"
    )
    squad.add_argument("--mode", choices=["extractive", "llm"], default="extractive",
                       help="how answers are written (default: %(default)s)")
    squad.add_argument("--plot", metavar="FILE",
                       help="save the refusal threshold's trade-off curve (PNG)")
    add_llm_options(squad)
    squad.set_defaults(run=_eval_squad)
    feedback = kinds.add_parser(
        "feedback", parents=[common],
        help="ask again the questions whose answers were marked wrong in the web chat")
    feedback.add_argument("files", nargs="+", metavar="FILE",
                          help="a conversation exported as JSON from the web chat")
    feedback.set_defaults(run=_eval_feedback)
    beir.add_argument("dataset", metavar="DIR", help="corpus.jsonl, queries.jsonl, qrels/")
    evidence.add_argument("dataset", metavar="DIR", help="corpus.jsonl, queries.jsonl, qrels/")
    squad.add_argument("dataset", metavar="FILE", help="a SQuAD-format JSON file")
    for kind in (beir, evidence, squad):
        kind.add_argument("--index", default=None, metavar="CACHE_DIR",
                          help="keep the corpus and its index here, to reuse next time "
                               "(default: a temporary folder)")
        kind.add_argument("--model", default=None, help="embedding model, by name or path")
        kind.add_argument("--backend", choices=KINDS, default="sqlite",
                          help="where the corpus index lives (default: %(default)s)")
        kind.add_argument("--milvus-uri", metavar="URI", default=None,
                          help="Milvus Lite file or server (default: milvus.db in the index)")
        folds = [f"fold{i}" for i in range(READER_FOLDS)] if kind is squad else []
        kind.add_argument("--split", choices=["all", "even", "odd", *folds], default="all",
                          help="queries with even ids, or SQuAD articles with an even title "
                               "hash (for tuning), or the odd ones (held out)"
                               + ("; or one of the reader's three folds of articles"
                                  if folds else ""))
        kind.add_argument("--json", action="store_true", help="print JSON")
        kind.add_argument("-v", "--verbose", action="store_true", help="log what happens")


def _eval_index(args: argparse.Namespace, write_corpus, settings: Settings | None = None):
    """The product's index of a corpus that `write_corpus(folder)` writes, in --index or a
    temporary folder."""
    from qa.index import Index

    cache = Path(args.index or tempfile.mkdtemp(prefix="qa-eval-"))
    write_corpus(cache / "corpus")
    backend = replace(BackendConfig.from_env(), kind=args.backend, milvus_uri=args.milvus_uri)
    index = Index.create(cache / "index", settings or _settings(args), backend)
    report = index.add([cache / "corpus"])
    print(f"corpus index in {cache}: {report.summary()}", file=sys.stderr)
    return index, cache


def _eval_feedback(args: argparse.Namespace) -> int:
    from qa import feedback

    flagged = feedback.read_flagged(args.files)
    if not flagged:
        print("no answer is marked wrong in these conversations")
        return 0
    with closing(_open(args)) as index:
        print(feedback.report(feedback.recheck(index, flagged)))
    return 0


def _eval_beir(args: argparse.Namespace) -> int:
    from qa.evaluation import retrieval

    corpus, queries, qrels = retrieval.load_beir(args.dataset)
    queries = retrieval.split_queries(queries, args.split)
    index, cache = _eval_index(args, functools.partial(retrieval.write_corpus, corpus))
    modes = list(MODES) if args.mode == "all" else [args.mode]
    results = retrieval.evaluate_beir(index, queries, qrels, modes)
    name = Path(args.dataset).name
    if args.plot:
        retrieval.plot_modes(results, f"{name} ({len(queries)} queries)", Path(args.plot))
    if args.json:
        _print_json({"dataset": name, "queries": len(queries), "split": args.split,
                     "modes": results})
    else:
        print(f"{name}: {len(queries)} queries ({args.split})")
        metrics = list(next(iter(results.values())))
        print(f"{'mode':<8}" + "".join(f"{m:>12}" for m in metrics))
        for mode, values in results.items():
            print(f"{mode:<8}" + "".join(f"{values[m]:>12.4f}" for m in metrics))
    _discard(args, cache)
    return 0


def _eval_evidence(args: argparse.Namespace) -> int:
    from qa.evaluation import retrieval

    corpus, _, _ = retrieval.load_beir(args.dataset)
    index, cache = _eval_index(args, functools.partial(retrieval.write_corpus, corpus))
    result = retrieval.evaluate_evidence(index, args.dataset, cache / "corpus", args.split)
    if args.json:
        _print_json({"dataset": Path(args.dataset).name, "split": args.split, **result})
    else:
        print(f"{result['pairs']} claim-document pairs with gold evidence ({args.split})\n"
              f"first quote is gold evidence, end to end:         {result['end_to_end']:.3f}\n"
              f"first quote is gold evidence, gold document given: "
              f"{result['given_document']:.3f}")
    _discard(args, cache)
    return 0


def _eval_squad(args: argparse.Namespace) -> int:
    from qa.answering import answerability
    from qa.evaluation import squad

    articles = squad.load_squad(args.dataset, args.split)
    threshold = answerability.shipped().threshold
    # answers are not refused for their answerability while asking, so that every
    # threshold's trade-off can be computed from one run; the fitted threshold then gives
    # the figures
    index, cache = _eval_index(args, functools.partial(squad.write_corpus, articles),
                               replace(_settings(args), answer_threshold=0.0))
    index.llm = llm_config(args)
    outcomes = squad.ask_all(index, articles, args.mode)
    curve = squad.refusal_curve(outcomes, [round(0.05 * i, 2) for i in range(15)])
    refused = squad.refuse_below(outcomes, threshold)
    result, articles_figures = squad.metrics(refused), squad.by_article(refused)
    name = Path(args.dataset).name
    if args.plot:
        squad.plot_curve(curve, threshold, f"{name} ({args.split}, {args.mode})", Path(args.plot))
    if args.json:
        _print_json({"dataset": name, "split": args.split, "mode": args.mode,
                     "answer_threshold": threshold, **result, "articles": articles_figures,
                     "curve": curve})
    else:
        print(f"{name} ({args.split}, {args.mode}): {result['answerable']} answerable and "
              f"{result['impossible']} unanswerable questions; each article's figures are "
              "those of a fold that leaves it out")
        _print_squad_table({"all": result, **articles_figures})
    _discard(args, cache)
    return 0


def _print_squad_table(rows: dict[str, dict]) -> None:
    metrics = ("quote@1", "quote@any", "passage@5", "false_refusal", "refused_impossible",
               "opens_with_answer", "wrong_short_openings")
    width = max(map(len, rows)) + 2
    print(f"{'':<{width}}{'questions':>10}" + "".join(f"{m:>21}" for m in metrics)
          + f"{'ask p50 ms':>12}")
    for label, figures in rows.items():
        print(f"{label:<{width}}{figures['questions']:>10}"
              + "".join(f"{figures[m]:>21.3f}" for m in metrics)
              + f"{figures['ask_p50_ms']:>12.1f}")


def _discard(args: argparse.Namespace, cache: Path) -> None:
    if not args.index:
        shutil.rmtree(cache, ignore_errors=True)


def _settings(args: argparse.Namespace) -> Settings:
    limit = getattr(args, "max_file_mb", None)  # only `qa index` has these options
    return Settings(model=args.model, precision=getattr(args, "precision", None),
                    ocr=getattr(args, "ocr", True),
                    ocr_pages=getattr(args, "ocr_pages", Settings().ocr_pages),
                    **({"max_file_mb": limit} if limit else {}))


def backend_config(args: argparse.Namespace) -> BackendConfig:
    """The backend the options name; what they leave unset comes from the environment
    (`BackendConfig.from_env`, the one place its variables are read)."""
    env = BackendConfig.from_env()
    return replace(env, kind=args.backend or env.kind, milvus_uri=args.milvus_uri or env.milvus_uri)


def _open(args: argparse.Namespace, llm=None, **settings):
    """The index of `args`, with its settings from `args` and then `settings`."""
    from qa.index import Index

    return Index.open(args.index, replace(_settings(args), **settings), backend_config(args),
                      llm)


def _indexed_paths(args: argparse.Namespace) -> list[str]:
    """The documents an index holds, read whatever model it was built with (a rebuild
    may be switching to another)."""
    with closing(_open(args, model=None)) as index:
        return [doc.path for doc in index.documents()]


def _ray_address(args: argparse.Namespace) -> bool | str:
    """--ray's value: a Ray address, or True; a path after a bare --ray is one of the paths."""
    if isinstance(args.ray, str) and not re.fullmatch(r"auto|ray://\S+|[\w.-]+:\d+", args.ray):
        args.paths.insert(0, args.ray)
        return True
    return args.ray


def _index(args: argparse.Namespace) -> int:
    from qa.index import Index

    ray = _ray_address(args)
    if args.rebuild:
        paths = args.paths or _indexed_paths(args)
        report = Index.rebuild(paths, args.index, _settings(args), backend_config(args), ray)
    elif args.paths:
        index = Index.create(args.index, _settings(args), backend_config(args))
        report = index.add(args.paths, ray, collection=args.collection)
    else:
        raise QAError("name the files or folders to index")
    for path, reason in report.failed:
        print(f"failed: {printable(path)}: {reason}", file=sys.stderr)
    for path, reason in report.skipped:
        print(f"skipped: {printable(path)}: {reason}", file=sys.stderr)
    print(report.summary() + ("" if report.chunks_embedded else " (nothing to embed)"))
    return 1 if args.strict and report.failed else 0


def _ask(args: argparse.Namespace) -> int:
    index = _open(args, llm=llm_config(args))
    mode = "llm" if args.llm else "extractive"
    response = index.ask_stream(args.question, k=args.k, mode=mode, within=args.within,
                                collections=args.collection)
    for piece in response:
        if not args.json:
            print(piece, end="", flush=True)
    answer = response.answer()
    if args.json:
        _print_json(answer.to_dict())
        return 0
    if answer.mode == "llm":
        print()
        if answer.removed_markers:
            print(f"\n({answer.removed_markers} citation(s) of passages that do not exist "
                  f"were removed:)\n{answer.text}")
    else:
        if answer.notice and answer.notice != answer.text:
            print(f"\n\n{answer.notice}\n")
        print(answer.text)
    for citation in answer.citations:
        place = _place(citation.hit, citation.start, citation.end)
        print(f"\n[{citation.n}] {place}\n    {_one_line(citation.quote)}")
    for claim in answer.claims:
        if not claim.supported:
            print(f"\nunsupported by its sources: {_one_line(claim.text)}")
    return 0


def _search(args: argparse.Namespace) -> int:
    hits = _open(args).search(args.question, k=args.k, mode=args.mode, within=args.within,
                              collections=args.collection)
    if args.json:
        _print_json({"question": args.question, "hits": [hit.to_dict() for hit in hits]})
        return 0
    for hit in hits:
        print(f"{hit.rank}. {_place(hit, hit.start, hit.end)}  (similarity {hit.similarity:.2f})\n"
              f"    {_one_line(hit.text)[:300]}")
    return 0


def _docs(args: argparse.Namespace) -> int:
    from qa.indexing.ingest import counted

    if args.stats:
        return _stats(_open(args).counts(), args.json)
    documents = _open(args).documents()
    if args.json:
        _print_json([{"path": d.path, "title": d.title, "chunks": d.chunks,
                      "indexed_at": d.indexed_at} for d in documents])
        return 0
    for d in documents:
        print(f"{printable(d.path)}\t{counted(d.chunks, 'chunk')}\tindexed {d.indexed_at}")
    print(counted(len(documents), "document"))
    return 0


def _stats(counts: dict[str, int], as_json: bool) -> int:
    if as_json:
        _print_json(counts)
        return 0
    print(f"{counts['documents']} documents, {counts['chunks']} chunks, "
          f"{counts['vectors']} vectors ({counts['stale_vectors']} stale: with no chunk)")
    return 0


def _remove(args: argparse.Namespace) -> int:
    index = _open(args)
    status = 0
    for path in args.paths:
        removed = index.remove(path)
        if removed:
            print(f"removed {removed} document(s) at {printable(path)}")
        else:
            print(f"qa: not in the index: {printable(path)}", file=sys.stderr)
            status = 1
    return status


def _add_collections(commands: argparse._SubParsersAction, common) -> None:
    parser = commands.add_parser("collections", parents=[common],
                                 help="list, create, rename and delete collections")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser("create", help="a new, empty collection").add_argument("name")
    rename = actions.add_parser("rename", help="rename a collection")
    rename.add_argument("name")
    rename.add_argument("new_name")
    actions.add_parser("delete", help="delete a collection (its documents stay indexed)"
                       ).add_argument("name")
    for action, help_text in (("add", "put indexed documents in a collection"),
                              ("discard", "take documents out of a collection")):
        command = actions.add_parser(action, help=help_text)
        command.add_argument("name")
        command.add_argument("paths", nargs="+", help="documents, or folders of documents")
    parser.set_defaults(run=_collections)


def _collections(args: argparse.Namespace) -> int:
    from qa.indexing.ingest import counted

    index = _open(args)
    collections = index.collections
    if args.action == "create":
        print(f"created {collections.create(args.name)!r}")
    elif args.action == "rename":
        print(f"renamed {args.name!r} to {collections.rename(args.name, args.new_name)!r}")
    elif args.action == "delete":
        collections.delete(args.name)
        print(f"deleted {args.name!r} (its documents stay in the index)")
    elif args.action in ("add", "discard"):
        paths = index.documents_under(args.paths)
        if not paths:
            raise QAError(f"no indexed document at {', '.join(map(printable, args.paths))}")
        (collections.add if args.action == "add" else collections.discard)(args.name, paths)
        print(f"{'added' if args.action == 'add' else 'took'} {len(paths)} document(s) "
              f"{'to' if args.action == 'add' else 'out of'} {args.name!r}")
    else:
        counts = collections.counts()
        for name, count in counts.items():
            print(f"{name}\t{counted(count, 'document')}")
        print(counted(len(counts), "collection"))
    return 0


def _mcp(args: argparse.Namespace) -> int:
    try:
        from qa.mcp_server import serve
    except ImportError as error:
        raise QAError(f"qa mcp needs its extra ({error.name} is missing): "
                      "pip install 'qa[mcp]'") from error

    serve(_open(args, llm=llm_config(args)))
    return 0


def _place(hit, start: int, end: int) -> str:
    page = f", page {hit.page}" if hit.page else ""
    return f"{printable(hit.source)}{page}, chars {start}-{end}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _print_json(value) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


if __name__ == "__main__":  # `python -m qa.cli`, as `python -m qa`
    raise SystemExit(main())
