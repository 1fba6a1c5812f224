"""Where the shipped data lives: ``schemas/``, ``templates/`` and ``examples/`` (the demo's skill).

An installed wheel carries them under ``driftproof/_data/``; a source checkout has them at the top.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """The directory of shipped data ``name`` (``schemas``, ``templates`` or ``examples``)."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"driftproof data directory '{name}' is missing from this installation")


def schema_file(version: str) -> Path:
    """The schema file of a receipt schema version (it may not exist)."""
    return data_dir("schemas") / f"receipt-{version}.schema.json"


def summary_schema_file() -> Path:
    """The JSON Schema of the summary-json interchange document (``driftproof export``)."""
    from driftproof.core.summary import SUMMARY_VERSION

    return data_dir("schemas") / f"summary-{SUMMARY_VERSION}.schema.json"


def known_schema_versions() -> list[str]:
    """Every schema version this installation can read, oldest first."""
    names = [
        p.name.removeprefix("receipt-").removesuffix(".schema.json")
        for p in data_dir("schemas").glob("receipt-*.schema.json")
    ]
    return sorted(names, key=lambda v: tuple(int(x) if x.isdigit() else 0 for x in v.split(".")))
