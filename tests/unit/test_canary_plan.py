"""The judge-anchor canaries in a plan and under a budget (issue 14 × issue 15), hand-computed."""

from __future__ import annotations

from math import isclose

from hypothesis import given
from hypothesis import strategies as st

from driftproof.core.canary_plan import CanarySizes, canaries_refusal, canary_worst, with_canaries
from driftproof.core.models import Price
from driftproof.core.plan import Budget, CaseSizes, PlanSettings, Pricing, Range, Spend, plan_suite
from driftproof.core.plan_json import plan_json
from driftproof.core.plan_sentences import plan_lines

SETTINGS = PlanSettings(3, 5, judge_samples=2, max_tokens=200, judge_max_tokens=50, skill=100)
CASE = CaseSizes("c", prompt=10, judge_template=300)
PRICE = Price(input_per_mtok=1, output_per_mtok=5, source="t")
ANCHORS = CanarySizes(prompts=(120, 80), judge_samples=2, judge_max_tokens=50)


def test_canary_worst_is_each_judge_sample_its_prompt_plus_the_judge_ceiling() -> None:
    # 2 samples × (120 + 50) + 2 samples × (80 + 50) = 340 + 260 = 600; input 2 × 200 = 400, output 4 × 50 = 200
    assert canary_worst(ANCHORS) == Spend(unbatched_input=400, unbatched_output=200)  # never batched: list price


def test_the_plan_counts_the_canaries_in_a_line_and_in_the_total() -> None:
    plain = plan_suite([CASE], SETTINGS, Pricing(PRICE, PRICE))
    plan = with_canaries(plain, ANCHORS, Pricing(PRICE, PRICE))
    assert plan.canaries is not None and plan.canary_count == 2
    assert plan.canaries.calls == Range(4, 4)  # 2 canaries × 2 judge samples, always all judged
    assert plan.canaries.tokens == Range(400, 600)  # the prompts alone; + 4 × 50 output
    # dollars at the judge's price: low 400 in = $0.0004; high 400 in + 200 out × 5 = $0.0014
    assert isclose(plan.canaries.usd.low or 0, 0.0004, abs_tol=1e-12)
    assert isclose(plan.canaries.usd.high or 0, 0.0014, abs_tol=1e-12)
    assert plan.total.calls == Range(int(plain.total.calls.low or 0) + 4, int(plain.total.calls.high or 0) + 4)
    assert plan.total.tokens.high == int(plain.total.tokens.high or 0) + 600
    lines = plan_lines(plan, Pricing(PRICE, PRICE), ("m", "j"), None, by_case=True)
    # 1 case × 2 arms × 3 to 5 draws × (1 + 2) = 18 to 30, + 4
    assert lines[0] == (
        "plan: 1 case × 2 arms × 3 to 5 draws × (1 answer + 2 judge samples) + 2 canaries × 2 judge samples: "
        "at least 22, at most 34 calls"
    )
    assert lines[2] == (
        "  canaries: 4 calls · ~400 to 600 tokens · $0.0004 to $0.0014 (2 × 2 judge samples, before the first draw)"
    )
    assert lines[3].startswith("  total: 22 to 34 calls")
    assert lines[4].endswith("; a canary's judge sample: its judge prompt (task, rubric, answer) and 50")
    doc = plan_json(plan, Pricing(PRICE, PRICE), ("m", "j"), None)
    assert doc["canaries"] == {
        "count": 2,
        "judge_samples": 2,
        "calls": {"min": 4, "max": 4},
        "tokens": {"min": 400, "max": 600},
        "usd": {"min": 0.0004, "max": 0.0014},
    }
    assert doc["total"]["calls"] == {"min": 22, "max": 34}


def test_without_canaries_the_plan_is_unchanged() -> None:
    plain = plan_suite([CASE], SETTINGS, Pricing())
    assert with_canaries(plain, None, Pricing()) is plain
    assert plan_json(plain, Pricing(), (None, None), None)["canaries"] is None


def test_the_plan_lines_say_pairwise_calls_are_counted() -> None:
    settings = PlanSettings(3, 5, 2, 200, 50, pairwise=True)
    plan = plan_suite([CaseSizes("c", 10, 300, pairwise_template=320)], settings, Pricing())
    lines = plan_lines(plan, Pricing(), (None, None), None, by_case=False)
    # 2 arms × 3…5 draws × 3 = 18…30, + 2 × 3…5 pairs = 24…40
    assert lines[0] == (
        "plan: 1 case × 2 arms × 3 to 5 draws × (1 answer + 2 judge samples) + 2 pairwise calls per draw pair: "
        "at least 24, at most 40 calls"
    )
    assert "; a pairwise call: its template, both answers (each at most 200) and 50" in lines[2]


def test_canaries_that_alone_pass_the_token_budget_are_refused_in_one_line() -> None:
    assert canaries_refusal(Budget(tokens=600), Pricing(), ANCHORS) is None  # exactly the worst case fits
    assert canaries_refusal(Budget(tokens=599), Pricing(), ANCHORS) == (
        "--budget: the 2 judge-anchor canaries × 2 judge samples need up to 600 tokens at their worst case (each "
        "judge sample its prompt + 50 output tokens), judged before the first draw; the budget is 599 tokens: raise "
        "--budget, or skip the canaries with --no-canaries"
    )


def test_canaries_that_alone_pass_the_dollar_budget_name_budget_usd() -> None:
    # worst: 400 in × $1 + 200 out × $5 per million = $0.0014 > $0.001
    why = canaries_refusal(Budget(usd=0.001), Pricing(PRICE, PRICE), ANCHORS)
    assert why is not None
    assert why.startswith("--budget-usd: the 2 judge-anchor canaries × 2 judge samples need up to 600 tokens ($0.0014)")
    assert why.endswith("the budget is $0.0010: raise --budget-usd, or skip the canaries with --no-canaries")
    assert canaries_refusal(Budget(usd=0.0014), Pricing(PRICE, PRICE), ANCHORS) is None


@given(
    prompts=st.lists(st.integers(0, 5_000), min_size=1, max_size=50),
    samples=st.integers(1, 10),
    budget=st.integers(1, 2_000_000),
)
def test_property_a_refusal_exactly_when_the_worst_case_passes_the_budget(
    prompts: list[int], samples: int, budget: int
) -> None:
    sizes = CanarySizes(tuple(prompts), samples, 1024)
    worst = samples * sum(prompts) + samples * len(prompts) * 1024
    assert canary_worst(sizes).tokens == worst
    assert (canaries_refusal(Budget(tokens=budget), Pricing(), sizes) is None) == (worst <= budget)
