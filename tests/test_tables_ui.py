"""A quoted table row in the web chat: a real `qa serve` over a .docx with a table, a real
browser (Debian's chromium), the real model. The row shows whole in its source card, and
beneath it as a small table of its columns."""

import subprocess

import pytest

from tests.helpers import ENV, QA, ROOT, qa_serve
from tests.test_tables import _offices_docx
from tests.test_ui import ask, open_page

pytestmark = [pytest.mark.process, pytest.mark.browser]


@pytest.fixture
def page(browser, tmp_path):
    """A page on `qa serve` over an index of one .docx holding a table of offices."""
    (tmp_path / "docs").mkdir()
    _offices_docx(tmp_path / "docs" / "offices.docx")
    subprocess.run([*QA, "--index", str(tmp_path / "index"), "index", str(tmp_path / "docs")],
                   check=True, cwd=ROOT, env=ENV, capture_output=True)
    with qa_serve(tmp_path / "index", tmp_path / "serve.log", timeout=180) as (url, _):
        page = open_page(browser, url)
        yield page
        page.context.close()


def test_a_quoted_row_shows_whole_and_as_a_table_in_its_source_card(page):
    ask(page, "Which team is on floor 4?")

    card = page.locator("#qa-chat .qa-sources").last.locator(".qa-source").first
    assert card.locator(".qa-passage mark").first.inner_text() == "Offices: Team: Design; Floor: 4."
    table = card.locator("table.qa-row")
    assert table.locator("caption").inner_text() == "Offices"
    assert table.locator("th").all_inner_texts() == ["Team", "Floor"]
    assert table.locator("td").all_inner_texts() == ["Design", "4"]
