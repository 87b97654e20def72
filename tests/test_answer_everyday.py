"""A part of the everyday evaluation set (benchmarks/everyday) as a test: summaries,
yes/no, list and fact questions over ordinary office files, and a refusal (every other
one), and every question a table row or a computation over a table answers."""


import pytest

from qa import Index
from tests.helpers import benchmark_scripts

documents, run = benchmark_scripts("everyday")
write_documents, failure, load_questions = (documents.write_documents, run.failure,
                                            run.load_questions)

QUESTIONS = [q for q in load_questions({"summary", "yes_no", "list", "fact", "unanswerable"})
             if "needs" not in q][1::2] + load_questions({"table", "computed"})


@pytest.fixture(scope="module")
def everyday(tmp_path_factory):
    folder = tmp_path_factory.mktemp("everyday")
    write_documents(folder / "documents")
    index = Index.build([folder / "documents"], path=folder / "index")
    yield index
    index.close()


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q["question"])
def test_an_everyday_question_gets_the_answer_it_needs(everyday, question):
    assert failure(everyday, question) is None
