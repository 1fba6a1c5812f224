"""The core stays pure: no I/O, no SDK, no clock, no environment. Parsed, not grepped."""

from __future__ import annotations

import ast
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


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
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


def test_core_modules_stay_small() -> None:
    for path in CORE.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, path.name
