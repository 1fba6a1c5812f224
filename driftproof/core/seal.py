"""Canonical JSON and the seal.

``seal.sha256`` is the SHA-256 of the canonical JSON of the receipt without its ``seal``: keys sorted,
compact separators, UTF-8 (no ASCII escaping), no NaN or infinity, and floats as Python's shortest
round-trip ``repr`` (so ``0.85`` is written ``0.85`` and ``1.0`` stays ``1.0``; an integer stays an integer).
The seal is verified on the document as parsed, so a receipt written by another tool keeps its own
number spellings.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from driftproof.core.models import SCHEMA_VERSION, Receipt, Seal


def sha256_text(text: str) -> str:
    """SHA-256 hex of UTF-8 text: how a receipt fingerprints a skill, a prompt, an answer or a template.

    >>> sha256_text("")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> bytes:
    """The canonical UTF-8 bytes of a JSON value.

    >>> canonical_json({"b": 1, "a": [0.5, "é"]})
    b'{"a":[0.5,"\\xc3\\xa9"],"b":1}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def content_hash(value: Any) -> str:
    """SHA-256 hex of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def compute_seal(document: Mapping[str, Any]) -> str:
    """The seal of a receipt document: the content hash of everything but ``seal``."""
    return content_hash({k: v for k, v in document.items() if k != "seal"})


def sealed(document: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``document`` with its seal (re)computed."""
    body = {k: v for k, v in document.items() if k != "seal"}
    return {**body, "seal": {"algorithm": "sha256", "sha256": content_hash(body)}}


class SealCheck(NamedTuple):
    """The result of checking a document's seal."""

    ok: bool
    expected: str | None
    actual: str


def check_seal(document: Mapping[str, Any]) -> SealCheck:
    """Compare the recorded seal with the one the content gives.

    >>> doc = sealed({"a": 1})
    >>> check_seal(doc).ok
    True
    >>> check_seal({**doc, "a": 2}).ok
    False
    """
    seal = document.get("seal")
    expected = seal.get("sha256") if isinstance(seal, Mapping) else None
    actual = compute_seal(document)
    return SealCheck(ok=expected == actual, expected=expected if isinstance(expected, str) else None, actual=actual)


_PLACEHOLDER = {"algorithm": "sha256", "sha256": "0" * 64}


def seal_receipt(body: Mapping[str, Any]) -> Receipt:
    """A receipt body (everything but ``schema_version`` and ``seal``) completed through the models at the current
    schema version, its full JSON form sealed; a body the models refuse raises pydantic's ``ValidationError``."""
    draft = Receipt.model_validate({**body, "schema_version": SCHEMA_VERSION, "seal": _PLACEHOLDER})
    doc = sealed(draft.model_dump(mode="json"))
    return draft.model_copy(update={"seal": Seal.model_validate(doc["seal"])})
