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
