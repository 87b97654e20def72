"""The office-folder benchmark (issue 24): 60 questions of six kinds over a small company's
files (`documents.py`), asked through `qa.Index.ask` as a user would, each judged by what
a careful reader's answer must hold. Prints right / asked per kind and the issue's three
figures: right of 60, unanswerable questions refused of 15, values and verdicts stated
first of 15; and the median time per question, with the load average beside it.

What each question asks of the answer (its keys in questions.json):
  refuse     the answer is a refusal (`found` False); any other question must be answered.
  source     the file the answer must cite.
  must       strings the answer must hold, in its first sentence or in a quote from
             `source` (case and line breaks aside).
  must_not   strings no part of the answer may hold (another meeting's items, other rows).
  verdict    "Yes" or "No": the first word of the answer's first sentence.
  first      the value (any of these spellings) the answer's first sentence must state.
  not_quoted lines of `source` that are no central sentence of a summary (titles,
             headings, a table's lead-in and rows, a date line); with it, the answer must
             quote at least two sentences, all from `source`, none of them one of these,
             a table row ("Caption: Column: value; ...") or an e-mail header line.
The answer's first sentence is its text before the first citation marker ([1]) or
quotation mark: what the reader sees before any quote. A follow-up is asked with its
`history` of (question, answer) turns.

Run:  .venv/bin/python benchmarks/office/run.py [--cache DIR] [--kind KIND] [-v] [--json]
Another folder with its own questions (the same keys), e.g. one written blind:
      .venv/bin/python benchmarks/office/run.py --documents DIR --questions FILE
"""

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from documents import write_documents  # noqa: E402

from qa import Answer, Index  # noqa: E402

QUESTIONS = HERE / "questions.json"
KINDS = {"fact": "facts", "value": "values and verdicts",
         "unanswerable": "questions the documents do not answer", "follow-up": "follow-ups",
         "list": "lists", "summary": "summaries"}
MARKER = re.compile(r"\[\d+\]|[\"“]")
TABLE_ROW = re.compile(r"^[^:;\n]{1,80}: [^:;\n]{1,40}: [^;\n]*;")
EMAIL_HEADER = re.compile(r"^(Subject|From|To|Cc|Date|Attachment):", re.MULTILINE)
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


def load_questions(kinds: set[str] | None = None, path: Path = QUESTIONS) -> list[dict]:
    questions = json.loads(path.read_text(encoding="utf-8"))
    return [q for q in questions if kinds is None or q["kind"] in kinds]


def ask(index: Index, question: dict) -> Answer:
    history = [(q, a) for q, a in question.get("history", [])]
    return index.ask(question["question"], history=history)


def first_sentence(answer: Answer) -> str:
    """The answer's text before its first citation marker or quotation mark."""
    return MARKER.split(answer.text, maxsplit=1)[0].strip()


def failures(question: dict, answer: Answer) -> list[str]:
    """What the answer to `question` gets wrong (none: it is right)."""
    if question.get("refuse"):
        return [] if not answer.found else [f"answered: {answer.text[:200]}"]
    if not answer.found:
        return [f"refused: {answer.text[:200]}"]
    lead = first_sentence(answer)
    source = question.get("source")
    cited = {_name(c.hit.source) for c in answer.citations}
    wrong = []
    if source and source not in cited:
        wrong.append(f"cites {sorted(cited)}, not {source}")
    if "verdict" in question and not _opens_with(lead, question["verdict"]):
        wrong.append(f"first sentence is not {question['verdict']!r}: {lead[:160]!r}")
    if "first" in question and not any(_states(lead, v) for v in question["first"]):
        wrong.append(f"first sentence lacks {question['first'][0]!r}: {lead[:160]!r}")
    if "must" in question:
        held = normalized(" ".join([lead] + [c.quote for c in answer.citations
                                        if _name(c.hit.source) == source]))
        missing = [s for s in question["must"] if normalized(s) not in held]
        if missing:
            wrong.append(f"lacks {missing}")
    if "must_not" in question:
        whole = normalized(" ".join([answer.text] + [c.quote for c in answer.citations]))
        extra = [s for s in question["must_not"] if normalized(s) in whole]
        if extra:
            wrong.append(f"also holds {extra}")
    if "not_quoted" in question:
        wrong += _summary_failures(question, answer)
    if wrong:
        wrong.append(f"answer: {answer.text[:300]!r}")
    return wrong


def _summary_failures(question: dict, answer: Answer) -> list[str]:
    if len(answer.citations) < 2:
        return [f"quotes {len(answer.citations)} sentence(s), not a summary"]
    bad_lines = {normalized(line) for line in question["not_quoted"]}
    wrong = []
    for c in answer.citations:
        quote = normalized(c.quote)
        if _name(c.hit.source) != question["source"]:
            wrong.append(f"[{c.n}] is from {_name(c.hit.source)}")
        elif (quote in bad_lines or any(len(line) >= 25 and line in quote for line in bad_lines)
              or TABLE_ROW.match(c.quote) or EMAIL_HEADER.search(c.quote)):
            wrong.append(f"[{c.n}] is no central sentence: {c.quote[:100]!r}")
    return wrong


def _opens_with(lead: str, verdict: str) -> bool:
    words = re.findall(r"\w+", lead)
    return bool(words) and words[0].lower() == verdict.lower()


def _states(lead: str, value: str) -> bool:
    """Whether `lead` states `value` as a whole word or number (1,234 and 1234 alike)."""
    lead, value = THOUSANDS.sub("", lead), THOUSANDS.sub("", value)
    return re.search(rf"(?<![\w.]){re.escape(value)}(?![\w]|[.,]\d)", lead, re.I) is not None


def normalized(text: str) -> str:
    """The text as answers are judged: lower-case, one space between words, ' for ’."""
    return " ".join(text.replace("’", "'").split()).lower()


def _name(source: str) -> str:
    return Path(source).name


def run(index: Index, questions: list[dict]) -> list[dict]:
    """Each question asked: its kind, the question, what went wrong, the answer, seconds."""
    results = []
    for question in questions:
        start = time.perf_counter()
        answer = ask(index, question)
        seconds = time.perf_counter() - start
        wrong = failures(question, answer)
        late = [why for why in wrong if why.startswith("first sentence")]
        results.append({"kind": question["kind"], "question": question["question"],
                        "wrong": wrong, "answer": answer.text, "found": answer.found,
                        "stated_first": answer.found and not late,
                        "seconds": round(seconds, 3)})
    return results


def figures(results: list[dict]) -> dict:
    """Right / asked per kind, and the issue's three figures."""
    asked, right = Counter(r["kind"] for r in results), Counter()
    for r in results:
        right[r["kind"]] += not r["wrong"]
    kinds = {kind: {"right": right[kind], "asked": asked[kind]} for kind in asked}
    values = [r for r in results if r["kind"] == "value"]
    return {
        "kinds": kinds,
        "right": sum(right.values()), "asked": len(results),
        "refused": right["unanswerable"], "unanswerable": asked["unanswerable"],
        "stated_first": sum(r["stated_first"] for r in values), "values": len(values),
        "median_ask_seconds": round(statistics.median(r["seconds"] for r in results), 3),
        "load_average": round(os.getloadavg()[0], 1),
    }


def print_table(results: list[dict], summary: dict, verbose: bool) -> None:
    if verbose:
        for r in results:
            if r["wrong"]:
                print(f"WRONG [{r['kind']}] {r['question']}")
                for why in r["wrong"]:
                    print(f"    {why}")
        print()
    print(f"{'kind':<40}{'right':>7}")
    for kind, label in KINDS.items():
        if kind in summary["kinds"]:
            counts = summary["kinds"][kind]
            print(f"{label:<40}{counts['right']:>3} / {counts['asked']}")
    print(f"{'all':<40}{summary['right']:>3} / {summary['asked']}")
    print()
    print(f"right:                          {summary['right']} of {summary['asked']}")
    print(f"unanswerable refused:           {summary['refused']} of {summary['unanswerable']}")
    print(f"values and verdicts first:      {summary['stated_first']} of {summary['values']}")
    print(f"median ask:                     {summary['median_ask_seconds']:.2f} s "
          f"(load average {summary['load_average']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path,
                        help="keep the documents and the index here (default: a new "
                             "temporary folder, so the index is built by the code run)")
    parser.add_argument("--kind", action="append", choices=list(KINDS),
                        help="only questions of this kind (repeatable)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print what went wrong with each wrong answer")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--documents", type=Path,
                        help="index this folder instead of the company's documents")
    parser.add_argument("--questions", type=Path, default=QUESTIONS,
                        help="the questions to ask (default: the company's)")
    args = parser.parse_args()
    questions = load_questions(set(args.kind) if args.kind else None, args.questions)
    with tempfile.TemporaryDirectory(prefix="qa-office-") as temporary:
        cache = args.cache or Path(temporary)
        documents = args.documents or cache / "documents"
        if args.documents is None:
            write_documents(documents)
        index = Index.build([documents], path=cache / "index")
        try:
            results = run(index, questions)
        finally:
            index.close()
    summary = figures(results)
    if args.json:
        print(json.dumps({**summary, "questions": results}, indent=1))
    else:
        print_table(results, summary, args.verbose)


if __name__ == "__main__":
    main()
