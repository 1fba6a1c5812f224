"""No imported receipt ever yields a verdict anywhere: view, diff (either side, against a TESTED receipt), the
badge, the Action's decision and its gate. Hypothesis draws the outcomes of real Caliper files' attempts; an
aggregates-only receipt is checked beside them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftproof.core.badge import badge_json
from driftproof.core.decision import decide
from driftproof.core.diff import diff
from driftproof.core.export import diff_json, view_json
from driftproof.core.imports.caliper import OUTCOMES, import_caliper
from driftproof.core.imports.common import SourceDoc
from driftproof.core.models import Receipt
from driftproof.core.reading import not_regradable, read_receipt
from driftproof.core.words import FailOn, Status
from tests.support.builders import receipt as built_receipt
from tests.support.imports import WRITTEN

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "caliper"
FULL = json.loads((FIXTURES / "changelog-full.json").read_text(encoding="utf-8"))
BASE = json.loads((FIXTURES / "changelog-ablated-skill.json").read_text(encoding="utf-8"))


def with_outcomes(data: dict[str, Any], outcomes: list[list[str]]) -> dict[str, Any]:
    """A copy whose attempts have these outcomes; stored scores cleared, since the attempts changed."""
    out = copy.deepcopy(data)
    for task, drawn in zip(out["task_results"], outcomes, strict=False):
        task["score"] = None
        attempts = task["attempts"][: len(drawn)]
        for attempt, outcome in zip(attempts, drawn, strict=True):
            attempt["outcome"] = outcome
        task["attempts"] = attempts
    return out


# Five tasks of up to three attempts each: a checked task's outcomes, or a trigger probe's (not_checked, and the
# outcomes of an attempt that failed before any check); Caliper writes no task that holds both.
CHECKED = [o for o in OUTCOMES if o != "not_checked"]
PROBE = ["not_checked", "timeout", "infra_error"]
task_outcomes = st.one_of(
    st.lists(st.sampled_from(CHECKED), min_size=0, max_size=3),
    st.lists(st.sampled_from(PROBE), min_size=1, max_size=3),
)
attempt_outcomes = st.lists(task_outcomes, min_size=5, max_size=5)


def assert_no_verdict_anywhere(imported: Receipt) -> None:
    reading = read_receipt(imported)
    assert reading.status == Status.NO_VERDICT and reading.no_verdict_reason
    assert all(c.verdict is None for c in reading.cases)
    view = view_json(reading)
    assert view["status"] == "no_verdict" and all(c["verdict"] is None for c in view["cases"])
    assert badge_json(reading)["message"].startswith("no verdict")  # type: ignore[union-attr]
    decision = decide(reading, None)
    assert decision.status == Status.NO_VERDICT and decision.lift is None and decision.lift_per_1k is None
    assert all(decision.exit_code(f) == 0 for f in FailOn)
    assert not_regradable(imported) is not None
    ids = {c.id: ([0.9, 0.95, 0.9], [0.1, 0.15, 0.1]) for c in imported.cases}
    tested = built_receipt(ids)  # a TESTED receipt whose every case separates upward on its own
    assert read_receipt(tested).status == Status.PASSING
    for before, after in ((tested, imported), (imported, tested)):
        result = diff(before, after)
        assert result.status == Status.NO_VERDICT and all(c.verdict is None for c in result.cases)
        assert sum(diff_json(result)["counts"].values()) == 0
        gated = decide(read_receipt(after), result)
        assert gated.status == Status.NO_VERDICT and all(gated.exit_code(f) == 0 for f in FailOn)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(attempt_outcomes, attempt_outcomes, st.booleans())
def test_no_imported_caliper_receipt_yields_a_verdict(full: list[list[str]], base: list[list[str]], pair: bool) -> None:
    docs = [SourceDoc("full.json", "0" * 64, with_outcomes(FULL, full))]
    if pair:
        docs.append(SourceDoc("base.json", "1" * 64, with_outcomes(BASE, base)))
    assert_no_verdict_anywhere(import_caliper(docs, WRITTEN, skill="changelog-writer"))


def test_the_real_pair_yields_no_verdict_anywhere() -> None:
    docs = [SourceDoc("full.json", "0" * 64, FULL), SourceDoc("base.json", "1" * 64, BASE)]
    assert_no_verdict_anywhere(import_caliper(docs, WRITTEN))


def aggregates_only(uplift: float) -> Receipt:
    """An aggregates-only receipt as an importer of printed figures makes one: empty arms, the figures as printed."""
    from driftproof.core.imports.common import declared_receipt, document, empty_arm, source
    from driftproof.core.models import Case, Counts, Lane, Run, Suite

    printed = {"results": [{"dimension": "Correctness", "agent": "claude-code", "score_pct": 90, "uplift_pct": uplift}]}
    return declared_receipt(
        WRITTEN,
        harness="nvidia-skill-benchmark",
        run=Run(lane=Lane(provider="nvidia-skill-benchmark", surface="none")),
        skill=None,
        suite=Suite(format="nvidia-card"),
        judge=None,
        counts=Counts(),
        cases=[Case(id="Correctness/claude-code", with_skill=empty_arm(), baseline=empty_arm())],
        source_record=source("nvidia-skill-benchmark", None, [document(SourceDoc("b.json", "2" * 64, None))], []),
        source_figures=printed,
    )


@given(st.integers(min_value=-100, max_value=100))
def test_no_aggregates_only_receipt_yields_a_verdict_a_band_or_a_lift(uplift: int) -> None:
    imported = aggregates_only(float(uplift))
    assert imported.uncertainty_unavailable == "aggregates_only"
    reading = read_receipt(imported)
    assert reading.lift is None and reading.lift_per_1k is None
    assert all(c.with_skill.mean is None and c.with_skill.sd is None and c.baseline.mean is None for c in reading.cases)
    assert all(c.comparison.delta is None for c in reading.cases)
    assert (
        not_regradable(imported) == "an aggregates-only receipt has no per-run score to grade again or plan draws from"
    )
    assert_no_verdict_anywhere(imported)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=12, max_size=12))
def test_no_imported_skill_creator_receipt_yields_a_verdict(passed_totals: list[tuple[int, int]]) -> None:
    from driftproof.core.imports.skill_creator import import_skill_creator

    path = FIXTURES.parent / "skill-creator" / "benchmark.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    for run, (passed, extra) in zip(data["runs"], passed_totals, strict=True):
        total = passed + extra
        run["result"].update(
            passed=passed, failed=extra, total=total, pass_rate=round(passed / total, 4) if total else 0
        )
    assert_no_verdict_anywhere(import_skill_creator([SourceDoc("benchmark.json", "3" * 64, data)], WRITTEN))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, None]), min_size=18, max_size=18))
def test_no_imported_promptfoo_receipt_yields_a_verdict(scores: list[float | None]) -> None:
    from driftproof.core.imports.promptfoo import import_promptfoo

    data = json.loads((FIXTURES.parent / "promptfoo" / "results.json").read_text(encoding="utf-8"))
    for result, score in zip(data["results"]["results"], scores, strict=True):
        result["failureReason"], result["score"] = (2, 0) if score is None else (0, score)
    assert_no_verdict_anywhere(import_promptfoo([SourceDoc("results.json", "4" * 64, data)], WRITTEN))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, None]), min_size=9, max_size=9))
def test_no_imported_plugin_eval_receipt_yields_a_verdict(scores: list[float | None]) -> None:
    from driftproof.core.imports.plugin_eval import import_plugin_eval

    data = json.loads((FIXTURES.parent / "plugin-eval" / "two-arm-partial.json").read_text(encoding="utf-8"))
    runs = [r for c in data["cases"] for arm in ("with", "without") for r in c["arms"][arm]]
    for run, score in zip(runs, scores, strict=True):
        run["error"], run["score"] = ("boom", 0) if score is None else (None, score)
    assert_no_verdict_anywhere(import_plugin_eval([SourceDoc("result.json", "5" * 64, data)], WRITTEN))


def test_the_real_nvidia_card_yields_no_verdict_anywhere() -> None:
    from driftproof.core.imports.nvidia_card import import_nvidia_card

    card = (FIXTURES.parent / "nvidia-card" / "BENCHMARK.md").read_text(encoding="utf-8")
    imported = import_nvidia_card(
        [SourceDoc("BENCHMARK.md", "6" * 64, card)], WRITTEN, repository="NVIDIA/skills", commit="7" * 40
    )
    assert read_receipt(imported).lift is None
    assert_no_verdict_anywhere(imported)
