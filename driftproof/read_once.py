"""A receipt of the current version read with one validation and one encoding, a case at a time (issue 14).

The reference read (`driftproof.receipts.check_document`, then `to_model`) walks a parsed receipt four times: the
schema, the seal's canonical encoding, pydantic's lax validation, and the walk that shares the models' field-name
sets. Here each case of the parsed document is encoded once, by pydantic-core (``to_json``), and those bytes are
both hashed for the seal and validated into the case's models, strictly, from JSON; then the case's part of the
document is dropped, so the document shrinks as the models grow and the file's bytes are never held beside them.

Why the bytes can stand for the document:

- **Validation.** Pydantic in strict JSON mode refuses every type the schema refuses (no ``"0.5"`` for a number,
  no ``1`` for a boolean) and the models carry the schema's field constraints (it is generated from them);
  under ``READ_ONCE`` each draw and judge sample is held to the rule the schema adds for it, as it is made, and
  shares its field-name set at once (`driftproof.receipt_memory.FieldSets`), so unshared sets never pile up.
- **The seal.** ``to_json`` spells every value as the canonical form does (`driftproof.core.seal`: compact,
  UTF-8, the same string escapes, Python's float ``repr``), except floats below 1e-4 (``0.00001`` for
  ``1e-05``, ``2.5e-7`` for ``2.5e-07``), and it keeps keys in the order the document holds them, which in a
  file Driftproof wrote is sorted. A case whose bytes hold either small-float spelling (``0.0000``, or a digit
  before ``e-``, in a string too: that costs only time) is hashed by the definition instead. Every piece
  hashed is a faithful encoding of its part of the document, so a hash equal to the recorded seal proves the
  pieces are the canonical bytes the writer hashed, and the document the one sealed. A hash that differs
  proves nothing (keys in another order, say): the receipt is then read the reference way, which decides.

Anything this read does not accept returns ``None``, and the caller reads the receipt again the reference way,
which words the refusal: both ways accept the same receipts and give the same models
(``tests/unit/test_read_once.py`` compares them on random edits).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pydantic_core
from pydantic import ValidationError

from driftproof.core.models import READ_ONCE, READ_RESTAMPED_SMOKE, SCHEMA_VERSION, Case, Receipt
from driftproof.core.seal import canonical_json
from driftproof.receipt_memory import FieldSets


def applies(doc: dict[str, Any]) -> bool:
    """Whether ``doc`` is a receipt this read is for: the current version, and not FORMAL (refused by name)."""
    return doc.get("schema_version") == SCHEMA_VERSION and doc.get("verification") != "FORMAL"


def read_once(doc: dict[str, Any], read_restamped_smoke: bool) -> Receipt | None:
    """The models of ``doc`` (a parsed current-version receipt whose structure holds,
    `driftproof.receipts.structure_error`) when its seal and every rule hold, else ``None``. Consumes ``doc``:
    each case is dropped from it once its models are made."""
    cases = doc.get("cases")
    seal = doc.get("seal")
    expected = seal.get("sha256") if isinstance(seal, dict) else None
    if not isinstance(cases, list) or not isinstance(expected, str):
        return None
    context = {READ_RESTAMPED_SMOKE: read_restamped_smoke, READ_ONCE: FieldSets()}
    digest = hashlib.sha256(b"{")
    models: list[Case] = []
    try:
        for i, key in enumerate(k for k in doc if k != "seal"):
            digest.update((b"," if i else b"") + canonical_json(key) + b":")
            if key != "cases":
                digest.update(canonical_json(doc[key]))
                continue
            digest.update(b"[")
            for ci in range(len(cases)):
                encoded = pydantic_core.to_json(cases[ci], inf_nan_mode="constants")
                digest.update((b"," if ci else b"") + _canonical(encoded, cases[ci]))
                cases[ci] = None  # this case's part of the document is freed before the next case's models
                models.append(Case.model_validate_json(encoded, strict=True, context=context))
            digest.update(b"]")
        digest.update(b"}")
        if digest.hexdigest() != expected:
            return None
        top = {key: value for key, value in doc.items() if key != "cases"}
        receipt = Receipt.model_validate_json(pydantic_core.to_json({**top, "cases": []}), strict=True, context=context)
    except (ValidationError, ValueError, TypeError):  # a refusal, or a value the encoders cannot write
        return None
    return receipt.model_copy(update={"cases": models})


def _canonical(encoded: bytes, case: Any) -> bytes:
    """The canonical bytes of ``case``: ``encoded`` itself unless it may hold a float spelled otherwise."""
    return canonical_json(case) if spelled_otherwise(encoded) else encoded


_DIGITS = range(ord("0"), ord("9") + 1)


def spelled_otherwise(encoded: bytes) -> bool:
    """Whether pydantic-core's bytes may hold a float below 1e-4, which it spells ``0.0000…`` (down to 1e-6) or
    with a bare exponent after a digit (``2.5e-7``), and the canonical form with ``e-0…`` (``2.5e-07``).
    (A plain search: a regular expression for the two took seven times as long on a 1,000-case receipt.)

    >>> spelled_otherwise(b'{"a":0.000036}'), spelled_otherwise(b'{"a":2.5e-7}'), spelled_otherwise(b'{"a":"e-7"}')
    (True, True, False)
    """
    if b"0.0000" in encoded:
        return True
    at = encoded.find(b"e-")
    while at > 0:
        if encoded[at - 1] in _DIGITS:
            return True
        at = encoded.find(b"e-", at + 2)
    return False
