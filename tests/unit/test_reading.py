"""One receipt: lift, lift per 1k, outcomes, and every receipt status word."""

from __future__ import annotations

import math

import pytest

from driftproof.core.export import view_json
from driftproof.core.lift import skill_tokens
from driftproof.core.reading import outcome, read_receipt
from driftproof.core.sentences import NOT_ENOUGH_DRAWS, SMOKE_RUN
from driftproof.core.words import CaseVerdict, Outcome, Status
from tests.support.builders import receipt

UP = ([0.5, 0.6, 0.7], [0.2, 0.3, 0.4])  # improved: Δ 0.3
DOWN = ([0.2, 0.3, 0.4], [0.5, 0.6, 0.7])  # regressed
FLAT = ([0.50, 0.51, 0.50, 0.51], [0.50, 0.51, 0.50, 0.51])  # no_separation
WIDE = ([0.485, 0.5, 0.515], [0.475, 0.49, 0.505])  # underpowered, 5 draws needed


def test_lift_and_lift_per_1k_by_hand() -> None:
    # case a: 0.6 - 0.3 = 0.3; case b: 0.505 - 0.505 = 0 -> lift (0.3 + 0)/2 = 0.15
    # skill 1601 chars -> ceil(1601/4) = 401 tokens -> 0.15 / 0.401 = 0.374065
    r = read_receipt(receipt({"a": UP, "b": FLAT}, skill_chars=1601))
    assert r.skill_tokens == 401
    assert math.isclose(r.lift or 0, 0.15, abs_tol=1e-12)
    assert math.isclose(r.lift_per_1k or 0, 0.15 / 0.401, abs_tol=1e-12)


def test_lift_weights_cases_equally_and_skips_unmeasured_arms() -> None:
    # case a has 3 draws per arm, case b 6: equal weight anyway. Case c has no measured baseline: left out.
    # a: 0.3; b: mean(0.9,0.9,0.9,0.8,0.8,0.8)=0.85 - 0.35 = 0.5 -> lift 0.4
    b = ([0.9, 0.9, 0.9, 0.8, 0.8, 0.8], [0.3, 0.4, 0.3, 0.4, 0.3, 0.4])
    r = read_receipt(receipt({"a": UP, "b": b, "c": ([0.9, 0.9], [None, None])}))
    assert math.isclose(r.lift or 0, 0.4, abs_tol=1e-12)


def test_skill_tokens_is_ceil_of_chars_over_four() -> None:
    assert [skill_tokens(n) for n in (0, 1, 4, 5, 1600, 1601)] == [0, 1, 1, 2, 400, 401]


def test_no_skill_means_no_lift_per_1k() -> None:
    assert read_receipt(receipt({"a": UP}, skill_chars=None)).lift_per_1k is None


@pytest.mark.parametrize(
    ("m", "s", "t", "expected"),
    [
        (0.8, 0.05, 0.7, Outcome.PASS),  # 0.75 > 0.7
        (0.6, 0.05, 0.7, Outcome.FAIL),  # 0.65 < 0.7
        (0.7, 0.0, 0.7, Outcome.BORDERLINE),  # mean exactly at the threshold
        (0.75, 0.05, 0.7, Outcome.BORDERLINE),  # m - s = 0.7 is not > 0.7
        (0.9, None, 0.7, Outcome.BORDERLINE),  # spread unknown
        (0.9, 0.1, None, None),
    ],
)
def test_case_outcome_against_threshold(m: float, s: float | None, t: float | None, expected: Outcome | None) -> None:
    assert outcome(m, s, t) == expected


def test_outcome_in_view_uses_with_skill_band() -> None:
    # with [0.6,0.7,0.8]: m 0.7, sd 0.1 -> m - s = 0.6 > 0.5 pass; baseline [0.2,0.3,0.4]: 0.4 < 0.5 fail
    r = receipt({"a": ([0.6, 0.7, 0.8], [0.2, 0.3, 0.4])}, thresholds={"a": 0.5})
    case = view_json(read_receipt(r))["cases"][0]
    assert case["outcome"] == "pass" and case["baseline"]["outcome"] == "fail"


@pytest.mark.parametrize(
    ("cases", "status"),
    [
        ({"a": UP, "b": FLAT}, Status.PASSING),
        ({"a": UP, "b": DOWN}, Status.REGRESSED),
        ({"a": FLAT, "b": WIDE}, Status.UNDERPOWERED),
        ({"a": FLAT, "b": FLAT}, Status.NO_SEPARATION),
    ],
)
def test_receipt_status_words(cases: dict, status: Status) -> None:
    assert read_receipt(receipt(cases)).status is status


def test_underpowered_receipt_says_not_enough_draws() -> None:
    r = read_receipt(receipt({"a": FLAT, "b": WIDE}))
    assert r.status_reason == NOT_ENOUGH_DRAWS
    assert r.cases[1].comparison.draws_needed == 5


@pytest.mark.parametrize(
    ("kwargs", "reason_part"),
    [
        ({"verification": "UNVERIFIED"}, "below TESTED"),
        ({"verification": "DECLARED"}, "below TESTED"),
        ({"verification": "UNVERIFIED", "preset": "quick"}, SMOKE_RUN),
        (
            {"verification": "TESTED", "extra": {"uncertainty_unavailable": "aggregates_only"}},
            "aggregates only",
        ),
    ],
)
def test_no_verdict_keeps_lift_as_context(kwargs: dict, reason_part: str) -> None:
    r = read_receipt(receipt({"a": DOWN, "b": FLAT}, **kwargs))
    assert r.status is Status.NO_VERDICT
    assert reason_part in (r.no_verdict_reason or "")
    assert all(c.verdict is None for c in r.cases)
    if "extra" in kwargs:  # aggregates only: no band, no lift
        assert r.lift is None
    else:  # the lift stays, with its sign: (-0.3 + 0) / 2
        assert math.isclose(r.lift or 0, -0.15, abs_tol=1e-12)


def test_view_json_shape() -> None:
    out = view_json(read_receipt(receipt({"a": UP})))
    assert {"status", "verification", "lift", "lift_per_1k", "skill_tokens", "cases"} <= out.keys()
    case = out["cases"][0]
    assert {"id", "verdict", "delta", "outcome", "draws_needed", "with_skill", "baseline"} <= case.keys()
    assert set(case["with_skill"]) >= {"mean", "sd", "measured", "drawn", "lost"}
    assert case["verdict"] == CaseVerdict.IMPROVED and case["delta"] == 0.3
    assert case["with_skill"]["measured"] == 3 and case["baseline"]["drawn"] == 3
