"""qa: answers from your documents, with citations that lead to the exact passage.

    from qa import Index
    index = Index.build(["seeds/"], path=".qa-index")
    answer = index.ask("Who has resigned over the recording?")

or, in one call from a script: `qa.retrieve("question", k=5, index=".qa-index")`.
"""

import functools
from pathlib import Path

from qa.answering.results import Answer, Citation
from qa.backends import BackendConfig, DocumentInfo
from qa.errors import QAError
from qa.index import Index
from qa.indexing.ingest import Report
from qa.search import Hit
from qa.settings import Settings

__all__ = [
    "Answer", "BackendConfig", "Citation", "DocumentInfo", "Hit", "Index", "QAError", "Report",
    "Settings", "retrieve",
]


def retrieve(question: str, k: int = 5, index: str | Path = ".qa-index") -> list[Hit]:
    """The `k` passages of the index at `index` that best match `question`, best first."""
    return _opened(str(Path(index).absolute())).search(question, k)


@functools.cache
def _opened(path: str) -> Index:
    return Index.open(path)
