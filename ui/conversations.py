"""Kept conversations: every question asked in the web chat and the answer shown, on the server.

One SQLite file in the index folder (CONVERSATIONS), readable and writable by its owner
only (0600). A conversation is keyed by the user logged in (`--auth`; "" without it) and
a random id the browser keeps: every query names the user, so no user reads, renames,
deletes or exports another's conversation. Also owned here: the "Ask within" choice of
each conversation (kept apart from its turns: it is chosen before the first question),
the answers a user marked wrong (with the answer they expected, or that the documents
do not hold one: `qa eval feedback` asks them again from the JSON export), and the
exports, as Markdown (with each answer's citations) and as JSON.
"""

import json
import os
import re
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from qa.chat_export import ChatExport, ExportedTurn, WrongMark

CONVERSATIONS = "conversations.sqlite3"
TITLE_CHARS = 80  # of the first question used as a conversation's title; of a new title
MAX_CORRECT_CHARS = 4000  # of the answer a user says was right
_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    user TEXT NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    PRIMARY KEY (user, id));
CREATE TABLE IF NOT EXISTS turns (
    user TEXT NOT NULL, conversation TEXT NOT NULL, position INTEGER NOT NULL,
    question TEXT NOT NULL, shown TEXT NOT NULL, answer TEXT NOT NULL, asked_at TEXT NOT NULL,
    PRIMARY KEY (user, conversation, position),
    FOREIGN KEY (user, conversation) REFERENCES conversations (user, id) ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS feedback (
    user TEXT NOT NULL, conversation TEXT NOT NULL, position INTEGER NOT NULL,
    correct TEXT NOT NULL, should_refuse INTEGER NOT NULL, flagged_at TEXT NOT NULL,
    PRIMARY KEY (user, conversation, position),
    FOREIGN KEY (user, conversation, position) REFERENCES turns (user, conversation, position)
        ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS scopes (
    user TEXT NOT NULL, conversation TEXT NOT NULL, scope TEXT NOT NULL,
    PRIMARY KEY (user, conversation));
"""


@dataclass(frozen=True, slots=True)
class Turn:
    """A question, the answer's HTML as the chat showed it, and the answer as data
    (`qa.Answer.to_dict()`: text, found, citations…)."""

    question: str
    shown: str
    answer: dict[str, Any]
    asked_at: str
    feedback: WrongMark | None = None


@dataclass(frozen=True, slots=True)
class Conversation:
    """A kept conversation as the history list shows it."""

    id: str
    title: str
    created_at: str
    updated_at: str
    questions: int


def new_id() -> str:
    """A fresh conversation id: random, so it cannot be guessed."""
    return secrets.token_urlsafe(18)


def is_id(value: object) -> bool:
    """Whether a value sent by a browser has the form of a conversation id."""
    return isinstance(value, str) and _ID.fullmatch(value) is not None


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ConversationStore:
    """The conversations of every user of one index; safe to use from many threads
    (a connection per call)."""

    def __init__(self, index_dir: Path) -> None:
        self.path = index_dir / CONVERSATIONS
        fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        os.close(fd)
        os.chmod(self.path, 0o600)  # also when an older file was more open
        with self._db() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            db.execute("PRAGMA foreign_keys = ON")
            with db:
                yield db
        finally:
            db.close()

    def secret(self, name: str) -> str:
        """A random value made once and kept (the key of the browser's stored id)."""
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO secrets VALUES (?, ?)",
                       (name, secrets.token_urlsafe(24)))
            return db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()[0]

    def add_turn(self, user: str, conversation: str, position: int, question: str, shown: str,
                 answer: dict[str, Any]) -> None:
        """Keep a question and its answer as turn `position` (from 0) of a conversation
        (made if new, titled by its first question); the turns from there on are replaced,
        as when the chat's Retry asks the last question again."""
        asked = now()
        with self._db() as db:
            db.execute(
                "INSERT INTO conversations VALUES (?, ?, ?, ?, ?) ON CONFLICT (user, id) "
                "DO UPDATE SET updated_at = excluded.updated_at",
                (user, conversation, short_title(question), asked, asked),
            )
            _drop_turns(db, user, conversation, position)
            db.execute(
                "INSERT INTO turns SELECT ?, ?, coalesce(max(position), -1) + 1, ?, ?, ?, ? "
                "FROM turns WHERE user = ? AND conversation = ?",
                (user, conversation, question, shown, json.dumps(answer), asked,
                 user, conversation),
            )

    def truncate(self, user: str, conversation: str, turns: int) -> None:
        """Keep only a conversation's first `turns` turns (the chat's Undo)."""
        with self._db() as db:
            _drop_turns(db, user, conversation, turns)

    def turns(self, user: str, conversation: str) -> list[Turn]:
        """A conversation's turns, in order ([] for an id this user does not have)."""
        with self._db() as db:
            rows = db.execute(
                "SELECT t.question, t.shown, t.answer, t.asked_at, f.correct, f.should_refuse, "
                "f.flagged_at FROM turns t LEFT JOIN feedback f ON f.user = t.user AND "
                "f.conversation = t.conversation AND f.position = t.position "
                "WHERE t.user = ? AND t.conversation = ? ORDER BY t.position",
                (user, conversation),
            ).fetchall()
        return [Turn(q, shown, json.loads(answer), asked,
                     None if at is None else WrongMark(correct, bool(refuse), at))
                for q, shown, answer, asked, correct, refuse, at in rows]

    def flag(self, user: str, conversation: str, position: int, correct: str,
             should_refuse: bool) -> bool:
        """Mark turn `position` (from 0) wrong, with the answer expected ("" if not given) or
        that it should have said the documents do not hold one; False if there is no such
        turn."""
        with self._db() as db:
            cursor = db.execute(
                "INSERT OR REPLACE INTO feedback SELECT user, conversation, position, ?, ?, ? "
                "FROM turns WHERE user = ? AND conversation = ? AND position = ?",
                (correct.strip()[:MAX_CORRECT_CHARS], int(should_refuse), now(), user,
                 conversation, position))
            return cursor.rowcount > 0

    def conversations(self, user: str, search: str = "") -> list[Conversation]:
        """A user's conversations, latest first; with `search`, those whose title or any
        question or answer holds it (case-insensitive)."""
        query = (
            "SELECT c.id, c.title, c.created_at, c.updated_at, count(t.position) "
            "FROM conversations c JOIN turns t ON t.user = c.user AND t.conversation = c.id "
            "WHERE c.user = ? GROUP BY c.id "
        )
        parameters: tuple = (user,)
        if search.strip():
            query += (
                "HAVING instr(lower(c.title), lower(?)) OR max(instr(lower(t.question), lower(?)))"
                " OR max(instr(lower(json_extract(t.answer, '$.answer')), lower(?))) "
            )
            parameters += (search.strip(),) * 3
        with self._db() as db:
            rows = db.execute(query + "ORDER BY c.updated_at DESC, c.rowid DESC",
                              parameters).fetchall()
        return [Conversation(*row) for row in rows]

    def conversation(self, user: str, conversation: str) -> Conversation | None:
        return next((c for c in self.conversations(user) if c.id == conversation), None)

    def rename(self, user: str, conversation: str, title: str) -> None:
        """Give a conversation a new title (blank titles are ignored)."""
        title = " ".join(title.split())[:TITLE_CHARS]
        if title:
            with self._db() as db:
                db.execute("UPDATE conversations SET title = ? WHERE user = ? AND id = ?",
                           (title, user, conversation))

    def delete(self, user: str, conversation: str) -> None:
        with self._db() as db:
            db.execute("DELETE FROM conversations WHERE user = ? AND id = ?", (user, conversation))
            db.execute("DELETE FROM scopes WHERE user = ? AND conversation = ?",
                       (user, conversation))

    def set_scope(self, user: str, conversation: str, collections: list[str],
                  documents: list[str]) -> None:
        """Keep the collections and documents a conversation asks within."""
        scope = json.dumps({"collections": collections, "documents": documents})
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO scopes VALUES (?, ?, ?)",
                       (user, conversation, scope))

    def scope(self, user: str, conversation: str) -> tuple[list[str], list[str]]:
        """The (collections, documents) a conversation asks within; none kept: ([], [])."""
        with self._db() as db:
            row = db.execute("SELECT scope FROM scopes WHERE user = ? AND conversation = ?",
                             (user, conversation)).fetchone()
        kept = json.loads(row[0]) if row else {}
        return list(kept.get("collections", [])), list(kept.get("documents", []))


def _drop_turns(db: sqlite3.Connection, user: str, conversation: str, start: int) -> None:
    db.execute("DELETE FROM turns WHERE user = ? AND conversation = ? AND position >= ?",
               (user, conversation, start))


def short_title(question: str) -> str:
    """A question as a title: on one line, cut at a word to TITLE_CHARS."""
    title = " ".join(question.split())
    if len(title) <= TITLE_CHARS:
        return title
    return title[:TITLE_CHARS].rsplit(" ", 1)[0] + "…"


def as_markdown(conversation: Conversation, turns: list[Turn],
                place: Callable[[dict], str]) -> str:
    """A conversation as Markdown: each question, its answer, and the sources it cites
    (title, file, where as `place` says it of a citation, and the quoted sentence)."""
    lines = [f"# {conversation.title}", "", f"Started {conversation.created_at}, "
             f"last question {conversation.updated_at}.", ""]
    for turn in turns:
        lines += [f"## {turn.question}", "", turn.answer.get("answer", ""), ""]
        if turn.feedback:
            expected = ("it should have said the documents do not hold the answer"
                        if turn.feedback.should_refuse else turn.feedback.correct)
            lines += [f"Marked wrong{': ' + expected if expected else ''}.", ""]
        cited: dict[int, list[dict]] = {}
        for citation in turn.answer.get("citations", []):
            cited.setdefault(citation["n"], []).append(citation)
        if cited:
            lines += ["Sources:", ""]
        for n, group in cited.items():
            first = group[0]
            where = ", ".join(p for p in (Path(first["source"]).name, place(first)) if p)
            name = f"{first['title']} ({where})" if first["title"] else where
            quotes = " … ".join(f"“{c['quote'].strip()}”" for c in group)
            lines.append(f"- [{n}] {name}: {quotes}")
        lines.append("")
    return "\n".join(lines)


def as_json(conversation: Conversation, turns: list[Turn]) -> str:
    """A conversation as JSON (`ChatExport`, the file `qa eval feedback` reads): its title
    and dates, and each turn's question and answer with citations (as `/ask` returns them)
    and, if it was marked wrong, its mark."""
    return ChatExport(conversation.title, conversation.created_at, conversation.updated_at,
                      tuple(ExportedTurn(t.question, t.answer, t.asked_at, t.feedback)
                            for t in turns)).to_json()
