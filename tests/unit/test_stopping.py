"""The stopping rule ``settle-v1``: hand-checked branches, properties, and a small A/A smoke test."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.stopping import (
    AT_MAX,
    BELOW_FLOOR,
    BUDGET_SPENT,
    DEFAULT_RULE,
    FRAGILE,
    MIN_NOT_REACHED,
    OVERLAP,
    REFERENCE_MIN_DRAWS,
    SEPARATION,
    UNRESOLVED,
    StopDecision,
    StoppingRule,
    chi2_quantile,
    high_factor,
    low_factor,
    more_draws,
    parse_rule,
    reference_form,
    reference_rule,
    resolvable_at,
    rule_for,
    settled_reason,
)
from driftproof.core.words import CaseVerdict

CALLS = (CaseVerdict.IMPROVED, CaseVerdict.REGRESSED)
FRAGILE_W, FRAGILE_B = [0.7, 0.72, 0.74], [0.6, 0.62, 0.64]  # gap 0.1; sds 0.02: separates, not robustly at n = 3


def verdict(a: list[float], b: list[float]) -> CaseVerdict:
    return compare(ArmEvidence(tuple(a)), ArmEvidence(tuple(b))).verdict


# --- the rule's parameters and record -------------------------------------------------------------------------


def test_default_rule_is_recorded_with_every_parameter() -> None:
    assert DEFAULT_RULE.describe() == (
        "settle-v2(min=3,max=10,step=1,alpha_sep=0.05,alpha_ovl=0.1,floor=0.05,resolve=yes,call_min=7)"
    )
    custom = StoppingRule(min_draws=4, max_draws=12, step=2, alpha_separate=0.1, alpha_overlap=0.2, resolve=False)
    assert custom.describe() == (
        "settle-v2(min=4,max=12,step=2,alpha_sep=0.1,alpha_ovl=0.2,floor=0.05,resolve=no,call_min=7)"
    )


def test_rule_for_takes_the_cli_counts() -> None:
    assert rule_for() == DEFAULT_RULE
    assert (rule_for(5).min_draws, rule_for(5).max_draws) == (5, 10)
    assert (rule_for(15).min_draws, rule_for(15).max_draws) == (15, 15)
    assert rule_for(3, 6).describe().startswith("settle-v2(min=3,max=6,")
    with pytest.raises(ValueError):
        rule_for(8, 6)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_draws": 0},
        {"min_draws": 5, "max_draws": 4},
        {"step": 0},
        {"alpha_separate": 0.0},
        {"alpha_overlap": 0.5},
        {"floor": 0.0},
    ],
)
def test_invalid_parameters_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        StoppingRule(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("q", "df", "expected"),  # textbook chi-square table
    [
        (0.05, 1, 0.0039321),
        (0.05, 2, 0.1026),
        (0.05, 3, 0.3518),
        (0.05, 5, 1.1455),
        (0.05, 10, 3.9403),
        (0.95, 1, 3.8415),
        (0.95, 4, 9.4877),
        (0.95, 10, 18.307),
        (0.9, 9, 14.684),
    ],
)
def test_chi2_quantile_matches_the_table(q: float, df: int, expected: float) -> None:
    assert chi2_quantile(q, df) == pytest.approx(expected, rel=2e-4)


def test_spread_factors_bracket_the_sample_sd_and_narrow_with_n() -> None:
    highs = [high_factor(n, 0.05) for n in range(2, 30)]
    lows = [low_factor(n, 0.1) for n in range(2, 30)]
    assert all(h > 1 for h in highs) and all(lo <= 1 for lo in lows)
    assert highs == sorted(highs, reverse=True) and lows == sorted(lows)
    # n = 3: sqrt(2 / (−2 ln 0.95)) = 4.415; sqrt(2 / (−2 ln 0.1)) = 0.659
    assert high_factor(3, 0.05) == pytest.approx(math.sqrt(2 / (-2 * math.log(0.95))))
    assert low_factor(3, 0.1) == pytest.approx(math.sqrt(2 / (-2 * math.log(0.1))))


# --- hand-checked branches ------------------------------------------------------------------------------------


def test_first_round_asks_for_min_draws_in_each_arm() -> None:
    assert more_draws(DEFAULT_RULE, [], []) == StopDecision(3, 3, False, MIN_NOT_REACHED)
    assert more_draws(DEFAULT_RULE, [0.5], [0.5, 0.6]) == StopDecision(2, 1, False, MIN_NOT_REACHED)


def test_a_minimum_of_one_still_tops_up_to_two_for_a_spread() -> None:
    rule = StoppingRule(min_draws=1)
    assert more_draws(rule, [0.5], []) == StopDecision(1, 2, False, MIN_NOT_REACHED)


def test_one_draw_per_arm_is_allowed_and_reads_underpowered() -> None:
    rule = StoppingRule(min_draws=1, max_draws=1)
    assert more_draws(rule, [], []) == StopDecision(1, 1, False, MIN_NOT_REACHED)
    assert more_draws(rule, [0.5], [0.7]) == StopDecision(0, 0, False, BUDGET_SPENT)
    assert verdict([0.5], [0.7]) == CaseVerdict.UNDERPOWERED


def test_gap_below_floor_stops_settled() -> None:
    # means 0.6 and 0.633: |Δ| = 0.033 < F; sds 0.1 and 0.153 sum above F, so R-4 resolution is out of reach
    d = more_draws(DEFAULT_RULE, [0.5, 0.6, 0.7], [0.5, 0.6, 0.8])
    assert d == StopDecision(0, 0, True, BELOW_FLOOR)


def test_overlap_at_the_low_ends_stops_settled() -> None:
    # |Δ| = 0.1; sds 0.1 + 0.1; low ends 0.659 · 0.2 = 0.132 ≥ 0.1
    d = more_draws(DEFAULT_RULE, [0.5, 0.6, 0.7], [0.6, 0.7, 0.8])
    assert d == StopDecision(0, 0, True, OVERLAP)
    assert verdict([0.5, 0.6, 0.7], [0.6, 0.7, 0.8]) not in CALLS


def test_separation_at_the_high_ends_stops_settled_and_is_a_call() -> None:
    # |Δ| = 0.3; sds 0.02 + 0.02; high ends 4.415 · 0.04 = 0.177 < 0.3
    w, b = [0.8, 0.82, 0.84], [0.5, 0.52, 0.54]
    assert more_draws(DEFAULT_RULE, w, b) == StopDecision(0, 0, True, SEPARATION)
    assert verdict(w, b) == CaseVerdict.IMPROVED
    assert more_draws(DEFAULT_RULE, b, w).reason == SEPARATION


def test_fragile_separation_draws_one_more_per_arm() -> None:
    # |Δ| = 0.1 > 0.04 = s_a + s_b (the bands separate) but < 0.177 at the high ends
    assert verdict(FRAGILE_W, FRAGILE_B) == CaseVerdict.IMPROVED
    assert more_draws(DEFAULT_RULE, FRAGILE_W, FRAGILE_B) == StopDecision(1, 1, False, FRAGILE)
    assert more_draws(replace(DEFAULT_RULE, step=3), FRAGILE_W, FRAGILE_B).add_with == 3


def test_the_same_gap_settles_once_the_spreads_are_known() -> None:
    # n = 6 per arm, sds ≈ 0.0179: high ends 2.089 · 0.0358 = 0.075 < 0.1
    w, b = FRAGILE_W * 2, FRAGILE_B * 2
    assert more_draws(DEFAULT_RULE, w, b) == StopDecision(0, 0, True, SEPARATION)


def test_fragile_at_max_stops_unsettled_and_the_fixed_rule_reads_it() -> None:
    # n = 10, sds 0.0527: |Δ| = 0.15 lies between the low ends (0.783 · 0.105) and the high ends (1.645 · 0.105)
    w = [0.55, 0.65] * 5
    b = [0.4, 0.5] * 5
    assert more_draws(DEFAULT_RULE, w, b) == StopDecision(0, 0, False, AT_MAX)
    assert verdict(w, b) == CaseVerdict.IMPROVED
    assert more_draws(replace(DEFAULT_RULE, max_draws=11), w, b) == StopDecision(1, 1, False, FRAGILE)


def test_fixed_draw_count_when_min_equals_max() -> None:
    rule = StoppingRule(min_draws=5, max_draws=5)
    assert more_draws(rule, [0.5, 0.6, 0.7], [0.5]) == StopDecision(2, 4, False, MIN_NOT_REACHED)
    assert more_draws(rule, FRAGILE_W + FRAGILE_W[:2], FRAGILE_B + FRAGILE_B[:2]).stop


def test_lost_draws_use_up_the_budget_of_their_arm() -> None:
    d = more_draws(DEFAULT_RULE, FRAGILE_W, FRAGILE_B, lost_with=7)
    assert d == StopDecision(0, 1, False, FRAGILE)
    d = more_draws(DEFAULT_RULE, [0.5], [0.5, 0.6, 0.7], lost_with=2)
    assert d == StopDecision(2, 0, False, MIN_NOT_REACHED)  # lost draws are made up to min while budget lasts
    d = more_draws(DEFAULT_RULE, [0.6], [0.5, 0.3, 0.4], lost_with=9)
    assert d == StopDecision(0, 0, False, BUDGET_SPENT)
    d = more_draws(DEFAULT_RULE, FRAGILE_W, FRAGILE_B, lost_with=7, lost_baseline=7)
    assert d == StopDecision(0, 0, False, AT_MAX)


def test_two_measured_draws_below_min_are_read_when_the_budget_is_spent() -> None:
    # with_skill: 2 measured + 8 lost = 10 made, no room; the case is read on its 2 measured draws
    d = more_draws(DEFAULT_RULE, [0.8, 0.82], [0.5, 0.52, 0.54], lost_with=8)
    assert d == StopDecision(0, 1, False, FRAGILE)


def test_zero_spread_in_both_arms_with_a_gap_is_settled() -> None:
    # the chi-square interval of a zero sd is zero: identical draws are taken at their word
    assert more_draws(DEFAULT_RULE, [0.6] * 3, [0.5] * 3) == StopDecision(0, 0, True, SEPARATION)
    assert verdict([0.6] * 3, [0.5] * 3) == CaseVerdict.IMPROVED


def test_unresolved_case_draws_towards_the_r4_count() -> None:
    # sds 0.015: r = 0.03 + 2·sqrt(0.00045/3) = 0.0545 ≥ F (underpowered); R-4 needs 5 draws per arm
    arm = [0.5, 0.515, 0.53]
    assert verdict(arm, arm) == CaseVerdict.UNDERPOWERED
    assert resolvable_at(DEFAULT_RULE, arm, arm) == 5
    d = more_draws(DEFAULT_RULE, arm, arm)
    assert (d.add_with, d.add_baseline, d.settled) == (1, 1, False) and d.reason.startswith(UNRESOLVED)
    assert more_draws(replace(DEFAULT_RULE, resolve=False), arm, arm) == StopDecision(0, 0, True, BELOW_FLOOR)
    assert resolvable_at(replace(DEFAULT_RULE, max_draws=4), arm, arm) is None


def test_unresolved_case_ends_resolved() -> None:
    cycle = [0.5, 0.515, 0.53]
    w, b = list(cycle), list(cycle)
    while not (d := more_draws(DEFAULT_RULE, w, b)).stop:
        w += [cycle[len(w) % 3]] * d.add_with
        b += [cycle[len(b) % 3]] * d.add_baseline
    # n = 4: sds 0.0144, r = 0.0287 + 2·sqrt(2 · 0.000206 / 4) = 0.049 < F
    assert d == StopDecision(0, 0, True, BELOW_FLOOR) and len(w) == len(b) == 4
    assert verdict(w, b) == CaseVerdict.NO_SEPARATION


# --- properties -----------------------------------------------------------------------------------------------

grid = st.integers(min_value=0, max_value=100).map(lambda k: k / 100)
arms = st.lists(grid, max_size=14)
lost = st.integers(min_value=0, max_value=4)


@st.composite
def rules(draw: st.DrawFn) -> StoppingRule:
    low = draw(st.integers(min_value=1, max_value=5))
    high = draw(st.integers(min_value=max(low, 2), max_value=12))
    return StoppingRule(
        min_draws=low,
        max_draws=high,
        step=draw(st.integers(min_value=1, max_value=3)),
        alpha_separate=draw(st.sampled_from([0.01, 0.05, 0.1, 0.3])),
        alpha_overlap=draw(st.sampled_from([0.01, 0.1, 0.3, 0.49])),
        resolve=draw(st.booleans()),
    )


@given(rules(), arms, arms, lost, lost)
def test_never_exceeds_max_and_always_tops_up_to_min(
    rule: StoppingRule, w: list[float], b: list[float], lw: int, lb: int
) -> None:
    d = more_draws(rule, w, b, lost_with=lw, lost_baseline=lb)
    need = max(rule.min_draws, 2)
    for n, lost_n, add in ((len(w), lw, d.add_with), (len(b), lb, d.add_baseline)):
        assert add >= 0
        assert add == 0 or n + lost_n + add <= rule.max_draws
        if n < need and n + lost_n < rule.max_draws:
            assert add > 0
    assert d.stop == (d.add_with == 0 and d.add_baseline == 0)
    assert not (d.settled and not d.stop)


@settings(max_examples=60)
@given(rules(), arms, arms, lost, lost, st.randoms(use_true_random=False))
def test_deterministic_order_free_and_symmetric(
    rule: StoppingRule, w: list[float], b: list[float], lw: int, lb: int, rnd: random.Random
) -> None:
    d = more_draws(rule, w, b, lost_with=lw, lost_baseline=lb)
    assert more_draws(rule, list(w), list(b), lost_with=lw, lost_baseline=lb) == d
    shuffled_w, shuffled_b = list(w), list(b)
    rnd.shuffle(shuffled_w)
    rnd.shuffle(shuffled_b)
    again = more_draws(rule, shuffled_w, shuffled_b, lost_with=lw, lost_baseline=lb)
    assert (again.add_with, again.add_baseline, again.settled) == (d.add_with, d.add_baseline, d.settled)
    swapped = more_draws(rule, b, w, lost_with=lb, lost_baseline=lw)
    assert (swapped.add_with, swapped.add_baseline, swapped.settled) == (d.add_baseline, d.add_with, d.settled)


@given(rules(), st.lists(grid, min_size=2, max_size=12), st.lists(grid, min_size=2, max_size=12))
def test_a_settled_stop_agrees_with_the_verdict(rule: StoppingRule, w: list[float], b: list[float]) -> None:
    reason = settled_reason(rule, w, b)
    if reason == SEPARATION:
        assert verdict(w, b) in CALLS
    elif reason in (OVERLAP, BELOW_FLOOR):
        assert verdict(w, b) not in CALLS


@settings(max_examples=60, deadline=None)
@given(rules(), st.lists(grid, min_size=40, max_size=40), st.lists(grid, min_size=40, max_size=40), lost, lost)
def test_a_run_ends_between_min_and_max(
    rule: StoppingRule, pool_w: list[float], pool_b: list[float], lw: int, lb: int
) -> None:
    w: list[float] = []
    b: list[float] = []
    for _ in range(2 * rule.max_draws + 2):
        d = more_draws(rule, w, b, lost_with=lw, lost_baseline=lb)
        if d.stop:
            break
        w += pool_w[len(w) : len(w) + d.add_with]
        b += pool_b[len(b) : len(b) + d.add_baseline]
    else:
        pytest.fail("the rule never stopped")
    for n, lost_n in ((len(w), lw), (len(b), lb)):
        assert n + lost_n <= max(rule.max_draws, lost_n)
        assert n >= min(max(rule.min_draws, 2), max(0, rule.max_draws - lost_n))


# --- a small statistical smoke test ---------------------------------------------------------------------------


def _draw(rng: random.Random, centre: float, noise: float) -> float:
    quality = rng.gauss(centre, noise)
    return sum(min(1.0, max(0.0, round(rng.gauss(quality, 0.03) / 0.05) * 0.05)) for _ in range(5)) / 5


def test_aa_false_calls_stay_rare_where_three_draws_make_many() -> None:
    """300 A/A pairs at generation noise 0.1 (fixed seed). Expected: ~0.1 % calls with the rule, ~8 % with 3 draws."""
    rng = random.Random(1234)
    rule_calls = naive_calls = 0
    for _ in range(300):
        centre = rng.uniform(0.3, 0.8)
        pool_w = [_draw(rng, centre, 0.1) for _ in range(DEFAULT_RULE.max_draws)]
        pool_b = [_draw(rng, centre, 0.1) for _ in range(DEFAULT_RULE.max_draws)]
        n_w = n_b = 0
        while not (d := more_draws(DEFAULT_RULE, pool_w[:n_w], pool_b[:n_b])).stop:
            n_w, n_b = n_w + d.add_with, n_b + d.add_baseline
        rule_calls += verdict(pool_w[:n_w], pool_b[:n_b]) in CALLS
        naive_calls += verdict(pool_w[:3], pool_b[:3]) in CALLS
    assert rule_calls <= 4  # generous: 4 of 300 is 1.3 %
    assert naive_calls >= 10  # the problem the rule solves is visible at this size


# --- issue 12: reading a recorded rule back, and its reference form (``driftproof stale``) ---------------------

RULES = st.builds(
    StoppingRule,
    min_draws=st.integers(1, 30),
    max_draws=st.integers(30, 60),
    step=st.integers(1, 3),
    alpha_separate=st.sampled_from([0.01, 0.05, 0.1, 0.2]),
    alpha_overlap=st.sampled_from([0.05, 0.1, 0.25]),
    floor=st.sampled_from([0.02, 0.05, 0.1]),
    resolve=st.booleans(),
    call_min=st.integers(2, 12),
)


@settings(max_examples=100, deadline=None)
@given(rule=RULES)
def test_property_parse_rule_reads_back_every_described_rule(rule: StoppingRule) -> None:
    assert parse_rule(rule.describe()) == rule


@pytest.mark.parametrize(
    "text",
    [
        "settle-v1(min=3,max=10,step=1,alpha_sep=0.05,alpha_ovl=0.1,floor=0.05,resolve=yes)",  # another id
        DEFAULT_RULE.describe().replace(",call_min=7", ""),  # a parameter missing
        DEFAULT_RULE.describe().replace(")", ",extra=1)"),  # one too many
        DEFAULT_RULE.describe().replace("min=3,max=10", "max=10,min=3"),  # out of order
        DEFAULT_RULE.describe().replace("min=3", "min=03"),  # reads as 3, which describes as min=3
        DEFAULT_RULE.describe().replace("floor=0.05", "floor=0.050"),
        DEFAULT_RULE.describe().replace("resolve=yes", "resolve=true"),
        DEFAULT_RULE.describe().replace("min=3", "min=three"),
        DEFAULT_RULE.describe().replace("max=10", "max=2"),  # below min: a rule StoppingRule refuses
        DEFAULT_RULE.describe().removesuffix(")"),
        "",
        "settle-v2",
    ],
)
def test_parse_rule_refuses_anything_but_a_described_rule(text: str) -> None:
    assert parse_rule(text) is None


@settings(max_examples=100, deadline=None)
@given(low=st.integers(1, 30), high=st.one_of(st.none(), st.integers(1, 40)))
def test_property_the_reference_form_of_the_cli_rule_is_the_reference_rule(low: int, high: int | None) -> None:
    """``--as-reference`` draws to ``reference_rule(draws, max_draws)``: exactly the reference form of the rule
    the same counts give without it."""
    if high is not None and high < low:
        high = low  # run refuses --max-draws below --draws before any rule is built
    assert reference_form(rule_for(low, high)) == reference_rule(low, high)


@settings(max_examples=100, deadline=None)
@given(rule=RULES)
def test_property_the_reference_form_is_deeper_and_otherwise_the_same(rule: StoppingRule) -> None:
    deep = reference_form(rule)
    assert deep.min_draws == max(rule.min_draws, REFERENCE_MIN_DRAWS)
    assert deep.max_draws == max(rule.max_draws, deep.min_draws)
    assert replace(deep, min_draws=rule.min_draws, max_draws=rule.max_draws) == rule
    assert reference_form(deep) == deep
