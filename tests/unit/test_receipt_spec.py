"""docs/receipt-spec.md stays in step with the code.

The spec must have a table for every receipt model naming exactly its fields (JSON alias when one is set),
with the right nullability and required-ness; name every status word; carry verbatim every sentence of
``core/sentences.py`` it states (``SPEC_SENTENCES``); and document every key that ``view_json`` and ``diff_json``
emit.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from driftproof.core import breakdown_sentences, models, sentences, words
from driftproof.core.breakdown import BREAKDOWN_LIMITS, lift_breakdown
from driftproof.core.build import arm_of, measured_draw
from driftproof.core.diff import diff
from driftproof.core.export import diff_json, view_json
from driftproof.core.models import SCHEMA_VERSION, JudgeSample
from driftproof.core.reading import read_receipt
from driftproof.core.schema import schema_id
from driftproof.core.seal import seal_receipt
from tests.support.builders import arm, legacy_arm, receipt

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "receipt-spec.md"

#: The sentences DESIGN.md lists as the ones users grep for; they must stay constants in words.py.
DESIGN_SENTENCES = (
    "Not enough draws to conclude at this effect floor.",
    "More cases, not more draws, are needed to conclude at this effect floor.",
    "no separation detected at this sample size",
    "Smoke run, no verdict",
)

OBJECT_HEADING = re.compile(r"^#{2,6} Object `(\w+)`\s*$")
HEADING = re.compile(r"^#{1,6} ")
CELL_SPLIT = re.compile(r"(?<!\\)\|")
KEY_CELL = re.compile(r"^`([^`]+)`$")


@pytest.fixture(scope="module")
def spec() -> str:
    assert SPEC.is_file(), f"{SPEC.relative_to(ROOT)} is missing"
    return SPEC.read_text(encoding="utf-8")


def receipt_models() -> list[type[BaseModel]]:
    """Every pydantic model defined in driftproof/core/models.py that has fields."""
    found = [
        cls
        for _, cls in inspect.getmembers(models, inspect.isclass)
        if issubclass(cls, BaseModel) and cls.__module__ == models.__name__
    ]
    assert len(found) > 20, "expected the receipt models"
    return [cls for cls in found if cls.model_fields]


def table_rows(lines: list[str]) -> Iterator[list[str]]:
    """The body rows of the markdown tables in ``lines`` (header and rule rows skipped), as stripped cells."""
    for line in lines:
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in CELL_SPLIT.split(line)[1:-1]]
        if not cells or set(cells[0]) <= {"-", ":"} or not KEY_CELL.match(cells[0]):
            continue
        yield cells


def object_tables(text: str) -> dict[str, list[list[str]]]:
    """``{ModelName: rows}`` for every ``### Object `ModelName` `` section."""
    tables: dict[str, list[list[str]]] = {}
    current: str | None = None
    body: list[str] = []
    for line in [*text.splitlines(), "# end"]:
        if HEADING.match(line):
            if current is not None:
                assert current not in tables, f"two sections for object {current}"
                tables[current] = list(table_rows(body))
            match = OBJECT_HEADING.match(line)
            current, body = (match.group(1) if match else None), []
        elif current is not None:
            body.append(line)
    return tables


def section(text: str, heading: str) -> str:
    """The text under the level-2 ``heading`` up to the next level-2 heading."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def key_of(cell: str) -> str:
    """The key named in a table's first cell, written in backticks."""
    match = KEY_CELL.match(cell)
    assert match, f"not a backticked key: {cell!r}"
    return match.group(1)


def json_name(name: str, info: Any) -> str:
    return str(info.alias or name)


def is_nullable(annotation: Any) -> bool:
    return type(None) in typing.get_args(annotation)


@pytest.mark.parametrize("model", receipt_models(), ids=lambda m: m.__name__)
def test_every_model_has_a_table_naming_exactly_its_fields(spec: str, model: type[BaseModel]) -> None:
    tables = object_tables(spec)
    assert model.__name__ in tables, f"no '### Object `{model.__name__}`' section in the spec"
    rows = {key_of(r[0]): r for r in tables[model.__name__]}
    fields = {json_name(n, i): i for n, i in model.model_fields.items()}
    missing, stale = set(fields) - set(rows), set(rows) - set(fields)
    assert not missing, f"{model.__name__}: fields missing from the spec: {sorted(missing)}"
    assert not stale, f"{model.__name__}: the spec lists fields the model does not have: {sorted(stale)}"
    for name, info in fields.items():
        row = rows[name]
        assert len(row) == 5, f"{model.__name__}.{name}: expected field | type | null? | if absent | meaning"
        nullable = is_nullable(info.annotation)
        assert row[2] == ("yes" if nullable else "no"), f"{model.__name__}.{name}: null? should be {nullable}"
        required = info.is_required()
        assert (row[3] == "required") == required, f"{model.__name__}.{name}: required should be {required}"
        assert row[4], f"{model.__name__}.{name}: no meaning given"


def test_every_field_name_appears(spec: str) -> None:
    names = {json_name(n, i) for m in receipt_models() for n, i in m.model_fields.items()}
    assert "pass" in names  # the alias of CheckResult.passed, not the Python name
    missing = sorted(n for n in names if f"`{n}`" not in spec)
    assert not missing, f"field names missing from the spec: {missing}"


@pytest.mark.parametrize(
    "enum",
    [
        words.CaseVerdict,
        words.Status,
        words.Verification,
        words.DrawStatus,
        words.BandSource,
        words.Outcome,
        words.ArmName,
        words.Separation,
    ],
    ids=lambda e: e.__name__,
)
def test_every_status_word_appears(spec: str, enum: type[Enum]) -> None:
    missing = [m.value for m in enum if f"`{m.value}`" not in spec]
    assert not missing, f"{enum.__name__} values missing from the spec: {missing}"


def test_formal_is_documented_as_reserved(spec: str) -> None:
    assert "FORMAL" not in {v.value for v in words.Verification}
    levels = section(spec, "Verification levels")
    assert "`FORMAL`" in levels and "never" in levels and "refuse" in levels


#: The sentences the spec states verbatim: the words of a status, of a draw count and of a withheld verdict
#: (``core.sentences`` also holds the reports' layout sentences, the terminal's lines and the Action's).
SPEC_SENTENCES = (
    "NO_SEPARATION_HEADLINE",
    "NO_VERDICT",
    "NOT_ENOUGH_DRAWS",
    "MORE_CASES",
    "THIN_REFERENCE",
    "NO_DRAW_COUNT",
    "NO_DRAW_COUNT_HELP",
    "SPREAD_UNKNOWN",
    "NO_VERDICT_NO_COUNT",
    "SMOKE_RUN",
    "SMOKE_RUN_SHORT",
    "AGGREGATES_ONLY",
    "AGGREGATES_ONLY_SHORT",
    "DIFFERENT_JUDGES",
    "DIFFERENT_PROVIDERS",
    "DIFFERENT_SOURCES",
    "NOT_PROOF",
    "NOT_RUN",
    "NO_SERVED_MODEL",
)


#: The lift breakdown's sentences the spec states verbatim (``core.breakdown_sentences``).
BREAKDOWN_SENTENCES = (
    "CARRIER_RULE",
    "NOT_A_PREDICTION",
    "NO_LABEL_MEANS",
    "SPREAD_ACROSS_ANSWERS",
    "NO_INCLUDED_CASE",
    "NO_OTHER_CASE",
    "NO_GRADER",
    "NO_RUBRIC_HASH",
    "LEGACY_NO_SPREAD",
)


def sentence_constants() -> dict[str, str]:
    found = {name: getattr(sentences, name) for name in SPEC_SENTENCES}
    return found | {f"breakdown.{name}": getattr(breakdown_sentences, name) for name in BREAKDOWN_SENTENCES}


def test_design_sentences_are_constants() -> None:
    values = set(sentence_constants().values())
    assert set(DESIGN_SENTENCES) <= values


@pytest.mark.parametrize("name", sorted(sentence_constants()))
def test_every_exact_sentence_appears_verbatim(spec: str, name: str) -> None:
    sentence = sentence_constants()[name]
    assert sentence in spec, f"sentences.{name} is not in the spec verbatim: {sentence!r}"


def test_constants_and_versions_are_stated(spec: str) -> None:
    assert words.EFFECT_FLOOR == 0.05 and "F = 0.05" in spec
    assert words.TOLERANCE == 1e-9 and "1e-9" in spec
    assert spec.startswith(f"# The Driftproof receipt, schema {SCHEMA_VERSION}\n")
    assert schema_id(SCHEMA_VERSION) in spec
    assert f"\n### {SCHEMA_VERSION}\n" in section(spec, "Changelog")
    for rule in range(1, 7):
        assert re.search(rf"^### R-{rule} ", spec, re.MULTILINE), f"no section for R-{rule}"


def keys_of(value: Any) -> set[str]:
    """Every dict key in a JSON value, at any depth."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def fired_arm(scores: list[float]) -> Any:
    """An arm whose draws record ``skill_fired`` (discover delivery)."""
    draws = [measured_draw(i, [JudgeSample(score=s, valid=True)], skill_fired=i % 2 == 0) for i, s in enumerate(scores)]
    return arm_of(draws)


def emitted_keys() -> set[str]:
    """Keys of view_json and diff_json over receipts that fill every optional object."""
    spread = receipt(
        {
            "x": (fired_arm([0.30, 0.31, 0.32]), [0.30, 0.31, 0.32]),
            "y": ([0.60, 0.61, 0.62], [0.60, 0.61, 0.62]),
            "z": ([0.60, 0.61, 0.62], [0.59, 0.60, 0.61]),
        },
        thresholds={"x": 0.5},
    )
    called = receipt(
        {
            "x": ([0.5, 0.6, 0.7, None], [0.2, 0.3, 0.4]),
            "gone": ([0.6, 0.62], [0.58, 0.60]),
            "legacy": (legacy_arm([0.5, 0.55, 0.6]), arm([0.5, 0.6])),
        }
    )
    smoke = receipt({"x": ([0.5, 0.6], [0.2, 0.3]), "new": ([0.5], [0.5])}, verification="UNVERIFIED", preset="quick")
    # another judge, and notices of the suite and of one case (schema 0.14)
    noted = receipt(
        {"x": ([0.5, 0.6], [0.2, 0.3])},
        extra={
            "judge": {"provider": "anthropic", "surface": "api", "model_requested": "judge-2"},
            "suite": {"name": "fixture", "notices": ["task-002 (unnamed): no expect:, nothing to grade; left out"]},
        },
    )
    body = noted.model_dump(mode="json")
    del body["seal"], body["schema_version"]
    body["cases"][0]["notices"] = ["assert: not run on this lane"]
    noted = seal_receipt(body)
    views = [view_json(read_receipt(r), lift_breakdown(r)) for r in (spread, called, smoke, noted)]
    assert views[0]["wide_band"] is not None, "the fixture should reach R-5"
    pairs = ((called, smoke), (spread, called), (smoke, called), (called, noted))
    diffs = [diff_json(diff(a, b)) for a, b in pairs] + [
        diff_json(diff(spread, called), (lift_breakdown(spread), lift_breakdown(called)))
    ]
    keys = set().union(*(keys_of(v) for v in views + diffs))
    assert {"band", "fired", "of", "passed", "field", "notices", "lift_without", "max_cases"} <= keys
    return keys


def test_the_breakdown_limits_are_stated(spec: str) -> None:
    rules = section(spec, "Lift by case")
    assert f"{BREAKDOWN_LIMITS.cases:,} cases" in rules and f"{BREAKDOWN_LIMITS.draws:,} draws" in rules


def test_every_view_and_diff_json_key_is_documented(spec: str) -> None:
    interface = section(spec, "The JSON of `view` and `diff`")
    missing = sorted(k for k in emitted_keys() if f"`{k}`" not in interface)
    assert not missing, f"view/diff JSON keys missing from the spec: {missing}"


def test_documented_json_keys_are_emitted(spec: str) -> None:
    interface = section(spec, "The JSON of `view` and `diff`")
    documented = {key_of(row[0]) for row in table_rows(interface.splitlines())}
    stale = sorted(documented - emitted_keys())
    assert not stale, f"the spec documents view/diff JSON keys the code does not emit: {stale}"
