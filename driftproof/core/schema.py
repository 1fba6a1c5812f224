"""The receipt JSON Schema (draft 2020-12), generated from the models plus the cross-field rules.

The committed file ``schemas/receipt-<version>.schema.json`` must equal ``receipt_schema()`` for the
current version (a test checks it); files of older versions are frozen and never regenerated.
Regenerate with ``driftproof schema > schemas/receipt-<SCHEMA_VERSION>.schema.json``.
"""

from __future__ import annotations

from typing import Any

from driftproof.core.models import SCHEMA_VERSION, Receipt

SCHEMA_BASE = "https://driftproof.dev/spec"


def schema_id(version: str) -> str:
    """The canonical ``$id`` of the schema of ``version``.

    >>> schema_id("0.13")
    'https://driftproof.dev/spec/receipt-0.13.schema.json'
    """
    return f"{SCHEMA_BASE}/receipt-{version}.schema.json"


_DRAW_RULES = [
    {  # a lost draw has a reason and no score
        "if": {"properties": {"status": {"const": "lost"}}, "required": ["status"]},
        "then": {
            "properties": {"score": {"type": "null"}, "lost_reason": {"type": "string", "minLength": 1}},
            "required": ["lost_reason"],
        },
    },
    {  # a measured draw has a score and no reason
        "if": {"properties": {"status": {"const": "measured"}}, "required": ["status"]},
        "then": {
            "properties": {"score": {"type": "number"}, "lost_reason": {"type": "null"}},
            "required": ["score"],
        },
    },
]

_SAMPLE_RULES = [
    {
        "if": {"properties": {"valid": {"const": True}}, "required": ["valid"]},
        "then": {"properties": {"score": {"type": "number"}}},
        "else": {"properties": {"score": {"type": "null"}}},
    }
]

_RECEIPT_RULES = [
    {  # a receipt that names a preset (a smoke run) never reads TESTED
        "if": {
            "properties": {"run": {"properties": {"preset": {"type": "string"}}, "required": ["preset"]}},
            "required": ["run"],
        },
        "then": {"properties": {"verification": {"not": {"const": "TESTED"}}}},
    }
]


def receipt_schema() -> dict[str, Any]:
    """The JSON Schema of the current receipt version."""
    generated = Receipt.model_json_schema(by_alias=True, mode="validation")
    defs = generated.pop("$defs")
    defs["Draw"]["allOf"] = _DRAW_RULES
    defs["JudgeSample"]["allOf"] = _SAMPLE_RULES
    generated["allOf"] = _RECEIPT_RULES
    # the models also hold older versions on read; the schema of this version names this version only
    generated["properties"]["schema_version"] = {
        "const": SCHEMA_VERSION,
        "type": "string",
        "description": generated["properties"]["schema_version"].get("description", ""),
        "title": "Schema Version",
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id(SCHEMA_VERSION),
        **generated,
        "$defs": defs,
    }
