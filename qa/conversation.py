"""Conversation: turn a follow-up question into one that can be searched on its own.

Without a language model this is a plain rule: a question that refers back
with a pronoun ("How old is his son?") is searched together with the previous
question of the conversation ("Who is Mike Bonin?"), itself made standalone
the same way. A question that stands on
its own is searched as it is, so a change of subject is not dragged back.
"""

import re
from collections.abc import Sequence

_REFERS_BACK = re.compile(
    r"\b(he|him|his|she|her|hers|they|them|their|theirs|it|its|these|those)\b", re.IGNORECASE
)


def standalone_question(question: str, history: Sequence[tuple[str, str]] = ()) -> str:
    """The text to search for `question`, given earlier (question, answer) turns."""
    if not history or not _REFERS_BACK.search(question):
        return question
    earlier = standalone_question(history[-1][0], history[:-1])
    return f"{earlier} {question}"
