"""Diff: with_skill BEFORE vs with_skill AFTER, per case id."""

from __future__ import annotations

import math

from driftproof.core.diff import diff
from driftproof.core.export import diff_json
from driftproof.core.sentences import (
    DIFFERENT_SOURCES,
    NO_SEPARATION_HEADLINE,
    NOT_ENOUGH_DRAWS,
    SMOKE_RUN,
    THIN_REFERENCE,
)
from driftproof.core.words import Status
from tests.support.builders import legacy_arm, receipt

BASE = [0.1, 0.1, 0.1]  # baselines do not enter a diff


SEVEN_HIGH = [0.5, 0.55, 0.6, 0.65, 0.7, 0.6, 0.6]  # mean 0.6, sd sqrt(0.025 / 6) = 0.0645
SEVEN_LOW = [0.2, 0.25, 0.3, 0.35, 0.4, 0.3, 0.3]  # mean 0.3, sd 0.0645


def test_diff_compares_with_skill_arms_only() -> None:
    # before with mean 0.6 (band [0.535, 0.665]); after 0.3 (band [0.235, 0.365]) -> regressed, Δ -0.3, and
    # each arm has the 7 measured draws R-7 asks of a call between two receipts. The baselines are swapped
    # wildly and must not matter.
    before = receipt({"a": (SEVEN_HIGH, [0.9, 0.9, 0.9])})
    after = receipt({"a": (SEVEN_LOW, [0.0, 0.0, 0.0])})
    d = diff(before, after)
    assert d.status is Status.REGRESSED
    assert d.cases[0].verdict == "regressed"
    assert math.isclose(d.cases[0].comparison.delta or 0, -0.3, abs_tol=1e-12)
    assert d.headline == "1 case separated downward (regressed)"


def test_r7_a_call_needs_seven_measured_draws_in_each_arm() -> None:
    """The same separation on 3 draws a side is no call between two receipts: R-7 reads it underpowered.

    [0.5, 0.6, 0.7] (band [0.5, 0.7]) against [0.2, 0.3, 0.4] (band [0.2, 0.4]) is apart with Δ −0.3 under
    R-1 … R-6, but BEFORE (the default branch's receipt) has 3 measured draws: a call needs 7."""
    d = diff(receipt({"a": ([0.5, 0.6, 0.7], BASE)}), receipt({"a": ([0.2, 0.3, 0.4], BASE)}))
    case = d.cases[0]
    assert case.verdict == "underpowered" and case.comparison.thin == "both"
    assert case.comparison.draws_needed == 7 and case.comparison.sentence == THIN_REFERENCE
    assert d.status is Status.UNDERPOWERED and d.status_reason == THIN_REFERENCE
    # a thin AFTER side alone (7 draws before, 3 after) is this run's to fix: the plain sentence
    d = diff(receipt({"a": (SEVEN_HIGH, BASE)}), receipt({"a": ([0.2, 0.3, 0.4], BASE)}))
    assert d.cases[0].comparison.thin == "after" and d.status_reason == NOT_ENOUGH_DRAWS
    assert d.cases[0].comparison.sentence == NOT_ENOUGH_DRAWS


def test_diff_counts_below_floor_apart_and_headline_says_no_separation() -> None:
    below = ([0.70, 0.70, 0.71, 0.71], [0.66, 0.66, 0.67, 0.67])
    flat = [0.50, 0.51, 0.50, 0.51]
    before = receipt({"floor": (below[1], BASE), "flat": (flat, BASE)})
    after = receipt({"floor": (below[0], BASE), "flat": (flat, BASE)})
    d = diff(before, after)
    assert (d.counts.below_effect_floor, d.counts.no_separation) == (1, 1)
    assert d.headline == NO_SEPARATION_HEADLINE
    assert d.status is Status.NO_SEPARATION


def test_diff_unmatched_cases_are_listed_and_left_out() -> None:
    before = receipt({"a": ([0.5, 0.6, 0.7], BASE), "gone": ([0.1, 0.2], BASE)})
    after = receipt({"a": ([0.5, 0.6, 0.7], BASE), "new": ([0.9, 0.9], BASE)})
    out = diff_json(diff(before, after))
    assert out["unmatched"] == {"before": ["gone"], "after": ["new"]}
    assert [c["id"] for c in out["cases"]] == ["a"]


def test_diff_names_lost_draws_with_counts_and_reasons() -> None:
    before = receipt({"a": ([0.2, 0.3, 0.3, 0.2], BASE)})
    after = receipt({"a": ([0.8, 0.8, 0.9, 0.9, None], BASE)})
    case = diff_json(diff(before, after))["cases"][0]
    assert case["verdict"] == "inconclusive"
    assert case["lost"] == "after lost 1 of 5 draws (timeout); before lost 0 of 4 draws"
    assert case["after"]["lost_reasons"] == ["timeout"]


def test_diff_json_shape_and_draws_needed() -> None:
    before = receipt({"a": ([0.475, 0.49, 0.505], BASE)})
    after = receipt({"a": ([0.485, 0.5, 0.515], BASE)})
    out = diff_json(diff(before, after))
    assert {"status", "headline", "counts", "cases", "unmatched"} <= out.keys()
    assert set(out["counts"]) == {
        "improved",
        "regressed",
        "below_effect_floor",
        "no_separation",
        "underpowered",
        "inconclusive",
    }
    case = out["cases"][0]
    assert case["verdict"] == "underpowered" and case["draws_needed"] == 5
    assert math.isclose(case["delta"], 0.01, abs_tol=1e-9)
    assert {"mean", "sd", "measured", "drawn", "lost"} <= case["before"].keys()
    assert out["status"] == "underpowered"


def test_diff_draws_needed_reason_when_null() -> None:
    before = receipt({"a": ([0.2, 0.3, 0.4], BASE)})
    after = receipt({"a": ([0.4, 0.5, 0.6], BASE)})
    case = diff_json(diff(before, after))["cases"][0]
    assert case["draws_needed"] is None and case["draws_needed_reason"] == "no draw count reaches the floor"


def test_diff_smoke_side_gets_no_verdict_but_keeps_lift() -> None:
    before = receipt({"a": ([0.5, 0.6, 0.7], [0.2, 0.3, 0.4])})
    after = receipt({"a": ([0.2, 0.3, 0.4], [0.5, 0.6, 0.7])}, verification="UNVERIFIED", preset="quick")
    d = diff(before, after)
    assert d.status is Status.NO_VERDICT and d.no_verdict == {"after": SMOKE_RUN}
    assert d.headline == "no verdict: after is a smoke run (Smoke run, no verdict)"
    assert d.cases[0].verdict is None and d.counts.regressed == 0
    assert math.isclose(d.after.lift or 0, -0.3, abs_tol=1e-12)


def test_diff_flags_different_band_sources() -> None:
    before = receipt({"a": (legacy_arm([0.5, 0.6, 0.7]), BASE)})
    after = receipt({"a": ([0.5, 0.6, 0.7], BASE)})
    assert diff(before, after).different_sources == DIFFERENT_SOURCES
    assert diff(after, after).different_sources is None


def test_diff_uses_the_readings_it_is_given_and_they_equal_its_own() -> None:
    """The Action reads the new receipt once and hands the reading to ``diff`` (issue 11)."""
    from driftproof.core.reading import read_receipt

    before = receipt({"a": ([0.8, 0.82, 0.81, 0.79, 0.8, 0.81, 0.8], [0.5, 0.52, 0.5, 0.51, 0.5, 0.49, 0.5])})
    after = receipt({"a": ([0.6, 0.62, 0.61, 0.59, 0.6, 0.61, 0.6], [0.5, 0.52, 0.5, 0.51, 0.5, 0.49, 0.5])})
    given = (read_receipt(before), read_receipt(after))
    result = diff(before, after, readings=given)
    assert result == diff(before, after)
    assert result.before is given[0] and result.after is given[1]
