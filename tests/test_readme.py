"""The README's Python example runs as written, its links and the docs' lead somewhere, and
the figures of its table of measurements are those its commands printed (docs/figures.md)."""

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


def test_each_readme_figure_is_what_its_rows_command_printed():
    """Each figure in a row of the README's table of measurements is one that the row's
    command printed, as docs/figures.md records it under that command (there exactly, or
    rounded): the sections of docs/figures.md whose commands the row's command is."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sections = _sections((ROOT / "docs" / "figures.md").read_text(encoding="utf-8"))
    table = re.search(r"\n\| \| figure \| command \|\n\|[^\n]*\n((?:\|[^\n]*\n)+)",
                      readme.partition("## Measuring it")[2]).group(1)
    rows = [row.split("|")[2:4] for row in table.splitlines()]

    unrecorded = []
    for figures, command in rows:
        pattern = _command_pattern(command.strip().strip("`"))
        recorded = [value for commands, text in sections if any(
            re.match(pattern, line) for line in commands) for value in _figures(text)]
        assert recorded, f"docs/figures.md runs no command {command.strip()}"
        unrecorded += [f"{figure} ({command.strip()})" for figure in _figures(figures)
                       if not any(_rounds_to(value, figure) for value in recorded)]
    assert len(rows) >= 5 and sum(len(_figures(figures)) for figures, _ in rows) > 10
    assert unrecorded == []


def _sections(page: str) -> list[tuple[list[str], str]]:
    """docs/figures.md's sections (a heading to the next): (the command lines in their
    code blocks, their text)."""
    sections = re.split(r"\n(?=## )", page)
    return [([_same_paths(line) for block in re.findall(r"```\n(.*?)```", text, re.DOTALL)
              for line in block.splitlines()], text) for text in sections]


def _command_pattern(command: str) -> str:
    """A README command as a pattern for the commands in docs/figures.md: its placeholders
    (URL, PID, COPY_OF_INDEX) stand for any word, and more options may follow."""
    words = [r"\S+" if re.fullmatch(r"[A-Z_]+", word) else re.escape(word)
             for word in _same_paths(command).split()]
    return r"\s+".join(words) + r"(\s|$)"


def _same_paths(command: str) -> str:
    """The shared data folder named alike, from the root of a checkout beside it."""
    return re.sub(r"/work/shared/", "../shared/", command)


def _figures(text: str) -> list[str]:
    """The numbers in `text` that are figures: not part of a name such as p50 or nDCG@10,
    nor of a version such as 2.13.0."""
    return re.findall(r"(?<![\w@.,])\d+(?:,\d{3})*(?:\.\d+)?(?![\w]|[.,]\d)", text)


def _rounds_to(value: str, figure: str) -> bool:
    """Whether `value` is `figure`, or rounds to it at the figure's precision."""
    decimals = len(figure.partition(".")[2])
    number = float(value.replace(",", ""))
    return len(value.partition(".")[2]) >= decimals and \
        f"{number:,.{decimals}f}".replace(",", "") == figure.replace(",", "")


def test_the_design_layout_names_every_module():
    """docs/design.md's Layout names each module and script of qa/, ui/ and qa's
    packages (a package's own subfolder stands for its modules)."""
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    layout = re.search(r"## Layout\n.*?```\n(.*?)```", design, re.DOTALL).group(1)
    named = set(re.findall(r"[\w.]+\.(?:py|js|css|json)\b|\w+/", layout))
    folders = [ROOT / "qa", ROOT / "ui"] + [path for path in (ROOT / "qa").iterdir()
                                          if (path / "__init__.py").exists()]
    files = [path for folder in folders for path in folder.iterdir()
             if path.suffix in {".py", ".js", ".css", ".json"} and path.name != "__init__.py"
             or path.is_dir() and (path / "__init__.py").exists()]
    unnamed = [str(path.relative_to(ROOT)) for path in files
               if (f"{path.name}/" if path.is_dir() else path.name) not in named]
    assert len(files) > 70
    assert unnamed == []


def test_the_readme_stays_short():
    """The README says what `qa` does and how to run it; the rest is in docs/."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250
