"""The JSON export of a web chat conversation: the one format the web chat writes (its
"Export as JSON") and `qa eval feedback` reads.

A conversation's title and dates, and its turns: each question, the answer as data
(`Answer.to_dict()`: text, found, citations…), when it was asked and, if the user marked
the answer wrong, the mark ("feedback": the answer expected, or that the documents do not
hold one). Exports written before a field existed still read: a missing title, date or
time reads as "", a missing answer text as "".
"""

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class WrongMark:
    """A "Wrong answer" mark on a turn: the answer the user expected ("" if not given), or
    that it should have said the documents do not hold one; when it was made."""

    correct: str = ""
    should_refuse: bool = False
    at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"wrong": True, "correct": self.correct, "should_refuse": self.should_refuse,
                "at": self.at}

    @classmethod
    def from_dict(cls, data: object) -> "WrongMark":
        kept = _object(data, "a turn's feedback")
        return cls(str(kept.get("correct") or ""), bool(kept.get("should_refuse")),
                   str(kept.get("at") or ""))


@dataclass(frozen=True, slots=True)
class ExportedTurn:
    """A question, its answer as data, when it was asked, and its mark if it has one."""

    question: str
    answer: dict[str, Any]
    asked_at: str = ""
    feedback: WrongMark | None = None

    @property
    def text(self) -> str:
        """The answer's text."""
        return str(self.answer.get("answer", ""))

    @property
    def found(self) -> bool:
        """Whether the answer was found in the documents (not a refusal)."""
        return bool(self.answer.get("found"))

    def to_dict(self) -> dict[str, Any]:
        mark = {"feedback": self.feedback.to_dict()} if self.feedback else {}
        return {"question": self.question, "asked_at": self.asked_at, "answer": self.answer,
                **mark}

    @classmethod
    def from_dict(cls, data: object) -> "ExportedTurn":
        kept = _object(data, "a turn")
        mark = kept.get("feedback")  # absent, null or {}: not marked
        return cls(str(kept["question"]), _object(kept["answer"], "a turn's answer"),
                   str(kept.get("asked_at") or ""), WrongMark.from_dict(mark) if mark else None)


@dataclass(frozen=True, slots=True)
class ChatExport:
    """A conversation as exported: its title, when it started and was last asked, its
    turns in order."""

    title: str
    created_at: str
    updated_at: str
    turns: tuple[ExportedTurn, ...]

    def to_json(self) -> str:
        return json.dumps({"title": self.title, "created_at": self.created_at,
                           "updated_at": self.updated_at,
                           "turns": [turn.to_dict() for turn in self.turns]},
                          ensure_ascii=False, indent=2)

    @classmethod
    def from_json(cls, text: str) -> "ChatExport":
        """ValueError, KeyError, TypeError or RecursionError for a text that is not one."""
        kept = _object(json.loads(text), "the file")
        return cls(str(kept.get("title") or ""), str(kept.get("created_at") or ""),
                   str(kept.get("updated_at") or ""),
                   tuple(ExportedTurn.from_dict(turn) for turn in kept["turns"]))


def _object(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} is not a JSON object")
    return value

