"""The full SciFact runs behind the figures in docs/figures.md: slow, so only with `pytest -m slow`.

Set QA_SCIFACT_CACHE to a folder to keep the corpus index between runs (the first
run embeds 5,183 abstracts, about ten minutes on a quiet 2-core machine).
"""

import json
import os

import pytest

from qa.cli import main
from tests.helpers import ROOT

SCIFACT = ROOT.parent / "shared" / "datasets" / "scifact"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SCIFACT.is_dir(), reason=f"no SciFact copy at {SCIFACT}"),
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    return os.environ.get("QA_SCIFACT_CACHE") or str(tmp_path_factory.mktemp("scifact"))


def test_hybrid_retrieval_reaches_the_target(cache, capsys):
    assert main(["eval", "beir", str(SCIFACT), "--index", cache, "--json"]) == 0

    modes = json.loads(capsys.readouterr().out)["modes"]
    assert modes["hybrid"]["ndcg@10"] >= 0.72
    assert modes["hybrid"]["ndcg@10"] > max(modes["dense"]["ndcg@10"],
                                            modes["keyword"]["ndcg@10"])


def test_the_quoted_sentence_is_gold_evidence_often_enough(cache, capsys):
    assert main(["eval", "evidence", str(SCIFACT), "--index", cache, "--json"]) == 0

    assert json.loads(capsys.readouterr().out)["given_document"] >= 0.60
