"""`qa eval squad` on a tiny hand-made SQuAD 2.0 file, its figures checked by hand."""

import json

import pytest

from qa.cli import main
from qa.evaluation import squad

DATA = {"version": "v2.0", "data": [{"title": "Pelican_Bay", "paragraphs": [
    {"context": "The Pelican Bay lighthouse was built in 1871 by the harbour board. "
                "The tower is 41 metres tall.",
     "qas": [
         {"id": "a", "question": "When was the Pelican Bay lighthouse built?",
          "answers": [{"text": "1871", "answer_start": 40}], "is_impossible": False},
         {"id": "b", "question": "How tall is the Pelican Bay tower?",
          "answers": [{"text": "41 metres", "answer_start": 80}], "is_impossible": False},
         {"id": "c", "question": "What is the capital of France?", "answers": [],
          "plausible_answers": [{"text": "Paris", "answer_start": 0}], "is_impossible": True},
     ]},
]}]}


def test_answers_are_normalised_as_squad_does():
    assert squad.normalize("The  Harbour-Board, Inc.") == "harbourboard inc"
    assert squad.contains_answer("It was built in 1871.", ["in 1871"])
    assert not squad.contains_answer("It was built in 18712.", ["1871"])  # whole words only
    assert squad.contains_answer("The tower is 41 metres tall.", ["an 41 metres"])


def test_an_answer_opens_until_its_first_full_stop_or_marker_not_an_abbreviation():
    assert squad.opening("1871. It was built in 1871 [1]") == "1871"
    assert squad.opening("It was built in 1871 [1] by the board.") == "It was built in 1871"
    assert squad.opening("It went to Washington, D.C. with Senator Latham. [1]") == \
        "It went to Washington, D.C. with Senator Latham"
    assert squad.opening("Sky UK Limited (formerly BSkyB… [1] Sky UK Limited (formerly BSkyB) "
                         "is a company. [1]") == "Sky UK Limited (formerly BSkyB…"


def test_metrics_count_as_the_docstring_says():
    def outcome(answerable, found, first, any_, passage, score):
        return squad.Outcome(answerable, found, first, any_, passage, score, 0.01)

    outcomes = [outcome(True, True, True, True, True, 0.8),
                outcome(True, True, False, True, True, 0.5),
                outcome(True, False, False, False, False, 0.2),
                outcome(False, False, False, False, False, 0.1),
                outcome(False, True, False, False, False, 0.6)]
    figures = squad.metrics(outcomes)
    assert figures["quote@1"] == pytest.approx(1 / 3)
    assert figures["quote@any"] == pytest.approx(2 / 3)
    assert figures["passage@5"] == pytest.approx(2 / 3)
    assert figures["false_refusal"] == pytest.approx(1 / 3)
    assert figures["refused_impossible"] == pytest.approx(1 / 2)
    stricter = squad.metrics(squad.refuse_below(outcomes, 0.55))
    assert stricter["quote@1"] == pytest.approx(1 / 3)
    assert stricter["false_refusal"] == pytest.approx(2 / 3)
    assert stricter["refused_impossible"] == pytest.approx(1 / 2)


def test_figures_are_given_per_article_as_leave_one_out_folds():
    def outcome(article, right):
        return squad.Outcome(True, True, right, right, right, 0.9, 0.01, article)

    folds = squad.by_article([outcome("A", True), outcome("B", False), outcome("A", False)])

    assert list(folds) == ["A", "B"]
    assert folds["A"]["quote@1"] == pytest.approx(1 / 2) and folds["B"]["quote@1"] == 0.0


def test_qa_eval_squad_runs_the_product_on_the_file(tmp_path, capsys):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(DATA), encoding="utf-8")
    plot = tmp_path / "curve.png"

    assert main(["eval", "squad", str(data), "--json", "--plot", str(plot),
                 "--index", str(tmp_path / "cache")]) == 0

    result = json.loads(capsys.readouterr().out)
    assert (result["answerable"], result["impossible"]) == (2, 1)
    assert result["quote@1"] == 1.0 and result["false_refusal"] == 0.0
    assert result["refused_impossible"] == 1.0
    assert result["articles"]["Pelican_Bay"]["quote@1"] == 1.0  # each article's figures
    assert plot.stat().st_size > 10_000
    corpus = (tmp_path / "cache" / "corpus" / "Pelican_Bay.md").read_text()
    assert corpus.startswith("# Pelican Bay\n\nThe Pelican Bay lighthouse")


def test_the_split_is_by_article_title(tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(DATA), encoding="utf-8")

    halves = [squad.load_squad(data, split) for split in ("even", "odd")
              if _has(data, split)]
    assert len(halves) == 1 and len(halves[0]) == 1


def _has(path, split) -> bool:
    try:
        return bool(squad.load_squad(path, split))
    except ValueError:
        return False
