"""The summary-json export (core/summary.py) and its shipped schema (schemas/summary-1.schema.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.reading import read_receipt
from driftproof.core.sentences import AGGREGATES_ONLY, SMOKE_RUN
from driftproof.core.summary import SUMMARY_SCHEMA_ID, UNKNOWN, summary_json
from driftproof.receipts import load_receipt
from driftproof.resources import summary_schema_file
from driftproof.summary_file import summary_text
from tests.support.builders import arm, receipt

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SCHEMA = json.loads(summary_schema_file().read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

IMPORT = {
    "source": {
        "harness": "claude-plugin-eval",
        "version": "1.2.0",
        "document": "results.json",
        "document_sha256": "a" * 64,
        "unknown": ["judge samples per draw"],
    },
    "run": {"lane": {"provider": "claude-plugin-eval", "surface": "none"}},
    "judge": None,
}
AGGREGATES = {
    **IMPORT,
    "uncertainty_unavailable": "aggregates_only",
    "source_figures": {"agent": "x", "score": "0.71", "uplift": "+0.12"},
}


def summary(r: Any) -> dict[str, Any]:
    doc = summary_json(r, read_receipt(r))
    VALIDATOR.validate(doc)  # every document the export writes validates against the shipped schema
    return doc


def test_the_schema_is_draft_2020_12_strict_and_described() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$id"] == SUMMARY_SCHEMA_ID == "https://driftproof.dev/spec/summary-1.schema.json"

    def objects(node: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
        found = []
        if isinstance(node, dict):
            if "properties" in node:
                found.append((where, node))
            for key, value in node.items():
                found += objects(value, f"{where}/{key}")
        return found

    for where, obj in objects(SCHEMA, ""):
        assert obj["additionalProperties"] is False, where
        assert set(obj["required"]) == set(obj["properties"]), where  # every key is always written
        for key, prop in obj["properties"].items():
            assert prop.get("description"), f"{where}/{key} has no description"


def test_a_tested_receipt_by_hand() -> None:
    # a: 0.6 vs 0.3 (d 0.3); b: 0.5 vs 0.45 (d 0.05); lift 0.175; 1601 chars → 401 tokens: per 1k 0.175/0.401
    r = receipt({"a": ([0.5, 0.6, 0.7], [0.2, 0.3, 0.4]), "b": ([0.45, 0.5, 0.55], [0.4, 0.45, 0.5])}, skill_chars=1601)
    doc = summary(r)
    assert doc["status"] == "passing" and doc["no_verdict_reason"] is None and doc["verification"] == "TESTED"
    assert doc["lift"] == 0.175 and doc["lift_signed"] == "+0.175000"
    assert doc["lift_per_1k"] == round(0.175 / 0.401, 6) == 0.436409 and doc["lift_per_1k_signed"] == "+0.436409"
    # the skill file is not in a folder of its own, so the skill is named after its suite
    assert doc["skill"] == {"name": "fixture", "path": "SKILL.md", "sha256": "0" * 64, "tokens": 401}
    a = doc["cases"][0]
    assert a["id"] == "a" and a["delta"] == 0.3
    assert a["with_skill"] == {"mean": 0.6, "sd": 0.1, "measured": 3, "drawn": 3, "lost": 0, "skill_fired": None}
    # the builder records no counts: each is said as unknown, never as 1
    assert doc["counts"] == {
        "cases": 2,
        "draws_per_arm_min": UNKNOWN,
        "draws_per_arm_max": UNKNOWN,
        "judge_samples_per_draw": UNKNOWN,
    }
    assert doc["receipt"]["seal_sha256"] == r.seal.sha256 and doc["receipt"]["schema_version"] == "0.17"
    assert doc["judge"] == {
        "provider": "anthropic",
        "surface": "api",
        "model_requested": "judge-1",
        "models_reported": [],
        "template_sha256": None,
    }


def test_a_lost_draw_and_a_negative_lift_keep_their_sign() -> None:
    # with 0.2, 0.3 (third lost) vs 0.5, 0.6: d −0.3; a smoke run keeps its lift, with its sign, as context
    doc = summary(receipt({"a": ([0.2, 0.3, None], [0.5, 0.6])}, verification="UNVERIFIED", preset="quick"))
    assert doc["status"] == "no_verdict" and doc["no_verdict_reason"] == SMOKE_RUN and doc["preset"] == "quick"
    assert doc["lift"] == -0.3 and doc["lift_signed"] == "-0.300000"
    assert doc["cases"][0]["with_skill"] == {
        "mean": 0.25,
        "sd": 0.070711,  # sqrt(((0.2 − 0.25)² + (0.3 − 0.25)²) / 1) = sqrt(0.005)
        "measured": 2,
        "drawn": 3,
        "lost": 1,
        "skill_fired": None,
    }


def test_a_declared_import_exports_its_figures_with_the_marks_of_no_verdict() -> None:
    doc = summary(receipt({"a": ([0.8, 0.9], [0.6, 0.7])}, verification="DECLARED", extra=IMPORT))
    assert doc["status"] == "no_verdict" and doc["verification"] == "DECLARED"
    assert doc["no_verdict_reason"] == "below TESTED: the receipt reads DECLARED (test fixture)"
    assert doc["lift"] == 0.2 and doc["lift_signed"] == "+0.200000"  # context, with its sign
    assert doc["source"] == {**IMPORT["source"], "documents": [], "repository": None, "commit": None}  # type: ignore[dict-item]
    assert doc["judge"] is None and doc["lane"]["surface"] == "none"


def test_an_aggregates_only_import_exports_its_source_figures_and_no_lift() -> None:
    r = receipt({"a": (arm([]), arm([]))}, verification="DECLARED", extra=AGGREGATES)
    doc = summary(r)
    assert doc["status"] == "no_verdict" and doc["no_verdict_reason"] == AGGREGATES_ONLY
    assert doc["uncertainty_unavailable"] == "aggregates_only" and doc["source_figures"] == AGGREGATES["source_figures"]
    assert doc["lift"] is None and doc["lift_signed"] is None and doc["lift_per_1k"] is None
    assert doc["cases"][0]["with_skill"] == {
        "mean": None,
        "sd": None,
        "measured": UNKNOWN,  # no draw recorded: how many the source ran is not established
        "drawn": UNKNOWN,
        "lost": UNKNOWN,
        "skill_fired": None,
    }


@pytest.mark.parametrize(("version", "fewest"), [("0.13", 3), ("0.14", 3), ("0.15", 10)])
def test_older_receipts_export_against_the_same_summary_schema(version: str, fewest: int) -> None:
    r = load_receipt(FIXTURES / f"receipt-{version}.json")
    doc = summary(r)
    assert doc["receipt"]["schema_version"] == version and doc["counts"]["draws_per_arm_min"] == fewest
    assert doc["counts"]["judge_samples_per_draw"] == 5 and doc["status"] == "no_verdict"  # a stub run
    assert json.loads(summary_text(doc)) == doc


grid = st.integers(min_value=0, max_value=20).map(lambda k: k / 20)
draws = st.lists(st.one_of(grid, st.none()), min_size=0, max_size=4)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(draws, draws), min_size=1, max_size=4),
    st.sampled_from(["DECLARED", "UNVERIFIED", "TESTED"]),
    st.booleans(),
)
def test_declared_and_aggregates_only_receipts_never_export_a_verdict(
    cases: list[tuple[list[float | None], list[float | None]]], level: str, aggregates: bool
) -> None:
    if aggregates:  # an aggregates-only import carries no scored draw
        cases = [([None] * len(w), [None] * len(b)) for w, b in cases]
        level = "DECLARED"
    extra = AGGREGATES if aggregates else (IMPORT if level == "DECLARED" else {})
    r = receipt({f"c{i}": (w, b) for i, (w, b) in enumerate(cases)}, verification=level, extra=extra)
    doc = summary(r)
    reading = read_receipt(r)
    if level != "TESTED":
        assert doc["status"] == "no_verdict" and doc["no_verdict_reason"]
    if aggregates:
        assert doc["no_verdict_reason"] == AGGREGATES_ONLY and doc["lift"] is None
    else:
        assert doc["lift"] == (None if reading.lift is None else round(reading.lift, 6))
        assert (doc["lift_signed"] is None) == (doc["lift"] is None)
    assert "verdict" not in json.dumps(doc["cases"])  # the summary carries no per-case verdict at all
    for case, (w, b) in zip(doc["cases"], cases, strict=True):
        for arm_doc, scores in ((case["with_skill"], w), (case["baseline"], b)):
            if not scores:
                assert arm_doc["drawn"] == UNKNOWN
            else:
                assert arm_doc["drawn"] == len(scores) and arm_doc["lost"] == scores.count(None)


def keys_of(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def test_every_key_of_the_summary_is_documented_in_interop() -> None:
    from tests.integration.test_render_golden import by_case  # its first case records skill_fired

    interop = (ROOT / "docs" / "interop.md").read_text(encoding="utf-8")
    section = interop[interop.index("## The summary-json interchange document") :]
    imported = receipt({"a": ([0.5, 0.6], [0.2, 0.3])}, extra=IMPORT, verification="DECLARED")
    docs = [summary(imported), summary(by_case()), summary(load_receipt(FIXTURES / "receipt-0.15.json"))]
    keys = set().union(*(keys_of(d) for d in docs))
    assert {"fired", "of", "harness", "document_sha256", "seal_sha256"} <= keys
    missing = sorted(k for k in keys if f"`{k}`" not in section)
    assert not missing, f"summary keys missing from docs/interop.md: {missing}"
    assert "schemas/summary-1.schema.json" in section and SUMMARY_SCHEMA_ID in section
