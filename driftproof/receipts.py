"""Receipt files in and out: JSON, the schema of the receipt's own version, the seal, atomic writes, and the
badge JSON written from a receipt."""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from driftproof import read_once
from driftproof.atomic import write_text, write_together
from driftproof.bounded import RECEIPT, check_json_depth, load_json_bytes, read_file
from driftproof.core.badge import badge_json
from driftproof.core.badge_age import Verified
from driftproof.core.models import READ_RESTAMPED_SMOKE, Receipt
from driftproof.core.reading import ReceiptReading
from driftproof.core.seal import check_seal
from driftproof.errors import ReceiptError
from driftproof.receipt_memory import share_field_sets
from driftproof.resources import known_schema_versions, schema_file
from driftproof.safe_text import SHOWN_CHARS, one_line, shorten, shorten_quoted, shown_name


@cache
def _validator(version: str) -> Any:
    """A compiled validator for the schema of ``version``: jsonschema-rs, else the pure-Python jsonschema."""
    schema = json.loads(schema_file(version).read_text(encoding="utf-8"))
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - platforms without a jsonschema-rs wheel
        from jsonschema import Draft202012Validator

        return Draft202012Validator(schema)
    return jsonschema_rs.validator_for(schema)


def _first_error(version: str, doc: dict[str, Any]) -> str | None:
    """The first schema error as ``at <path>: <message>``, or ``None`` when the document is valid.

    ``is_valid`` first: it stops at the first failure and builds no error objects, so a valid receipt (the
    usual case) is walked once; only an invalid one is walked again for its first error."""
    validator = _validator(version)
    if validator.is_valid(doc):
        return None
    for error in validator.iter_errors(doc):
        path = getattr(error, "instance_path", None)
        if path is None:
            path = list(error.absolute_path)
        where = "/".join(shorten(str(p)) for p in path) or "(top level)"
        return f"at {where}: {shorten_quoted(error.message)}"
    return None


def parse_document(raw: bytes, source: str) -> dict[str, Any]:
    """Parse receipt bytes into a JSON object within ``bounded.RECEIPT``, or raise a one-line ``ReceiptError``."""
    doc = load_json_bytes(raw, source, limits=RECEIPT, error=ReceiptError, what="a receipt")
    if not isinstance(doc, dict):
        raise ReceiptError(f"{source}: a receipt is a JSON object, found {type(doc).__name__}")
    return doc


def _version_key(version: str) -> tuple[int, ...] | None:
    parts = version.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def _unread_version(doc: dict[str, Any], source: str) -> ReceiptError:
    """Which versions this Driftproof reads, and whether a newer one wrote the file."""
    known, version = known_schema_versions(), doc.get("schema_version")
    reads = ", ".join(known)
    if "schema_version" not in doc:
        return ReceiptError(
            f"{source}: schema_version: missing; a receipt names its schema version (this Driftproof reads {reads})"
        )
    if not isinstance(version, str):
        return ReceiptError(
            f"{source}: schema_version: {version!r} is not a version string (this Driftproof reads {reads})"
        )
    message = f"{source}: schema_version: {version!r} is not one this Driftproof reads (it reads {reads})"
    key, newest = _version_key(version), max(filter(None, map(_version_key, known)), default=None)
    if key is not None and newest is not None and key > newest:
        message += "; a newer Driftproof wrote it"
    return ReceiptError(message)


def is_restamped_smoke(doc: dict[str, Any]) -> bool:
    """A document that names a preset (a smoke run) and yet reads TESTED: the schema refuses it; a reader of a
    verdict reads it as the smoke run it is."""
    run = doc.get("run")
    return isinstance(run, dict) and isinstance(run.get("preset"), str) and doc.get("verification") == "TESTED"


SHOWN_INDICES = 10
"""How many draw indices a refusal names before it says how many draws there are."""


def structure_error(doc: dict[str, Any], source: str) -> ReceiptError | None:
    """What no schema checks: case ids unique, each arm's draw indices 0, 1, 2, … in order (no hole, repeat or
    swap); the refusal of the first that fails, or ``None``. On a document the schema has not yet checked (the
    read once, `driftproof.read_once`), a shape it cannot walk is refused too; after the schema there is none."""
    cases = doc.get("cases", [])
    if not isinstance(cases, list):
        return ReceiptError(f"{source}: cases: not a list")
    seen: set[str] = set()
    for ci, case in enumerate(cases):
        if not isinstance(case, dict):
            return ReceiptError(f"{source}: cases[{ci}]: not an object")
        case_id = str(case.get("id"))
        if case_id in seen:
            return ReceiptError(f"{source}: cases: case id {case_id!r} appears more than once")
        seen.add(case_id)
        for name in ("with_skill", "baseline"):
            arm, where = case.get(name), f"{source}: cases[{ci}].{name}.draws"
            draws = arm.get("draws") if isinstance(arm, dict) else None
            if not isinstance(draws, list) or not all(isinstance(draw, dict) for draw in draws):
                return ReceiptError(f"{where}: not a list of draws")
            indices = [draw.get("index") for draw in draws]
            if indices != list(range(len(indices))):
                found = ", ".join(str(i) for i in indices[:SHOWN_INDICES])
                if len(indices) > SHOWN_INDICES:
                    found += f", … ({len(indices)} draws)"
                return ReceiptError(f"{where}: indices must run 0, 1, 2, … in order; found {found}")
    return None


def check_document(doc: dict[str, Any], source: str, *, read_restamped_smoke: bool = False) -> None:
    """Schema of the document's own ``schema_version``, then what no schema checks (case ids unique, each arm's
    draw indices 0, 1, 2, … in order), then the seal; raise ``ReceiptError`` on failure.

    With ``read_restamped_smoke`` a smoke receipt restamped TESTED is checked as if it read UNVERIFIED, so that
    every other rule still applies; its seal is checked as written. Readers of a verdict then count it below
    TESTED (seed 000: "a smoke receipt restamped TESTED and sealed again is refused as an honest one is").
    """
    version = doc.get("schema_version")
    if doc.get("verification") == "FORMAL":
        raise ReceiptError(f"{source}: verification: FORMAL is reserved and never written; refusing it")
    if not isinstance(version, str) or version not in known_schema_versions():
        raise _unread_version(doc, source)
    checked = {**doc, "verification": "UNVERIFIED"} if read_restamped_smoke and is_restamped_smoke(doc) else doc
    error = _first_error(version, checked)
    if error is not None:
        raise ReceiptError(f"{source}: schema {version}: {error}")
    structure = structure_error(doc, source)
    if structure is not None:
        raise structure
    try:
        seal = check_seal(doc)
    except UnicodeEncodeError:
        raise ReceiptError(f"{source}: a string holds a lone surrogate (not valid Unicode text)") from None
    if not seal.ok:
        raise ReceiptError(f"{source}: seal mismatch: recorded {seal.expected}, content gives {seal.actual}")


def to_model(doc: dict[str, Any], source: str, *, read_restamped_smoke: bool = False) -> Receipt:
    """The model of a checked document (its draws and judge samples sharing their field-name sets)."""
    try:
        receipt = Receipt.model_validate(doc, context={READ_RESTAMPED_SMOKE: read_restamped_smoke})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "/".join(shorten(str(p)) for p in first["loc"]) or "(top level)"
        raise ReceiptError(f"{source}: at {where}: {first['msg']}") from None
    return share_field_sets(receipt)


def load_receipt(path: Path | str, *, read_restamped_smoke: bool = False) -> Receipt:
    """Load a receipt file: JSON, schema, seal. Any failure is one ``ReceiptError`` line naming the file.

    ``read_restamped_smoke``: for readers of a verdict (view, diff, badge, the Action's baseline), which read a
    smoke receipt restamped TESTED as a smoke run; ``validate`` and every writer refuse it.
    """
    path = Path(path)
    return _load(
        lambda: read_file(path, RECEIPT, ReceiptError, "a receipt", "a receipt file"), str(path), read_restamped_smoke
    )


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a large tree of new objects is built and read.

    A receipt of 1,000 cases x 10 draws x 5 judge samples parses to some 66,000 objects the collector
    tracks and loads into some 237,000 more (its models), with no reference cycles; without the pause the
    collector rescans them again and again as they are made (about 30% of the load time), and all of them
    again at its first collections after the load. ``view`` and ``diff`` keep it paused until they have
    printed (issue 14): reference counting still frees what they drop, and they make no cycles to collect.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_receipt_bytes(raw: bytes, source: str, *, read_restamped_smoke: bool = False) -> Receipt:
    """Load a receipt from bytes (the default branch's copy, say)."""
    return _load(lambda: raw, source, read_restamped_smoke)


def _load(read: Callable[[], bytes], source: str, read_restamped_smoke: bool) -> Receipt:
    """Parse the bytes ``read`` gives (freed once parsed); a current receipt is read once (`driftproof.read_once`),
    and one that read does not accept, or any other, the reference way (`check_document`, then `to_model`),
    which words every refusal: for that the bytes are read again, as the first read consumed the document.

    The first parse is `read_once.parse`: `parse_document`'s parse without the depth scan before it, which the read
    once does without (what it accepts nests at most 64 levels, `read_once.CASE_DEPTH`); any other receipt is held to
    that scan here, before anything else is said of it, so every refusal comes in the order and words of
    `parse_document`."""
    with gc_paused():
        raw = read()
        doc = read_once.parse(raw)
        if doc is not None and read_once.applies(doc) and structure_error(doc, source) is None:
            del raw  # freed before the models are made
            receipt = read_once.read_once(doc, read_restamped_smoke)
            if receipt is not None:
                return receipt
            doc = parse_document(read(), source)
        elif doc is None:
            doc = parse_document(raw, source)  # words what the fast parse refused, or reads it (a lone surrogate)
            del raw
        else:  # parsed as parse_document parses; held to the depth it checks first
            check_json_depth(raw, source, limits=RECEIPT, error=ReceiptError, what="a receipt")
            del raw
        check_document(doc, source, read_restamped_smoke=read_restamped_smoke)
        return to_model(doc, source, read_restamped_smoke=read_restamped_smoke)


def receipt_json(receipt: Receipt) -> str:
    """The file text of a receipt: indented for people; the seal covers the canonical form."""
    return json.dumps(receipt.model_dump(mode="json"), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def check_transcripts(receipt: Receipt, path: Path) -> Path | None:
    """The answers archive a receipt seals, checked against its recorded sha256; ``None`` when it keeps none.

    The archive sits beside the receipt (``transcripts.path`` is relative to it). A missing or edited
    archive is a `ReceiptError`: the receipt's seal covers the digest, so the archive is part of what it attests.
    """
    if receipt.transcripts is None:
        return None
    archive = path.parent / receipt.transcripts.path
    where = f"{path}: transcripts: the answers archive {archive}"
    try:
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    except FileNotFoundError:
        raise ReceiptError(f"{where} is missing (it must sit beside the receipt)") from None
    except OSError as exc:
        raise ReceiptError(f"{where} cannot be read ({exc.strerror})") from None
    if digest != receipt.transcripts.sha256:
        raise ReceiptError(
            f"{where} does not match the sealed sha256 (recorded {receipt.transcripts.sha256}, file gives {digest})"
        )
    return archive


def write_receipt(
    receipt: Receipt, path: Path | str, *, beside: Mapping[Path, str | Iterable[bytes]] | None = None
) -> Path:
    """Validate (schema and seal) and write a receipt atomically; return its path.

    ``beside`` holds files that belong with it (its answers archive, as text or as chunks of UTF-8 written as they
    come): all are written or none is. The document checked is the one written (one dump of the receipt, not two).
    """
    path = Path(path)
    doc = receipt.model_dump(mode="json")
    check_document(doc, str(path))
    files = {p: text.encode("utf-8") if isinstance(text, str) else text for p, text in (beside or {}).items()}
    write_together({**files, path: _file_chunks(doc)})
    return path


#: The receipt file's encoder: indented for people, keys sorted; the same text as `receipt_json`.
_FILE_ENCODER = json.JSONEncoder(indent=2, ensure_ascii=False, sort_keys=True)


def _file_chunks(doc: dict[str, Any]) -> Iterator[bytes]:
    """The file text of ``doc`` (= `receipt_json`) as UTF-8 chunks of about 64 KiB, never whole in memory.

    An indented dump runs the pure-Python encoder either way, so streaming it costs no time; it saves the whole
    text and its bytes, each the size of the file, at the run's peak.
    """
    pending: list[str] = []
    size = 0
    for piece in _FILE_ENCODER.iterencode(doc):
        pending.append(piece)
        size += len(piece)
        if size >= 65536:
            yield "".join(pending).encode("utf-8")
            pending, size = [], 0
    pending.append("\n")
    yield "".join(pending).encode("utf-8")


def badge_text(reading: ReceiptReading, verified: Verified | None = None) -> str:
    """The shields.io endpoint JSON of a receipt (decided in `driftproof.core.badge`) as file text: one line. What
    the receipt holds (the skill's name, the model's) is shown as suite text is: no control or format character
    reaches a README through shields.io (docs/security.md)."""
    doc = badge_json(replace(reading, skill_name=shown_name(reading.skill_name)), verified)
    doc["message"] = one_line(str(doc["message"]), SHOWN_CHARS)
    return json.dumps(doc, ensure_ascii=False) + "\n"


def write_badge(reading: ReceiptReading, path: Path, verified: Verified | None = None) -> Path:
    """Write the badge JSON of ``reading`` to ``path`` atomically; return the path.

    Serve the file from the default branch (``raw.githubusercontent.com``) and point
    ``https://img.shields.io/endpoint?url=...`` at it; never publish it from a pull request's run.
    """
    write_text(path, badge_text(reading, verified))
    return path
