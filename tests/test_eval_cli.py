"""`qa eval` end to end on a tiny dataset in BEIR layout made here."""

import json
from pathlib import Path

import pytest

from qa.cli import main

CORPUS = [
    ("harbour", "Harbour repairs", "The harbour reopened after storms damaged two piers."),
    ("orchard", "Orchard harvest", "The orchard picked forty tonnes of heritage apples."),
    ("violin", "Violin making", "A luthier carves the violin's spruce top by hand."),
    ("glacier", "Glacier retreat", "The glacier lost three hundred metres of ice in a decade."),
]
QUERIES = {
    "1": ("How many tonnes of apples did the orchard pick?", "orchard"),
    "2": ("What wood is a violin top carved from?", "violin"),
    "3": ("How much ice has the glacier lost?", "glacier"),
}


def _write(folder: Path) -> Path:
    def jsonl(name: str, rows: list[dict]) -> None:
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))

    jsonl("corpus.jsonl", [{"_id": i, "title": t, "text": x, "sentences": [x]}
                           for i, t, x in CORPUS])
    jsonl("queries.jsonl", [{"_id": q, "text": text} for q, (text, _) in QUERIES.items()])
    jsonl("rationales_test.jsonl", [{"query_id": int(q), "doc_id": doc, "sentences": [0]}
                                    for q, (_, doc) in QUERIES.items()])
    (folder / "qrels").mkdir()
    rows = [f"{q}\t{doc}\t1" for q, (_, doc) in QUERIES.items()]
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "\n".join(rows))
    return folder


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    return _write(tmp_path_factory.mktemp("tiny-beir"))


def test_eval_beir_ranks_each_relevant_document_first(dataset, tmp_path, capsys):
    cache = tmp_path / "cache"
    plot = tmp_path / "modes.png"

    assert main(["eval", "beir", str(dataset), "--index", str(cache), "--json",
                 "--plot", str(plot)]) == 0

    result = json.loads(capsys.readouterr().out)
    assert (result["dataset"], result["queries"]) == (dataset.name, 3)
    for mode in ("dense", "keyword", "hybrid"):
        assert result["modes"][mode] == {
            "ndcg@10": 1.0, "recall@10": 1.0, "recall@100": 1.0, "mrr@10": 1.0
        }
    assert plot.read_bytes().startswith(b"\x89PNG")

    assert main(["eval", "beir", str(dataset), "--index", str(cache), "--mode", "dense"]) == 0
    assert "0 chunks embedded" in capsys.readouterr().err  # the cache was reused


def test_eval_beir_split_keeps_odd_or_even_ids(dataset, capsys):
    assert main(["eval", "beir", str(dataset), "--split", "odd", "--json"]) == 0

    assert json.loads(capsys.readouterr().out)["queries"] == 2


def test_eval_evidence_quotes_the_gold_sentence(dataset, capsys):
    assert main(["eval", "evidence", str(dataset), "--json"]) == 0

    result = json.loads(capsys.readouterr().out)
    assert (result["pairs"], result["end_to_end"], result["given_document"]) == (3, 1.0, 1.0)
