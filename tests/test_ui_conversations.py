"""Kept conversations: a real `qa serve` (restarted on the same port), a real browser, the
real model; and the store itself, for what one user may see of another's (no server, no
browser: in the quick loop).
"""

import json
import stat
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.helpers import ENV, QA, ROOT, copy_index, free_port, qa_serve
from tests.test_ui import ask, open_page
from ui import render
from ui.conversations import CONVERSATIONS, ConversationStore, new_id

ANSWER = {"question": "Who?", "answer": "Martinez resigned. [1]", "found": True, "citations": [
    {"n": 1, "source": "/docs/la.txt", "title": "LA news", "text": "Martinez resigned.",
     "quote": "Martinez resigned.", "start": 0, "end": 18, "page": 2, "score": 0.1,
     "similarity": 0.6}]}


@pytest.fixture
def index(tmp_path_factory, seed_index_path) -> Path:
    """A copy of the seed index per test: each counts the conversations it makes."""
    return copy_index(seed_index_path, tmp_path_factory.mktemp("conversations") / "index")


def listed(page) -> list[str]:
    return page.locator("#qa-conv-list .qa-conv-title").all_inner_texts()


def reopened(page) -> None:
    page.reload()
    page.wait_for_selector("#qa-chat .qa-sources", timeout=30_000)


@pytest.mark.process
@pytest.mark.browser
def test_a_conversation_and_an_ask_within_choice_survive_a_restart(browser, index, tmp_path):
    """One restart for both: a conversation goes on where it was (the history list, Undo),
    and another browser's conversation keeps the documents it asks within."""
    from tests.test_ui import SEED
    from tests.test_ui_collections import choose

    within = f"Ask within: {SEED}"
    port = free_port()
    with qa_serve(index, tmp_path / "serve.log", port=port) as (url, _):
        page = open_page(browser, url)
        assert listed(page) == []
        ask(page, "Who has resigned?")
        page.get_by_text("1 question").wait_for()
        reopened(page)
        assert page.locator("#qa-chat .qa-answer").count() == 1
        assert "resigned" in page.inner_text("#qa-chat .qa-answer")

        scoped = open_page(browser, url)  # another browser: a conversation of its own
        scoped.click("#qa-scope .label-wrap")
        choose(scoped, "qa-scope-documents", SEED)
        scoped.wait_for_function(
            "s => document.querySelector('#qa-scope').innerText.includes(s)", arg=within)
        ask(scoped, "Who is Mike Bonin?")
        scoped.reload()
        scoped.wait_for_selector("#qa-chat .qa-sources")
        expect(scoped.locator("#qa-scope .label-wrap")).to_contain_text(within)
    with qa_serve(index, tmp_path / "serve-again.log", port=port) as (url, _):
        reopened(page)
        assert page.locator("#qa-chat .qa-answer").count() == 1
        assert listed(page) == ["Who is Mike Bonin?", "Who has resigned?"]
        assert "Who has resigned?" in page.inner_text("#qa-chat")

        scoped.reload()
        scoped.wait_for_selector("#qa-chat .qa-sources", timeout=30_000)
        expect(scoped.locator("#qa-scope .label-wrap")).to_contain_text(within)
        scoped.click("#qa-scope .label-wrap")
        expect(scoped.locator("#qa-scope-documents")).to_contain_text(SEED)  # chosen, not named
        scoped.click("#qa-conv-new")  # another conversation: its own choice, none yet
        expect(scoped.locator("#qa-scope .label-wrap")).to_contain_text(
            "Ask within: all documents")
        scoped.locator("#qa-conv-list .qa-conv-open").first.click()  # back to the scoped one
        expect(scoped.locator("#qa-scope .label-wrap")).to_contain_text(within)
        scoped.context.close()

        # and the first conversation goes on where it was
        ask(page, "Where were protestors gathered?")
        reopened(page)
        assert page.locator("#qa-chat .qa-answer").count() == 2
        page.locator("#qa-chat button[aria-label=Undo]").click()  # takes back the last question
        page.wait_for_function("document.querySelectorAll('#qa-chat .qa-answer').length == 1")
        page.wait_for_timeout(1000)
        reopened(page)
        assert page.locator("#qa-chat .qa-answer").count() == 1
        page.context.close()


def test_an_answer_marked_wrong_is_kept_exported_and_asked_again(browser, index, tmp_path):
    with qa_serve(index, tmp_path / "serve.log") as (url, _):
        page = open_page(browser, url)
        ask(page, "Who has resigned?")
        page.locator("#qa-chat .qa-flag").last.click()
        form = page.locator("#qa-feedback form.qa-feedback")
        form.locator("textarea").fill("Cedillo")
        form.get_by_role("button", name="Mark as wrong").click()
        page.locator("#qa-feedback .qa-feedback-note").get_by_text("Marked as wrong").wait_for()
        assert page.locator("#qa-chat .qa-flag").last.inner_text() == "Marked wrong"
        page.get_by_text("1 question").wait_for()
        with page.expect_download() as download:
            page.locator("#qa-conv-list .qa-conv-json").first.click()
        export = tmp_path / "conversation.json"
        download.value.save_as(export)
        page.context.close()
    [turn] = json.loads(export.read_text())["turns"]
    assert turn["feedback"]["correct"] == "Cedillo" and not turn["feedback"]["should_refuse"]

    checked = subprocess.run([*QA, "eval", "feedback", "--index", str(index), str(export)],
                             cwd=ROOT, env=ENV, capture_output=True, text=True, check=True)
    lines = checked.stdout.splitlines()
    assert lines[0] == "SAME\tWho has resigned?"  # the index has not changed
    assert "expected:     “Cedillo” (not as expected)" in checked.stdout
    assert lines[-1] == "1 marked wrong: 0 now differ, 1 the same"


def test_history_list_renames_searches_exports_and_deletes_only_once_confirmed(
    browser, index, tmp_path
):
    with qa_serve(index, tmp_path / "serve.log") as (url, _):
        page = open_page(browser, url)
        ask(page, "Who has resigned?")  # a first conversation
        page.locator("#qa-conv-new").click()
        page.wait_for_function("!document.querySelector('#qa-chat .qa-answer')")
        ask(page, "Who is Mike Bonin?")
        page.get_by_text("Who is Mike Bonin?", exact=True).last.wait_for()
        assert len(listed(page)) == 2 and listed(page)[0] == "Who is Mike Bonin?"

        row = page.locator("#qa-conv-list .qa-conv", has_text="Mike Bonin")
        row.locator(".qa-conv-rename").click()
        row.get_by_role("textbox", name="New title for this conversation").fill(
            "Bonin and his son")
        page.keyboard.press("Enter")
        page.get_by_text("Bonin and his son").wait_for()

        page.fill("#qa-conv-search textarea", "resigned")
        page.wait_for_function("!document.querySelector('#qa-conv-list').innerText"
                               ".includes('Bonin and his son')")
        assert listed(page) == ["Who has resigned?"]
        page.fill("#qa-conv-search textarea", "")
        page.get_by_text("Bonin and his son").wait_for()

        row = page.locator("#qa-conv-list .qa-conv", has_text="Bonin and his son")
        with page.expect_download() as download:
            row.locator(".qa-conv-md").click()
        markdown = Path(download.value.path()).read_text()
        assert markdown.startswith("# Bonin and his son\n")
        assert "## Who is Mike Bonin?" in markdown
        assert "Sources:" in markdown and "000_8763795a8428a42a.txt" in markdown
        with page.expect_download() as download:
            row.locator(".qa-conv-json").click()
        kept = json.loads(Path(download.value.path()).read_text())
        assert kept["title"] == "Bonin and his son"
        assert kept["turns"][0]["answer"]["citations"][0]["quote"]

        page.once("dialog", lambda dialog: dialog.dismiss())
        row.locator(".qa-conv-delete").click()
        page.wait_for_timeout(1000)
        assert "Bonin and his son" in listed(page)
        page.once("dialog", lambda dialog: dialog.accept())
        row.locator(".qa-conv-delete").click()
        page.wait_for_function("!document.querySelector('#qa-conv-list').innerText"
                               ".includes('Bonin and his son')")
        assert listed(page) == ["Who has resigned?"]
        assert page.locator("#qa-chat .qa-answer").count() == 0  # it was the open one
        page.context.close()
    mode = stat.S_IMODE((index / CONVERSATIONS).stat().st_mode)
    assert mode == 0o600, oct(mode)


def test_no_user_sees_or_changes_another_users_conversations(tmp_path):
    store = ConversationStore(tmp_path)
    mine, theirs = new_id(), new_id()
    store.add_turn("ann", mine, 0, "Who resigned?", "<div>shown</div>", ANSWER)
    store.add_turn("bob", theirs, 0, "What is it?", "<div>other</div>", ANSWER)
    assert [c.id for c in store.conversations("ann")] == [mine]
    assert store.turns("bob", mine) == [] and store.conversations("bob", "who resigned") == []
    store.rename("bob", mine, "taken")
    store.delete("bob", mine)
    store.add_turn("bob", mine, 0, "Appended?", "<div>x</div>", ANSWER)  # bob's own, apart
    assert [t.question for t in store.turns("ann", mine)] == ["Who resigned?"]
    assert store.conversations("ann")[0].title == "Who resigned?"
    assert store.conversations("", "") == []  # nor does a page without a login


def test_markdown_export_cites_title_file_page_and_quote(tmp_path):
    from ui.conversations import as_markdown

    store = ConversationStore(tmp_path)
    conversation = new_id()
    store.add_turn("", conversation, 0, "Who?", "<div>shown</div>", ANSWER)
    markdown = as_markdown(store.conversation("", conversation), store.turns("", conversation),
                           lambda cited: render.place(cited["source"], cited["page"], None, 0))
    assert "## Who?\n\nMartinez resigned. [1]\n" in markdown
    assert "- [1] LA news (la.txt, page 2): “Martinez resigned.”" in markdown


def test_retry_replaces_and_undo_drops_the_last_turns(tmp_path):
    store = ConversationStore(tmp_path)
    conversation = new_id()
    for position, question in enumerate(["First?", "Second?", "Third?"]):
        store.add_turn("", conversation, position, question, "<div>a</div>", ANSWER)
    store.add_turn("", conversation, 1, "Second again?", "<div>b</div>", ANSWER)
    assert [t.question for t in store.turns("", conversation)] == ["First?", "Second again?"]
    store.truncate("", conversation, 1)  # Undo
    assert [t.question for t in store.turns("", conversation)] == ["First?"]


def test_a_mark_is_the_users_own_goes_with_its_turn_and_a_changed_answer_differs(
    tmp_path, seed_index_path
):
    from ui.conversations import as_json, as_markdown

    store = ConversationStore(tmp_path)
    mine = new_id()
    stale = {**ANSWER, "answer": "Nobody has resigned.", "found": True}
    store.add_turn("ann", mine, 0, "Who has resigned?", "<div>shown</div>", stale)
    store.add_turn("ann", mine, 1, "Who else?", "<div>shown</div>", ANSWER)
    assert not store.flag("bob", mine, 0, "Martinez", False)  # not bob's
    assert not store.flag("ann", mine, 5, "", True)  # no such turn
    assert store.flag("ann", mine, 0, "Martinez and Herrera", False)
    store.flag("ann", mine, 1, "", True)
    store.truncate("ann", mine, 1)  # the chat's Undo takes the second turn, and its mark
    turns = store.turns("ann", mine)
    assert [t.feedback is not None for t in turns] == [True]
    conversation = store.conversation("ann", mine)
    assert "Marked wrong: Martinez and Herrera." in as_markdown(conversation, turns,
                                                                lambda cited: "")
    export = tmp_path / "export.json"
    export.write_text(as_json(conversation, turns))

    checked = subprocess.run([*QA, "eval", "feedback", "--index", str(seed_index_path),
                              str(export)], cwd=ROOT, env=ENV, capture_output=True, text=True,
                             check=True)
    assert checked.stdout.splitlines()[0] == "DIFFERS\tWho has resigned?"
    assert "“Martinez and Herrera” (as expected)" in checked.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    refused = subprocess.run([*QA, "eval", "feedback", "--index", str(seed_index_path),
                              str(bad)], cwd=ROOT, env=ENV, capture_output=True, text=True)
    assert refused.returncode != 0 and "not a conversation exported as JSON" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_eval_feedback_judges_what_an_answer_says_not_the_row_it_quotes():
    from dataclasses import replace

    from qa import Answer, Citation, Hit
    from qa.chat_export import WrongMark
    from qa.feedback import Flagged, Rechecked, opening

    row = "Offices: City: Lyon; Count: 41."
    hit = Hit(1, 1, "/docs/offices.csv", "", row, 0, len(row), None, 0.1, 0.5)
    says_one = Answer("How many offices are in Lyon?", f"1. {row} [1]", True,
                      (Citation(1, hit, row, 0, len(row)),))
    flagged = Flagged(says_one.question, "3. [1]", True, WrongMark("41"))

    def judged(answer: Answer) -> bool | None:
        return Rechecked(flagged, answer.text, True, said=opening(answer)).as_expected

    assert judged(says_one) is False  # its quoted row holds 41; it says 1
    assert judged(replace(says_one, text=f"41. {row} [1]")) is True
    assert judged(replace(says_one, text=f"{row} [1]")) is True  # a quote is all it says
    assert judged(replace(says_one, text=f"141. {row} [1]")) is False  # not the word 41
