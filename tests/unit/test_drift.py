"""The drift verdict (core/drift.py): an arm moved under R-1 … R-7 although neither the skill nor the suite changed.

Bands are mean ± one sample sd (R-1). The stored receipt's arms, as a store job drawn ``--as-reference`` leaves
them: with-skill 0.85 × 12 (0.85 ± 0, band [0.85, 0.85]) and baseline [0.20, 0.25, 0.30] × 4 (mean 0.25,
sd = sqrt(8 · 0.0025 / 11) = 0.0426, band [0.2074, 0.2926]).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.between import compare_between
from driftproof.core.compare import ArmEvidence
from driftproof.core.drift import DriftStatus, drift, drift_json
from driftproof.core.models import Receipt
from driftproof.core.seal import sha256_text
from driftproof.core.words import CaseVerdict
from tests.support.builders import receipt, reseal

BASE = [0.20, 0.25, 0.30] * 4
STORED = {"subject-line": ([0.85] * 12, BASE), "why-not-what": ([0.75] * 12, BASE)}
ALIAS = "claude-sonnet-5-5"
THEN, NOW = "claude-sonnet-5-5-20261001", "claude-sonnet-5-5-20261120"


def sentinel_receipt(
    cases: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    reported: str = THEN,
    skill: str = "0" * 64,
    suite: str | None = "1" * 64,
    prompts: Mapping[str, str] | None = None,
    preset: str | None = None,
) -> Receipt:
    """A receipt as a run records it: suite and skill hashed, each case's prompt and rubric hashed, the lane's
    reported id (and every draw's) ``reported`` under the alias ``ALIAS``."""

    def edit(body: dict[str, Any]) -> None:
        body["skill"]["sha256"] = skill
        body["suite"]["sha256"] = suite
        body["run"]["lane"].update(model_requested=ALIAS, models_reported=[reported])
        for case in body["cases"]:
            case["prompt_sha256"] = sha256_text((prompts or {}).get(case["id"], f"prompt of {case['id']}"))
            case["rubric_sha256"] = sha256_text(f"rubric of {case['id']}")
            for arm in ("with_skill", "baseline"):
                for draw in case[arm]["draws"]:
                    draw["reported_model"] = reported

    verification = "UNVERIFIED" if preset else "TESTED"
    return reseal(receipt(cases, preset=preset, verification=verification), edit)


STORED_RECEIPT = sentinel_receipt(STORED)


def test_drift_a_with_skill_arm_that_moved_down_under_a_new_dated_id() -> None:
    # subject-line's with-skill arm today: [0.50, 0.55, 0.60] × 3, mean 0.55, sd sqrt(6 · 0.0025 / 8) = 0.0433,
    # band [0.5067, 0.5933], apart from [0.85, 0.85]; Δ = 0.55 − 0.85 = −0.30 ≥ 0.05; 9 and 12 draws ≥ 7
    today = sentinel_receipt(
        {"subject-line": ([0.50, 0.55, 0.60] * 3, BASE), "why-not-what": ([0.75] * 12, BASE)}, reported=NOW
    )
    result = drift(STORED_RECEIPT, today)

    assert result.status == DriftStatus.DRIFTED and result.drifted
    assert result.headline == "drifted: 1 arm moved although neither the skill nor the suite changed"
    [(case, arm)] = result.moved
    assert (case.id, str(arm.arm), arm.direction) == ("subject-line", "with_skill", "down")
    assert math.isclose(arm.comparison.delta or 0, -0.30, abs_tol=1e-12)
    assert math.isclose(arm.after.sd or 0, math.sqrt(0.015 / 8), abs_tol=1e-12)
    # the baseline arms are the same scores on both sides: overlapping, and R-4's resolution
    # 0.0426 + 2·sqrt(0.001818 / 12) = 0.067 ≥ 0.05 reads underpowered, which is no move
    assert [c.baseline.comparison.verdict for c in result.cases] == [CaseVerdict.UNDERPOWERED] * 2
    assert result.models.sentence == f"{ALIAS} answered as {THEN} then, {NOW} now"
    assert (case.models_before, case.models_after) == ((THEN,), (NOW,))


def test_drift_a_baseline_arm_that_moved_up_is_drift_too() -> None:
    # why-not-what's baseline today: [0.40, 0.45, 0.50] × 4, mean 0.45, band [0.4074, 0.4926] against
    # [0.2074, 0.2926]: apart, Δ +0.20
    today = sentinel_receipt(
        {"subject-line": ([0.85] * 12, BASE), "why-not-what": ([0.75] * 12, [0.40, 0.45, 0.50] * 4)}
    )
    result = drift(STORED_RECEIPT, today)

    [(case, arm)] = result.moved
    assert (case.id, str(arm.arm), arm.direction, result.status) == ("why-not-what", "baseline", "up", "drifted")
    assert math.isclose(arm.comparison.delta or 0, 0.20, abs_tol=1e-12)
    assert result.models.sentence == f"answered by {THEN} both times"
    doc = drift_json(result)
    assert doc["drifted"] is True and doc["cases"][1]["baseline"]["direction"] == "up"
    assert doc["models"] == {
        "before": {"requested": ALIAS, "reported": [THEN]},
        "after": {"requested": ALIAS, "reported": [THEN]},
        "changed": False,
        "sentence": f"answered by {THEN} both times",
    }


def test_drift_arms_that_did_not_move_are_steady() -> None:
    # baseline [0.22, 0.27, 0.32] × 4: band [0.2274, 0.3126] overlaps [0.2074, 0.2926] (underpowered by R-4);
    # with-skill 0.86 × 12
    # against 0.85 × 12: apart (both sd 0) but Δ 0.01 < 0.05, below the effect floor
    today = sentinel_receipt(
        {"subject-line": ([0.86] * 12, [0.22, 0.27, 0.32] * 4), "why-not-what": ([0.75] * 12, BASE)}, reported=NOW
    )
    result = drift(STORED_RECEIPT, today)

    assert (result.status, result.moved) == (DriftStatus.STEADY, ())
    assert result.headline == "steady: no arm separated at this sample size, with the skill and the suite unchanged"
    first = result.cases[0]
    assert (first.with_skill.comparison.verdict, first.baseline.comparison.verdict) == (
        CaseVerdict.BELOW_EFFECT_FLOOR,
        CaseVerdict.UNDERPOWERED,
    )
    assert result.models.changed  # a new dated id alone is not drift
    assert drift_json(result)["drifted"] is False


def test_drift_r7_thin_arms_never_move() -> None:
    # 3 draws today of [0.50, 0.55, 0.60]: apart from 0.85 ± 0 by −0.30, but R-7 asks 7 measured draws a side
    today = sentinel_receipt({"subject-line": ([0.50, 0.55, 0.60], BASE), "why-not-what": ([0.75] * 12, BASE)})
    result = drift(STORED_RECEIPT, today)

    assert result.status == DriftStatus.STEADY
    assert result.cases[0].with_skill.comparison.verdict == CaseVerdict.UNDERPOWERED


def test_drift_does_not_apply_when_the_skill_or_the_suite_changed() -> None:
    moved = {"subject-line": ([0.50, 0.55, 0.60] * 3, BASE), "why-not-what": ([0.75] * 12, BASE)}
    skill = drift(STORED_RECEIPT, sentinel_receipt(moved, skill="2" * 64))
    assert skill.status == DriftStatus.NOT_APPLICABLE and skill.cases == ()
    assert skill.headline == (
        "drift does not apply: the skill sha256 changed (000000000000 → 222222222222); "
        "compare them with driftproof diff"
    )
    suite = drift(STORED_RECEIPT, sentinel_receipt(moved, suite="3" * 64))
    assert suite.status == DriftStatus.NOT_APPLICABLE and "the suite sha256 changed" in suite.headline
    unknown = drift(sentinel_receipt(STORED, suite=None), sentinel_receipt(moved))
    assert unknown.headline == (
        "drift does not apply: the suite sha256 is not recorded on both sides; compare them with driftproof diff"
    )


def test_drift_a_case_whose_prompt_changed_is_left_out() -> None:
    today = sentinel_receipt(
        {"subject-line": ([0.50, 0.55, 0.60] * 3, BASE), "why-not-what": ([0.75] * 12, BASE)},
        prompts={"subject-line": "another prompt"},
    )
    result = drift(STORED_RECEIPT, today)
    assert (result.status, result.changed_cases, [c.id for c in result.cases]) == (
        DriftStatus.STEADY,
        ("subject-line",),
        ["why-not-what"],
    )


def test_drift_a_smoke_run_gives_no_verdict() -> None:
    today = sentinel_receipt({"subject-line": ([0.50, 0.55, 0.60] * 3, BASE)}, preset="quick")
    result = drift(STORED_RECEIPT, today)
    assert result.status == DriftStatus.NO_VERDICT
    assert result.headline.startswith("no drift verdict: after is a smoke run")


# --- properties -------------------------------------------------------------------------------------------

grid = st.integers(min_value=0, max_value=20).map(lambda k: k / 20)
arms = st.lists(grid, min_size=1, max_size=9)


@settings(max_examples=60, deadline=None)
@given(arms, arms, arms, arms)
def test_drift_is_reported_exactly_when_an_arm_separates_under_the_diff_rule(
    w_before: list[float], b_before: list[float], w_after: list[float], b_after: list[float]
) -> None:
    before = sentinel_receipt({"c": (w_before, b_before)})
    after = sentinel_receipt({"c": (w_after, b_after)}, reported=NOW)
    calls = {CaseVerdict.IMPROVED, CaseVerdict.REGRESSED}
    separated = any(
        compare_between(ArmEvidence(tuple(new)), ArmEvidence(tuple(ref))).verdict in calls
        for new, ref in ((w_after, w_before), (b_after, b_before))
    )
    assert drift(before, after).drifted == separated
    # a changed skill or suite never yields drifted, whatever the arms did
    assert drift(before, sentinel_receipt({"c": (w_after, b_after)}, skill="9" * 64)).status == "not_applicable"
    assert drift(before, sentinel_receipt({"c": (w_after, b_after)}, suite="8" * 64)).status == "not_applicable"
