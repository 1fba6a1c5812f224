"""What the importer tests share: the tool a test import is written by, and a parsed fixture as a source document."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from driftproof.core.imports.common import SourceDoc, Written
from driftproof.core.models import Tool

WRITTEN = Written(Tool(name="driftproof", version="0.0.test"), None)
"""The writer every test import names."""


def json_doc(path: Path, name: str | None = None, data: Any = None) -> SourceDoc:
    """The JSON fixture at ``path`` as an importer reads it (``data`` in place of its parsed content, if given),
    named ``name`` (default: the file's name) with the sha256 of its bytes."""
    raw = path.read_bytes()
    return SourceDoc(name or path.name, hashlib.sha256(raw).hexdigest(), json.loads(raw) if data is None else data)
