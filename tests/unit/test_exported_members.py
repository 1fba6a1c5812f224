"""The public surface of ``driftproof`` is exactly what ``__all__`` lists, and every name is the object its module
defines.

``PUBLIC`` is the contract: those names are a public interface, so adding or dropping one is a decision made here,
not a side effect of editing the export map in ``driftproof/__init__.py``.
"""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

import driftproof
from driftproof import _version

PUBLIC = [
    "DriftproofError",
    "InputError",
    "LaneError",
    "Receipt",
    "ReceiptError",
    "SCHEMA_VERSION",
    "compare",
    "diff",
    "load_receipt",
    "read_receipt",
    "write_receipt",
]


def _top_level_names(module: str) -> set[str]:
    """The names a module binds itself at top level: ``def``, ``class`` and assignments (not imports)."""
    tree = ast.parse(inspect.getsource(importlib.import_module(module)))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_all_is_the_version_and_the_export_map() -> None:
    assert driftproof.__all__ == ["__version__", *PUBLIC]
    assert driftproof.__all__ == ["__version__", *sorted(driftproof._EXPORTS)]
    assert driftproof.__version__ is _version.__version__


@pytest.mark.parametrize(("name", "module"), sorted(driftproof._EXPORTS.items()))
def test_each_name_is_its_modules_object(name: str, module: str) -> None:
    source = importlib.import_module(module)
    assert getattr(driftproof, name) is getattr(source, name)
    # Defined where the map says, or listed in that module's __all__ as a deliberate re-export.
    assert name in _top_level_names(module) or name in getattr(source, "__all__", ()), (
        f"{module} neither defines {name} nor re-exports it in its __all__"
    )
    obj = getattr(source, name)
    if (inspect.isclass(obj) or inspect.isfunction(obj)) and name not in getattr(source, "__all__", ()):
        assert obj.__module__ == module


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'driftproof' has no attribute 'no_such_name'"):
        _ = driftproof.no_such_name  # type: ignore[attr-defined]
    with pytest.raises(ImportError):
        from driftproof import no_such_name  # type: ignore[attr-defined]  # noqa: F401
