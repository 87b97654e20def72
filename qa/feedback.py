"""Feedback: the answers users marked wrong, asked again.

The web chat keeps a "Wrong answer" mark with its conversation (with the answer the user
expected, or that the documents do not hold one), and writes it into the conversation's
JSON export, beside each turn's question and answer (the format: `qa.chat_export`).
`qa eval feedback FILE...` reads such exports, asks each marked question again of the
index (after the turns before it, so that a follow-up is read as one) and says which
answers now differ from the one marked wrong, and whether the new one says the expected
answer (in its opening, the value or verdict it leads with, when it has one: not in a
quote it cites) or refuses as it should: users' corrections become a test set that stays
on the machine.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from qa.answering.results import Answer
from qa.chat_export import ChatExport, WrongMark
from qa.errors import QAError, printable
from qa.index import Index, clean_question

SHOWN_CHARS = 200  # of a question not asked again, shown in its line


@dataclass(frozen=True, slots=True)
class Flagged:
    """A question whose answer was marked wrong: the answer then, the mark (what was
    expected), and the (question, answer) turns before it."""

    question: str
    answer: str
    found: bool
    mark: WrongMark
    before: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Rechecked:
    """A flagged question asked again: the answer now, and whether it is better; or why
    it was not asked again (`refused`: it is empty, or over the length a question may
    have)."""

    flagged: Flagged
    answer: str
    found: bool
    said: str = ""  # what the answer says (`opening`); "" for its whole text
    refused: str = ""

    @property
    def differs(self) -> bool:
        return (self.answer.strip(), self.found) != (self.flagged.answer.strip(),
                                                     self.flagged.found)

    @property
    def as_expected(self) -> bool | None:
        """Whether the answer now refuses as it should, or says the expected answer (its
        words, whole, in what it says: case and spacing aside); None when nothing was
        expected."""
        mark = self.flagged.mark
        if mark.should_refuse:
            return not self.found
        if mark.correct:
            expected = rf"(?<!\w){re.escape(_plain(mark.correct))}(?!\w)"
            return re.search(expected, _plain(self.said or self.answer)) is not None
        return None


def read_flagged(paths: Iterable[str | Path]) -> list[Flagged]:
    """The marked turns of conversation exports (the web chat's JSON); QAError with one
    line for a file that is not one."""
    flagged = []
    for path in paths:
        try:
            turns = ChatExport.from_json(Path(path).read_text(encoding="utf-8")).turns
        except OSError as error:
            raise QAError(f"{path}: cannot be read ({error.strerror})") from error
        except (ValueError, KeyError, TypeError, RecursionError) as error:
            raise QAError(f"{path}: not a conversation exported as JSON from the web chat "
                          f"({type(error).__name__}: {error})") from error
        before: list[tuple[str, str]] = []
        for turn in turns:
            if turn.feedback:
                flagged.append(Flagged(turn.question, turn.text, turn.found, turn.feedback,
                                       tuple(before)))
            before.append((turn.question, turn.text))
    return flagged


def recheck(index: Index, flagged: Iterable[Flagged]) -> list[Rechecked]:
    """Ask each flagged question again, after the turns that came before it; one that
    no question may be (empty, too long) is passed over, with the reason."""
    results = []
    for item in flagged:
        try:
            clean_question(item.question)
        except QAError as refused:
            results.append(Rechecked(item, "", False, refused=str(refused)))
            continue
        answer = index.ask(item.question, history=list(item.before))
        results.append(Rechecked(item, answer.text, answer.found, said=opening(answer)))
    return results


def opening(answer: Answer) -> str:
    """What an answer says: the words before its first quote (the value, the verdict, the
    figure computed, which its quotes only support), or its whole text when it opens with
    a quote or quotes nothing (a model's answer)."""
    quotes = [" ".join(c.quote.split()) for c in answer.citations if c.quote.strip()]
    first = answer.text.find(quotes[0]) if quotes else -1
    return answer.text[:first] if first > 0 else answer.text


def report(results: list[Rechecked]) -> str:
    """What each flagged question gets now, the ones that differ first marked so, those
    not asked again SKIPPED; what came from the files is shown escaped, a line each (a
    lone surrogate or a newline as \\udc00, \\n)."""
    lines = []
    asked = [result for result in results if not result.refused]
    for result in results:
        flagged = result.flagged
        if result.refused:
            shown = printable(flagged.question[:SHOWN_CHARS])
            lines += [f"SKIPPED\t{shown}{'…' if len(flagged.question) > SHOWN_CHARS else ''}",
                      f"  not asked again: {result.refused}"]
            continue
        mark = flagged.mark
        expected = ("a refusal" if mark.should_refuse
                    else f"“{printable(mark.correct)}”" if mark.correct else "")
        verdict = {True: "as expected", False: "not as expected", None: ""}[result.as_expected]
        lines += [f"{'DIFFERS' if result.differs else 'SAME'}\t{printable(flagged.question)}",
                  f"  marked wrong: {printable(flagged.answer)}",
                  f"  now:          {result.answer}"]
        if expected:
            lines.append(f"  expected:     {expected} ({verdict})")
    differ = sum(result.differs for result in asked)
    skipped = len(results) - len(asked)
    lines.append(f"{len(results)} marked wrong: {differ} now differ, {len(asked) - differ} the "
                 f"same" + (f", {skipped} not asked again" if skipped else ""))
    return "\n".join(lines)


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())
