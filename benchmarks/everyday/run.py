"""The everyday evaluation set: overviews, summaries, table rows, yes/no, list, fact and
unanswerable questions over ordinary office files (`documents.py`), asked through
`qa.Index.ask` as a user would. Prints the pass rate per kind of question.

A question passes when its answer holds every string of `must` (the text an answer must
quote), cites only its `source` document when one is given, and, for an unanswerable
question, when the answer is a refusal.

Run:  .venv/bin/python benchmarks/everyday/run.py [--cache DIR] [--kind KIND] [-v]
"""

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from documents import write_documents  # noqa: E402

from qa import Index  # noqa: E402

QUESTIONS = HERE / "questions.json"


def load_questions(kinds: set[str] | None = None) -> list[dict]:
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    return [q for q in questions if kinds is None or q["kind"] in kinds]


def failure(index: Index, question: dict) -> str | None:
    """Why the answer to `question` fails it, or None when it passes."""
    answer = index.ask(question["question"])
    if question["kind"] == "unanswerable":
        return None if not answer.found else f"answered: {answer.text[:200]}"
    if not answer.found:
        return f"refused: {answer.text}"
    missing = [s for s in question.get("must", []) if s.lower() not in answer.text.lower()
               and s not in " ".join(c.quote for c in answer.citations)]
    if missing:
        return f"lacks {missing}: {answer.text[:300]}"
    source = question.get("source")
    others = {Path(c.hit.source).name for c in answer.citations} - {source}
    if source and others:
        return f"cites {sorted(others)}, not only {source}"
    return None


def run(index: Index, questions: list[dict], verbose: bool = False) -> dict[str, tuple]:
    """(passed, asked) per kind; with verbose, each failure printed."""
    passed, asked = Counter(), Counter()
    for question in questions:
        why = failure(index, question)
        asked[question["kind"]] += 1
        passed[question["kind"]] += why is None
        if why and verbose:
            print(f"FAIL [{question['kind']}] {question['question']}\n    {why}")
    return {kind: (passed[kind], asked[kind]) for kind in asked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, help="keep the documents and index here")
    parser.add_argument("--kind", action="append", help="only questions of this kind")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each failure")
    args = parser.parse_args()
    cache = args.cache or Path(tempfile.mkdtemp(prefix="qa-everyday-"))
    write_documents(cache / "documents")
    index = Index.build([cache / "documents"], path=cache / "index")
    results = run(index, load_questions(set(args.kind) if args.kind else None), args.verbose)
    print(f"{'kind':<14}{'passed':>8}{'asked':>7}{'rate':>7}")
    for kind, (passed, asked) in results.items():
        print(f"{kind:<14}{passed:>8}{asked:>7}{passed / asked:>7.2f}")
    total_passed = sum(p for p, _ in results.values())
    total = sum(a for _, a in results.values())
    print(f"{'all':<14}{total_passed:>8}{total:>7}{total_passed / total:>7.2f}")
    index.close()


if __name__ == "__main__":
    main()
