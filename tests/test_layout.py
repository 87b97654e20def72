"""The code keeps its layers apart, and the design document describes the code that is."""

import ast
import re

from tests.helpers import ROOT

CODE = [*sorted((ROOT / "qa").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]


def test_no_module_outside_the_loaders_reaches_a_loaders_private_names():
    reached = []
    for path in CODE:
        if "loaders" in path.relative_to(ROOT).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        loaders = {alias.asname or alias.name for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom) and node.module == "qa.loaders"
                   for alias in node.names}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("qa.loaders"):
                reached += [f"{path.name}: {alias.name}" for alias in node.names
                            if alias.name.startswith("_")]
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in loaders and node.attr.startswith("_"):
                reached.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    assert reached == []


def test_the_names_the_design_quotes_exist_in_the_code():
    """Every `name` docs/design.md quotes is a name the code, its tests or benchmarks
    hold, or a file the repository holds."""
    code = "\n".join(path.read_text(encoding="utf-8") for folder in ("qa", "ui", "benchmarks")
                     for path in (ROOT / folder).rglob("*.py"))
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    quoted = set(re.findall(r"`([A-Za-z_][\w.]*)(?:\(\))?`", design))
    files = {path.name for path in ROOT.rglob("*") if not {".venv", ".git"} & set(path.parts)}
    missing = sorted(name for name in quoted if name not in files and not re.search(
        rf"\b{re.escape(name.rsplit('.', 1)[-1])}\b", code))
    assert len(quoted) > 40
    assert missing == []
