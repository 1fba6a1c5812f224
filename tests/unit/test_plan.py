"""The plan's arithmetic and the budget rule (issue 14), hand-computed."""

from __future__ import annotations

from dataclasses import replace
from math import isclose

from hypothesis import given
from hypothesis import strategies as st

from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.models import Price
from driftproof.core.plan import (
    Budget,
    CaseSizes,
    PlanSettings,
    Pricing,
    Range,
    Spend,
    afford,
    draw_worst,
    plan_suite,
)
from driftproof.core.plan_sentences import STOPPED_AT_BUDGET, plan_head
from driftproof.core.reading import at_budget
from driftproof.core.words import CaseVerdict

SETTINGS = PlanSettings(3, 5, judge_samples=2, max_tokens=200, judge_max_tokens=50, skill=100)
CASE = CaseSizes("c", prompt=10, judge_template=300)
PRICE = Price(input_per_mtok=1, output_per_mtok=5, source="t")


def test_draw_worst_is_prompt_plus_ceiling_for_every_call() -> None:
    # with: answer 10 + 100 (skill) + 200 = 310; each judge sample 300 + 200 (the answer) + 50 = 550, × 2 = 1100
    assert draw_worst(CASE, SETTINGS, "with_skill").tokens == 1410
    # baseline: 10 + 200 = 210, + 1100
    assert draw_worst(CASE, SETTINGS, "baseline").tokens == 1310


def test_plan_case_and_total_hand_computed() -> None:
    plan = plan_suite([CASE, CaseSizes("d", prompt=20, judge_template=310)], SETTINGS, Pricing(PRICE, PRICE))
    c = plan.cases[0]
    assert c.calls == Range(18, 30)  # 2 arms × 3 draws × (1 + 2) = 18; × 5 draws = 30
    # floor: with 110 + 2 × 300 = 710, baseline 10 + 600 = 610; × 3 draws = 3960
    # worst: 5 × 1410 + 5 × 1310 = 13600
    assert c.tokens == Range(3960, 13600)
    # worst USD: answer in 5 × 110 + 5 × 10 = 600 at $1, out 10 × 200 = 2000 at $5 -> 0.0106;
    # judge in 10 × 2 × 500 = 10000 at $1, out 10 × 2 × 50 = 1000 at $5 -> 0.015; 0.0256
    assert c.usd.high is not None and isclose(c.usd.high, 0.0256, abs_tol=1e-12)
    # floor USD: inputs only, 3 × (110 + 10) = 360 answer + 3 × 2 × 2 × 300 = 3600 judge -> 0.00396
    assert c.usd.low is not None and isclose(c.usd.low, 0.00396, abs_tol=1e-12)
    # case d: floor 3 × ((120 + 620) + (20 + 620)) = 4140; worst with 120 + 200 + 2 × 560 = 1440, base 1340
    assert plan.cases[1].tokens == Range(4140, 5 * 1440 + 5 * 1340)
    assert plan.total.calls == Range(36, 60)
    assert plan.total.tokens == Range(3960 + 4140, 13600 + 13900)


def test_a_grouped_request_counts_its_input_once_in_the_floor_and_the_worst_case_stays() -> None:
    grouped = replace(SETTINGS, draws_per_request=128, samples_per_request=128)
    c = plan_suite([CASE], grouped, Pricing(PRICE, PRICE)).cases[0]
    assert c.calls == Range(18, 30)  # logical calls as before: each draw and each sample is still one
    # floor: each arm's 3 first-round answers in one request, each draw's 2 judge samples in one:
    # with 110 + 3 × 300 = 1010, baseline 10 + 3 × 300 = 910 -> 1920 (one call per request: 3960)
    # worst: as before, 13600: a server that ignores n is asked again, one call per request
    assert c.tokens == Range(1920, 13600)
    assert c.usd.low is not None and isclose(c.usd.low, 0.00192, abs_tol=1e-12)  # inputs only, at $1
    # two answers per request: the 3 take 2 requests (2 × 110, 2 × 10), the samples one each (12 × 300)
    assert plan_suite([CASE], replace(SETTINGS, draws_per_request=2), Pricing()).cases[0].tokens.low == 3840
    # a carried baseline arm draws none: nothing of it in the floor (with: 110 + 3 × 300)
    carried = replace(grouped, carried={"baseline": 4})
    assert plan_suite([CASE], carried, Pricing()).cases[0].tokens.low == 1010


def test_a_plan_without_a_price_has_no_dollar_figure() -> None:
    plan = plan_suite([CASE], SETTINGS, Pricing(None, PRICE))
    assert plan.total.usd == Range(None, None)


def test_carried_draws_are_not_called_for() -> None:
    carried = PlanSettings(3, 5, 2, 200, 50, skill=100, carried={"baseline": 4})
    plan = plan_suite([CASE], carried, Pricing())
    # with 3..5 draws, baseline max(0, 3 - 4) = 0 .. 5 - 4 = 1; calls × 3
    assert plan.cases[0].draws["baseline"] == Range(0, 1)
    assert plan.cases[0].calls == Range(9, 18)
    assert plan.cases[0].tokens.high == 5 * 1410 + 1 * 1310
    assert "(carried per case, not drawn: baseline 4)" in plan_head(plan, 1)


def test_cases_carrying_different_numbers_are_each_counted() -> None:
    """Issue 14 (probe #10): a run carrying the baseline of some cases only planned none carried."""
    settings = PlanSettings(3, 5, 2, 200, 50, skill=100, carried_cases={"a": {"baseline": 4}, "b": {"baseline": 2}})
    plan = plan_suite([replace(CASE, id=i) for i in "abc"], settings, Pricing())
    # a: with 3..5, baseline max(0, 3 - 4) = 0 .. 5 - 4 = 1; b: with 3..5, baseline 1..3; c: 3..5 each
    assert [c.draws["baseline"] for c in plan.cases] == [Range(0, 1), Range(1, 3), Range(3, 5)]
    # draws × (1 answer + 2 judge samples): a (3 + 0) × 3 = 9 .. (5 + 1) × 3 = 18; b 12 .. 24; c 18 .. 30
    assert [c.calls for c in plan.cases] == [Range(9, 18), Range(12, 24), Range(18, 30)]
    assert plan.total.calls == Range(39, 72)
    # the worst case: with 5 × 1,410 in each case, baseline 1, 3 and 5 × 1,310
    assert plan.total.tokens.high == 3 * 5 * 1410 + (1 + 3 + 5) * 1310
    assert plan_head(plan, 3) == (
        "plan: 3 cases × 2 arms × 3 to 5 draws × (1 answer + 2 judge samples) (carried per case, not drawn: "
        "baseline 2 to 4 in 2 of 3 cases): at least 39, at most 72 calls"
    )


def test_plan_head_says_one_draw_and_one_sample_and_separates_thousands() -> None:
    """Issue 14 (probe #14): "× 1 draws ×", and "at least 12012" where the case lines print "6,006"."""
    plan = plan_suite([CASE] * 6, PlanSettings(1, 1, 1000, 200, 50), Pricing())
    # 6 cases × 2 arms × 1 draw × (1 + 1,000) = 12,012
    assert plan_head(plan, 6) == (
        "plan: 6 cases × 2 arms × 1 draw × (1 answer + 1,000 judge samples): at least 12,012, at most 12,012 calls"
    )
    one = plan_suite([CASE], PlanSettings(2, 2, 1, 200, 50), Pricing())
    assert "× (1 answer + 1 judge sample):" in plan_head(one, 1)


def test_plan_head_is_the_run_plan_line() -> None:
    plan = plan_suite([CASE] * 3, PlanSettings(3, 10, 5, 2048, 1024), Pricing())
    assert plan_head(plan, 3) == (
        "plan: 3 cases × 2 arms × 3 to 10 draws × (1 answer + 5 judge samples): at least 108, at most 360 calls"
    )


def test_afford_starts_draws_in_turn_until_one_does_not_fit() -> None:
    worst = {"with_skill": Spend(answer_input=1410), "baseline": Spend(answer_input=1310)}
    # 1410 + 1310 + 1410 = 4130 ≤ 4200; + 1310 = 5440 > 4200: the second baseline and the third pair are refused
    got = afford(Budget(tokens=4200), Pricing(), Spend(), {"with_skill": 3, "baseline": 3}, worst)
    assert dict(got.take) == {"with_skill": 2, "baseline": 1}
    assert got.committed.tokens == 4130
    assert got.refused.tokens == 1310 + 1410 + 1310  # the refused second baseline, third with, third baseline


def test_a_dollar_budget_reads_both_prices() -> None:
    # 1M answer input at $1 = $1.00; 200k judge output at $5 = $1.00; $2.00 fits a $2 budget, not a $1.99 one
    spend = Spend(answer_input=1_000_000, judge_output=200_000)
    assert Budget(usd=2.0).fits(spend, Pricing(PRICE, PRICE))
    assert not Budget(usd=1.99).fits(spend, Pricing(PRICE, PRICE))
    assert not Budget(usd=1000).fits(spend, Pricing(None, PRICE))  # no price: never within a dollar budget


@given(
    budget=st.integers(min_value=0, max_value=50_000),
    rounds=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=12),
    sizes=st.tuples(st.integers(1, 3000), st.integers(1, 3000)),
)
def test_property_committed_never_passes_the_budget(
    budget: int, rounds: list[tuple[int, int]], sizes: tuple[int, int]
) -> None:
    """Over any sequence of rounds, the worst cases started never add up past the budget, and a draw is refused
    only when it would not have fitted."""
    worst = {"with_skill": Spend(answer_input=sizes[0]), "baseline": Spend(answer_input=sizes[1])}
    committed = Spend()
    for add_w, add_b in rounds:
        got = afford(Budget(tokens=budget), Pricing(), committed, {"with_skill": add_w, "baseline": add_b}, worst)
        started = got.take["with_skill"] * sizes[0] + got.take["baseline"] * sizes[1]
        assert got.committed.tokens == committed.tokens + started
        assert got.committed.tokens <= budget
        if got.refused.tokens:
            assert got.committed.tokens + min(sizes) > budget or got.take != {"with_skill": add_w, "baseline": add_b}
        committed = got.committed


def test_a_case_stopped_at_the_budget_reads_underpowered() -> None:
    # bands [0.8, 0.9] and [0.1, 0.2] separate by 0.7: improved, unless the budget stopped the case
    moved = compare(ArmEvidence((0.8, 0.85, 0.9)), ArmEvidence((0.1, 0.15, 0.2)))
    assert moved.verdict == CaseVerdict.IMPROVED
    stopped = at_budget(moved, STOPPED_AT_BUDGET)
    assert (stopped.verdict, stopped.reason) == (CaseVerdict.UNDERPOWERED, "stopped at the token budget")
