"""Three places where the core disagreed with the seed, each with the smallest example found (issue 9)."""

from __future__ import annotations

import math

from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.sentences import NOT_ENOUGH_DRAWS
from driftproof.core.wide_band import wide_band
from driftproof.core.words import CaseVerdict


def test_r6_comes_before_r3_a_lost_draw_that_undoes_the_separation_is_inconclusive() -> None:
    # BEFORE [0.458, 0.458], AFTER [0.4147, 0.4147] + 1 lost. On measured draws both sds are 0: the bands
    # [0.4147] and [0.458] are apart, Δ = −0.0433 (below the floor). With the lost draw at 1.0 AFTER reads
    # [0.4147, 0.4147, 1.0]: mean 0.6098, sd 0.3379, band [0.272, 0.948] holds 0.458: no separation.
    # Seed: a case that separated on its measured draws ... only when it separates at every score; when
    # it does not, the diff reads the case inconclusive. R-6 is asked before the floor.
    c = compare(ArmEvidence((0.4147, 0.4147), lost=1), ArmEvidence((0.458, 0.458)))
    assert c.verdict == CaseVerdict.INCONCLUSIVE
    assert math.isclose(c.delta or 0.0, 0.4147 - 0.458, abs_tol=1e-12)


def test_r6_a_lost_draw_that_undoes_a_separation_below_the_floor_is_inconclusive() -> None:
    # AFTER [0.40, 0.41, 0.40, 0.41] + 1 lost against BEFORE [0.44, 0.45, 0.44, 0.45, 0.44, 0.45, 0.44, 0.45]:
    # measured Δ = 0.405 − 0.445 = −0.04 < F. Lost at 0: AFTER mean 0.324, sd 0.181 → band [0.143, 0.505] holds
    # 0.445: the separation does not survive, so R-6 reads it inconclusive before the floor is asked.
    c = compare(ArmEvidence((0.40, 0.41, 0.40, 0.41), lost=1), ArmEvidence((0.44, 0.45) * 4))
    assert c.verdict == CaseVerdict.INCONCLUSIVE
    # without the lost draw it is a plain separated-but-tiny move
    assert compare(ArmEvidence((0.40, 0.41, 0.40, 0.41)), ArmEvidence((0.44, 0.45) * 4)).verdict == (
        CaseVerdict.BELOW_EFFECT_FLOOR
    )


def test_r4_draws_needed_in_exact_arithmetic_a_tie_is_not_below_the_floor() -> None:
    # BEFORE [0.6, 0.6] (s 0), AFTER [0.6, 0.6, 0.55, 0.6]: mean 0.5875, s = sqrt(3·0.0125² + 0.0375²)/√3 = 0.025.
    # n draws per arm reach the floor when 0.025 + 0 + 2·sqrt(0.025²/n) < 0.05, i.e. 0.05/√n < 0.025, n > 4.
    # At n = 4 the left side is exactly 0.05, not below it: 5 draws.
    c = compare(ArmEvidence((0.6, 0.6, 0.55, 0.6)), ArmEvidence((0.6, 0.6)))
    assert c.verdict == CaseVerdict.UNDERPOWERED
    assert c.draws_needed == 5
    # the same tie the other way round already gave 5
    assert compare(ArmEvidence((0.4, 0.4, 0.45, 0.4)), ArmEvidence((0.4, 0.4, 0.4))).draws_needed == 5


BASE_1 = (0.4327, 0.441, 0.4389, 0.447, 0.4486, 0.4491, 0.4427, 0.4477, 0.463, 0.4669)
WITH_1 = (0.4558, 0.4517, 0.4547, 0.4527, 0.4514, 0.4447, 0.4422, 0.4487)
BASE_2 = (0.4198, 0.4125)
WITH_2 = (0.4261, 0.3984, 0.3997, 0.418, 0.4037, 0.417)


def test_r5_widens_lost_draw_cases_at_the_worst_vertex() -> None:
    """Two cases read no_separation; both with-skill arms lost 2 draws.

    With-skill case means can lie anywhere in [sum/drawn, (sum + lost)/drawn]: case 1 (8 measured, sum 3.6019)
    in [0.3602, 0.5602], case 2 (6 measured, sum 2.4629) in [0.3079, 0.5579]. The spread of the two is largest
    at a vertex: case 1 high and case 2 low, |0.5602 − 0.3079| / √2 = 0.1784. The baseline means 0.44776 and
    0.41615 spread 0.02235. B = sqrt(0.1784² + 0.02235²) = 0.1798 ≥ 0.05: UNDERPOWERED, not enough draws.
    (Moving each case to the end farther from the centre put both high and gave B = 0.022.)"""
    new = [ArmEvidence(WITH_1, lost=2), ArmEvidence(WITH_2, lost=2)]
    ref = [ArmEvidence(BASE_1), ArmEvidence(BASE_2)]
    assert [compare(n, r).verdict for n, r in zip(new, ref, strict=True)] == [CaseVerdict.NO_SEPARATION] * 2
    wb = wide_band(new, ref)
    s_with = abs((sum(WITH_1) + 2) / 10 - sum(WITH_2) / 8) / math.sqrt(2)
    s_base = abs(sum(BASE_1) / 10 - sum(BASE_2) / 2) / math.sqrt(2)
    assert math.isclose(wb.band, math.sqrt(s_with**2 + s_base**2), abs_tol=1e-12)
    assert math.isclose(wb.band, 0.1798, abs_tol=5e-4)
    assert wb.underpowered and wb.sentence == NOT_ENOUGH_DRAWS


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from driftproof.core import wide_band as wb_module  # noqa: E402

unit = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    fixed=st.lists(unit, min_size=0, max_size=5),
    boxes=st.lists(st.tuples(unit, unit).map(sorted).map(tuple), min_size=1, max_size=6),
)
def test_r5_the_bound_beyond_the_exact_limit_is_never_narrower_than_the_exact_worst_vertex(
    fixed: list[float], boxes: list[tuple[float, float]]
) -> None:
    import itertools

    if len(fixed) + len(boxes) < 2:
        return
    n = len(fixed) + len(boxes)
    exact = max(
        math.sqrt(sum((x - sum(v) / n) ** 2 for x in v) / (n - 1))
        for corner in itertools.product(*boxes)
        for v in [list(fixed) + list(corner)]
    )
    assert wb_module._spread_bound(fixed, boxes) >= exact - 1e-9


def test_r5_past_the_exact_limit_the_bound_is_used_and_still_reads_underpowered() -> None:
    # 13 cases, each 0.5 measured on 2 draws + 1 lost: every mean lies in [1/3, 2/3]; at the worst corner
    # half the means sit at each end, S ≈ 0.1667·sqrt(13·... ) ≥ 0.05, far above the floor either way
    arms = [ArmEvidence((0.5, 0.5), lost=1)] * (wb_module.MAX_EXACT_LOST_CASES + 1)
    still = [ArmEvidence((0.5, 0.5))] * (wb_module.MAX_EXACT_LOST_CASES + 1)
    result = wide_band(arms, still)
    assert result.underpowered and result.sentence == NOT_ENOUGH_DRAWS
    # the bound: c = 0.5 puts every box 1/6 away: sqrt(13 · (1/6)² / 12) = 0.1735
    assert math.isclose(result.band, math.sqrt(13 * (1 / 6) ** 2 / 12), abs_tol=1e-6)


def test_r4_draws_needed_when_the_spreads_sit_a_hair_under_the_floor_is_found_at_once() -> None:
    """Spreads summing to F − 3e-9: the room left, 3e-9 − 1e-9 (the tolerance), asks for some 1.6e14 draws.

    The count is computed from that room directly (it used to step up one draw at a time from an estimate
    made without the tolerance: a benchmark hung there)."""
    from driftproof.core.bands import draws_needed

    result = draws_needed(0.025, 0.025 - 3e-9)
    room = 0.05 - 1e-9 - 0.025 - (0.025 - 3e-9)
    assert result.n is not None and math.isclose(result.n, 4 * (0.025**2 + (0.025 - 3e-9) ** 2) / room**2, rel_tol=1e-3)
    assert draws_needed(0.025, 0.025 - 1.5e-9).reason == "no draw count reaches the floor"
