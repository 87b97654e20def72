"""Conversation: turn a follow-up question into one that can be searched on its own.

Without a language model this is a plain rule: a question that refers back
with a pronoun ("How old is his son?") is searched together with the previous
question of the conversation ("Who is Mike Bonin?"), itself made standalone
the same way, and, when that question asked for something ("Which...") or for someone
("Who...") the pronoun stands for ("his", not "it"), with the first sentence of its
answer, which names them ("Who leads the Dispatch team?" "Bartosz Nowak leads it."), less
its values (words with a digit or an "@"): a contact's row answering "Who is...?" holds
the phone number "and her phone number?" asks for, and a question holding a value is not
answered by it. "Who ran the audit?" "What grade did it give?" is not searched by the
auditor's name. The follow-up comes first, the turns it refers to after it: the kind of
answer wanted is read from a question's opening ("How old...?" wants a number, not the
name "Who...?" wanted). A question that stands on its own is searched as it is, so a
change of subject is not dragged back.

A follow-up that opens with "and", "also" or "what about" and says only a phrase ("and at
the other site?", "what about cats", "and Anna's?") asks the previous question again of
something else: that phrase takes the place of the previous question's phrase of the
same form (after the same preposition, or its possessive), else of its last phrase
(from its last preposition or article): "How much is it for a dog?" "What about cats?"
is searched as "How much is it for cats?".
A follow-up that names nothing of what it refers to ("can I carry some over?" after "How
many days of leave do I get?") is searched on its own first; when the documents do not
answer it so, it is searched again after the previous question (`with_previous`).
"The other site" (or office, branch...) is the other of two that the previous question
named one of: `the_other_named` finds which, the other value of a table's column of two
("What are the hours at Kettlebrook?" "And at the other site?": at Alderwick Hub).
Only the last FOLLOW_UP_TURNS turns are looked at, however long the conversation.
"""

import re
from collections.abc import Callable, Sequence

from qa.stemming import index_term
from qa.words import MONTHS, PRONOUNS, STOPWORDS, WEEKDAYS, WORD, any_of

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
_ASKS_WHO = re.compile(r"\s*(?:who|whom|whose)\b", re.IGNORECASE)
_ASKS_WHICH = re.compile(r"\s*which\b", re.IGNORECASE)
# the pronouns that stand for a person (or a firm: "they"), never for a thing ("it")
_PERSONAL = re.compile(any_of(("he", "him", "his", "she", "her", "hers", "they", "them",
                               "their", "theirs")), re.IGNORECASE)
# a name: words that open with a capital (no day or month) and the numbers or letters
# after them ("Ashcombe House", "Grade 1", "Category A ASB")
_NAME = re.compile(rf"\b(?!(?i:{WEEKDAYS}s?|{MONTHS}|i)\b)[A-Z][\w'-]*"
                   rf"(?:\s+(?:[A-Z][\w'-]*|\d+)\b)*")
_ARTICLE = re.compile(r"^(?:the|an?)\s+", re.IGNORECASE)
# prepositions of a place or time, one for another ("at the weekend" for "on weekdays");
# a phrase is parted at them ("at York on the Friday"), not at "of" ("at the end of May")
_KIN = ("at", "on", "in", "during")
_NEXT_PREPOSITION = re.compile(rf"\s+{_PREPOSITION}\b", re.IGNORECASE)
_SUBJECTS = ("i", "we", "you", "they", "he", "she", "it")
_CITATION = re.compile(r"\s*\[\d+\]")
_VALUE = re.compile(r"[^\s;,]*[\d@][^\s;,]*")  # "01632 960415", "helen.marsh@example.org"
_THE_OTHER = re.compile(r"\bthe other (?:one|[a-z]+(?<!s))\b", re.IGNORECASE)
_POSSESSIVE_END = re.compile(r"['’]s$")
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
        names = _ASKS_WHICH.match(earlier) or (
            _ASKS_WHO.match(earlier) and _PERSONAL.search(questions[0]))
        named = " ".join(_VALUE.sub("", first_sentence(answer)).split()) if names else ""
        questions[:0] = [earlier, named]
    return " ".join(part for part in questions[-1:] + questions[:-1] if part)


def the_other_named(question: str, history: Sequence[tuple[str, str]],
                    other_of: Callable[[str], list[tuple[str, str]]]) -> str | None:
    """The follow-up `question` about "the other <thing>" made standalone with the other
    of two that the previous question names one of (`other_of(name)`: pairs of the
    thing named, as the documents write it, and the other): a phrase ("and at the other
    site?") asks the previous question of it, the longest thing named that the question
    says whole in place ("the Wrenford studio": "the Kettleby Market office"), else its
    name; a question of its own has it in place of "the other site". None when it says no
    "the other", or no name of the previous question has one other."""
    found = _THE_OTHER.search(question)
    if found is None or not history:
        return None
    previous = standalone_question(history[-1][0], recent_turns(history)[:-1])
    for match in _NAME.finditer(previous, 1):
        name = _POSSESSIVE_END.sub("", match.group())
        pairs = other_of(name)
        if not pairs:
            continue
        shortest = min((other for _, other in pairs), key=len)
        if not only_a_phrase(question):
            return f"{question[:found.start()]}{shortest}{question[found.end():]}"
        said, other = max(((named, other) for named, other in pairs
                           if previous[match.start():].lower().startswith(named.lower())),
                          key=lambda pair: len(pair[0]), default=(name, shortest))
        return f"{previous[:match.start()]}{other}{previous[match.start() + len(said):]}"
    return None


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
    when the question asks something of its own ("And what does a return cost?") or of
    what it refers back to ("and his e-mail?")."""
    opening = _ELLIPSIS.match(question)
    if opening is None:
        return None
    phrase = question[opening.end():].strip().removesuffix("?").strip()
    asks = phrase and "?" not in phrase and not _QUESTION_WORD.match(phrase)
    return phrase if asks and not _REFERS_BACK.search(phrase) else None


def in_place_of_last_phrase(question: str, phrase: str) -> str:
    """`question` asked of `phrase` instead. A phrase of prepositions ("at York on the
    Thursday") puts each of its parts in place of the question's part after the same
    preposition, or one of the same sense ("at the weekend" for "on weekdays"; one it
    lacks is added). Else the phrase takes the place of the question's name when both
    name something ("the York office" for "Leeds"), of the words ending in its own last
    word ("family files" for "conveyancing files"), of its possessive ("Anna's" for
    "Ben's"), else of its last phrase: the words after its last preposition, or from its
    last article on."""
    body = question.rstrip(" ?")
    if _OPENS_WITH_PREPOSITION.match(phrase):
        for part in re.split(rf"\s+(?={any_of(_KIN)})", phrase, flags=re.IGNORECASE):
            body = in_place_of_part(body, part)
        return f"{body}?"
    span = _named_span(body, phrase) or _span_ending_alike(body, phrase)
    if span:
        own = _ARTICLE.sub("", phrase) if _NAME.search(phrase) else phrase
        return f"{body[:span[0]]}{own}{body[span[1]:]}?"
    if _POSSESSIVE.fullmatch(phrase.split()[0]) and _POSSESSIVE.search(body):
        return _POSSESSIVE.sub(lambda _: phrase, body, count=1) + "?"
    starts = list(_PHRASE_START.finditer(body))
    if not starts:
        return f"{body} {phrase}?"
    last = starts[-1]
    article = last.group().lower() in ("the", "a", "an")
    return f"{body[:last.start() if article else last.end()].rstrip()} {phrase}?"


def in_place_of_part(body: str, part: str) -> str:
    """`body` with `part` ("at York") in place of its part after the same preposition, or
    one of the same sense, up to its next preposition; `part` added when it has none."""
    preposition = part.split()[0].lower()
    kin = _KIN if preposition in _KIN else (preposition,)
    for words in ((preposition,), kin):
        found = list(re.finditer(any_of(words), body, re.IGNORECASE))
        if found:
            start = found[-1].start()
            after = _NEXT_PREPOSITION.search(body, found[-1].end())
            end = after.start() if after else len(body)
            return f"{body[:start]}{part}{body[end:]}"
    return f"{body} {part}"


def _named_span(body: str, phrase: str) -> tuple[int, int] | None:
    """Where `body` names what `phrase` names instead ("Leeds" for "the York office", "Leeds
    depot" for "the York depot"): its last name after its first word, when the phrase
    names something."""
    names = [name.span() for name in _NAME.finditer(body, 1)] if _NAME.search(phrase) else []
    last = WORD.findall(phrase)[-1]
    for start, end in reversed(names):  # "the York depot" for "Leeds depot": the word too
        after = WORD.match(body, end + 1)
        if after and last.islower() and index_term(after.group()) == index_term(last):
            return start, after.end()
    return names[-1] if names else None


def _span_ending_alike(body: str, phrase: str) -> tuple[int, int] | None:
    """Where `body` says a thing of the same kind as a phrase of several words: its words
    that end in the phrase's last word ("residential conveyancing files" for "family
    files"), from the last word that is no stop word nor the verb after a subject ("keep"
    in "do we keep ...")."""
    words = WORD.findall(phrase)
    if len(words) < 2:
        return None
    own = list(WORD.finditer(body))
    ends = [i for i, word in enumerate(own) if index_term(word.group()) == index_term(words[-1])]
    if not ends:
        return None
    start = ends[-1]
    while (start > 0 and own[start - 1].group().lower() not in STOPWORDS
           and (start < 2 or own[start - 2].group().lower() not in _SUBJECTS)):
        start -= 1
    return own[start].start(), own[ends[-1]].end()


def first_sentence(answer: str) -> str:
    """The first sentence of a cited answer, without its citation marks; "" for an
    answer that cites nothing (a refusal says nothing the question can refer to)."""
    if not _CITATION.search(answer):
        return ""
    return _CITATION.sub("", _SENTENCE.findall(answer.strip())[0]).strip()
