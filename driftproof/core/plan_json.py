"""``driftproof plan --format json``: the plan's document (its settings, each case, the total, the prices and the
budget). Pure; the text form is `driftproof.core.plan_sentences`.
"""

from __future__ import annotations

from typing import Any

from driftproof.core.models import Price
from driftproof.core.plan import Budget, CasePlan, Plan, PlanSettings, Pricing, Range, carried_draws
from driftproof.core.plan_sentences import budget_line

__all__ = ["plan_json"]


def _range_json(r: Range) -> dict[str, int | float | None]:
    return {"min": r.low, "max": r.high}


def _uniform(plan: Plan, arm: str) -> int | None:
    """The draws every case of the plan carries in ``arm``; ``None`` when cases carry different numbers (each case's
    ``carried`` says)."""
    counts = {carried_draws(plan.settings, arm, c.id) for c in plan.cases} or {carried_draws(plan.settings, arm)}
    return counts.pop() if len(counts) == 1 else None


def _case_json(c: CasePlan, settings: PlanSettings | None = None) -> dict[str, Any]:
    carried = {} if settings is None else {"carried": {arm: carried_draws(settings, arm, c.id) for arm in c.draws}}
    return {
        "id": c.id,
        **carried,
        "draws": {arm: _range_json(c.draws[arm]) for arm in c.draws},
        "calls": _range_json(c.calls),
        "tokens": _range_json(c.tokens),
        "usd": _range_json(c.usd),
    }


def plan_json(
    plan: Plan, prices: Pricing, models: tuple[str | None, str | None], budget: Budget | None
) -> dict[str, Any]:
    """``driftproof plan --format json``: the settings read, each case, the total, the prices and the budget. Of
    the prices, ``judge`` is a draw's judge sample's (with ``--batch`` the batch price) and ``judge_unbatched`` the
    canary and pairwise calls' (never batched: the list price)."""
    s = plan.settings

    def price(p: Price | None) -> dict[str, Any] | None:
        return None if p is None else p.model_dump(mode="json", exclude_none=True)

    fits = None
    if budget is not None:
        fits = budget_line(plan, budget).endswith("fits")
    return {
        "settings": {
            "draws": {"min": s.min_draws, "max": s.max_draws},
            "judge_samples": s.judge_samples,
            "max_tokens": s.max_tokens,
            "judge_max_tokens": s.judge_max_tokens,
            "skill_tokens": s.skill,
            "carried": {arm: _uniform(plan, arm) for arm in s.arms},
            "arms": list(s.arms),
            "pairwise": s.pairwise,
        },
        "cases": [_case_json(c, s) for c in plan.cases],
        "canaries": None
        if plan.canaries is None
        else {
            "count": plan.canary_count,
            "judge_samples": s.judge_samples,
            **{k: v for k, v in _case_json(plan.canaries).items() if k not in ("id", "draws")},
        },
        "total": {k: v for k, v in _case_json(plan.total).items() if k != "id"},
        "prices": {
            "answering_model": {"model": models[0], "price": price(prices.answer)},
            "judge": {"model": models[1], "price": price(prices.judge)},
            "judge_unbatched": {"model": models[1], "price": price(prices.unbatched_judge)},
        },
        "budget": None if budget is None else {"tokens": budget.tokens, "usd": budget.usd, "worst_case_fits": fits},
    }
