"""The summary-json of a receipt as file text: checked against its shipped schema first, then printed or written
atomically (``driftproof export``). A document that would not validate is never written."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from driftproof.atomic import write_text
from driftproof.errors import OutputError
from driftproof.resources import summary_schema_file
from driftproof.safe_text import shown_name

#: What ``driftproof export --format`` writes.
EXPORT_FORMATS = ("summary-json",)


@cache
def _validator() -> Any:
    """A compiled validator for the summary schema: jsonschema-rs, else the pure-Python jsonschema."""
    schema = json.loads(summary_schema_file().read_text(encoding="utf-8"))
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - platforms without a jsonschema-rs wheel
        from jsonschema import Draft202012Validator

        return Draft202012Validator(schema)
    return jsonschema_rs.validator_for(schema)


def summary_text(doc: dict[str, Any], target: str = "summary") -> str:
    """The file text of a summary document (indented, one trailing newline), once it validates against its schema.

    ``target`` names where it was going in the error: a document the schema refuses is a bug of this Driftproof,
    reported as an `OutputError` with nothing written. The skill's name (a folder's or a suite's) is shown as suite
    text is, without control or format characters (docs/security.md).
    """
    skill = doc.get("skill")
    if isinstance(skill, dict) and isinstance(skill.get("name"), str):
        doc = {**doc, "skill": {**skill, "name": shown_name(skill["name"])}}
    for error in _validator().iter_errors(doc):
        raise OutputError(f"{target}: the summary does not match {summary_schema_file().name}: {error.message}")
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_summary(text: str, out: Path) -> Path:
    """Write the summary text atomically (a temp file, then one rename); return the path."""
    write_text(out, text)
    return out
