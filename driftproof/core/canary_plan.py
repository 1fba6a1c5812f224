"""What the judge-anchor canaries weigh in a plan and under a budget. Pure.

Every run judges each canary ``judge_samples`` times before its first draw (docs/canaries.md). One canary judge
sample is priced as the plan prices a draw's judge sample (`driftproof.core.plan`): its prompt estimate (the
judge's template around the canary's task, rubric and answer, ceil(chars / 4)) plus the judge's output ceiling
``judge_max_tokens``; the fewest tokens are the prompts alone. Every canary is always judged, so the fewest and
the most calls are the same: canaries × judge samples. Their dollars are at the judge's list price, with
``--batch`` too: the canaries are judged one by one, never in a batch (`Pricing.unbatched_judge`).

A run with a budget reserves the canaries' worst case in its ledger before they are judged, so the draws that
follow can never take the run past it; when the canaries alone do not fit, the run is refused before any call
(`canaries_refusal`); so is a run whose budget, once the canaries are reserved, cannot start a single draw
(`first_draw_refusal`): it would make no call and write a receipt of no draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from driftproof.core.plan import (
    ARM_ORDER,
    Budget,
    CasePlan,
    CaseSizes,
    Plan,
    PlanSettings,
    Pricing,
    Range,
    Spend,
    draw_worst,
)
from driftproof.core.plan_sentences import canaries_over_budget, draw_over_budget, usd_at_least, usd_text

CANARIES_ID = "canaries"
"""The id of the canaries' line in a plan (``driftproof plan``'s ``canaries`` key)."""


@dataclass(frozen=True, slots=True)
class CanarySizes:
    """The canaries a run judges, as token estimates: each canary's whole judge prompt (template, task, rubric,
    answer), and the judge samples each gets and the judge's output ceiling."""

    prompts: tuple[int, ...]
    judge_samples: int
    judge_max_tokens: int

    @property
    def calls(self) -> int:
        """Logical judge calls: one per canary and judge sample.

        >>> CanarySizes((10, 20), 5, 1024).calls
        10
        """
        return len(self.prompts) * self.judge_samples


def canary_worst(sizes: CanarySizes) -> Spend:
    """The most the canaries can spend: each judge sample its prompt + ``judge_max_tokens``.

    >>> canary_worst(CanarySizes((100, 60), 5, 1024)).tokens  # 5 × (100 + 1024) + 5 × (60 + 1024) = 5620 + 5420
    11040
    """
    return Spend(
        unbatched_input=sizes.judge_samples * sum(sizes.prompts),
        unbatched_output=sizes.judge_samples * len(sizes.prompts) * sizes.judge_max_tokens,
    )


def canary_floor(sizes: CanarySizes) -> Spend:
    """The least the canaries can spend: their prompts alone, no output.

    >>> canary_floor(CanarySizes((100, 60), 5, 1024)).tokens  # 5 × (100 + 60)
    800
    """
    return Spend(unbatched_input=sizes.judge_samples * sum(sizes.prompts))


def canary_case(sizes: CanarySizes, prices: Pricing) -> CasePlan:
    """The canaries' line of a plan: calls, tokens and dollars (at the judge's list price: never batched), fewest
    to most."""
    low, high = canary_floor(sizes), canary_worst(sizes)
    return CasePlan(
        id=CANARIES_ID,
        draws={},
        calls=Range(sizes.calls, sizes.calls),
        tokens=Range(low.tokens, high.tokens),
        usd=Range(low.usd(prices), high.usd(prices)),
    )


def _add(a: int | float | None, b: int | float | None) -> int | float | None:
    """A total of two figures; ``None`` when either is unknown (a dollar figure without a price)."""
    return None if a is None or b is None else round(a + b, 8)


def with_canaries(plan: Plan, sizes: CanarySizes | None, prices: Pricing) -> Plan:
    """``plan`` with the canaries' line, and its total counting them; unchanged without canaries.

    >>> from driftproof.core.plan import CaseSizes, PlanSettings, plan_suite
    >>> p = plan_suite([CaseSizes("a", 10, 40)], PlanSettings(3, 10, 5, 2048, 1024), Pricing())
    >>> q = with_canaries(p, CanarySizes((100, 60), 5, 1024), Pricing())
    >>> q.total.calls, q.canaries.calls  # 36 to 120 draw calls + 2 canaries × 5 judge samples
    (Range(low=46, high=130), Range(low=10, high=10))
    """
    if sizes is None or not sizes.prompts:
        return plan
    line = canary_case(sizes, prices)
    total = plan.total
    total = replace(
        total,
        calls=Range(_add(total.calls.low, line.calls.low), _add(total.calls.high, line.calls.high)),
        tokens=Range(_add(total.tokens.low, line.tokens.low), _add(total.tokens.high, line.tokens.high)),
        usd=Range(_add(total.usd.low, line.usd.low), _add(total.usd.high, line.usd.high)),
    )
    return replace(plan, total=total, canaries=line, canary_count=len(sizes.prompts))


def canaries_refusal(budget: Budget, prices: Pricing, sizes: CanarySizes) -> str | None:
    """Why a run cannot start under ``budget``: its canaries' worst case alone does not fit (``--flag: reason``);
    ``None`` when it fits.

    >>> canaries_refusal(Budget(tokens=11_040), Pricing(), CanarySizes((100, 60), 5, 1024)) is None
    True
    >>> canaries_refusal(Budget(tokens=10_000), Pricing(), CanarySizes((100, 60), 5, 1024)).split(": ")[0]
    '--budget'
    """
    worst = canary_worst(sizes)
    if budget.fits(worst, prices):
        return None
    return canaries_over_budget(len(sizes.prompts), sizes.judge_samples, sizes.judge_max_tokens, budget, worst, prices)


def first_draw_refusal(
    budget: Budget, prices: Pricing, cases: Sequence[CaseSizes], settings: PlanSettings, sizes: CanarySizes | None
) -> str | None:
    """Why a run cannot start under ``budget``: beside the canaries' worst case, not even its cheapest first draw
    fits (each case's first round starts with a with-skill draw), so it would make no draw; ``None`` when one fits.

    >>> s = PlanSettings(2, 2, 1, max_tokens=100, judge_max_tokens=100)
    >>> cases = [CaseSizes("a", 50, 300), CaseSizes("b", 10, 200)]  # worst: 50 + 100 + 300 + 200 = 650, and 510
    >>> first_draw_refusal(Budget(tokens=510), Pricing(), cases, s, None) is None
    True
    >>> print(first_draw_refusal(Budget(tokens=509), Pricing(), cases, s, None))
    --budget: the budget (509 tokens) cannot start a single draw, so the run would make no call: the least a draw \
needs is 510 tokens at its worst case (case b's with-skill answer and its 1 judge sample); raise --budget to at \
least 510 tokens
    """
    first = [draw_worst(case, settings, ARM_ORDER[0]) for case in cases]
    reserved = canary_worst(sizes) if sizes is not None and sizes.prompts else Spend()
    if not first or any(budget.fits(reserved + worst, prices) for worst in first):
        return None
    tokens = budget.tokens is not None and all((reserved + w).tokens > budget.tokens for w in first)
    if tokens:
        pick = min(range(len(first)), key=lambda i: first[i].tokens)
        given, need = f"{budget.tokens:,} tokens", f"{first[pick].tokens:,} tokens"
        least, canaries = f"{(reserved + first[pick]).tokens:,} tokens", f"{reserved.tokens:,} tokens"
    else:
        pick = min(range(len(first)), key=lambda i: first[i].usd(prices) or 0.0)
        given, need = usd_text(budget.usd), usd_at_least(first[pick].usd(prices) or 0.0)
        least, canaries = usd_at_least((reserved + first[pick]).usd(prices) or 0.0), usd_text(reserved.usd(prices))
    return draw_over_budget(
        "--budget" if tokens else "--budget-usd",
        given,
        (cases[pick].id, settings.judge_samples),
        need,
        least,
        canaries if reserved.tokens else None,
    )
