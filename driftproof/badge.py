"""``driftproof badge``: write the shields.io endpoint JSON of a receipt, atomically.

The JSON itself is decided in :mod:`driftproof.core.badge` (pure); this module only reads and writes.
Serve the file from the default branch (``raw.githubusercontent.com``) and point
``https://img.shields.io/endpoint?url=...`` at it; never publish it from a pull request's run.
"""

from __future__ import annotations

import json
from pathlib import Path

from driftproof.atomic import write_text
from driftproof.core.badge import badge_json
from driftproof.core.reading import ReceiptReading

__all__ = ["badge_json", "badge_text", "write_badge"]


def badge_text(reading: ReceiptReading) -> str:
    """The badge JSON as file text: compact, one line, UTF-8 as is."""
    return json.dumps(badge_json(reading), ensure_ascii=False) + "\n"


def write_badge(reading: ReceiptReading, path: Path) -> Path:
    """Write the badge JSON of ``reading`` to ``path`` atomically; return the path."""
    write_text(path, badge_text(reading))
    return path
