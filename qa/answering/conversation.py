"""Conversation: turn a follow-up question into one that can be searched on its own.

Without a language model this is a plain rule: a question that refers back
with a pronoun ("How old is his son?") is searched together with the previous
question of the conversation ("Who is Mike Bonin?"), itself made standalone
the same way, and, when that question asked for someone or something ("Who...",
"Which..."), with the first sentence of its answer, which names what the pronoun
stands for ("Who leads the Dispatch team?" "Bartosz Nowak leads it."). A
question that stands on its own is searched as it is, so a change of subject is not
dragged back.
Only the last FOLLOW_UP_TURNS turns are looked at, however long the conversation.
"""

import re
from collections.abc import Sequence

from qa.words import PRONOUNS, any_of

FOLLOW_UP_TURNS = 3
# "that" and "this" refer back where they stand for a thing, after a verb or a preposition
# ("Why was that fewer...?", "What about this?"), not where they join a clause ("the van
# that broke down") or point at a noun ("this year")
_REFERS_BACK = re.compile(
    any_of(word for word in PRONOUNS if word not in ("this", "that")) + "|"
    r"\b(?:is|was|are|were|do|does|did|about|of|for|with|from|after|before|since)\s+"
    r"(?:that|this)\b(?!\s+(?:[a-z]+(?:s|ed)|the|an?)\b)", re.IGNORECASE
)
_ASKS_WHO_OR_WHICH = re.compile(r"\s*(?:who|whom|whose|which)\b", re.IGNORECASE)
_CITATION = re.compile(r"\s*\[\d+\]")
_SENTENCE = re.compile(r".*?(?:[.!?](?:\s*\[\d+\])*(?=\s|$)|$)", re.S)


def recent_turns(history: Sequence[tuple[str, str]]) -> Sequence[tuple[str, str]]:
    """The turns of `history` a follow-up question can refer back to."""
    return history[-FOLLOW_UP_TURNS:]


def standalone_question(question: str, history: Sequence[tuple[str, str]] = ()) -> str:
    """The text to search for `question`, given earlier (question, answer) turns."""
    questions = [question]
    for earlier, answer in reversed(recent_turns(history)):
        if not _REFERS_BACK.search(questions[0]):
            break
        named = first_sentence(answer) if _ASKS_WHO_OR_WHICH.match(earlier) else ""
        questions[:0] = [earlier, named]
    return " ".join(part for part in questions if part)


def first_sentence(answer: str) -> str:
    """The first sentence of a cited answer, without its citation marks; "" for an
    answer that cites nothing (a refusal says nothing the question can refer to)."""
    if not _CITATION.search(answer):
        return ""
    return _CITATION.sub("", _SENTENCE.findall(answer.strip())[0]).strip()
