"""Verifier pairs from office folders and their questions, for `benchmarks/verifier.py`.

SQuAD's paragraphs are encyclopaedia prose; an office folder is rows of tables, short
lines and policy clauses, and its near misses are of their own kind: another branch's
figure, another year's, an attribute the row does not have. The verifier trained on SQuAD
alone scores them noisily, so the project's own answer sets (a folder of documents and
questions with gold answers: `benchmarks/office`, and each folder written blind since,
in the same keys, and ten more written as training data alike, by helpers who read none
of the code) are made into pairs of the verifier's four kinds:

  answers         an answerable fact or value question and the sentence of its `source`
                  that answers it (`gold_sentence`: a fact's holds its `must` strings, a
                  value's the value, a yes/no question's shares its words);
  other sentence  ... and the sentence the product would quote first when that is not
                  the gold one, else the source's other sentence sharing most rare words;
  unanswerable    a question the documents do not answer and the sentence the product
                  would quote first (`qa.answering.quoted.assess`);
  near miss       the answerable question with its rarest word the gold sentence holds
                  swapped for another word of the document of the same shape.

Sentences are the documents' stored text split as chunking splits it. Follow-ups, lists
and summaries are answered by other paths and are left out. The pairs are written as
JSON, one object per pair with its folder's name; `benchmarks/verifier.py --office` reads
them, holding out the folders it is told to. The folders other than the office one live
outside the repository; `office_pairs.json` beside this script is what they gave (1,855
pairs), made in session 17 by

    .venv/bin/python benchmarks/office_pairs.py --out benchmarks/office_pairs.json \
        --folder blind=/work/blind --folder blind2=/work/blind2 ... --folder blind7=/work/blind7 \
        --folder train1=/work/train1 ... --folder train6=/work/train6

(each DIR holds folder/ and questions.json), when only a fact's `must` made a gold
sentence, and in session 18, those folders gone from disk, with the folders written then
added (`--add` keeps the pairs of the folders not given, and makes the office's again):

    .venv/bin/python benchmarks/office_pairs.py --out benchmarks/office_pairs.json --add \
        --folder train7=/work/train7 ... --folder train10=/work/train10
"""

import argparse
import json
import random
import re
import sys
import tempfile
from collections import Counter
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "office"))

from documents import write_documents  # noqa: E402
from run import normalized  # noqa: E402
from verifier import Pair, answered_pairs, most_shared, vocabulary  # noqa: E402

from qa import Index  # noqa: E402
from qa.answering.quoted import assess  # noqa: E402
from qa.indexing.chunking import split_sentences  # noqa: E402

KINDS = ("fact", "value", "unanswerable")
SEED = 13


def document_sentences(index: Index) -> dict[str, list[str]]:
    """Each document's sentences, by file name."""
    backend = index._asker.backend
    found = {}
    for document in backend.documents():
        text = backend.document_text(document.path) or ""
        found[Path(document.path).name] = [text[s:e] for s, e in split_sentences(text)]
    return found


def quoted_first(index: Index, question: str) -> str | None:
    """The sentence the product would quote first for `question` (None: none)."""
    _, inputs = index._asker.answer_inputs(question)
    found = assess(question, *inputs)
    return None if found is None else found.candidates[found.chosen[0]].text


def gold_sentence(question: dict, sentences: list[str], frequency: Counter) -> str | None:
    """The sentence of the source that answers `question`: the one holding most of its
    `must` strings; for a value asked (`first`), the one holding the value that shares
    most of the question's words; for a yes-or-no question, the one sharing most words
    with the question and its note (which says what decides it). None: none found."""
    musts = [normalized(m) for m in question.get("must", [])]
    if musts:
        held = [(sum(m in normalized(s) for m in musts), -len(s), s) for s in sentences]
        return max(held)[2] if held and max(held)[0] else None
    values = [normalized(v) for v in question.get("first", [])]
    if values:
        holding = [s for s in sentences if any(re.search(rf"(?<!\w){re.escape(v)}(?!\w)",
                                                         normalized(s)) for v in values)]
        return most_shared(question["question"], holding, frequency) if holding else None
    if question.get("verdict"):
        return most_shared(f"{question['question']} {question.get('note', '')}", sentences,
                           frequency)
    return None


def folder_pairs(name: str, index: Index, questions: list[dict],
                 rng: random.Random) -> list[Pair]:
    documents = document_sentences(index)
    pairs = []
    for question in questions:
        if question["kind"] not in KINDS:
            continue
        text, quoted = question["question"], quoted_first(index, question["question"])
        if question.get("refuse"):
            if quoted is not None:
                pairs.append(Pair(name, "unanswerable", text, quoted))
            continue
        sentences = documents.get(question.get("source", ""), [])
        frequency, shapes = vocabulary(sentences)
        gold = gold_sentence(question, sentences, frequency)
        if gold is None:
            continue
        answers = [normalized(m) for m in question.get("must") or question.get("first", [])]
        other = quoted if quoted is not None and quoted != gold and not any(
            m in normalized(quoted) for m in answers) else most_shared(
            text, [s for s in sentences if s != gold], frequency)
        pairs += answered_pairs(name, text, gold, other, frequency, shapes, rng)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--folder", action="append", default=[], metavar="NAME=DIR",
                        help="a folder written blind: DIR/folder and DIR/questions.json")
    parser.add_argument("--add", action="store_true",
                        help="keep --out's pairs of the folders not given (but the office's)")
    args = parser.parse_args()
    rng = random.Random(SEED)
    kept = json.loads(args.out.read_text(encoding="utf-8")) if args.add else []
    remade = {"office"} | {folder.partition("=")[0] for folder in args.folder}
    pairs = [Pair(**pair) for pair in kept if pair["article"] not in remade]
    with tempfile.TemporaryDirectory() as scratch:
        office = Path(scratch) / "office"
        write_documents(office)
        folders = [("office", office, json.loads((HERE / "office" / "questions.json")
                                                  .read_text(encoding="utf-8")))]
        for given in args.folder:
            name, _, where = given.partition("=")
            folders.append((name, Path(where) / "folder", json.loads(
                (Path(where) / "questions.json").read_text(encoding="utf-8"))))
        for name, documents, questions in folders:
            index = Index.build([documents], path=Path(scratch) / f"index-{name}")
            pairs += folder_pairs(name, index, questions, rng)
            index.close()
    args.out.write_text(json.dumps([asdict(p) for p in pairs], indent=1, ensure_ascii=False)
                        + "\n", encoding="utf-8")
    print(f"{len(pairs)} pairs: {dict(Counter((p.article, p.kind) for p in pairs))}")


if __name__ == "__main__":
    main()
