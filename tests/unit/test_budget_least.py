"""A budget refusal's "raise --budget-usd to at least $X" is a budget that starts a draw: the dollar figure is
rounded up, never to the nearest (it printed $0.0125 when a draw needed $0.012546, so following the advice was
refused again)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from driftproof.core.canary_plan import first_draw_refusal
from driftproof.core.models import Price
from driftproof.core.plan import Budget, CaseSizes, PlanSettings, Pricing
from driftproof.core.plan_sentences import usd_at_least

SETTINGS = PlanSettings(2, 2, 1, max_tokens=100, judge_max_tokens=100)
CASES = [CaseSizes("a", 50, 300), CaseSizes("b", 10, 200)]  # b's first draw is the cheapest: 510 tokens


def test_usd_at_least_rounds_up_at_the_shown_precision() -> None:
    # four decimals below $1: 0.012546 -> $0.0126 (the nearest, $0.0125, is less than needed); exact stays exact
    assert (usd_at_least(0.012546), usd_at_least(0.0125), usd_at_least(0.01250000001)) == (
        "$0.0126",
        "$0.0125",
        "$0.0125",
    )
    # cents from $1: 1.001 -> $1.01; 12.3 -> $12.30
    assert (usd_at_least(1.001), usd_at_least(12.3)) == ("$1.01", "$12.30")


@given(
    st.floats(min_value=0.01, max_value=80.0, allow_nan=False),
    st.floats(min_value=0.01, max_value=400.0, allow_nan=False),
)
def test_the_least_budget_a_dollar_refusal_names_starts_a_draw(input_price: float, output_price: float) -> None:
    price = Price(input_per_mtok=input_price, output_per_mtok=output_price, source="t: m")
    prices = Pricing(price, price)
    refusal = first_draw_refusal(Budget(usd=1e-9), prices, CASES, SETTINGS, None)
    assert refusal is not None and refusal.startswith("--budget-usd: the budget")
    found = re.search(r"raise --budget-usd to at least \$([0-9,.]+)$", refusal)
    assert found is not None, refusal
    least = float(found.group(1).replace(",", ""))
    assert first_draw_refusal(Budget(usd=least), prices, CASES, SETTINGS, None) is None
