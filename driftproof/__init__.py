"""Driftproof: does an agent skill help, and does that hold when the model moves under it?

The public library surface. Names load on first use, so ``import driftproof`` (and the CLI's
``--help``) stays cheap and never imports a provider SDK.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from driftproof._version import __version__

_EXPORTS = {
    "Receipt": "driftproof.core.models",
    "SCHEMA_VERSION": "driftproof.core.models",
    "read_receipt": "driftproof.core.reading",
    "diff": "driftproof.core.diff",
    "compare": "driftproof.core.compare",
    "load_receipt": "driftproof.receipts",
    "write_receipt": "driftproof.receipts",
    "DriftproofError": "driftproof.errors",
    "InputError": "driftproof.errors",
    "ReceiptError": "driftproof.errors",
    "LaneError": "driftproof.errors",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'driftproof' has no attribute {name!r}")
    return getattr(import_module(module), name)
