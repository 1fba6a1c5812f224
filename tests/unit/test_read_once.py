"""Issue 14: a current receipt is read with one validation (strict pydantic from its bytes, then the draw and sample
rules) and a fast seal check, without the depth scan of the whole file, and reads exactly as the reference path
reads it: the same models, or the same one-line refusal. The reference path is the one every older version still
takes: the schema (`check_document`), the seal by its definition, then the lax models (`to_model`)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic_core
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftproof import bounded, read_once, receipts
from driftproof.core.models import Case, Receipt
from driftproof.core.seal import sealed
from driftproof.errors import ReceiptError
from driftproof.receipts import check_document, gc_paused, load_receipt_bytes, parse_document, receipt_json, to_model
from tests.support.builders import arm, receipt

SOURCE = "r.json"


def _document() -> dict[str, Any]:
    r = receipt({"a": (arm([0.5, 0.75, None], samples=2), [0.25, 0.5]), "b": ([1.0], [0.0])})
    return dict(json.loads(receipt_json(r)))


def _reference(raw: bytes, smoke: bool) -> Receipt:
    with gc_paused():
        doc = parse_document(raw, SOURCE)
        check_document(doc, SOURCE, read_restamped_smoke=smoke)
        return to_model(doc, SOURCE, read_restamped_smoke=smoke)


def _outcome(read: Callable[[], Receipt]) -> tuple[Any, ...]:
    try:
        r = read()
    except ReceiptError as exc:
        return ("refused", str(exc))
    except Exception as exc:  # whatever one path raises, the other must raise alike
        return ("raised", type(exc).__name__, str(exc))
    return ("read", r.model_dump(mode="json"), r.model_dump(mode="json", exclude_unset=True))


def _file(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True).encode("utf-8")


def test_a_valid_current_receipt_never_runs_the_schema_or_the_lax_models(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = _file(_document())
    expected = _outcome(lambda: _reference(raw, False))

    def forbidden(*_: Any, **__: Any) -> Any:
        raise AssertionError("walked again")

    monkeypatch.setattr(receipts, "_first_error", forbidden)
    monkeypatch.setattr(receipts, "to_model", forbidden)
    monkeypatch.setattr("driftproof.core.seal.compute_seal", forbidden)
    assert _outcome(lambda: load_receipt_bytes(raw, SOURCE)) == expected
    assert expected[0] == "read"


def test_a_valid_current_receipt_is_never_scanned_for_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    """The depth scan of the whole file (0.14 s of a 1,000-case receipt) is not made for a receipt the read once
    takes; only the few kilobytes outside its cases are scanned, inside the read."""
    raw = _file(_document())
    scanned: list[int] = []
    real = bounded.json_depth_bound

    def spy(data: bytes, cap: int) -> int:
        scanned.append(len(data))
        return real(data, cap)

    monkeypatch.setattr(bounded, "json_depth_bound", spy)
    assert _outcome(lambda: load_receipt_bytes(raw, SOURCE))[0] == "read"
    assert scanned == []


def _schema_depth(schema: dict[str, Any], defs: dict[str, Any], seen: frozenset[str] = frozenset()) -> float:
    """How deep a JSON value valid under ``schema`` can nest (a container is one level); infinite for a value of
    any shape (no type, an object open to any key, an array of anything) or a model that holds itself."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return math.inf if name in seen else _schema_depth(defs[name], defs, seen | {name})
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return max(_schema_depth(choice, defs, seen) for choice in schema[key])
    kind = schema.get("type")
    if kind == "object":
        extra = schema.get("additionalProperties")
        if not isinstance(extra, (dict, bool)) or extra is True:
            return math.inf
        values = [*schema.get("properties", {}).values(), *([extra] if isinstance(extra, dict) else [])]
        return 1 + max((_schema_depth(value, defs, seen) for value in values), default=0)
    if kind == "array":
        return 1 + _schema_depth(schema["items"], defs, seen) if "items" in schema else math.inf
    if kind in ("string", "number", "integer", "boolean", "null"):
        return 0
    return 0 if "enum" in schema or "const" in schema else math.inf


def test_a_case_valid_under_the_models_nests_case_depth_levels() -> None:
    """Why the read once needs no depth scan of the cases: the models bound them. case{1} > with_skill{2} >
    draws[3] > draw{4} > judge_samples[5] > sample{6} > criteria[7] > decision{8}, under a receipt{1} >
    cases[2]: 2 + 8 = 10 levels, within the 64 a receipt may nest."""
    schema = Case.model_json_schema()
    assert _schema_depth(schema, schema.get("$defs", {})) == read_once.CASE_DEPTH == 8
    assert bounded.RECEIPT.max_depth >= 2 + read_once.CASE_DEPTH


def test_the_field_name_sets_are_shared_as_the_models_are_made() -> None:
    r = load_receipt_bytes(_file(_document()), SOURCE)
    draws = [d for c in r.cases for a in (c.with_skill, c.baseline) for d in a.draws]
    samples = [s for d in draws for s in d.judge_samples]
    # draws: 3 + 2 + 1 + 1 = 7; samples: 2 measured with-skill draws x 2 + 2 + 1 + 1 = 8
    assert (len(draws), len(samples)) == (7, 8)
    assert len({id(d.model_fields_set) for d in draws}) == 1
    assert len({id(s.model_fields_set) for s in samples}) == 1


def _reference_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*_: Any, **__: Any) -> Any:
        raise AssertionError("read the reference way")

    monkeypatch.setattr(receipts, "check_document", forbidden)


@pytest.mark.parametrize(("value", "spelled"), [(3.6e-05, b"0.000036"), (2.5e-07, b"2.5e-7")])
def test_a_case_with_a_float_below_1e_minus_4_is_hashed_by_the_definition(
    monkeypatch: pytest.MonkeyPatch, value: float, spelled: bytes
) -> None:
    # pydantic-core spells these otherwise than the canonical repr ('3.6e-05', '2.5e-07'): that case alone is
    # hashed by canonical_json, and the receipt still reads in one validation
    assert pydantic_core.to_json(value) == spelled and json.dumps(value).encode() != spelled
    doc = _document()
    doc["cases"][1]["with_skill"]["draws"][0]["judge_samples"][0]["score"] = value
    raw = _file(sealed(doc))
    expected = _outcome(lambda: _reference(raw, False))
    _reference_forbidden(monkeypatch)
    assert _outcome(lambda: load_receipt_bytes(raw, SOURCE)) == expected
    assert expected[0] == "read"


def test_a_string_that_looks_like_a_small_float_costs_only_time(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _document()
    doc["cases"][0]["with_skill"]["draws"][2]["lost_reason"] = "waited 0.00001 s; 1e-9 of a chance"
    raw = _file(sealed(doc))
    expected = _outcome(lambda: _reference(raw, False))
    _reference_forbidden(monkeypatch)
    assert _outcome(lambda: load_receipt_bytes(raw, SOURCE)) == expected


def test_a_file_whose_keys_are_not_sorted_is_read_the_reference_way() -> None:
    doc = sealed(_document())
    unsorted = json.dumps(dict(reversed(list(doc.items())))).encode("utf-8")
    calls: list[str] = []
    real = receipts.check_document

    def spy(*args: Any, **kwargs: Any) -> None:
        calls.append("reference")
        real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(receipts, "check_document", spy)
        read = load_receipt_bytes(unsorted, SOURCE)
    assert calls == ["reference"]
    assert read == load_receipt_bytes(_file(doc), SOURCE)


def test_the_one_file_the_two_reads_part_on_keys_out_of_order_sealed_as_written() -> None:
    """Documented (docs/performance.md): a case whose keys are out of order, sealed over that order instead of the
    canonical form, is accepted by the read once (its content hashes to its seal as written) and refused by the
    reference read; checking every object's key order would cost more than the read saves."""
    import hashlib

    from driftproof.core.seal import canonical_json

    doc = _document()
    draw = doc["cases"][0]["with_skill"]["draws"][0]
    doc["cases"][0]["with_skill"]["draws"][0] = dict(reversed(list(draw.items())))  # one draw's keys reversed
    body = {k: v for k, v in doc.items() if k != "seal"}
    pieces = [canonical_json(k) + b":" + (canonical_json(v) if k != "cases" else b"") for k, v in body.items()]
    cases = b"[" + b",".join(pydantic_core.to_json(c) for c in body["cases"]) + b"]"
    as_written = b"{" + b",".join(p + cases if p.startswith(b'"cases"') else p for p in pieces) + b"}"
    doc["seal"] = {**doc["seal"], "sha256": hashlib.sha256(as_written).hexdigest()}
    raw = json.dumps(doc, ensure_ascii=False).encode("utf-8")
    assert _outcome(lambda: load_receipt_bytes(raw, SOURCE))[0] == "read"
    refused = _outcome(lambda: _reference(raw, False))
    assert refused[0] == "refused" and "seal" in refused[1]


def test_the_file_is_read_once_when_it_reads(tmp_path: Path) -> None:
    """The bytes are dropped once parsed: a file is read a second time only to word a refusal."""
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_bytes(_file(_document()))
    doc = _document()
    _set(doc, (*SAMPLE, "score"), "0.5")
    bad.write_bytes(_file(sealed(doc)))
    reads: list[Path] = []
    real = receipts.read_file

    def counting(path: Path, *args: Any) -> bytes:
        reads.append(path)
        return real(path, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(receipts, "read_file", counting)
        receipts.load_receipt(good)
        with pytest.raises(ReceiptError, match=r"schema 0\.17"):
            receipts.load_receipt(bad)
    assert reads == [good, bad, bad]


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


DRAW = ("cases", 0, "with_skill", "draws", 0)
SAMPLE = (*DRAW, "judge_samples", 0)


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        ((*SAMPLE, "score"), "0.5", "schema 0.17: at cases/0/with_skill/draws/0/judge_samples/0/score"),
        ((*SAMPLE, "valid"), 1, "schema 0.17: at cases/0/with_skill/draws/0/judge_samples/0/valid"),
        ((*SAMPLE, "score"), None, "schema 0.17: at cases/0/with_skill/draws/0/judge_samples/0"),
        ((*DRAW, "status"), "lost", "schema 0.17: at cases/0/with_skill/draws/0"),
        ((*DRAW, "unknown"), 1, "schema 0.17: at cases/0/with_skill/draws/0"),
    ],
)
def test_what_the_schema_refuses_is_refused_in_its_words(path: tuple[Any, ...], value: Any, words: str) -> None:
    doc = _document()
    _set(doc, path, value)
    raw = _file(sealed(doc))
    outcome = _outcome(lambda: load_receipt_bytes(raw, SOURCE))
    assert outcome == _outcome(lambda: _reference(raw, False))
    assert outcome[0] == "refused" and outcome[1].startswith(f"{SOURCE}: {words}"), outcome


def test_an_integer_written_as_1_0_reads_as_before() -> None:
    """Strict mode refuses 1.0 for an integer, which the schema (and the lax models) accept: the reference path
    reads it, so nothing read before is refused now."""
    doc = _document()
    _set(doc, (*DRAW, "index"), 0.0)
    raw = _file(sealed(doc))
    outcome = _outcome(lambda: load_receipt_bytes(raw, SOURCE))
    assert outcome[0] == "read" and outcome == _outcome(lambda: _reference(raw, False))


def test_an_edited_score_is_a_seal_mismatch_in_the_same_words() -> None:
    doc = sealed(_document())
    _set(doc, (*SAMPLE, "score"), 0.55)
    raw = _file(doc)
    outcome = _outcome(lambda: load_receipt_bytes(raw, SOURCE))
    assert outcome == _outcome(lambda: _reference(raw, False))
    assert outcome[1].startswith(f"{SOURCE}: seal mismatch: recorded {doc['seal']['sha256']}, content gives ")


def _nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"k": value}
    return value


DEEP = f"{SOURCE}: nested deeper than 64 levels; a receipt nests at most 64"


@pytest.mark.parametrize(
    ("path", "levels", "version", "refused"),
    [
        (("run", "sampling", "deep"), 61, "0.17", False),  # receipt{1} > run{2} > sampling{3} > 61 more: 64
        (("run", "sampling", "deep"), 62, "0.17", True),  # 65
        (("run", "sampling", "deep"), 300, "0.17", True),  # past jiter's own limit (200): refused by the parse
        ((*DRAW, "deep"), 60, "0.17", True),  # receipt{1} > cases[2] > case{3} > arm{4} > draws[5] > draw{6}: 66
        (("run", "sampling", "deep"), 62, "0.16", True),  # a receipt the read once is not for
    ],
)
def test_a_receipt_nested_deeper_than_64_levels_is_refused_in_the_same_words(
    path: tuple[Any, ...], levels: int, version: str, refused: bool
) -> None:
    doc = _document()
    doc["schema_version"] = version
    _set(doc, path, _nested(levels))
    raw = _file(sealed(doc))
    outcome = _outcome(lambda: load_receipt_bytes(raw, SOURCE))
    assert outcome == _outcome(lambda: _reference(raw, False))
    assert (outcome == ("refused", DEEP)) == refused, outcome
    assert refused or outcome[0] == "read"


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*prefix, i))
    return found


PATHS = _paths(_document())
VALUES = st.one_of(
    st.sampled_from(
        [
            None,
            True,
            False,
            0,
            1,
            -1,
            0.0,
            1.0,
            0.5,
            2.0,
            1e-05,
            "",
            "x",
            "0.5",
            "lost",
            "measured",
            "TESTED",
            "UNVERIFIED",
            "quick",
            "0" * 64,
            [],
            {},
            {"x": 1},
            [0.5],
        ]
    ),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(),
    st.text(max_size=5),
)
EDIT = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(PATHS), VALUES),
    st.tuples(st.just("drop"), st.sampled_from(PATHS), st.none()),
    st.tuples(st.just("add"), st.sampled_from([p for p in PATHS if p]), st.sampled_from(["extra", "score"])),
)


def _edit(doc: dict[str, Any], edit: tuple[str, tuple[Any, ...], Any]) -> None:
    kind, path, value = edit
    parent: Any = doc
    for key in path[:-1]:
        if not isinstance(parent, (dict, list)) or (isinstance(parent, list) and key >= len(parent)):
            return
        if isinstance(parent, dict) and key not in parent:
            return
        parent = parent[key]
    last = path[-1]
    if isinstance(parent, dict) and (last in parent or kind == "set"):
        if kind == "drop":
            parent.pop(last, None)
        elif kind == "add" and isinstance(parent.get(last), dict):
            parent[last][value] = 0.5
        elif kind == "set":
            parent[last] = value
    elif isinstance(parent, list) and last < len(parent):
        if kind == "drop":
            del parent[last]
        elif kind == "set":
            parent[last] = value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(EDIT, min_size=1, max_size=3), reseal=st.booleans(), smoke=st.booleans(), order=st.booleans())
def test_the_fast_read_and_the_reference_read_agree_on_any_edit(
    edits: list[tuple[str, tuple[Any, ...], Any]], reseal: bool, smoke: bool, order: bool
) -> None:
    doc = _document()
    for edit in edits:
        _edit(doc, edit)
    if reseal:
        doc = sealed(doc)
    raw = (_file(doc) if order else json.dumps(doc, ensure_ascii=False).encode("utf-8")) if doc else b"{}"
    fast = _outcome(lambda: load_receipt_bytes(raw, SOURCE, read_restamped_smoke=smoke))
    assert fast == _outcome(lambda: _reference(raw, smoke))
