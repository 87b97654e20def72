"""Tests for qa.evaluation.retrieval: hand-computed metric values, edge cases, BEIR loading.

log2 values used below: log2(2) = 1, log2(3) = 1.5849625, log2(4) = 2.
"""

import json
import math
import random
from pathlib import Path

import pytest

from qa.evaluation.retrieval import load_beir, mean_metrics, mrr_at_k, ndcg_at_k, recall_at_k

INV_LOG2_3 = 1 / math.log2(3)  # 0.6309297535714575


def test_ndcg_single_relevant_at_rank_2() -> None:
    # DCG = 1/log2(2+1) = 0.6309; IDCG = 1/log2(1+1) = 1  ->  0.6309
    assert ndcg_at_k(["a", "b", "c"], {"b": 1}) == pytest.approx(0.6309297535714575)


def test_ndcg_perfect_ranking_is_one() -> None:
    # ranked grades [2, 1] are already the ideal order  ->  DCG == IDCG
    assert ndcg_at_k(["a", "b", "c"], {"a": 2, "b": 1}) == pytest.approx(1.0)


def test_ndcg_no_relevant_retrieved_is_zero() -> None:
    assert ndcg_at_k(["a", "b"], {"z": 1}) == 0.0


def test_ndcg_uses_linear_gain() -> None:
    # ranked [b, a], grades a=2, b=1.
    # linear gain: DCG  = 1/log2(2) + 2/log2(3) = 1 + 1.2618595 = 2.2618595
    #              IDCG = 2/log2(2) + 1/log2(3) = 2 + 0.6309298 = 2.6309298
    #              nDCG = 0.8597187 (what pytrec_eval ndcg_cut_10 gives)
    # 2^rel - 1 gain would give (1 + 3/log2(3)) / (3 + 1/log2(3)) = 0.7967.
    expected = (1 + 2 * INV_LOG2_3) / (2 + INV_LOG2_3)
    assert expected == pytest.approx(0.8597186998521972)
    assert ndcg_at_k(["b", "a"], {"a": 2, "b": 1}) == pytest.approx(expected)


def test_ndcg_ideal_is_cut_at_k() -> None:
    # k=1: DCG@1 = grade of b = 1; IDCG@1 = best grade = 2  ->  0.5
    assert ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, k=1) == pytest.approx(0.5)
    # k=1, two grade-1 docs: IDCG@1 = 1 (not 1 + 1/log2(3))  ->  1.0
    assert ndcg_at_k(["a"], {"a": 1, "b": 1}, k=1) == pytest.approx(1.0)


def test_ndcg_ignores_docs_beyond_k() -> None:
    ranked = [f"x{i}" for i in range(10)] + ["b"]  # b at rank 11
    assert ndcg_at_k(ranked, {"b": 1}, k=10) == 0.0


def test_ndcg_zero_and_negative_grades_give_no_gain() -> None:
    assert ndcg_at_k(["a", "b"], {"a": 0, "b": -1}) == 0.0
    # a (grade 0) at rank 1 takes a slot but gives nothing: same as test above.
    assert ndcg_at_k(["a", "b"], {"a": 0, "b": 1}) == pytest.approx(INV_LOG2_3)


def test_duplicates_count_once_and_take_no_slot() -> None:
    # [a, a, b] is read as [a, b]: b at rank 2  ->  1/log2(3)
    assert ndcg_at_k(["a", "a", "b"], {"b": 1}) == pytest.approx(INV_LOG2_3)
    # [b, b]: b counted once, DCG = 1 = IDCG (not 1 + 0.63)
    assert ndcg_at_k(["b", "b"], {"b": 1}) == pytest.approx(1.0)
    # top 2 of [a, a, b] is [a, b]  ->  b found
    assert recall_at_k(["a", "a", "b"], {"b": 1}, k=2) == 1.0
    assert mrr_at_k(["a", "a", "b"], {"b": 1}, k=2) == 0.5


def test_recall_at_k() -> None:
    relevant = {"a": 1, "d": 2, "z": 1, "n": 0}  # 3 relevant: a, d, z
    ranked = ["a", "b", "c", "d"]
    assert recall_at_k(ranked, relevant, k=3) == pytest.approx(1 / 3)  # a
    assert recall_at_k(ranked, relevant, k=4) == pytest.approx(2 / 3)  # a, d
    assert recall_at_k(ranked, {"n": 0}, k=4) == 0.0  # nothing relevant


def test_mrr_at_k() -> None:
    assert mrr_at_k(["x", "y", "b"], {"b": 1}, k=10) == pytest.approx(1 / 3)
    assert mrr_at_k(["x", "y", "b"], {"b": 1}, k=2) == 0.0
    assert mrr_at_k(["b", "c"], {"b": 1, "c": 1}) == 1.0  # first relevant only
    assert mrr_at_k(["x", "c"], {"x": 0, "c": 1}) == 0.5  # grade 0 is not relevant


def test_empty_ranking_scores_zero() -> None:
    assert ndcg_at_k([], {"a": 1}) == 0.0
    assert recall_at_k([], {"a": 1}) == 0.0
    assert mrr_at_k([], {"a": 1}) == 0.0


@pytest.mark.parametrize("metric", [ndcg_at_k, recall_at_k, mrr_at_k])
def test_k_must_be_positive(metric) -> None:
    with pytest.raises(ValueError):
        metric(["a"], {"a": 1}, 0)


def test_mean_metrics_averages_over_judged_queries() -> None:
    # q1: b at rank 2, c at rank 51, both grade 1.
    #     nDCG@10 = (1/log2(3)) / (1 + 1/log2(3)) = 0.6309/1.6309 = 0.3868529
    #     R@10 = 1/2, R@100 = 2/2, MRR@10 = 1/2
    # q2: judged but no run  ->  all 0.  q3: run but no judgements  ->  ignored.
    q1 = ["a", "b"] + [f"x{i}" for i in range(48)] + ["c"]
    runs = {"q1": q1, "q3": ["a"]}
    qrels = {"q1": {"b": 1, "c": 1}, "q2": {"a": 1}}
    got = mean_metrics(runs, qrels)
    assert got == pytest.approx(
        {
            "ndcg@10": INV_LOG2_3 / (1 + INV_LOG2_3) / 2,  # 0.1934264
            "recall@10": 0.25,
            "recall@100": 0.5,
            "mrr@10": 0.25,
        }
    )


def test_mean_metrics_rejects_empty_qrels() -> None:
    with pytest.raises(ValueError):
        mean_metrics({"q": ["a"]}, {})


def test_matches_pytrec_eval_on_random_runs() -> None:
    """Cross-check against pytrec_eval, the evaluator behind published BEIR numbers."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(7)
    docs = [f"d{i}" for i in range(150)]
    qrels, runs = {}, {}
    for q in range(40):
        judged = rng.sample(docs, rng.randint(1, 30))
        qrels[f"q{q}"] = {d: rng.choice([0, 1, 1, 2, 3]) for d in judged}
        runs[f"q{q}"] = rng.sample(docs, rng.randint(0, 120))
    # pytrec_eval sorts by score, so give strictly decreasing scores.
    scored = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in runs.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.10,100"})
    ref = evaluator.evaluate(scored)
    for q, ranked in runs.items():
        if q not in ref:  # pytrec_eval omits queries with an empty run
            assert ranked == []
            continue
        assert ndcg_at_k(ranked, qrels[q], 10) == pytest.approx(ref[q]["ndcg_cut_10"])
        assert recall_at_k(ranked, qrels[q], 10) == pytest.approx(ref[q]["recall_10"])
        assert recall_at_k(ranked, qrels[q], 100) == pytest.approx(ref[q]["recall_100"])


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _beir_folder(tmp_path: Path, qrels_lines: list[str]) -> Path:
    _write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"_id": "d1", "title": "T1", "text": "one"}, {"_id": "d2", "text": "two"}],
    )
    _write_jsonl(
        tmp_path / "queries.jsonl",
        [{"_id": "q1", "text": "first?"}, {"_id": "q2", "text": "unjudged?"}],
    )
    (tmp_path / "qrels").mkdir()
    lines = ["query-id\tcorpus-id\tscore", *qrels_lines]
    (tmp_path / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_load_beir(tmp_path: Path) -> None:
    folder = _beir_folder(tmp_path, ["q1\td1\t1", "q1\td2\t0"])
    corpus, queries, qrels = load_beir(folder)
    assert corpus == {"d1": ("T1", "one"), "d2": ("", "two")}
    assert queries == {"q1": "first?"}  # q2 has no judgements
    assert qrels == {"q1": {"d1": 1, "d2": 0}}


def test_load_beir_rejects_judged_query_without_text(tmp_path: Path) -> None:
    folder = _beir_folder(tmp_path, ["q1\td1\t1", "q9\td2\t1"])
    with pytest.raises(ValueError, match="q9"):
        load_beir(folder)
