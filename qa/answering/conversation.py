"""Conversation: turn a follow-up question into one that can be searched on its own.

Without a language model this is a plain rule: a question that refers back
with a pronoun ("How old is his son?") is searched together with the previous
question of the conversation ("Who is Mike Bonin?"), itself made standalone
the same way, and, when that question asked for someone or something ("Who...",
"Which..."), with the first sentence of its answer, which names what the pronoun
stands for ("Who leads the Dispatch team?" "Bartosz Nowak leads it."). A
question that stands on its own is searched as it is, so a change of subject is not
dragged back.

A follow-up that opens with "and", "also" or "what about" and says only a phrase ("and at
the other site?", "what about cats", "and Anna's?") asks the previous question again of
something else: that phrase takes the place of the previous question's phrase of the
same form (after the same preposition, or its possessive), else of its last phrase
(from its last preposition or article): "How much is it for a dog?" "What about cats?"
is searched as "How much is it for cats?".
A follow-up that names nothing of what it refers to ("can I carry some over?" after "How
many days of leave do I get?") is searched on its own first; when the documents do not
answer it so, it is searched again after the previous question (`with_previous`).
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
_ELLIPSIS = re.compile(r"\s*(?:and|also|plus|what about|how about)\b[\s,]*", re.IGNORECASE)
_QUESTION_WORD = re.compile(r"^\s*(?:who|whom|whose|what|which|when|where|why|how|is|are|"
                            r"was|were|do|does|did|can|could|will|would|should)\b", re.I)
_PREPOSITION = r"(?:at|for|in|on|of|with|from|by|to|under|over|during|about)"
_OPENS_WITH_PREPOSITION = re.compile(rf"^{_PREPOSITION}\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"\b\w+'s\b", re.IGNORECASE)
_PHRASE_START = re.compile(rf"\b(?:{_PREPOSITION}|the|an?)\b", re.IGNORECASE)
_ASKS_WHO_OR_WHICH = re.compile(r"\s*(?:who|whom|whose|which)\b", re.IGNORECASE)
_CITATION = re.compile(r"\s*\[\d+\]")
_SENTENCE = re.compile(r".*?(?:[.!?](?:\s*\[\d+\])*(?=\s|$)|$)", re.S)


def recent_turns(history: Sequence[tuple[str, str]]) -> Sequence[tuple[str, str]]:
    """The turns of `history` a follow-up question can refer back to."""
    return history[-FOLLOW_UP_TURNS:]


def standalone_question(question: str, history: Sequence[tuple[str, str]] = ()) -> str:
    """The text to search for `question`, given earlier (question, answer) turns."""
    phrase = only_a_phrase(question)
    if phrase and history:
        previous = standalone_question(history[-1][0], recent_turns(history)[:-1])
        return in_place_of_last_phrase(previous, phrase)
    questions = [question]
    for earlier, answer in reversed(recent_turns(history)):
        if not _REFERS_BACK.search(questions[0]):
            break
        named = first_sentence(answer) if _ASKS_WHO_OR_WHICH.match(earlier) else ""
        questions[:0] = [earlier, named]
    return " ".join(part for part in questions if part)


def with_previous(question: str, history: Sequence[tuple[str, str]]) -> str | None:
    """The follow-up `question` searched after the previous question of `history` (made
    standalone), when it was searched alone (it refers back by no pronoun or phrase);
    else None."""
    if not history or standalone_question(question, history) != question:
        return None
    previous = standalone_question(history[-1][0], recent_turns(history)[:-1])
    return f"{previous.rstrip()} {question}"


def only_a_phrase(question: str) -> str | None:
    """The phrase a follow-up such as "and at York?" or "what about cats" asks of, or None
    when the question asks something of its own ("And what does a return cost?")."""
    opening = _ELLIPSIS.match(question)
    if opening is None:
        return None
    phrase = question[opening.end():].strip().removesuffix("?").strip()
    return phrase if phrase and "?" not in phrase and not _QUESTION_WORD.match(phrase) else None


def in_place_of_last_phrase(question: str, phrase: str) -> str:
    """`question` asked of `phrase` instead: the phrase replaces the question's phrase after
    the same preposition ("at Ashcombe" for "at Brackenford"; one it lacks is added), its
    possessive ("Anna's" for "Ben's"), else its last phrase: the words after its last
    preposition, or from its last article on."""
    body = question.rstrip(" ?")
    preposition = _OPENS_WITH_PREPOSITION.match(phrase)
    if preposition:
        same = list(re.finditer(rf"\b{preposition.group()}\b", body, re.IGNORECASE))
        return f"{body[:same[-1].start()] if same else body + ' '}{phrase}?"
    if _POSSESSIVE.fullmatch(phrase.split()[0]) and _POSSESSIVE.search(body):
        return _POSSESSIVE.sub(lambda _: phrase, body, count=1) + "?"
    starts = list(_PHRASE_START.finditer(body))
    if not starts:
        return f"{body} {phrase}?"
    last = starts[-1]
    article = last.group().lower() in ("the", "a", "an")
    return f"{body[:last.start() if article else last.end()].rstrip()} {phrase}?"


def first_sentence(answer: str) -> str:
    """The first sentence of a cited answer, without its citation marks; "" for an
    answer that cites nothing (a refusal says nothing the question can refer to)."""
    if not _CITATION.search(answer):
        return ""
    return _CITATION.sub("", _SENTENCE.findall(answer.strip())[0]).strip()
