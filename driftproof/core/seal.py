"""Canonical JSON and the seal.

``seal.sha256`` is the SHA-256 of the canonical JSON of the receipt without its ``seal``: keys sorted,
compact separators, UTF-8 (no ASCII escaping), no NaN or infinity, and floats as Python's shortest
round-trip ``repr`` (so ``0.85`` is written ``0.85`` and ``1.0`` stays ``1.0``; an integer stays an integer).
The seal is verified on the document as parsed, so a receipt written by another tool keeps its own
number spellings.

``canonical_json`` is the definition; ``content_hash`` hashes the same bytes as they are made, a case at a
time (``canonical_chunks``), so a receipt of thousands of cases is never held as one string (issue 14).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
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
    return _encode(value).encode("utf-8")


STREAMED_LEVELS = 2
"""How many levels of containers ``canonical_chunks`` opens itself (the receipt, then its ``cases`` list);
below them each value is one ``canonical_json`` call, so the chunks are a case each."""


def canonical_chunks(value: Any, levels: int = STREAMED_LEVELS) -> Iterator[str]:
    """The canonical JSON of ``value`` in pieces whose concatenation is exactly ``canonical_json(value)``.

    A dict with string keys and a list are opened (``{``, each sorted key and its value, ``}``) down to
    ``levels`` deep; anything else, or anything below, is encoded whole as ``json.dumps`` would encode it
    there (a dict with a non-string key too: its keys are sorted before they are turned to strings).

    >>> "".join(canonical_chunks({"b": [1, {"d": 2, "c": None}], "a": {}}))
    '{"a":{},"b":[1,{"c":null,"d":2}]}'
    """
    if levels and isinstance(value, dict) and all(isinstance(key, str) for key in value):
        yield "{"
        for i, key in enumerate(sorted(value)):
            yield ("," if i else "") + _encode(key) + ":"
            yield from canonical_chunks(value[key], levels - 1)
        yield "}"
    elif levels and isinstance(value, list):
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ","
            yield from canonical_chunks(item, levels - 1)
        yield "]"
    else:
        yield _encode(value)


def _encode(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(value: Any) -> str:
    """SHA-256 hex of the canonical JSON of ``value``, hashed as it is made (``canonical_chunks``).

    >>> content_hash({"a": [1]}) == hashlib.sha256(canonical_json({"a": [1]})).hexdigest()
    True
    """
    digest = hashlib.sha256()
    for chunk in canonical_chunks(value):
        digest.update(chunk.encode("utf-8"))
    return digest.hexdigest()


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
