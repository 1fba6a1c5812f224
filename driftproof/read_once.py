"""A receipt of the current version read with one validation and one encoding, a case at a time (issue 14).

The reference read (`driftproof.receipts.check_document`, then `to_model`) walks a parsed receipt four times: the
schema, the seal's canonical encoding, pydantic's lax validation, and the walk that shares the models' field-name
sets. Here each case of the parsed document is encoded once, by pydantic-core (``to_json``), and those bytes are
both hashed for the seal and validated into the case's models, strictly, from JSON; then the case's part of the
document is dropped, so the document shrinks as the models grow and the file's bytes are never held beside them.

Why the bytes can stand for the document:

- **Validation.** Pydantic in strict JSON mode refuses every type the schema refuses (no ``"0.5"`` for a number,
  no ``1`` for a boolean) and the models carry the schema's field constraints (it is generated from them);
  then each draw and judge sample of the case just made (the only place they occur) is held to the rule the
  schema adds for it (``holds_schema_rule``) and shares its field-name set
  (`driftproof.receipt_memory.FieldSets`), a case at a time, so unshared sets never pile up. (A model validator
  did both as each model was made; asked from Python after the case, it costs 0.1 s less on a 1,000-case receipt.)
- **The seal.** ``to_json`` spells every value as the canonical form does (`driftproof.core.seal`: compact,
  UTF-8, the same string escapes, Python's float ``repr``), except floats below 1e-4 (``0.00001`` for
  ``1e-05``, ``2.5e-7`` for ``2.5e-07``), and it keeps keys in the order the document holds them, which in a
  file Driftproof wrote is sorted. A case whose bytes hold either small-float spelling (``0.0000``, or a digit
  before ``e-``, in a string too: that costs only time) is hashed by the definition instead. Every piece
  hashed is a faithful encoding of its part of the document, so a hash equal to the recorded seal proves the
  pieces are the canonical bytes the writer hashed, and the document the one sealed. A hash that differs
  proves nothing (keys in another order, say): the receipt is then read the reference way, which decides. (The
  one file the two ways part on: keys out of order and a seal over that order, not the canonical form, which
  this read accepts and the reference read refuses; no Driftproof writes one, and checking every object's key
  order costs more than this read saves: docs/performance.md.)

- **The depth.** The document is parsed without the depth scan that comes before every other parse
  (`driftproof.bounded.check_json_depth`, 0.14 s of a 1,000-case receipt): jiter refuses anything deeper than 200
  levels itself, without recursing. What this read accepts nests at most 64 levels all the same: a case valid under
  the models nests at most `CASE_DEPTH` levels (they hold no untyped value; ``tests/unit/test_read_once.py``
  derives the figure from their schema), two below the receipt's top, and the rest of the receipt (where
  ``sampling`` and ``source_figures`` hold any JSON) is scanned here; it is a few kilobytes.

Anything this read does not accept returns ``None``, and the caller reads the receipt again the reference way,
which words the refusal: both ways accept the same receipts (but the one above) and give the same models
(``tests/unit/test_read_once.py`` compares them on random edits).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pydantic_core
from pydantic import ValidationError

from driftproof.bounded import RECEIPT, json_depth_bound
from driftproof.core.models import READ_RESTAMPED_SMOKE, SCHEMA_VERSION, Case, Receipt
from driftproof.core.seal import canonical_json
from driftproof.receipt_memory import FieldSets

CASE_DEPTH = 8
"""How deep a case valid under the models nests: the case, an arm, its draws, a draw, its judge samples, a sample,
its criteria, a criterion's decision (``tests/unit/test_read_once.py`` derives it from the models' schema)."""


def parse(raw: bytes) -> dict[str, Any] | None:
    """``raw`` parsed as `driftproof.receipts.parse_document` parses it (jiter, NaN and Infinity refused), without
    the depth scan before it; ``None`` for bytes over the size a receipt may have, bytes jiter does not parse (it
    refuses past 200 levels, without recursing) or a value that is not an object, which that function words."""
    if len(raw) > RECEIPT.max_bytes:
        return None
    try:
        doc = pydantic_core.from_json(raw, allow_inf_nan=False)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


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
    context = {READ_RESTAMPED_SMOKE: read_restamped_smoke}
    shared = FieldSets()
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
                model = Case.model_validate_json(encoded, strict=True, context=context)
                if not _held(model, shared):
                    return None
                models.append(model)
            digest.update(b"]")
        digest.update(b"}")
        if digest.hexdigest() != expected:
            return None
        top = pydantic_core.to_json({**{key: value for key, value in doc.items() if key != "cases"}, "cases": []})
        if json_depth_bound(top, RECEIPT.max_depth) > RECEIPT.max_depth:
            return None  # the cases nest at most 2 + CASE_DEPTH levels; the rest is held to the bound here
        receipt = Receipt.model_validate_json(top, strict=True, context=context)
    except (ValidationError, ValueError, TypeError):  # a refusal, or a value the encoders cannot write
        return None
    return receipt.model_copy(update={"cases": models})


def _held(case: Case, shared: FieldSets) -> bool:
    """Whether every draw and judge sample of ``case`` holds the schema's rule for it; each shares its field-name
    set as it is asked."""
    share = shared.share
    for arm in (case.with_skill, case.baseline, case.placebo):
        for draw in arm.draws if arm is not None else ():
            if not draw.holds_schema_rule():
                return False
            share(draw)
            for sample in draw.judge_samples:
                if not sample.holds_schema_rule():
                    return False
                share(sample)
    return True


def _canonical(encoded: bytes, case: Any) -> bytes:
    """The canonical bytes of ``case``: ``encoded`` itself unless it may hold a float spelled otherwise."""
    return canonical_json(case) if spelled_otherwise(encoded) else encoded


#: ``e-`` after a digit: the literal first, so the search skips to each ``e-`` (``[0-9]e-`` tries every byte).
_DIGIT_E_MINUS = re.compile(rb"e-(?<=[0-9]e-)")


def spelled_otherwise(encoded: bytes) -> bool:
    """Whether pydantic-core's bytes may hold a float below 1e-4, which it spells ``0.0000…`` (down to 1e-6) or
    with a bare exponent after a digit (``2.5e-7``), and the canonical form with ``e-0…`` (``2.5e-07``).
    (Two searches: one regular expression for both took six times as long on a 1,000-case receipt, and a loop
    over every ``e-`` twice as long, as every judge sample's ``judge-1`` holds one.)

    >>> spelled_otherwise(b'{"a":0.000036}'), spelled_otherwise(b'{"a":2.5e-7}'), spelled_otherwise(b'{"a":"e-7"}')
    (True, True, False)
    >>> spelled_otherwise(b'e-,"judge-1","1e-9"'), spelled_otherwise(b'e-,"judge-1"')
    (True, False)
    """
    return b"0.0000" in encoded or _DIGIT_E_MINUS.search(encoded) is not None
