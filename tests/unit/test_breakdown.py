"""The lift breakdown (core/breakdown.py), by hand: means, spreads, leave-one-out lifts, the carrier decided before
rounding, helps and hurts, and every reason a figure or a label is unavailable."""

from __future__ import annotations

import statistics
from math import isclose
from typing import Any

import pytest

from driftproof.core import breakdown_sentences as say
from driftproof.core.breakdown import BreakdownLimits, LiftBreakdown, lift_breakdown
from driftproof.core.export import breakdown_json
from driftproof.core.models import Draw, Receipt, Seal
from driftproof.core.reading import read_receipt
from driftproof.core.sentences import AGGREGATES_ONLY, SMOKE_RUN
from driftproof.core.words import Separation
from tests.support.builders import arm, graded, legacy_arm, receipt, reseal

# a helps, b neither, c hurts (3 draws an arm, each arm's sd 0.1)
HELPS = ([0.8, 0.9, 1.0], [0.3, 0.4, 0.5])  # m 0.9 vs 0.4: d +0.5; 0.8 > 0.5, apart, |d| ≥ 0.05
FLAT = ([0.5, 0.6, 0.7], [0.5, 0.6, 0.7])  # m 0.6 vs 0.6: d 0; bands overlap
HURTS = ([0.2, 0.3, 0.4], [0.6, 0.7, 0.8])  # m 0.3 vs 0.7: d −0.4; 0.4 < 0.6, apart downward


def close(a: float | None, b: float) -> bool:
    return a is not None and isclose(a, b, abs_tol=1e-12)


def by_id(b: LiftBreakdown) -> dict[str, Any]:
    return {c.id: c for c in b.cases}


def test_leave_one_out_lifts_and_the_carrier_by_hand() -> None:
    b = lift_breakdown(graded(receipt({"a": HELPS, "b": FLAT, "c": HURTS})))
    rows = by_id(b)
    assert b.unavailable_reason is None and b.labels_reason is None and b.carrier_reason is None
    # arms: the mean and the sample sd (ddof 1) of the measured draw scores
    assert close(rows["a"].with_skill.mean, 0.9) and close(rows["a"].with_skill.sd, statistics.stdev([0.8, 0.9, 1.0]))
    assert close(rows["a"].with_skill.sd, 0.1) and close(rows["c"].baseline.mean, 0.7)
    assert (rows["a"].with_skill.measured, rows["a"].with_skill.drawn, rows["a"].with_skill.lost) == (3, 3, 0)
    assert close(rows["a"].difference, 0.5) and close(rows["b"].difference, 0.0) and close(rows["c"].difference, -0.4)
    # lift = (0.5 + 0 − 0.4) / 3 = 0.0333…, each case weighing the same
    assert close(b.lift, 0.1 / 3) and b.lift == read_receipt(graded(receipt({"a": HELPS, "b": FLAT, "c": HURTS}))).lift
    # without a: (0 − 0.4)/2 = −0.2; without b: (0.5 − 0.4)/2 = 0.05; without c: (0.5 + 0)/2 = 0.25
    assert close(rows["a"].lift_without, -0.2) and close(rows["b"].lift_without, 0.05)
    assert close(rows["c"].lift_without, 0.25)
    # the lift is positive and only removing a leaves it at or below zero: a carries it
    assert [rows[i].carrier for i in "abc"] == [True, False, False] and b.carriers == ("a",)
    assert [rows[i].separation for i in "abc"] == [Separation.HELPS, None, Separation.HURTS]
    assert b.downward == ("c",) and b.included == 3


@pytest.mark.parametrize(
    ("other", "carrier"),
    [
        # b's difference is a's lift-without: 0.5000004 − 0.5 = +4e-7, which prints 0.000000 (6 places) and +0.000
        ([0.5000004, 0.5000004], False),
        ([0.4999996, 0.4999996], True),  # −4e-7, also printing as zero: at or below zero, a carries the lift
        ([0.5, 0.5], True),  # exactly zero
    ],
)
def test_the_carrier_is_decided_before_rounding(other: list[float], carrier: bool) -> None:
    b = lift_breakdown(graded(receipt({"a": ([0.6, 0.6], [0.5, 0.5]), "b": (other, [0.5, 0.5])})))
    a = by_id(b)["a"]
    # lift = (0.1 + d_b) / 2 > 0; without a the lift is d_b alone
    assert close(a.lift_without, other[0] - 0.5) and b.carrier_reason is None
    assert a.carrier is carrier
    printed = breakdown_json(b)["cases"][0]
    assert printed["lift_without"] == 0.0 and printed["carrier"] is carrier  # same printed figure, both decisions


def test_a_lift_that_is_not_positive_has_no_carrier() -> None:
    b = lift_breakdown(graded(receipt({"a": FLAT, "c": HURTS})))  # lift (0 − 0.4)/2 = −0.2
    assert close(b.lift, -0.2) and b.carrier_reason is None and b.carriers == ()
    assert [c.carrier for c in b.cases] == [False, False] and b.downward == ("c",)


def test_several_cases_may_each_carry_the_lift() -> None:
    # d = +0.5, +0.5, −0.75: lift 0.25 / 3; without either +0.5 case: (0.5 − 0.75)/2 = −0.125
    b = lift_breakdown(graded(receipt({"x": HELPS, "y": HELPS, "z": ([0.1, 0.1], [0.85, 0.85])})))
    assert close(b.lift, 0.25 / 3) and b.carriers == ("x", "y")
    assert close(by_id(b)["z"].lift_without, 0.5)


def test_lost_draws_are_left_out_and_prevent_the_carrier_but_not_the_labels() -> None:
    # a's with-skill arm lost one draw of 4: its mean stays 0.9 over 3 measured; R-6 with it at 0: 0.8, 0.9, 1.0, 0
    # gives m 0.675, sd 0.4573, lower edge 0.2177, not above 0.5: inconclusive, so a takes no label
    r = graded(receipt({"a": ([0.8, 0.9, 1.0, None], [0.3, 0.4, 0.5]), "c": HURTS}))
    b = lift_breakdown(r)
    a = by_id(b)["a"]
    assert close(a.with_skill.mean, 0.9) and close(a.with_skill.sd, 0.1)
    assert (a.with_skill.measured, a.with_skill.drawn, a.with_skill.lost) == (3, 4, 1)
    assert a.separation is None and b.downward == ("c",)
    assert b.carrier_reason == say.lost_prevent_carrier("a", 1) and {c.carrier for c in b.cases} == {None}
    assert close(a.lift_without, -0.4) and close(b.lift, 0.05)  # the figures stay, only the assertion goes


def test_a_failed_arm_leaves_its_case_out_together_and_visible() -> None:
    b = lift_breakdown(graded(receipt({"a": HELPS, "gone": ([None, None, None], [0.3, 0.4, 0.5]), "c": HURTS})))
    gone = by_id(b)["gone"]
    words = "left out of the lift with both arms: the with-skill arm measured none of its 3 draws"
    assert gone.excluded_reason == say.failed_arm("with-skill", 3) == words
    assert (gone.with_skill.measured, gone.with_skill.drawn, gone.with_skill.lost) == (0, 3, 3)
    assert close(gone.baseline.mean, 0.4) and gone.difference is None and gone.lift_without is None
    # the lift is over a and c alone: (0.5 − 0.4)/2 = 0.05; without a: −0.4; without c: 0.5
    assert close(b.lift, 0.05) and b.included == 2 and close(by_id(b)["a"].lift_without, -0.4)
    assert b.labels_reason == say.incomplete("gone") and b.downward == () and b.carriers == ()


def test_missing_draw_evidence_makes_the_suite_lift_and_every_omitted_case_lift_unavailable() -> None:
    b = lift_breakdown(graded(receipt({"a": HELPS, "empty": ([0.5, 0.6], arm([])), "c": HURTS})))
    reason = say.missing_evidence("empty", "baseline")
    assert b.lift is None and b.lift_reason == reason
    assert [(c.lift_without, c.lift_without_reason) for c in b.cases] == [(None, reason)] * 3
    assert close(by_id(b)["a"].difference, 0.5)  # the per-case figures stay
    # the headline lift reads the same rule (issue 14, probe #7): not a's and c's alone, unannounced
    reading = read_receipt(graded(receipt({"a": HELPS, "empty": ([0.5, 0.6], arm([])), "c": HURTS})))
    assert (reading.lift, reading.lift_per_1k, reading.lift_reason) == (None, None, reason)


def test_legacy_judge_samples_do_not_replace_draw_evidence() -> None:
    # the view bands the legacy arms across their judge samples and calls the case improved; the breakdown reads
    # one answer per arm: the draws' scores 0.85 and 0.35, no spread, no label
    r = graded(receipt({"a": (legacy_arm([0.8, 0.85, 0.9]), legacy_arm([0.3, 0.35, 0.4])), "b": HELPS}))
    assert read_receipt(r).cases[0].verdict == "improved"
    a = by_id(lift_breakdown(r))["a"]
    assert close(a.with_skill.mean, 0.85) and a.with_skill.sd is None and a.baseline.sd is None
    assert a.separation is None and a.separation_reason == say.LEGACY_NO_SPREAD and close(a.difference, 0.5)


def test_one_included_case_has_no_lift_without_it_and_no_carrier() -> None:
    b = lift_breakdown(graded(receipt({"a": HELPS})))
    assert close(b.lift, 0.5) and b.cases[0].lift_without is None
    assert b.cases[0].lift_without_reason == say.NO_OTHER_CASE == b.carrier_reason
    assert b.cases[0].separation == Separation.HELPS and b.cases[0].carrier is None


def other_grader(body: dict[str, Any]) -> None:
    for draw in body["cases"][1]["baseline"]["draws"]:
        for sample in draw["judge_samples"]:
            sample["reported_model"] = "judge-2"


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda: receipt({"a": HELPS}, verification="UNVERIFIED"), "below TESTED: the receipt reads UNVERIFIED"),
        (lambda: receipt({"a": HELPS}, verification="UNVERIFIED", preset="quick"), SMOKE_RUN),
        (
            lambda: receipt({"a": HELPS}, extra={"run": {"lane": {"provider": "stub", "surface": "none"}}}),
            say.non_model("stub", "none"),
        ),
        (lambda: receipt({"a": HELPS}, extra={"suite": {"notices": ["task-2: left out"]}}), say.narrowed(1)),
        (lambda: receipt({"a": HELPS}), say.NO_GRADER),  # the builder's judge records no reported id
    ],
)
def test_receipts_that_carry_no_helps_hurts_or_carrier(make: Any, reason: str) -> None:
    r = make()
    r = graded(r) if r.judge is not None and reason != say.NO_GRADER else r
    b = lift_breakdown(r)
    assert b.labels_reason is not None and b.labels_reason.startswith(reason) and b.carrier_reason == b.labels_reason
    assert {(c.separation, c.carrier) for c in b.cases} == {(None, None)} and close(b.lift, 0.5)


def test_comparative_labels_need_the_one_recorded_grader_in_both_arms_and_a_rubric_hash() -> None:
    r = reseal(graded(receipt({"a": HELPS, "c": HURTS})), other_grader)
    b = lift_breakdown(r)
    assert by_id(b)["c"].separation is None and by_id(b)["a"].separation == Separation.HELPS
    assert by_id(b)["c"].separation_reason == say.not_the_grader("baseline", "judge-1")
    assert b.carrier_reason == say.case_withheld("c", say.not_the_grader("baseline", "judge-1"))

    def no_rubric(body: dict[str, Any]) -> None:
        body["cases"][0]["rubric_sha256"] = None

    b = lift_breakdown(reseal(graded(receipt({"a": HELPS, "c": HURTS})), no_rubric))
    assert by_id(b)["a"].separation_reason == say.NO_RUBRIC_HASH and by_id(b)["c"].separation == Separation.HURTS


def test_aggregates_only_and_size_limits_give_no_breakdown() -> None:
    r = receipt({"a": HELPS, "b": FLAT, "c": HURTS})
    assert lift_breakdown(r, BreakdownLimits(cases=2)).unavailable_reason == (
        "over the breakdown's size limit: 3 cases; a breakdown computes over at most 2 cases"
    )
    assert lift_breakdown(r, BreakdownLimits(draws=17)).unavailable_reason == say.over_limit(18, "draws", 17)
    assert lift_breakdown(r, BreakdownLimits(cases=3, draws=18)).unavailable_reason is None
    marks = {"uncertainty_unavailable": "aggregates_only"}
    agg = receipt({"a": (arm([]), arm([]))}, verification="DECLARED", extra=marks)
    assert lift_breakdown(agg).unavailable_reason == AGGREGATES_ONLY and lift_breakdown(agg).cases == ()


def _with_draw(r: Receipt, draw: Draw) -> Receipt:
    """``r`` with its first with-skill draw replaced, as only a hand-built model could hold it (no reader would)."""
    case = r.cases[0]
    draws = [draw, *case.with_skill.draws[1:]]
    cases = [case.model_copy(update={"with_skill": case.with_skill.model_copy(update={"draws": draws})}), *r.cases[1:]]
    return r.model_copy(update={"cases": cases})


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (
            lambda r: r.model_copy(update={"seal": Seal.model_construct(sha256="not-a-digest")}),
            say.invalid_hash("seal.sha256"),
        ),
        (
            lambda r: r.model_copy(update={"cases": [r.cases[0].model_copy(update={"rubric_sha256": "ABC"})]}),
            say.invalid_hash("cases[0].rubric_sha256"),
        ),
        (
            lambda r: _with_draw(r, Draw.model_construct(index=0, status="measured", score=None)),
            say.malformed("cases[0].with_skill.draws[0]", "a measured draw has no numeric score"),
        ),
        (
            lambda r: _with_draw(r, Draw.model_construct(index=0, status="lost", lost_reason="x", score=0.5)),
            say.malformed("cases[0].with_skill.draws[0]", "a lost draw carries a score"),
        ),
        (
            lambda r: _with_draw(r, Draw.model_construct(index=0, status="measured", score=1.5)),
            say.malformed("cases[0].with_skill.draws[0]", "score 1.5 lies outside [0, 1]"),
        ),
        (
            lambda r: _with_draw(r, Draw.model_construct(index=2, status="measured", score=0.5)),
            say.contradictory_counts("cases[0].with_skill.draws", "indices out of order", "[2, 1, 2]"),
        ),
        (
            lambda r: r.model_copy(update={"cases": [r.cases[0], r.cases[0]]}),
            say.malformed("cases", "case id 'a' appears more than once"),
        ),
    ],
)
def test_evidence_that_cannot_be_read_as_recorded_gives_no_breakdown(edit: Any, reason: str) -> None:
    b = lift_breakdown(edit(graded(receipt({"a": HELPS}))))
    assert b.unavailable_reason == reason and b.cases == () and b.lift is None


def test_contradictory_recorded_draw_counts_give_no_breakdown() -> None:
    # counts say 5 draws in the smallest arm; every arm records 3 (a sealed receipt a reader loads as it is)
    r = receipt({"a": HELPS}, extra={"counts": {"draws_per_arm_min": 5, "draws_per_arm_max": 5}})
    assert lift_breakdown(r).unavailable_reason == say.contradictory_counts("counts.draws_per_arm_min", "5", "3")
    assert read_receipt(r).lift is not None  # the sheet keeps its figures
    ok = receipt({"a": HELPS}, extra={"counts": {"draws_per_arm_min": 3, "draws_per_arm_max": 3}})
    assert lift_breakdown(ok).unavailable_reason is None
