"""settle-v2 for a whole case: within the receipt, replacement of draws lost to failed calls, R-6 redraws,
and drawing the with-skill arm against the reference (issue 9). Each decision worked by hand."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.between import CALL_MIN_DRAWS, compare_between
from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.rounds import (
    CALL_NEEDS_DRAWS,
    INCONCLUSIVE_LOST,
    REPLACING,
    THIN_REFERENCE_ARM,
    ArmDraws,
    CaseDraws,
    arm_draws,
    next_draws,
    replaced_flags,
)
from driftproof.core.stopping import DEFAULT_RULE, FRAGILE, REFERENCE_MIN_DRAWS, reference_rule
from driftproof.core.words import CaseVerdict

FLAT = ArmDraws((0.50, 0.55, 0.60))  # 0.55 ± 0.05
# 0.05 ± 0: with FLAT, |Δ| 0.50 > 4.415 · 0.05 + 0 (the high ends at 3 draws): settled on separation at 3
LOW = ArmDraws((0.05, 0.05, 0.05))


def test_replaced_flags_pair_each_failed_call_with_the_next_measured_draw() -> None:
    # draw 1 (failed call) is replaced by draw 2; draw 3 (failed call) waits: draw 4 was lost for its answer
    # and cannot replace it; draw 5 replaces draw 3
    draws = [(True, False), (False, True), (True, False), (False, True), (False, False), (True, False)]
    assert replaced_flags(draws) == [False, True, False, True, False, False]
    assert arm_draws([(0.5, False), (None, True), (0.6, False), (None, True), (None, False), (0.7, False)]) == (
        ArmDraws((0.5, 0.6, 0.7), lost=1, pending=0, replaced=2)
    )


def test_a_draw_lost_to_a_failed_call_is_drawn_again() -> None:
    # with-skill: 3 measured; baseline: 2 measured and one timed out. Within the receipt the baseline would be
    # topped up anyway (min_draws 3 measured); here the timed-out draw is the reason, and it is said.
    case = CaseDraws(FLAT, ArmDraws((0.20, 0.30), lost=1, pending=1))
    d = next_draws(DEFAULT_RULE, case)
    assert (d.add_with, d.add_baseline) == (0, 1) and REPLACING in d.reason
    # once measured draws are in, the replaced draw is no longer one R-6 reads
    assert arm_draws([(0.2, False), (None, True), (0.3, False), (0.25, False)]).evidence() == ArmEvidence(
        (0.2, 0.3, 0.25), 0, replaced=1
    )


def test_a_draw_lost_for_its_answer_is_kept_and_more_draws_narrow_what_it_leaves_open() -> None:
    """with-skill 0.85 ± 0.0463 on 8 draws + 1 lost ("no answer", not a failed call), baseline 0.60 ± 0.0433 on 9.

    Settled within: |Δ| 0.25 > 1.797 · 0.0463 + 1.711 · 0.0433 = 0.157 (the high ends at 8 and 9 draws). But
    with the lost draw at 0 the with-skill arm reads mean 6.8 / 9 = 0.7556, sd sqrt(0.657 / 8) = 0.287: band
    [0.469, 1.04] holds the baseline's [0.557, 0.643]. R-6 reads it inconclusive, so the arm that lost a draw
    gets one more (9 made of 10)."""
    lost = ArmDraws((0.80, 0.85, 0.90, 0.80, 0.85, 0.90, 0.80, 0.90), lost=1, pending=0)
    base = ArmDraws((0.55, 0.60, 0.65) * 3)
    assert compare(lost.evidence(), base.evidence()).verdict == CaseVerdict.INCONCLUSIVE
    d = next_draws(DEFAULT_RULE, CaseDraws(lost, base))
    assert (d.add_with, d.add_baseline) == (1, 0) and INCONCLUSIVE_LOST in d.reason


def test_against_the_reference_a_call_waits_for_seven_measured_draws() -> None:
    """PR with-skill 0.55 ± 0.05 on 3 draws against the reference's 0.85 ± 0 on 12: apart and Δ = −0.30, but
    R-7 asks 7 measured draws of each arm of a call between receipts, so the with-skill arm draws on."""
    reference = ArmEvidence((0.85,) * REFERENCE_MIN_DRAWS)
    assert compare_between(FLAT.evidence(), reference).thin == "after"
    d = next_draws(DEFAULT_RULE, CaseDraws(FLAT, LOW, reference))
    assert (d.add_with, d.add_baseline) == (1, 0) and CALL_NEEDS_DRAWS in d.reason
    seven = ArmDraws((0.50, 0.55, 0.60, 0.50, 0.55, 0.60, 0.55))  # 0.55 ± 0.041 on 7
    # settled: |Δ| 0.30 > 0.041 · 1.92 (high factor at 7) + 0 (the reference has no spread): separation
    done = next_draws(DEFAULT_RULE, CaseDraws(seven, LOW, reference))
    assert done.stop and done.settled and "against the reference: separation even at the high ends" in done.reason


def test_a_reference_arm_too_thin_for_a_call_is_not_drawn_against() -> None:
    thin = ArmEvidence((0.85, 0.90, 0.95))  # 3 draws: no call against it can be made
    d = next_draws(DEFAULT_RULE, CaseDraws(FLAT, LOW, thin))
    assert d.stop and f"{THIN_REFERENCE_ARM} (3 measured draws, a call needs {CALL_MIN_DRAWS})" in d.reason


def test_against_the_reference_an_overlap_stops_at_the_minimum() -> None:
    # PR 0.55 ± 0.05 (3) against the reference 0.56 ± 0.05 (12): |Δ| 0.01 < F, settled with no call (and the
    # PR's own with vs baseline settled on separation at 3)
    reference = ArmEvidence((0.51, 0.56, 0.61) * 4)
    d = next_draws(DEFAULT_RULE, CaseDraws(FLAT, LOW, reference))
    assert d.stop and d.settled and "against the reference: gap below the effect floor" in d.reason


def test_a_fragile_comparison_with_the_reference_draws_on_until_max_draws() -> None:
    # PR 0.70 ± 0.10 on 8 draws against 0.85 ± 0.05 on 12: bands [0.60, 0.80] and [0.80, 0.90] touch, |Δ| 0.15:
    # neither overlap at the low ends (0.10 · 0.78 + 0.05 · 0.78 = 0.117 < 0.15) nor separation at the high
    # ends: fragile, one more draw while the budget lasts
    pr = ArmDraws((0.6, 0.8) * 4)
    reference = ArmEvidence((0.80, 0.90) * 6)
    d = next_draws(DEFAULT_RULE, CaseDraws(pr, LOW, reference))
    assert d.add_with == 1 and FRAGILE in d.reason
    spent = ArmDraws((0.6, 0.8) * 5)  # 10 draws made: max_draws reached
    assert next_draws(DEFAULT_RULE, CaseDraws(spent, LOW, reference)).add_with == 0


def test_the_reference_rule_draws_twelve_per_arm() -> None:
    d = next_draws(reference_rule(3, 10), CaseDraws(ArmDraws(), ArmDraws()))
    assert (d.add_with, d.add_baseline) == (REFERENCE_MIN_DRAWS, REFERENCE_MIN_DRAWS)


unit = st.floats(0.0, 1.0, allow_nan=False).map(lambda x: round(x * 20) / 20)
arms = st.lists(unit, min_size=2, max_size=12).map(tuple)


@settings(max_examples=300, deadline=None)
@given(new=arms, ref=arms, lost_new=st.integers(0, 3), lost_ref=st.integers(0, 3))
def test_property_swapping_before_and_after_swaps_improved_and_regressed(
    new: tuple[float, ...], ref: tuple[float, ...], lost_new: int, lost_ref: int
) -> None:
    forward = compare_between(ArmEvidence(new, lost_new), ArmEvidence(ref, lost_ref)).verdict
    back = compare_between(ArmEvidence(ref, lost_ref), ArmEvidence(new, lost_new)).verdict
    mirror = {CaseVerdict.IMPROVED: CaseVerdict.REGRESSED, CaseVerdict.REGRESSED: CaseVerdict.IMPROVED}
    assert back == mirror.get(forward, forward)


@settings(max_examples=300, deadline=None)
@given(new=arms, ref=arms, lost_new=st.integers(0, 2), lost_ref=st.integers(0, 2), side=st.sampled_from(["n", "r"]))
def test_property_adding_a_lost_draw_never_turns_a_non_call_into_a_call(
    new: tuple[float, ...], ref: tuple[float, ...], lost_new: int, lost_ref: int, side: str
) -> None:
    before = compare_between(ArmEvidence(new, lost_new), ArmEvidence(ref, lost_ref)).verdict
    after = compare_between(
        ArmEvidence(new, lost_new + (side == "n")), ArmEvidence(ref, lost_ref + (side == "r"))
    ).verdict
    calls = (CaseVerdict.IMPROVED, CaseVerdict.REGRESSED)
    if before not in calls:
        assert after not in calls


@settings(max_examples=200, deadline=None)
@given(w=arms, b=arms, ref=st.lists(unit, min_size=7, max_size=14).map(tuple))
def test_property_no_arm_is_ever_asked_to_pass_max_draws(
    w: tuple[float, ...], b: tuple[float, ...], ref: tuple[float, ...]
) -> None:
    rule = replace(DEFAULT_RULE, max_draws=12)
    d = next_draws(rule, CaseDraws(ArmDraws(w), ArmDraws(b), ArmEvidence(ref)))
    assert len(w) + d.add_with <= max(rule.max_draws, len(w)) and len(b) + d.add_baseline <= max(rule.max_draws, len(b))
