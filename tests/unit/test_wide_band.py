"""R-5: the wide band over several cases, on hand-computed numbers."""

from __future__ import annotations

import math

import pytest

from driftproof.core.compare import ArmEvidence
from driftproof.core.reading import read_receipt
from driftproof.core.sentences import MORE_CASES, NO_SEPARATION_HEADLINE, NOT_ENOUGH_DRAWS
from driftproof.core.wide_band import wide_band
from driftproof.core.words import BandSource, Status
from tests.support.builders import legacy_arm, receipt

TIGHT_LOW = [0.30, 0.31, 0.30, 0.31]  # m 0.305, sd 0.0057735
TIGHT_HIGH = [0.70, 0.71, 0.70, 0.71]  # m 0.705, sd 0.0057735


def ev(*scores: float, lost: int = 0) -> ArmEvidence:
    return ArmEvidence(tuple(scores), lost, ("timeout",) * lost)


def test_r5_cases_that_disagree_need_more_cases() -> None:
    # case means per arm: 0.305 and 0.705 -> S = 0.4/sqrt(2) = 0.282843; B = sqrt(2*0.08) = 0.4 ≥ 0.05
    # draw part per arm: mean of s²/n = 0.0000333/4 = 8.33e-6; between = 0.08 - 8.33e-6 per arm
    # sqrt(0.159983) = 0.39998 ≥ 0.05 -> the cases disagree
    wb = wide_band([ev(*TIGHT_LOW), ev(*TIGHT_HIGH)], [ev(*TIGHT_LOW), ev(*TIGHT_HIGH)])
    assert wb.underpowered and wb.sentence == MORE_CASES
    assert math.isclose(wb.band, 0.4, abs_tol=1e-12)
    assert math.isclose(wb.between_cases or 0, math.sqrt(2 * (0.08 - (0.0001 / 3) / 4)), abs_tol=1e-12)


def test_r5_narrow_band_is_no_separation() -> None:
    # case means 0.505 and 0.515 in both arms: S = 0.01/sqrt(2) = 0.0070711; B = 0.01 < 0.05
    a, b = [0.50, 0.51, 0.50, 0.51], [0.51, 0.52, 0.51, 0.52]
    wb = wide_band([ev(*a), ev(*b)], [ev(*a), ev(*b)])
    assert not wb.underpowered and wb.sentence is None
    assert math.isclose(wb.band, 0.01, abs_tol=1e-12)


def test_r5_lost_draws_widen_and_say_not_enough_draws() -> None:
    # case A with-arm: 4 measured (sum 2.02) + 1 lost: mean range [2.02/5, 3.02/5] = [0.404, 0.604]
    # centre of measured with-means = 0.505; 0.404 is farther (0.101 vs 0.099): S_with = 0.101/sqrt(2)
    # = 0.0714178; baseline S = 0; B = 0.0714 ≥ 0.05 -> underpowered, "Not enough draws ..."
    flat = [0.50, 0.51, 0.50, 0.51]
    wb = wide_band([ev(*flat, lost=1), ev(*flat)], [ev(*flat), ev(*flat)])
    assert wb.underpowered and wb.sentence == NOT_ENOUGH_DRAWS
    assert math.isclose(wb.band, 0.101 / math.sqrt(2), abs_tol=1e-12)


def test_r5_arm_without_spread_says_not_enough_draws() -> None:
    legacy = ArmEvidence((0.3,), source=BandSource.LEGACY, legacy_samples=(0.3, 0.3))
    legacy2 = ArmEvidence((0.7,), source=BandSource.LEGACY, legacy_samples=(0.7, 0.7))
    wb = wide_band([legacy, legacy2], [legacy, legacy2])
    assert wb.underpowered and wb.sentence == NOT_ENOUGH_DRAWS


def test_r5_needs_two_cases() -> None:
    with pytest.raises(ValueError, match="2\\+ cases"):
        wide_band([ev(0.5, 0.5)], [ev(0.5, 0.5)])


def test_r5_reads_underpowered_on_a_receipt() -> None:
    r = read_receipt(receipt({"a": (TIGHT_LOW, TIGHT_LOW), "b": (TIGHT_HIGH, TIGHT_HIGH)}))
    assert [c.verdict for c in r.cases] == ["no_separation", "no_separation"]
    assert r.status is Status.UNDERPOWERED and r.status_reason == MORE_CASES


def test_r5_one_case_receipt_forms_no_band() -> None:
    r = read_receipt(receipt({"a": (TIGHT_LOW, TIGHT_LOW)}))
    assert r.status is Status.NO_SEPARATION and r.status_reason == NO_SEPARATION_HEADLINE and r.wide is None


def test_r5_applies_to_legacy_receipts_too() -> None:
    # two cases, legacy bands (one draw, judge samples) far apart in case means, each no_separation
    low, high = legacy_arm([0.30, 0.31, 0.30, 0.31]), legacy_arm([0.70, 0.71, 0.70, 0.71])
    r = read_receipt(receipt({"a": (low, low), "b": (high, high)}))
    assert [c.verdict for c in r.cases] == ["no_separation", "no_separation"]
    assert r.status is Status.UNDERPOWERED and r.status_reason == NOT_ENOUGH_DRAWS
