"""Degenerate inputs are explicit branches, never a NaN: the guards of the pure core, one by one."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from driftproof.core.bands import mean
from driftproof.core.compare import ArmEvidence, lost_range
from driftproof.core.models import Receipt
from driftproof.core.reading import NoVerdict, lift_of, no_verdict, read_receipt
from driftproof.core.sentences import NOT_ENOUGH_DRAWS
from driftproof.core.wide_band import wide_band
from tests.support.builders import receipt


def test_mean_of_nothing_is_an_error_not_a_nan() -> None:
    with pytest.raises(ValueError, match="at least one data point"):
        mean([])


def test_lost_range_of_an_arm_with_no_draw_is_none() -> None:
    assert lost_range(ArmEvidence(())) is None
    # 2 measured (sum 1.0) + 2 lost: the mean could be anywhere in [1.0/4, 3.0/4]
    assert lost_range(ArmEvidence((0.4, 0.6), lost=2)) == (0.25, 0.75)


def test_r5_wide_band_from_draw_spread_says_not_enough_draws() -> None:
    # with-arm case means 0.4 ([0.2, 0.6]) and 0.6 ([0.4, 0.8]): S = 0.2/sqrt(2) = 0.141421, S² = 0.02
    # baseline the same: B = sqrt(0.02 + 0.02) = 0.2 ≥ 0.05
    # draw part per arm: mean of s²/n = (0.08/2 + 0.08/2)/2 = 0.04 ≥ S², so between = max(0, 0.02 - 0.04) = 0
    # sqrt(0 + 0) = 0 < 0.05: the band is draw spread, which more draws narrow
    arms = [ArmEvidence((0.2, 0.6)), ArmEvidence((0.4, 0.8))]
    wb = wide_band(arms, arms)
    assert wb.underpowered and wb.sentence == NOT_ENOUGH_DRAWS and wb.between_cases == 0.0
    assert math.isclose(wb.band, 0.2, abs_tol=1e-12)


def test_lift_without_an_included_case_is_none() -> None:
    r = receipt({"a": ([0.5, 0.6], [None, None])})
    assert lift_of(r.cases) == (None, None)
    assert read_receipt(r).lift is None and read_receipt(r).lift_per_1k is None


def test_one_no_verdict_rule_words_each_kind_in_full_and_in_short() -> None:
    assert no_verdict(receipt({"a": ([0.5, 0.6], [0.1, 0.2])})) is None
    below = no_verdict(receipt({"a": ([0.5], [0.1])}, verification="DECLARED"))
    assert below == NoVerdict("below TESTED: the receipt reads DECLARED (test fixture)", "below TESTED (DECLARED)")
    agg = no_verdict(receipt({"a": ([0.5], [0.1])}, extra={"uncertainty_unavailable": "aggregates_only"}))
    assert agg == NoVerdict("aggregates only: the source printed figures with no per-run score", "aggregates only")
    smoke = no_verdict(receipt({"a": ([0.5], [0.1])}, verification="UNVERIFIED", preset="quick"))
    assert smoke == NoVerdict("Smoke run, no verdict", "a smoke run (Smoke run, no verdict)")


def test_the_models_refuse_a_preset_receipt_that_reads_tested() -> None:
    doc = receipt({"a": ([0.5, 0.6], [0.1, 0.2])}).model_dump(mode="json")
    doc["run"]["preset"] = "quick"
    with pytest.raises(ValidationError, match="cannot read TESTED"):
        Receipt.model_validate(doc)
