"""R-1 … R-4 and R-6 on hand-computed numbers; cross-checked against ``statistics``."""

from __future__ import annotations

import math
import statistics

import pytest

from driftproof.core.bands import band, draws_needed, meets_floor, resolution, sample_sd, separated
from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.sentences import NO_DRAW_COUNT, SPREAD_UNKNOWN
from driftproof.core.words import BandSource, CaseVerdict

close = pytest.approx


def ev(*scores: float, lost: int = 0, reason: str = "timeout") -> ArmEvidence:
    return ArmEvidence(tuple(scores), lost, (reason,) * lost)


@pytest.mark.parametrize(
    "scores",
    [[0.5, 0.6, 0.7], [0.1, 0.35, 0.9, 0.95], [0.0, 1.0], [0.25] * 5, [0.3, 0.31, 0.3, 0.31, 0.32, 0.29]],
)
def test_r1_band_matches_statistics(scores: list[float]) -> None:
    b = band(scores)
    assert b.mean is not None and b.sd is not None
    assert math.isclose(b.mean, statistics.fmean(scores), abs_tol=1e-12)
    assert math.isclose(b.sd, statistics.stdev(scores), abs_tol=1e-12)
    assert b.n == len(scores)


def test_r1_band_by_hand() -> None:
    # [0.5, 0.6, 0.7]: mean 1.8/3 = 0.6; deviations -0.1, 0, 0.1; squares sum 0.02; /(3-1) = 0.01; sd 0.1
    b = band([0.5, 0.6, 0.7])
    assert math.isclose(b.mean or 0, 0.6, abs_tol=1e-12)
    assert math.isclose(b.sd or 0, 0.1, abs_tol=1e-12)


def test_r1_one_draw_has_no_spread_and_never_separates() -> None:
    one = band([0.9])
    assert one.sd is None and one.lo is None and sample_sd([0.9]) is None
    assert not separated(one, band([0.1, 0.1, 0.1]))
    cmp = compare(ev(0.9), ev(0.1, 0.1, 0.1))
    assert cmp.verdict is CaseVerdict.UNDERPOWERED
    assert cmp.draws_needed is None and cmp.draws_needed_reason == SPREAD_UNKNOWN


def test_r1_no_measured_draw_is_underpowered_not_nan() -> None:
    cmp = compare(ev(lost=3), ev(0.5, 0.6))
    assert cmp.verdict is CaseVerdict.UNDERPOWERED and cmp.delta is None


def test_r1_legacy_band_from_judge_samples_is_the_exception() -> None:
    # one draw each; judge samples [0.8, 0.9, 1.0] (m 0.9, sd 0.1) vs [0.2, 0.3, 0.4] (m 0.3, sd 0.1)
    new = ArmEvidence((0.9,), source=BandSource.LEGACY, legacy_samples=(0.8, 0.9, 1.0))
    ref = ArmEvidence((0.3,), source=BandSource.LEGACY, legacy_samples=(0.2, 0.3, 0.4))
    cmp = compare(new, ref)
    assert cmp.new.source is BandSource.LEGACY and cmp.new.n == 3
    assert cmp.verdict is CaseVerdict.IMPROVED  # 0.8 > 0.4, |0.6| ≥ 0.05
    assert math.isclose(cmp.delta or 0, 0.6, abs_tol=1e-12)


def test_r2_separated_bands_call_a_change() -> None:
    # with [0.5,0.6,0.7] band [0.5,0.7]; baseline [0.2,0.3,0.4] band [0.2,0.4]: 0.5 - 0.4 = 0.1 > 0
    cmp = compare(ev(0.5, 0.6, 0.7), ev(0.2, 0.3, 0.4))
    assert cmp.verdict is CaseVerdict.IMPROVED
    assert math.isclose(cmp.delta or 0, 0.3, abs_tol=1e-12)
    assert compare(ev(0.2, 0.3, 0.4), ev(0.5, 0.6, 0.7)).verdict is CaseVerdict.REGRESSED


def test_r2_touching_bands_overlap() -> None:
    # [0.4,0.5,0.6] band [0.4,0.6] and [0.2,0.3,0.4] band [0.2,0.4] touch at 0.4: overlap, no call
    a, b = band([0.4, 0.5, 0.6]), band([0.2, 0.3, 0.4])
    assert not separated(a, b)
    cmp = compare(ev(0.4, 0.5, 0.6), ev(0.2, 0.3, 0.4))
    # r = 0.1 + 0.1 + 2*sqrt(0.01/3 + 0.01/3) = 0.2 + 2*0.0816497 = 0.3632993 ≥ 0.05
    assert cmp.verdict is CaseVerdict.UNDERPOWERED
    assert math.isclose(cmp.resolution or 0, 0.2 + 2 * math.sqrt(0.02 / 3), abs_tol=1e-12)
    # s_a + s_b = 0.2 ≥ F: no draw count reaches the floor
    assert cmp.draws_needed is None and cmp.draws_needed_reason == NO_DRAW_COUNT


def test_r3_separated_but_below_floor() -> None:
    # with [0.70,0.70,0.71,0.71]: m 0.705, sd sqrt(4*0.005²/3) = 0.0057735; lo 0.6992
    # base [0.66,0.66,0.67,0.67]: m 0.665, same sd; hi 0.6708 -> separated; Δ = 0.04 < 0.05
    cmp = compare(ev(0.70, 0.70, 0.71, 0.71), ev(0.66, 0.66, 0.67, 0.67))
    assert cmp.verdict is CaseVerdict.BELOW_EFFECT_FLOOR
    assert math.isclose(cmp.delta or 0, 0.04, abs_tol=1e-12)


@pytest.mark.parametrize(("delta", "meets"), [(0.05, True), (-0.05, True), (0.0499, False), (0.3, True), (0.0, False)])
def test_r3_floor_is_inclusive(delta: float, meets: bool) -> None:
    assert meets_floor(delta) is meets


def test_r3_floor_exactly_met_on_scores() -> None:
    # with [0.75,0.75,0.76,0.76] m 0.755; base [0.70,0.70,0.71,0.71] m 0.705: Δ = 0.05 exactly (float ~0.05)
    cmp = compare(ev(0.75, 0.75, 0.76, 0.76), ev(0.70, 0.70, 0.71, 0.71))
    assert cmp.verdict is CaseVerdict.IMPROVED


def test_r4_no_separation_when_resolution_under_floor() -> None:
    # both [0.50,0.51,0.50,0.51]: sd 0.0057735, r = 0.011547 + 2*sqrt(2*0.0000333/4) = 0.011547 + 0.008165
    # = 0.019712 < 0.05: the case could have been separated and was not
    cmp = compare(ev(0.50, 0.51, 0.50, 0.51), ev(0.50, 0.51, 0.50, 0.51))
    assert cmp.verdict is CaseVerdict.NO_SEPARATION
    assert math.isclose(cmp.resolution or 0, 0.0197115, abs_tol=1e-6)


def test_r4_underpowered_with_draws_needed() -> None:
    # with [0.485,0.5,0.515] sd 0.015; base [0.475,0.49,0.505] sd 0.015; bands overlap
    # r = 0.03 + 2*sqrt(0.000225/3 * 2) = 0.03 + 0.0244949 = 0.0544949 ≥ 0.05 -> underpowered
    # needed: 0.03 + 2*sqrt(0.00045/n) < 0.05 <=> n > 4*0.00045/0.02² = 4.5 -> n = 5
    #   check n=5: 0.03 + 2*0.0094868 = 0.048974 < 0.05; n=4: 0.03 + 2*0.0106066 = 0.051213 ≥ 0.05
    cmp = compare(ev(0.485, 0.5, 0.515), ev(0.475, 0.49, 0.505))
    assert cmp.verdict is CaseVerdict.UNDERPOWERED
    assert math.isclose(cmp.resolution or 0, 0.03 + 2 * math.sqrt(0.00015), abs_tol=1e-9)
    assert cmp.draws_needed == 5 and cmp.draws_needed_reason is None


@pytest.mark.parametrize(
    ("sd_a", "sd_b", "expected"),
    [
        (0.015, 0.015, 5),  # worked above
        (0.015, 0.01, 3),  # 4*0.000325/0.025² = 2.08 -> 3
        (0.02, 0.02, 33),  # 4*0.0008/0.01² = 32 -> 33 (32 gives equality, not <)
        (0.0, 0.0, 2),  # no spread at all: R-1's minimum of two draws
        (0.025, 0.025, None),  # s_a + s_b = 0.05 = F: none reaches
        (0.04, 0.03, None),
    ],
)
def test_r4_draws_needed_table(sd_a: float, sd_b: float, expected: int | None) -> None:
    got = draws_needed(sd_a, sd_b)
    assert got.n == expected
    if expected is None:
        assert got.reason == NO_DRAW_COUNT
    else:  # smallest n: it reaches, n-1 does not (or n is the minimum 2)
        reach = lambda n: sd_a + sd_b + 2 * math.sqrt((sd_a**2 + sd_b**2) / n) < 0.05  # noqa: E731
        assert reach(expected) and (expected == 2 or not reach(expected - 1))


def test_r4_resolution_unknown_with_one_draw() -> None:
    assert resolution(band([0.5]), band([0.5, 0.6])) is None


def test_r6_separation_that_fails_at_a_lost_vertex_is_inconclusive() -> None:
    # with measured [0.8,0.8,0.9,0.9] (m 0.85, sd 0.057735) + 1 lost; base [0.2,0.3,0.3,0.2] (m 0.25)
    # lost at 0: with [0.8,0.8,0.9,0.9,0] m 0.68, squares .0144+.0144+.0484+.0484+.4624 = .588, /4 -> sd .38341
    # lo 0.2966 < base hi 0.25 + 0.057735 = 0.3077: overlap at that vertex -> inconclusive
    cmp = compare(ev(0.8, 0.8, 0.9, 0.9, lost=1), ev(0.2, 0.3, 0.3, 0.2))
    assert cmp.verdict is CaseVerdict.INCONCLUSIVE
    assert (1, 0) in cmp.lost_vertices_failed and (0, 0) not in cmp.lost_vertices_failed


def test_r6_separation_that_holds_at_every_vertex_is_called() -> None:
    # with [0.9,0.9,0.95,0.95] + 1 lost; lost at 0: m 0.74, sd sqrt(0.687/4) = 0.41443, lo 0.32557
    # base [0.1,0.1,0.15,0.15]: m 0.125, sd 0.028868, hi 0.153868 -> still apart, Δ 0.615 ≥ 0.05
    cmp = compare(ev(0.9, 0.9, 0.95, 0.95, lost=1), ev(0.1, 0.1, 0.15, 0.15))
    assert cmp.verdict is CaseVerdict.IMPROVED


def test_r6_lost_on_the_reference_side_counts_too() -> None:
    # same as the inconclusive case, mirrored: the lost draw sits in the reference arm
    cmp = compare(ev(0.2, 0.3, 0.3, 0.2), ev(0.8, 0.8, 0.9, 0.9, lost=1))
    assert cmp.verdict is CaseVerdict.INCONCLUSIVE


def test_r6_checks_every_vertex_count() -> None:
    # (L_a + 1)(L_b + 1) = 3 x 2 = 6 vertices: (zeros among the new arm's 2 lost, zeros among the ref's 1 lost)
    # Only (0, 1) still separates: new [0.6,0.6,0.65,0.65,1,1] m 0.75, squares .0225*2+.01*2+.0625*2 = .19,
    # /5 -> sd 0.194936, lo 0.555064; ref [0.4,0.4,0.45,0.45,0] m 0.34, squares .0036*2+.0121*2+.1156 = .147,
    # /4 -> sd 0.191703, hi 0.531703: apart by 0.0234, Δ 0.41. At (0, 0) the ref's lost 1 lifts it:
    # ref m 0.54, sd 0.258360, hi 0.798 > new lo 0.555: overlap. The other four put a new lost draw at 0.
    cmp = compare(ev(0.6, 0.6, 0.65, 0.65, lost=2), ev(0.4, 0.4, 0.45, 0.45, lost=1))
    assert cmp.verdict is CaseVerdict.INCONCLUSIVE
    assert cmp.lost_vertices_failed == ((0, 0), (1, 0), (1, 1), (2, 0), (2, 1))
