"""The README's Python example runs as written, and its links and the docs' lead somewhere."""

import os
import re
import shutil

from tests.helpers import ROOT, SEEDS


def test_readme_python_example_runs(tmp_path, capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"## From Python\n\n```python\n(.*?)```", readme, re.DOTALL).group(1)
    shutil.copytree(SEEDS, tmp_path / "seeds")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(example, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)

    printed = capsys.readouterr().out
    assert "2-year-old son" in printed
    assert (tmp_path / ".qa-index" / "index.sqlite3").is_file()


def test_every_relative_link_in_the_docs_leads_to_a_file():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_readme_figures_are_those_docs_figures_records():
    """Every figure in the README's table of measurements is one a command printed, as
    docs/figures.md records it with that command (there exactly, or rounded)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    recorded = _figures((ROOT / "docs" / "figures.md").read_text(encoding="utf-8"))
    table = re.search(r"\n\| \| figure \| command \|\n\|[^\n]*\n((?:\|[^\n]*\n)+)",
                      readme.partition("## Measuring it")[2]).group(1)
    figures = [figure for row in table.splitlines() for figure in _figures(row.split("|")[2])]

    assert len(figures) > 10
    unrecorded = [figure for figure in figures if not any(
        _rounds_to(value, figure) for value in recorded)]
    assert unrecorded == []


def _figures(text: str) -> list[str]:
    """The numbers in `text` that are figures: not part of a name such as p50 or nDCG@10."""
    return re.findall(r"(?<![\w@.,])\d+(?:[.,]\d+)*(?![\w]|[.,]\d)", text)


def _rounds_to(value: str, figure: str) -> bool:
    """Whether `value` is `figure`, or rounds to it at the figure's precision."""
    decimals = len(figure.partition(".")[2])
    number = float(value.replace(",", ""))
    return len(value.partition(".")[2]) >= decimals and \
        f"{number:,.{decimals}f}".replace(",", "") == figure.replace(",", "")
