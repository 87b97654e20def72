"""The web chat without a server: escaping, source cards, uploads, history, app wiring."""

import html
import re

import pytest

from qa import Citation, Hit, QAError
from ui import render, uploads
from ui.app import NOT_HISTORY, build_app, exposure_warning, history_pairs
from ui.conversations import new_id

DOC = "Intro line.\nThe council met. Martinez and Herrera have since resigned. More text follows."
PASSAGE_START = DOC.index("The council")
PASSAGE = DOC[PASSAGE_START:]
QUOTE = "Martinez and Herrera have since resigned."


def visible(markup: str) -> str:
    """Roughly what a browser shows for markup: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", markup.replace("<br>", "\n")))


def citation(n: int = 1, quote: str = QUOTE, page: int | None = None) -> Citation:
    hit = Hit(1, 7, "/docs/la.txt", "LA", PASSAGE, PASSAGE_START, len(DOC), page, 0.03, 0.61)
    start = DOC.index(quote)
    return Citation(n, hit, quote, start, start + len(quote))


def test_escape_leaves_no_markup_but_shows_every_character():
    payload = '<script>window.x=1</script> <img src=x onerror="alert(1)"> **b** $$x$$ [1](y) &amp;'
    escaped = render.escape(payload)
    assert not re.search(r"[<>\"'&*\[\]$]", escaped.replace("&#", ""))
    assert html.unescape(escaped) == payload


def test_escape_turns_newlines_into_breaks():
    assert render.escape("a\nb\r\nc") == "a<br>b<br>c"


def test_answer_marks_citations_and_escapes_text():
    markup = render.answer_html("Quoted <b>text</b> [1] and more [2]")
    assert markup.count('class="qa-cite"') == 2
    assert visible(markup) == "Quoted <b>text</b> [1] and more [2]"
    assert "<b>" not in markup


def test_not_found_answer_is_marked_as_such():
    assert "qa-notfound" in render.answer_html("The documents do not say.", found=False)


def test_source_card_leads_with_the_title_then_file_and_page_and_highlights_the_quote():
    markup = render.sources_html([citation(page=3)], lambda source: DOC)
    head = visible(re.search(r'<div class="qa-source-head">(.*?)</div>', markup).group(1))
    assert head == "1LAla.txt · page 3"
    assert "relevance" not in markup and "0.61" not in markup  # a score no reader can use
    marks = re.findall(r'<mark class="qa-quote">(.*?)</mark>', markup)
    assert [visible(m) for m in marks] == [QUOTE, QUOTE]  # in the passage and in its context


def test_context_shows_the_text_around_the_passage():
    markup = render.sources_html([citation()], lambda source: DOC)
    context = markup[markup.index('<details class="qa-context">') :]
    assert "Intro line." in visible(context) and "The council met." in visible(context)


def test_long_passages_are_cut_around_their_quote_and_shown_whole_in_context():
    text = " ".join(f"filler{i}" for i in range(200)) + " " + QUOTE + " " + "tail " * 200
    hit = Hit(1, 1, "/docs/long.txt", "", text, 0, len(text), None, 0.02, 0.5)
    start = text.index(QUOTE)
    cited = Citation(1, hit, QUOTE, start, start + len(QUOTE))
    markup = render.sources_html([cited], lambda source: text)
    excerpt = visible(re.search(r'<div class="qa-passage">(.*?)</div>', markup).group(1))
    assert excerpt.startswith("…filler") and excerpt.endswith("tail…")
    assert QUOTE in excerpt and len(excerpt) < 2 * render.EXCERPT_CHARS + len(QUOTE) + 30
    context = visible(markup[markup.index("<details") :])
    assert "filler0 " in context and context.count("tail") == 200


def test_context_is_left_out_when_the_document_text_is_unknown():
    assert "qa-context" not in render.sources_html([citation()], lambda source: None)


def test_two_quotes_from_one_passage_share_one_card():
    markup = render.sources_html([citation(), citation(quote="The council met.")], lambda s: None)
    assert markup.count('class="qa-source"') == 1
    assert markup.count("<mark") == 2


def test_no_citations_means_no_sources_section():
    assert render.sources_html([], lambda source: DOC) == ""


def test_documents_list_shows_title_folder_and_name_escaped():
    class Info:
        path, title, chunks, indexed_at = "/d/<b>/<img src=x>.md", "<i>t</i>", 3, "2024-05-01T10:00"

    markup = render.documents_html([Info()], lambda d: d.title)
    assert "<img" not in markup and "<i>" not in markup and "<b>" not in markup
    shown = visible(markup)
    assert "<i>t</i>" in shown and "<img src=x>.md · /d/<b>" in shown
    assert "3 passages · indexed 1 May 10:00" in shown
    assert html.unescape(re.search(r'data-path="([^"]*)"', markup).group(1)) == Info.path


def test_a_preview_shows_the_start_of_the_text_and_how_much_more_there_is():
    class Info:
        path, title, chunks, indexed_at = "/d/long.txt", "", 9, "2024-05-01T10:00:00"

    text = "<script>x</script> " + "word " * 1000
    shown = visible(render.preview_html(Info(), "Long", text))
    assert shown.startswith("Long/d/long.txt<script>x</script> word")
    assert f"… {len(text) - render.PREVIEW_CHARS:,} more characters" in shown


def test_documents_without_a_title_are_named_by_their_first_line(chat, seed_index):
    (seed,) = seed_index.documents()
    assert chat.label(seed) == (
        "Los Angeles City Councilmember Kevin de León told CBS Los Angeles on…"
    )
    listing, examples = chat.documents()
    assert examples["examples"] == [{"text": f"What is “{chat.label(seed)}” about?"}]


def test_the_notice_of_a_fallback_is_readable_and_keeps_its_cause_folded():
    from qa import Answer

    answer = Answer("q", "Quoted. [1]", True, (), notice="(http://x failed: APIConnectionError)")
    markup = render.checks_html(answer)
    assert visible(markup).startswith("The language model could not answer, so this answer "
                                      "quotes the documents.")
    assert "APIConnectionError" in markup[markup.index("<details>"):]


def test_model_written_answers_are_offered_only_when_a_model_is_set(tmp_path):
    from qa.llm.client import LLMConfig
    from ui.app import ChatApp

    mode, hint, in_use, *_ = ChatApp(str(tmp_path / "a"), 50).model.shown()
    assert mode["visible"] is False and hint["visible"] is True
    assert "No language model is in use" in in_use

    mode, hint, in_use, address, key, forget, model = ChatApp(
        str(tmp_path / "b"), 50, LLMConfig("http://x/v1", "m", "secret-key")).model.shown()
    assert mode["visible"] is True and hint["visible"] is False
    assert mode["choices"][-1] == ("Written by m, its citations checked", "llm")
    assert address["value"] == "http://x/v1" and model["value"] == "m"
    assert key["value"] == "" and forget["visible"] is True
    assert "secret-key" not in repr((mode, hint, in_use, address, key, forget, model))


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("notes.md", "notes.md"),
        ("../../etc/passwd.txt", "passwd.txt"),
        ("..\\..\\boot.ini.txt", "boot.ini.txt"),
        ("/abs/path/a b.pdf", "a b.pdf"),
        ("..", "upload"),
        (".hidden.md", "hidden.md"),
        ("<script>.html", "_script_.html"),
        ("x" * 300 + ".txt", "x" * 116 + ".txt"),
        ("../../etc/passwd", "passwd"),
        ("/etc/passwd", "passwd"),
        ("a\x00b.txt", "a_b.txt"),
        ("evil.txt\x00.pdf", "evil.txt_.pdf"),
        ("Minutes (draft) [v2].txt", "Minutes (draft) [v2].txt"),
    ],
)
def test_upload_names_are_sanitised(name, safe):
    assert uploads.safe_name(name) == safe


HOSTILE_NAMES = [
    "../../etc/passwd", "../../etc/passwd.txt", "/etc/passwd", "/etc/cron.d/evil.md",
    "a\x00b.txt", "evil.txt\x00.pdf", "\x00", "..\x00/../x.txt", "\x00/../../x.md",
    "C:\\Windows\\win.ini", "....//....//notes.md", "uploads/../../x.txt", "~/.bashrc",
    "%2e%2e%2fpasswd.txt", "..", ".", "", " ", "/", "\n../x.txt", "\u2025/\u2025/x.txt",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=repr)
def test_hostile_upload_names_cannot_escape_the_uploads_folder(tmp_path, name):
    source = tmp_path / "source.txt"
    source.write_text("hello")
    folder = tmp_path / "index" / "uploads"

    safe = uploads.safe_name(name)
    stored, outcome = uploads.store(source, name, folder)

    assert outcome == uploads.NEW and safe and not safe.startswith(".")
    assert not set(safe) & {"/", "\\", "\x00", "\n"}
    assert stored == folder / safe and stored.read_text() == "hello"
    assert sorted(tmp_path.rglob("*")) == sorted([source, folder.parent, folder, stored])


def test_an_upload_with_a_hostile_name_is_indexed_inside_the_index_folder(tmp_path):
    from ui.app import ChatApp

    incoming = tmp_path / "incoming"
    incoming.mkdir()
    source = incoming / "..\\..\\evil notes.md"  # a legal file name on Linux
    source.write_text("# Ferry\n\nThe Skerray ferry leaves at dawn every Tuesday.\n")
    app = ChatApp(str(tmp_path / "index"), max_upload_mb=5)

    app.add_files([str(source)])

    stored = tmp_path / "index" / "uploads" / "evil notes.md"
    assert [d.path for d in app.index.documents()] == [str(stored)]
    assert sorted(p.name for p in tmp_path.rglob("*.md")) == ["..\\..\\evil notes.md",
                                                               "evil notes.md"]
    app.index.close()


def test_an_index_named_through_dot_dot_knows_its_uploads_as_indexed(tmp_path):
    """Indexing stores resolved paths; the app must find its uploads among them, or it
    indexes them again with every upload and cannot delete their files on removal."""
    from ui.app import ChatApp

    (tmp_path / "elsewhere").mkdir()
    source = tmp_path / "ferry.md"
    source.write_text("# Ferry\n\nThe Skerray ferry leaves at dawn every Tuesday.\n")
    app = ChatApp(str(tmp_path / "elsewhere" / ".." / "index"), max_upload_mb=5)
    app.add_files([str(source)])
    stored = tmp_path / "index" / "uploads" / "ferry.md"

    assert app.index_files([]) == []  # nothing left unindexed
    app.remove(str(stored), None)
    assert not stored.exists() and app.index.documents() == []
    app.index.close()


@pytest.fixture(scope="module")
def chat(seed_index_path):
    """The chat app over the seed index, only read."""
    from ui.app import ChatApp

    return ChatApp(str(seed_index_path), max_upload_mb=5)


HOSTILE_QUESTIONS = [
    "", "   ", "x" * 100_000, "\ud800", "\udfff\ud800 resign", "'; DROP TABLE chunks; --",
    'NEAR("a" b) OR *', "\u202eresign\u202c", "שלום resign", "😀" * 50, "\x00\x1b[31m\x07",
    "<script>alert(1)</script> resign", "{{7*7}} ${7*7}",
]


@pytest.mark.parametrize("question", HOSTILE_QUESTIONS, ids=lambda q: repr(q[:20]))
def test_hostile_questions_in_the_chat_get_an_answer_or_a_message(chat, question):
    shown = list(chat.respond(question, [], 5, "extractive"))

    assert shown and all(isinstance(markup, str) for markup in shown)
    last = visible(shown[-1])
    if len(question) > 2000:
        assert "The question is 100,000 characters long; the limit is 2,000." in last
    elif not question.strip():
        assert "Type a question about your documents." in last
    assert "<script>" not in shown[-1]


def test_the_chat_refuses_a_bad_k_and_answers_after_5000_turns(chat):
    """The chat endpoint takes k and the history from the client, whatever it sends."""
    refused = visible(list(chat.respond("Who has resigned?", [], 10**9, "extractive"))[-1])
    assert refused == "K must be a whole number from 1 to 1000."
    turns = [{"role": "user", "content": "Who has resigned?"},
             {"role": "assistant", "content": "Martinez."}] * 5000
    shown = visible(list(chat.respond("Why did they resign?", turns, 5, "extractive"))[-1])
    assert "resign" in shown


@pytest.mark.parametrize("question", ["", "x" * 100_000])
def test_the_api_reports_bad_questions_as_user_errors(chat, question):
    import gradio as gr

    for call in (chat.ask, chat.search):
        with pytest.raises(gr.Error, match="The question is (empty|100,000 characters long)"):
            call(question)


def test_uploads_are_checked_for_type_size_and_emptiness():
    limit = 2**20
    assert uploads.rejection("a.md", 10, limit) is None
    assert "not supported" in uploads.rejection("a.exe", 10, limit)
    assert "not supported" in uploads.rejection("README", 10, limit)
    assert "1.0 MiB is over the 1 MiB limit" in uploads.rejection("a.pdf", limit + 1, limit)
    assert uploads.rejection("a.pdf", limit, limit) is None
    assert uploads.limit_bytes(1) == limit  # --max-upload-mb counts mebibytes
    assert "empty" in uploads.rejection("a.txt", 0, limit)


def test_uploads_are_stored_inside_the_folder(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("hello")
    stored, _ = uploads.store(source, "../../escape.txt", tmp_path / "uploads")
    assert stored == tmp_path / "uploads" / "escape.txt"
    assert stored.read_text() == "hello"
    assert stored.stat().st_mode & 0o777 == 0o600


def test_history_pairs_keep_the_last_turns_cut_and_refuse_what_is_not_pairs_of_text():
    long_question, long_answer = "q" * 5_000, "a" * 50_000
    turns = [["Who resigned?", "Martinez [1]"], ("Why?", "Because [1]"), ["When?", "In 2022"],
             [long_question, long_answer]]
    assert history_pairs(turns) == [("Why?", "Because [1]"), ("When?", "In 2022"),
                                    ("q" * 2_000, "a" * 20_000)]
    assert history_pairs(None) == history_pairs([]) == []
    for bad in ("Who resigned?", "", [["Who resigned?"]], [["Who?", 1]], [{"question": "Who?"}],
                {"Who?": "Martinez"}):
        with pytest.raises(QAError, match=re.escape(NOT_HISTORY)):
            history_pairs(bad)


def test_an_answer_arrives_in_one_piece_with_its_sources(chat):
    shown = list(chat.respond("Who has resigned?", [], 5, "extractive"))
    assert len(shown) == 1 and "qa-sources" in shown[0] and "Copy answer" in visible(shown[0])


def test_a_follow_up_reads_the_kept_conversation_in_the_chat_and_the_sent_turns_in_ask(
        tmp_path):
    from ui.app import ChatApp

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "watson.txt").write_text("Doctor Watson lives in London. His brother Harry "
                                     "lives in Paris, above a bakery.")
    (docs / "ahab.txt").write_text("Captain Ahab sails the Pequod. His brother Tom "
                                   "lives in Boston, near the harbour.")
    app = ChatApp(str(tmp_path / "index"), max_upload_mb=5)
    app.index.add([docs])
    conversation = new_id()
    list(app.respond("Who is Doctor Watson?", [], 5, "extractive", conversation))
    # what the page sends back as the history is the client's: here it names someone else
    sent = [{"role": "user", "content": "Who is Captain Ahab?"},
            {"role": "assistant", "content": render.answer_html("Captain Ahab sails.")}]
    follow_up = "Where does his brother live?"

    kept = visible(list(app.respond(follow_up, sent, 5, "extractive", conversation))[-1])
    script = app.ask(follow_up, history=[["Who is Captain Ahab?", "Captain Ahab sails."]])

    assert "Paris" in kept and "Boston" not in kept  # the turn the store kept: Watson
    assert "Boston" in script["answer"] and "Paris" not in script["answer"]  # the turns sent
    app.index.close()


def test_network_exposure_without_auth_warns():
    assert exposure_warning("127.0.0.1", None) is None
    assert exposure_warning("0.0.0.0", ("u", "p")) is None
    assert "anyone on the network" in exposure_warning("0.0.0.0", None)


def test_app_over_a_new_folder_creates_an_empty_index(tmp_path):
    demo = build_app(str(tmp_path / "fresh"))
    assert (tmp_path / "fresh").is_dir()
    public = {fn.api_name for fn in demo.fns.values() if fn.api_visibility == "public"}
    assert public == {"ask", "search"}


def test_gradio_cache_copies_are_deleted_and_nothing_outside_it(tmp_path):
    cache, elsewhere = tmp_path / "cache", tmp_path / "mine.txt"
    (cache / "abc").mkdir(parents=True)
    (cache / "abc" / "up.txt").write_text("x")
    elsewhere.write_text("keep")
    uploads.discard_cached([str(cache / "abc" / "up.txt"), str(elsewhere)], cache)
    assert not (cache / "abc").exists() and elsewhere.read_text() == "keep"


def test_a_card_without_a_title_is_named_by_the_first_line_or_else_the_file():
    untitled = Citation(1, Hit(1, 7, "/docs/la.txt", "", PASSAGE, PASSAGE_START, len(DOC), None,
                               0.03, 0.61), QUOTE, 0, 0)
    title = r'<span class="qa-source-title">(.*?)</span>'
    named = [visible(re.search(title, render.sources_html([untitled], lambda s, t=text: t))[1])
             for text in (DOC, None)]
    assert named == ["Intro line.", "la.txt"]
    assert render.title_of("", "# Zephyr notes\nbody", "/d/z.md") == "Zephyr notes"


MARKDOWN = ("# Zephyr\n\nThe **mirror** was *polished* by `Ingrid` [see](http://x.example/a)."
            "\n## Notes")


def test_markdown_is_shown_as_formatting_not_symbols_and_stays_inert():
    markup = render.readable(MARKDOWN + ' <script>x()</script> <b onclick="y()">b</b>')
    assert visible(markup).startswith("Zephyr\n\nThe mirror was polished by Ingrid see.\nNotes")
    assert "<strong>Zephyr</strong>" in markup and "<strong>mirror</strong>" in markup
    assert "<em>polished</em>" in markup and "<code>Ingrid</code>" in markup
    assert "<script>" not in markup and "<b " not in markup and "http" not in markup
    assert "<script>x()</script>" in visible(markup)
    assert visible(render.readable("snake_case_name, 2*3*4 and a # b")) == (
        "snake_case_name, 2*3*4 and a # b"
    )


def test_excerpt_context_and_preview_render_the_markdown_of_the_document():
    text = MARKDOWN + "\n\nThe mirror was polished by Ingrid Halvorsen in **May**."
    quote = "The mirror was polished by Ingrid Halvorsen in **May**."
    hit = Hit(1, 1, "/d/z.md", "Zephyr", text, 0, len(text), None, 0.1, 0.5)
    start = text.index(quote)
    markup = render.sources_html([Citation(1, hit, quote, start, start + len(quote))],
                                 lambda s: "Before.\n" + text)
    assert "#" not in visible(markup) and "**" not in visible(markup)
    assert '<mark class="qa-quote">The mirror was polished by Ingrid Halvorsen in ' \
           "<strong>May</strong>&#46;</mark>" in markup

    class Info:
        path, title, chunks, indexed_at = "/d/z.md", "Zephyr", 1, "2024-05-01T10:00:00"

    preview = render.preview_html(Info(), "Zephyr", text)
    assert "<strong>Notes</strong>" in preview and "#" not in visible(preview)


@pytest.mark.parametrize(("path", "text", "title"), [
    ("/d/spending.xlsx", "Budget: Department: Parks; Amount: 5300.", "spending.xlsx"),
    ("/d/staff.csv", "Name: Ada; Company: Engines.", "staff.csv"),
    ("/d/deck.pptx", "Quarterly review\n\nRevenue grew.", "Quarterly review"),
    ("/d/notes.txt", "Meeting notes\nMore.", "Meeting notes"),
])
def test_a_sheet_is_titled_by_its_file_name_and_a_deck_by_its_title_slide(path, text, title):
    assert render.title_of("", text, path) == title


SHEETS = ("Budget: Department: Libraries; Amount: 1200.\nBudget: Department: Parks; Amount: 5300."
          "\n\nStaff: Name: Ada; Role: Programmer.\nStaff: Name: Grace; Role: Admiral.")


@pytest.mark.parametrize(("path", "page", "text", "start", "where"), [
    ("/d/spending.xlsx", 1, SHEETS, SHEETS.index("Budget: Department: Parks"),
     "sheet Budget, row 3"),
    ("/d/spending.xlsx", 2, SHEETS, SHEETS.index("Staff: Name: Ada"), "sheet Staff, row 2"),
    ("/d/staff.csv", None, "Name: Ada; Role: P.\nName: Grace; Role: A.", 20, "row 3"),
    ("/d/deck.pptx", 3, "x", 0, "slide 3"),
    ("/d/report.pdf", 4, "x", 0, "page 4"),
    ("/d/notes.txt", None, "one\ntwo\nthree", 8, "line 3"),
    ("/d/photo.png", None, "a line", 0, ""),
])
def test_a_citation_says_where_it_is_as_its_kind_of_file_counts(path, page, text, start, where):
    assert render.place(path, page, text, start) == where


def test_a_quote_of_two_table_rows_is_shown_as_the_two_rows():
    quote = "Budget: Department: Libraries; Amount: 1200.\nBudget: Department: Parks; Amount: 5300."
    table = render.row_table(quote)
    rows = re.findall(r"<tr>(.*?)</tr>", table)
    assert [visible(re.sub(r"</t[hd]>", "|", row)) for row in rows] == [
        "Department|Amount|", "Libraries|1200|", "Parks|5300|"]
    assert visible(re.search(r"<caption>(.*?)</caption>", table).group(1)) == "Budget"


def test_an_answer_leaves_the_rows_it_quotes_to_its_cards_when_it_says_more_than_them():
    from qa import Answer

    rows = ["Teams: Team: Throwing; Staff: 6.", "Teams: Team: Glazing; Staff: 4."]
    text = "\n".join(rows)
    hit = Hit(1, 7, "/docs/handbook.docx", "", text, 0, len(text), None, 0.03, 0.61)
    cited = tuple(Citation(1, hit, row, text.index(row), text.index(row) + len(row))
                  for row in rows)
    computed = Answer("Which team has the most staff?",
                      f"Throwing: Staff 6, the largest of 2 rows (computed). [1] {rows[0]} [1] "
                      f"{rows[1]} [1]", True, cited)
    assert render.answer_text(computed) == (
        "Throwing: Staff 6, the largest of 2 rows (computed). [1]")
    only_rows = Answer("Who throws?", f"{rows[0]} [1]", True, cited[:1])
    assert render.answer_text(only_rows) == only_rows.text
    cards = render.sources_html(cited, lambda _: text)
    assert cards.count("<table") == 1  # one table of the rows, not a table a row
    assert len(re.findall(r"<tr>", re.search(r"<tbody>.*</tbody>", cards).group())) == 2


def test_an_empty_index_says_to_add_documents_here_and_offers_no_example_questions(tmp_path):
    from ui.app import ChatApp

    app = ChatApp(str(tmp_path / "index"), max_upload_mb=5)
    try:
        answer = app.index.ask("What are these documents about?")
        shown = visible(render.answer_html(answer.text, answer.found))
        assert "`" not in shown and "qa index" not in shown
        assert "add some under Documents" in shown
        _, examples = app.documents()
        assert examples["examples"] == []
    finally:
        app.index.close()


def test_counts_of_one_are_singular():
    from qa.indexing.ingest import Report

    assert Report(added=1, chunks_embedded=1).summary().endswith("; 1 chunk embedded")
    assert render.counted(1, "collection") == "1 collection"
    assert render.counted(1_001, "collection") == "1,001 collections"
