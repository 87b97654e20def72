"""Conversation: turn a follow-up question into one that can be searched on its own.

Without a language model this is a plain rule: a question that refers back
with a pronoun ("How old is his son?") is searched together with the previous
question of the conversation ("Who is Mike Bonin?"), itself made standalone
the same way. A question that stands on
its own is searched as it is, so a change of subject is not dragged back.
Only the last FOLLOW_UP_TURNS turns are looked at, however long the conversation.
"""

import re
from collections.abc import Sequence

FOLLOW_UP_TURNS = 3
_REFERS_BACK = re.compile(
    r"\b(he|him|his|she|her|hers|they|them|their|theirs|it|its|these|those)\b", re.IGNORECASE
)


def recent_turns(history: Sequence[tuple[str, str]]) -> Sequence[tuple[str, str]]:
    """The turns of `history` a follow-up question can refer back to."""
    return history[-FOLLOW_UP_TURNS:]


def standalone_question(question: str, history: Sequence[tuple[str, str]] = ()) -> str:
    """The text to search for `question`, given earlier (question, answer) turns."""
    questions = [question]
    for earlier, _ in reversed(recent_turns(history)):
        if not _REFERS_BACK.search(questions[0]):
            break
        questions.insert(0, earlier)
    return " ".join(questions)
