"""The core stays pure: no I/O, no SDK, no clock, no environment. Parsed, not grepped."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "driftproof" / "core"
ALLOWED = {
    "__future__",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "hashlib",
    "itertools",
    "json",
    "math",
    "typing",
    "pydantic",
    "driftproof",
}
FORBIDDEN_CALLS = {"open", "print", "input"}


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_core_module_imports_only_pure_modules(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            assert top in ALLOWED, f"{path.name} imports {name}"
            if top == "driftproof":
                assert name.startswith("driftproof.core"), f"{path.name} imports the shell: {name}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}()"


def field_docstring_lines(tree: ast.Module) -> int:
    """Lines of field docstrings: a string statement right under an annotated field of a class."""
    lines = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for field, doc in itertools.pairwise(node.body):
                if (
                    isinstance(field, ast.AnnAssign)
                    and isinstance(doc, ast.Expr)
                    and isinstance(doc.value, ast.Constant)
                    and isinstance(doc.value.value, str)
                ):
                    lines += (doc.end_lineno or doc.lineno) - doc.lineno + 1
    return lines


def test_core_modules_stay_small() -> None:
    # code lines: a field's docstring is documentation (STYLE asks one on every receipt field), not code
    for path in CORE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) - field_docstring_lines(ast.parse(text)) <= 400, path.name
