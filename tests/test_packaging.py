"""Packaging: the library works without its extras, and `qa serve` reaches the web chat
through the CLI's `qa.commands` hook, never through `qa` importing `ui`."""

import ast
import subprocess
import sys
import tomllib

import pytest

from tests.helpers import ENV, ROOT

# Run Python code with these modules made unimportable, as if their extras were not installed.
BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ImportError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Block())
"""


def _run(code: str, blocked: set[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK.format(blocked=blocked) + code],
                          cwd=ROOT, env={**ENV, **(env or {})}, capture_output=True, text=True,
                          timeout=300)


def test_qa_never_imports_ui():
    for module in (ROOT / "qa").rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n == "ui" or n.startswith("ui.") for n in names), module


@pytest.mark.process
def test_the_library_and_cli_work_without_gradio_matplotlib_or_openai(seed_index_path):
    code = (
        "import qa, qa.cli, qa.index, qa.indexing.ingest, qa.evaluation.retrieval, qa.llm.client\n"
        f"status = qa.cli.main(['--index', {str(seed_index_path)!r}, 'search', 'resigned', "
        "'-k', '1'])\n"
        "loaded = {m for m in sys.modules if m.split('.')[0] in {'gradio', 'matplotlib', "
        "'openai', 'pymilvus', 'ray'} or m == 'ui.app'}\n"
        "print('loaded:', sorted(loaded))\n"
        "raise SystemExit(status)\n"
    )
    result = _run(code, {"gradio", "matplotlib", "openai"})
    assert result.returncode == 0, result.stderr
    assert "1. " in result.stdout and "loaded: []" in result.stdout


@pytest.mark.process
def test_serve_without_the_ui_extra_says_what_to_install(tmp_path):
    code = "from qa.cli import main\nfrom ui.cli import register\n" \
           f"raise SystemExit(main(['serve', '--index', {str(tmp_path)!r}], {{'serve': register}}))"
    result = _run(code, {"gradio"})
    assert result.returncode == 2
    assert "qa: the web chat needs its extra (gradio is missing): pip install 'qa[ui]'" \
        in result.stderr


@pytest.mark.process
def test_mcp_without_its_extra_says_what_to_install(seed_index_path):
    code = ("from qa.cli import main\n"
            f"raise SystemExit(main(['--index', {str(seed_index_path)!r}, 'mcp']))")
    result = _run(code, {"mcp"})
    assert result.returncode == 2
    assert "qa: qa mcp needs its extra (mcp is missing): pip install 'qa[mcp]'" \
        in result.stderr


@pytest.mark.process
def test_qa_serve_is_added_by_the_entry_point_that_pyproject_declares(tmp_path):
    """The entry point pip writes from pyproject.toml, here in a dist-info folder of our own,
    gives `qa` its `serve` command."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())
    hooks = declared["project"]["entry-points"]["qa.commands"]
    assert hooks == {"serve": "ui.cli:register"}
    dist = tmp_path / "qa_hook-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: qa-hook\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[qa.commands]\nserve = ui.cli:register\n")
    code = "from qa.cli import main\nraise SystemExit(main(['serve', '--help']))"
    with_hook = _run(code, set(), {"PYTHONPATH": f"{ROOT}:{tmp_path}"})
    assert with_hook.returncode == 0 and "--max-upload-mb" in with_hook.stdout
    assert "--milvus-uri" in with_hook.stdout  # the shared options come with it


def test_qa_help_says_what_qa_does_without_notes_for_developers():
    done = subprocess.run([sys.executable, "-m", "qa", "--help"], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, check=True)
    assert "index folders, ask and search" in done.stdout
    assert "entry-point" not in done.stdout and "register(" not in done.stdout


@pytest.mark.parametrize("module", ["qa", "qa.cli"])
def test_python_dash_m_runs_the_qa_command(module, seed_index_path):
    """`python -m qa` and `python -m qa.cli` run the command (the latter did nothing)."""
    done = subprocess.run([sys.executable, "-m", module, "--index", str(seed_index_path), "docs"],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)

    assert done.returncode == 0 and "000_8763795a8428a42a.txt" in done.stdout
