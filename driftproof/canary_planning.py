"""The judge-anchor canaries in a plan and a budget: their texts measured, the run refused when they alone pass
the budget, their worst case reserved in the run's ledger before they are judged.

The arithmetic is the core's (`driftproof.core.canary_plan`); this module measures each canary's judge prompt
(`driftproof.judge.judge_prompt` around its task, rubric and answer: the text the judge is sent) as a token
estimate, ceil(chars / 4).
"""

from __future__ import annotations

from collections.abc import Sequence

from driftproof.core.canary_plan import CanarySizes, canaries_refusal, canary_worst, first_draw_refusal, with_canaries
from driftproof.core.economics import estimate_tokens
from driftproof.core.plan import Budget, Plan, Pricing
from driftproof.errors import InputError
from driftproof.judge import judge_prompt
from driftproof.planning import Ledger, case_sizes
from driftproof.suite import Canary, SuiteCase


def canary_sizes(canaries: Sequence[Canary] | None, judge_samples: int, judge_max_tokens: int) -> CanarySizes | None:
    """The canaries a run judges as token estimates; ``None`` when it judges none."""
    if not canaries:
        return None
    prompts = tuple(estimate_tokens(judge_prompt(c.grading, c.answer)) for c in canaries)
    return CanarySizes(prompts, judge_samples, judge_max_tokens)


def plan_with_canaries(
    plan: Plan, sizes: CanarySizes | None, pricing: Pricing, budget: Budget | None, cases: Sequence[SuiteCase] = ()
) -> Plan:
    """``plan`` counting the canaries' calls; refused (before any call) when the canaries alone pass ``budget``, or
    when beside them not one draw of ``cases`` (the suite's) could start."""
    if budget is not None and sizes is not None and (why := canaries_refusal(budget, pricing, sizes)) is not None:
        raise InputError(why)
    if budget is not None and (why := first_draw_refusal(budget, pricing, case_sizes(cases), plan.settings, sizes)):
        raise InputError(why)
    return plan if sizes is None else with_canaries(plan, sizes, pricing)


def reserve_canaries(ledger: Ledger | None, sizes: CanarySizes | None) -> None:
    """Commit the canaries' worst case in a budgeted run's ledger, before the first canary call starts."""
    if ledger is not None and sizes is not None:
        ledger.reserve_canaries(canary_worst(sizes))
