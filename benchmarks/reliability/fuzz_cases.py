"""Mutated receipts for part 6: what a mutation is, how Hypothesis draws one, and the oracle that says
whether the result is a valid, sealed receipt.

A `Mutation` names a base receipt, up to three structural edits (set a value, delete a key or item, add a
key) at paths of the base, whether the seal is recomputed afterwards, and optionally one edit of the
serialized bytes (cut them short, change a byte, a BOM, a duplicate key, a raw token in place of the whole).
Huge strings and deep nesting are kept as small markers (`Huge`, `Deep`) until applied, so a minimal
example prints short.

The oracle is independent of Driftproof's reader: strict UTF-8 JSON (no NaN or Infinity), an object, a
known ``schema_version``, the JSON Schema of that version (the pure-Python ``jsonschema``), and the seal of
``docs/receipt-spec.md`` (SHA-256 of the canonical JSON without ``seal``).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from benchmarks.reliability.common import ROOT

PathT = tuple[str | int, ...]


@dataclass(frozen=True)
class Huge:
    chars: int

    def value(self) -> str:
        return "z" * self.chars


@dataclass(frozen=True)
class Deep:
    levels: int

    def value(self) -> Any:
        inner: Any = "bottom"
        for _ in range(self.levels):
            inner = [inner]
        return inner


FLIP = "<flip>"
"""A marker: the value at the path, flipped (a bool negated, a number changed, a string edited)."""


@dataclass(frozen=True)
class Op:
    kind: str
    path: PathT
    value: Any = None
    key: str = ""

    def describe(self) -> str:
        where = "/".join(str(p) for p in self.path) or "(top)"
        if self.kind == "delete":
            return f"delete {where}"
        shown = repr(self.value) if len(repr(self.value)) <= 60 else repr(self.value)[:57] + "..."
        return f"add {where}/{self.key!r} = {shown}" if self.kind == "add" else f"set {where} = {shown}"


@dataclass(frozen=True)
class Mutation:
    base: str
    ops: tuple[Op, ...]
    reseal: bool
    raw: tuple[str, Any] | None = None

    def describe(self) -> str:
        parts = [f"base {self.base}", *(op.describe() for op in self.ops)]
        parts.append("re-sealed" if self.reseal else "not re-sealed")
        if self.raw is not None:
            shown = repr(self.raw[1]) if len(repr(self.raw[1])) <= 40 else repr(self.raw[1])[:37] + "..."
            parts.append(f"then bytes: {self.raw[0]} {shown}")
        return "; ".join(parts)


# -- bases ------------------------------------------------------------------------------------------------


@cache
def bases() -> dict[str, dict[str, Any]]:
    """Valid sealed receipts: two built at the current version (TESTED, and a smoke run), two older fixtures."""
    from driftproof.receipts import receipt_json
    from tests.support.builders import receipt

    tested = receipt({"a": ([0.8, 0.85, None], [0.4, 0.45, 0.5]), "b": ([0.7, 0.75, 0.8], [0.7, 0.7, 0.75])})
    smoke = receipt({"a": ([0.8, 0.85], [0.4, 0.45])}, verification="UNVERIFIED", preset="quick")
    docs = {"tested-0.15": json.loads(receipt_json(tested)), "smoke-0.15": json.loads(receipt_json(smoke))}
    for name in ("receipt-0.14", "legacy-single-draw"):
        docs[name] = json.loads((ROOT / "tests" / "fixtures" / f"{name}.json").read_text(encoding="utf-8"))
    return docs


@cache
def paths_of(base: str) -> tuple[PathT, ...]:
    """Every path in a base document, parents before children, in a stable order."""
    found: list[PathT] = []

    def walk(value: Any, path: PathT) -> None:
        found.append(path)
        if isinstance(value, dict):
            for key in sorted(value):
                walk(value[key], (*path, key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, (*path, i))

    walk(bases()[base], ())
    return tuple(found)


# -- strategies -------------------------------------------------------------------------------------------

NASTY_TEXT = (
    "\n",
    "\r",
    "a\nb",
    "\n::error::x",
    "\x1b[2J",
    "\u202e",
    "\x00",
    "|",
    "<details>",
    "0.15",
    "TESTED",
    "x" * 2000,
)
"""Strings that break lines, terminals or tables, or look like the values a receipt holds."""
KEYS = st.one_of(st.text(max_size=6), st.sampled_from(NASTY_TEXT))
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(NASTY_TEXT),
)
VALUES = st.one_of(
    st.just(FLIP),
    _SCALARS,
    st.recursive(_SCALARS, lambda c: st.lists(c, max_size=3) | st.dictionaries(KEYS, c, max_size=3), max_leaves=6),
    st.integers(10_000, 1_000_000).map(Huge),
    st.integers(20, 300).map(Deep),
)
RAW_TOKENS = ("", "[]", "null", '"receipt"', "1", "{}", "1" * 5000, "[" * 10_000 + "]" * 10_000, '{"a":' * 2000)
RAW = st.one_of(
    st.none(),
    st.none(),
    st.none(),
    st.tuples(st.just("truncate at"), st.floats(0.0, 1.0)),
    st.tuples(st.just("set byte"), st.tuples(st.floats(0.0, 1.0), st.integers(0, 255))),
    st.tuples(st.just("prefix"), st.sampled_from(["\ufeff", " ", "\x00"])),
    st.tuples(st.just("duplicate key"), st.sampled_from(['"schema_version": "9.0"', '"verification": "TESTED"'])),
    st.tuples(st.just("replace with"), st.sampled_from(RAW_TOKENS)),
)


@st.composite
def mutations(draw: st.DrawFn) -> Mutation:
    base = draw(st.sampled_from(sorted(bases())))
    paths = paths_of(base)
    ops = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["set", "delete", "add"]))
        path = paths[draw(st.integers(0, len(paths) - 1))]
        value = draw(VALUES) if kind != "delete" else None
        key = draw(KEYS) if kind == "add" else ""
        ops.append(Op(kind, path, value, key))
    return Mutation(base, tuple(ops), draw(st.booleans()), draw(RAW))


# -- applying a mutation ----------------------------------------------------------------------------------


def _materialize(value: Any) -> Any:
    return value.value() if isinstance(value, (Huge, Deep)) else value


def _flip(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return -value - 1 if value >= 0 else value * 2
    if isinstance(value, str):
        return value[:-1] + ("0" if not value.endswith("0") else "1") if value else "x"
    return 0 if value is None else None


def _apply(doc: Any, op: Op) -> Any:
    if not op.path and op.kind != "add":
        return None if op.kind == "delete" else _materialize(op.value)
    parent: Any = doc
    for step in op.path[:-1] if op.kind != "add" else op.path:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return doc  # an earlier edit removed the path: this one does nothing
    if op.kind == "add":
        if isinstance(parent, dict):
            parent[op.key] = _materialize(op.value)
        elif isinstance(parent, list):
            parent.append(_materialize(op.value))
        return doc
    last = op.path[-1]
    try:
        old = parent[last]
    except (KeyError, IndexError, TypeError):
        return doc
    if op.kind == "delete":
        del parent[last]
    else:
        parent[last] = _flip(old) if op.value == FLIP else _materialize(op.value)
    return doc


def canonical_sha256(doc: Mapping[str, Any]) -> str:
    """The seal of docs/receipt-spec.md: SHA-256 of the canonical JSON of everything but ``seal``."""
    body = {k: v for k, v in doc.items() if k != "seal"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def render(m: Mutation) -> bytes:
    """The file bytes of a mutated receipt."""
    doc: Any = copy.deepcopy(bases()[m.base])
    for op in m.ops:
        doc = _apply(doc, op)
    if m.reseal and isinstance(doc, dict):
        with contextlib.suppress(ValueError, TypeError):  # NaN or infinity: nothing canonical to seal
            doc["seal"] = {"algorithm": "sha256", "sha256": canonical_sha256(doc)}
    data = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=True).encode("utf-8")
    return _raw(data, m.raw)


def _raw(data: bytes, raw: tuple[str, Any] | None) -> bytes:
    if raw is None:
        return data
    kind, arg = raw
    if kind == "truncate at":
        return data[: int(len(data) * arg)]
    if kind == "set byte":
        at = min(len(data) - 1, int(len(data) * arg[0]))
        return data[:at] + bytes([arg[1]]) + data[at + 1 :]
    if kind == "prefix":
        return str(arg).encode("utf-8") + data
    if kind == "duplicate key" and data.startswith(b"{"):
        return b"{" + str(arg).encode() + b"," + data[1:]
    if kind == "replace with":
        return str(arg).encode("utf-8")
    return data


# -- the oracle -------------------------------------------------------------------------------------------


@cache
def _validator(version: str) -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "schemas" / f"receipt-{version}.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def known_versions() -> set[str]:
    return {p.name.removeprefix("receipt-").removesuffix(".schema.json") for p in (ROOT / "schemas").glob("*.json")}


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def oracle(data: bytes, *, restamped_smoke: bool) -> str | None:
    """``None`` for a valid, sealed receipt; else why not. ``restamped_smoke``: read a smoke run restamped
    TESTED as the smoke run it is (what ``view``, ``diff`` and ``badge`` do), as seed 000 says."""
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return f"not JSON ({type(exc).__name__})"
    if not isinstance(doc, dict):
        return "not a JSON object"
    version = doc.get("schema_version")
    if not isinstance(version, str) or version not in known_versions():
        return "no schema_version this tool reads"
    checked = doc
    run = doc.get("run")
    restamped = isinstance(run, dict) and isinstance(run.get("preset"), str) and doc.get("verification") == "TESTED"
    if restamped_smoke and restamped:
        checked = {**doc, "verification": "UNVERIFIED"}
    error = next(iter(_validator(version).iter_errors(checked)), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        return f"off-schema at {where} ({error.validator})"
    seal = doc.get("seal")
    try:
        sealed = isinstance(seal, dict) and seal.get("sha256") == canonical_sha256(doc)
    except (ValueError, TypeError):
        sealed = False
    return None if sealed else "the seal does not match"


def write_bases(where: Path) -> dict[str, Path]:
    """Each base receipt as a file (the BEFORE side of ``diff``)."""
    paths = {}
    for name, doc in bases().items():
        paths[name] = where / f"base-{name}.json"
        paths[name].write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return paths
