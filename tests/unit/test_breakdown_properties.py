"""Hypothesis properties of the lift breakdown's leave-one-out lifts and carrier, against an exact oracle.

Scores live on the judge's 0.05 grid, so every case mean is a fraction with a small denominator and the exact
arithmetic of ``fractions`` says what the decimal figures are; the breakdown, in floats, must agree with it.
"""

from __future__ import annotations

from fractions import Fraction
from math import isclose

from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.breakdown import lift_breakdown
from tests.support.builders import graded, receipt

grid = st.integers(min_value=0, max_value=20)  # score k / 20
arm_scores = st.lists(grid, min_size=2, max_size=4)
suites = st.lists(st.tuples(arm_scores, arm_scores), min_size=1, max_size=6)


def exact_mean(ks: list[int]) -> Fraction:
    return Fraction(sum(ks), 20 * len(ks))


def build(cases: list[tuple[list[int], list[int]]]) -> tuple[dict[str, tuple[list[float], list[float]]], list[str]]:
    ids = [f"case-{i}" for i in range(len(cases))]
    return {i: ([k / 20 for k in w], [k / 20 for k in b]) for i, (w, b) in zip(ids, cases, strict=True)}, ids


@settings(max_examples=60, deadline=None)
@given(suites)
def test_leave_one_out_and_carrier_agree_with_exact_arithmetic(cases: list[tuple[list[int], list[int]]]) -> None:
    spec, ids = build(cases)
    b = lift_breakdown(graded(receipt(spec)))  # type: ignore[arg-type]
    diffs = [exact_mean(w) - exact_mean(base) for w, base in cases]
    lift = sum(diffs, Fraction(0)) / len(diffs)
    assert b.lift is not None and isclose(b.lift, float(lift), abs_tol=1e-12)
    assert [c.id for c in b.cases] == ids
    for i, row in enumerate(b.cases):
        assert row.difference is not None and isclose(row.difference, float(diffs[i]), abs_tol=1e-12)
        if len(cases) == 1:
            assert row.lift_without is None and row.carrier is None
            continue
        without = (sum(diffs, Fraction(0)) - diffs[i]) / (len(diffs) - 1)
        assert row.lift_without is not None and isclose(row.lift_without, float(without), abs_tol=1e-12)
        # the rule, decided on exact figures: the lift positive and the lift without the case at or below zero
        assert row.carrier is (lift > 0 and without <= 0)
        if row.carrier:  # d_i = k·lift − (k − 1)·without > 0: a carrier always lifted on its own
            assert diffs[i] > 0


@settings(max_examples=40, deadline=None)
@given(suites)
def test_the_breakdown_does_not_depend_on_case_order(cases: list[tuple[list[int], list[int]]]) -> None:
    spec, _ = build(cases)
    forward = lift_breakdown(graded(receipt(spec)))  # type: ignore[arg-type]
    backward = lift_breakdown(graded(receipt(dict(reversed(spec.items())))))  # type: ignore[arg-type]
    rows = {c.id: (c.lift_without, c.carrier, c.separation) for c in forward.cases}
    for c in backward.cases:
        without, carrier, separation = rows[c.id]
        assert carrier == c.carrier and separation == c.separation
        assert (without is None) == (c.lift_without is None)
        assert without is None or c.lift_without is None or isclose(without, c.lift_without, abs_tol=1e-12)
    assert sorted(forward.carriers) == sorted(backward.carriers) and set(forward.downward) == set(backward.downward)
