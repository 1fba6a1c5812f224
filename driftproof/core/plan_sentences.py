"""Every sentence of a plan and of the budget: ``driftproof plan``, the plan a run prints before its first call,
the reason a case stopped at the budget and what a stopped run says it would have needed.

Kept apart from ``core/sentences.py``, which is at its size cap. Pure.
"""

from __future__ import annotations

import math

from driftproof.core.models import Price, RunBudget
from driftproof.core.plan import Budget, CasePlan, Plan, Pricing, Range, Spend, carried_draws

#: ``cases[].stop_reason`` of a case the budget stopped (``--budget`` or ``--budget-usd``); it reads underpowered.
STOPPED_AT_BUDGET = "stopped at the token budget"

#: The title of the Action's warning that the budget stopped cases (outside the collapsed log group of the run).
TITLE_BUDGET = "Driftproof budget"

#: ``verification_reason`` of a run the budget stopped in every case before a draw of its own returned a judge
#: sample: nothing was measured to verify, and such a receipt reads ``underpowered``, not ``no_verdict``.
EVERY_CASE_AT_BUDGET = f"every case {STOPPED_AT_BUDGET} before a draw of this run returned a judge sample"


def usd_text(value: float | int | None) -> str:
    """A dollar figure: cents from $1, four decimals below.

    >>> usd_text(12.345), usd_text(0.01234), usd_text(0), usd_text(None)
    ('$12.35', '$0.0123', '$0', 'n/a')
    """
    if value is None:
        return "n/a"
    if value == 0:
        return "$0"
    return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"


def usd_at_least(value: float) -> str:
    """A least budget in dollars, as `usd_text` shows it but rounded up, so a budget of the figure shown is enough.

    >>> usd_at_least(0.012546), usd_at_least(0.0125), usd_at_least(1.001)
    ('$0.0126', '$0.0125', '$1.01')
    """
    if value >= 1:
        return f"${math.ceil(round(value * 100, 6)) / 100:,.2f}"
    return f"${math.ceil(round(value * 10_000, 6)) / 10_000:.4f}"


def _range(r: Range, unit: str, money: bool = False) -> str:
    """A range as the plan prints it; one figure when both ends are the same (the canaries' calls, fixed draws),
    the unit singular for one.

    >>> _range(Range(20, 20), "calls"), _range(Range(36, 120), "calls"), _range(Range(1, 1), "draws")
    ('20 calls', '36 to 120 calls', '1 draw')
    """
    if money:
        return f"{usd_text(r.low)} to {usd_text(r.high)}" if r.high is not None else "no dollar figure"
    if r.low == r.high:
        return f"{r.low:,} {unit[:-1] if r.low == 1 and unit.endswith('s') else unit}"
    return f"{r.low:,} to {r.high:,} {unit}"


def _counted(n: int, noun: str) -> str:
    """``n`` of ``noun``, singular for one.

    >>> _counted(1, "judge sample"), _counted(5, "judge sample")
    ('1 judge sample', '5 judge samples')
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def carried_text(plan: Plan) -> str:
    """What the plan's cases carry rather than draw, per arm: the same number in every case, or the numbers and
    how many cases carry them (a run whose reference's baseline stands in some cases only).

    >>> from driftproof.core.plan import CaseSizes, PlanSettings, plan_suite
    >>> s = PlanSettings(2, 4, 3, 100, 1024, carried_cases={"a": {"baseline": 4}})
    >>> carried_text(plan_suite([CaseSizes("a", 10, 40), CaseSizes("b", 10, 40)], s, Pricing()))
    ' (carried per case, not drawn: baseline 4 in 1 of 2 cases)'
    """
    s = plan.settings
    ids = [c.id for c in plan.cases]
    parts = []
    for arm in s.arms:
        counts = [carried_draws(s, arm, i) for i in ids]
        held = [n for n in counts if n]
        if not held:
            continue
        if len(held) == len(counts) and min(held) == max(held):
            parts.append(f"{arm} {held[0]}")
        else:
            amount = f"{min(held)}" if min(held) == max(held) else f"{min(held)} to {max(held)}"
            parts.append(f"{arm} {amount} in {len(held)} of {len(counts)} cases")
    return f" (carried per case, not drawn: {', '.join(parts)})" if parts else ""


def plan_head(plan: Plan, cases: int) -> str:
    """The plan's first line, the one every run prints before its first call.

    >>> from driftproof.core.plan import PlanSettings, Pricing, plan_suite, CaseSizes
    >>> p = plan_suite([CaseSizes("a", 10, 40)], PlanSettings(3, 10, 5, 2048, 1024), Pricing())
    >>> plan_head(p, 1)
    'plan: 1 case × 2 arms × 3 to 10 draws × (1 answer + 5 judge samples): at least 36, at most 120 calls'
    >>> plan_head(plan_suite([CaseSizes("a", 10, 40)], PlanSettings(1, 1, 1000, 2048, 1024), Pricing()), 1)
    'plan: 1 case × 2 arms × 1 draw × (1 answer + 1,000 judge samples): at least 2,002, at most 2,002 calls'
    """
    s = plan.settings
    also = carried_text(plan)
    also += " + 2 pairwise calls per draw pair" if s.pairwise else ""
    if plan.canaries is not None:
        also += f" + {plan.canary_count} canaries × {_counted(s.judge_samples, 'judge sample')}"
    draws = _range(Range(s.min_draws, s.max_draws), "draws")
    return (
        f"plan: {cases} case{'' if cases == 1 else 's'} × {len(s.arms)} arms × {draws} × (1 answer + "
        f"{_counted(s.judge_samples, 'judge sample')}){also}: at least {plan.total.calls.low:,}, at most "
        f"{plan.total.calls.high:,} calls"
    )


def case_line(case: CasePlan) -> str:
    """One case of the plan (and the total): calls, tokens, dollars."""
    return (
        f"  {case.id}: {_range(case.calls, 'calls')} · ~{_range(case.tokens, 'tokens')} · "
        f"{_range(case.usd, '', money=True)}"
    )


def sizes_line(plan: Plan) -> str:
    """How the token figures are made."""
    s = plan.settings
    extra = ""
    if s.pairwise:
        extra += f"; a pairwise call: its template, both answers (each at most {s.max_tokens}) and {s.judge_max_tokens}"
    if plan.canaries is not None:
        extra += f"; a canary's judge sample: its judge prompt (task, rubric, answer) and {s.judge_max_tokens}"
    return (
        "tokens: ceil(chars / 4) of each prompt, the skill and the judge's template; at least the prompts alone, "
        f"at most + --max-tokens {s.max_tokens} per answer (graded in each judge prompt too) and {s.judge_max_tokens} "
        f"per judge sample{extra}"
    )


def canaries_line(plan: Plan) -> str | None:
    """The canaries' line of the plan: judged once per run, before the first draw; ``None`` without canaries."""
    if plan.canaries is None:
        return None
    line = case_line(plan.canaries)
    samples = _counted(plan.settings.judge_samples, "judge sample")
    return f"{line} ({plan.canary_count} × {samples}, before the first draw)"


def no_price_line(model: str | None, role: str) -> str:
    """Why a plan has no dollar figure."""
    return (
        f"no dollar figure: no price for the {role} {model or '(default)'} in the price table "
        "(add it with --price-table)"
    )


def budget_line(plan: Plan, budget: Budget) -> str:
    """Whether the worst case of the run fits the budget, said before the first call."""
    worst = plan.total
    parts = []
    if budget.tokens is not None:
        parts.append(f"{budget.tokens:,} tokens")
    if budget.usd is not None:
        parts.append(usd_text(budget.usd))
    within = (budget.tokens is None or int(worst.tokens.high or 0) <= budget.tokens) and (
        budget.usd is None or (worst.usd.high is not None and worst.usd.high <= budget.usd)
    )
    if within:
        return f"budget: {' and '.join(parts)}: the worst case of the run fits"
    usd = f", {usd_text(worst.usd.high)}" if worst.usd.high is not None else ""  # no dollar figure without prices
    return (
        f"budget: {' and '.join(parts)}: the worst case of the run ({worst.tokens.high:,} tokens{usd}) does not fit; "
        f"no call that could pass the budget is started, and a case it stops reads underpowered ({STOPPED_AT_BUDGET})"
    )


def _given(tokens: int | None, usd: float | None) -> str:
    """The budget as given: ``1,000 tokens``, ``$2.00`` or both.

    >>> _given(1000, None), _given(None, 2.0), _given(1000, 2.0)
    ('1,000 tokens', '$2.00', '1,000 tokens and $2.00')
    """
    parts = (f"{tokens:,} tokens" if tokens is not None else "", usd_text(usd) if usd is not None else "")
    return " and ".join(p for p in parts if p)


def budget_status_reason(cases: int, budget: RunBudget) -> str:
    """The status reason of a receipt whose every underpowered case the budget stopped: how many of its
    ``cases``, the budget, and the least budget the refused draws needed (``run.settings.budget``).

    >>> record = RunBudget(tokens=10, max_tokens=2048, committed_tokens=0, stopped_cases=2, needed_tokens=103410)
    >>> budget_status_reason(2, record)
    'stopped at the token budget: 2 of 2 cases (10 tokens); the draws they asked for needed at least 103,410 tokens'
    """
    stopped = budget.stopped_cases
    needed = ""
    if budget.needed_tokens is not None:
        usd = f" ({usd_text(budget.needed_usd)})" if budget.needed_usd is not None else ""
        they = "it" if stopped == 1 else "they"
        needed = f"; the draws {they} asked for needed at least {budget.needed_tokens:,} tokens{usd}"
    given = _given(budget.tokens, budget.usd)
    return f"{STOPPED_AT_BUDGET}: {stopped} of {cases} case{'' if cases == 1 else 's'} ({given}){needed}"


def budget_needed_line(stopped: int, budget: Budget, needed_tokens: int, needed_usd: float | None) -> str:
    """What a run the budget stopped would have needed, printed after it.

    >>> budget_needed_line(2, Budget(tokens=1000), 1500, None)
    'budget: 2 cases stopped at the token budget (1,000 tokens); the draws they asked for needed at least 1,500 tokens'
    """
    given = _given(budget.tokens, budget.usd)
    usd = f" ({usd_text(needed_usd)})" if needed_usd is not None else ""
    return (
        f"budget: {stopped} case{'' if stopped == 1 else 's'} {STOPPED_AT_BUDGET} ({given}); the draws "
        f"{'it' if stopped == 1 else 'they'} asked for needed at least {needed_tokens:,} tokens{usd}"
    )


def budget_passed_line(budget: Budget, spent_tokens: int, spent_usd: float | None, estimated: int) -> str:
    """What a run says when the usage the provider reported took it past its budget: the estimate of a prompt,
    ceil(chars / 4), is not an upper bound on what a tokenizer counts, and the calls under way when it showed had
    started on the estimate.

    >>> print(budget_passed_line(Budget(tokens=20_000), 21_536, None, 16_388))
    budget: past the budget (20,000 tokens): the provider reported 21,536 tokens for the calls made (their worst \
case by the estimates: 16,388); a prompt's estimate, ceil(chars / 4), is not an upper bound on the tokens a \
provider counts, and the calls under way had started on it
    """
    usd = f", {usd_text(spent_usd)}" if spent_usd is not None and budget.usd is not None else ""
    given = _given(budget.tokens, budget.usd)
    return (
        f"budget: past the budget ({given}): the provider reported {spent_tokens:,} tokens{usd} for the "
        f"calls made (their worst case by the estimates: {estimated:,}); a prompt's estimate, ceil(chars / 4), is "
        "not an upper bound on the tokens a provider counts, and the calls under way had started on it"
    )


def receipt_past_budget(budget: RunBudget | None) -> str | None:
    """What a receipt's reader is told when its run went past its budget by the provider's count (`view`; the run
    said it as `budget_passed_line`): ``committed_tokens`` above ``tokens``, or ``committed_usd`` above ``usd``;
    ``None`` within it. A merged receipt's figures are its shards' sums: ask of its shards.

    >>> print(receipt_past_budget(RunBudget(tokens=20_000, max_tokens=100, committed_tokens=21_536)))
    budget: past the budget (20,000 tokens): the provider reported 21,536 tokens for the calls made; a prompt's \
estimate, ceil(chars / 4), is not an upper bound on the tokens a provider counts
    """
    if budget is None:
        return None
    over_tokens = budget.tokens is not None and budget.committed_tokens > budget.tokens
    over_usd = budget.usd is not None and budget.committed_usd is not None and budget.committed_usd > budget.usd
    if not (over_tokens or over_usd):
        return None
    usd = f", {usd_text(budget.committed_usd)}" if budget.usd is not None and budget.committed_usd is not None else ""
    return (
        f"budget: past the budget ({_given(budget.tokens, budget.usd)}): the provider reported "
        f"{budget.committed_tokens:,} tokens{usd} for the calls made; a prompt's estimate, ceil(chars / 4), is not "
        "an upper bound on the tokens a provider counts"
    )


def canaries_over_budget(
    count: int, samples: int, judge_max_tokens: int, budget: Budget, worst: Spend, prices: Pricing
) -> str:
    """Why a run is refused before any call: its canaries' worst case alone passes the budget.

    >>> canaries_over_budget(2, 5, 1024, Budget(tokens=10_000), Spend(judge_input=800, judge_output=10_240), Pricing())
    '--budget: the 2 judge-anchor canaries × 5 judge samples need up to 11,040 tokens at their worst case \
(each judge sample its prompt + 1024 output tokens), judged before the first draw; the budget is 10,000 tokens: \
raise --budget, or skip the canaries with --no-canaries'
    """
    over_tokens = budget.tokens is not None and worst.tokens > budget.tokens
    flag = "--budget" if over_tokens else "--budget-usd"
    given = f"{budget.tokens:,} tokens" if over_tokens else usd_text(budget.usd)
    usd = worst.usd(prices)
    need = f"{worst.tokens:,} tokens" + ("" if over_tokens or usd is None else f" ({usd_text(usd)})")
    return (
        f"{flag}: the {count} judge-anchor canaries × {samples} judge samples need up to {need} at their worst "
        f"case (each judge sample its prompt + {judge_max_tokens} output tokens), judged before the first draw; "
        f"the budget is {given}: raise {flag}, or skip the canaries with --no-canaries"
    )


def draw_over_budget(
    flag: str, given: str, draw: tuple[str, int], need: str, least: str, canaries: str | None = None
) -> str:
    """Why a run is refused before any call: the budget cannot start even its cheapest first draw (``draw``: its
    case id and judge samples), beside the judge-anchor canaries' worst case (``canaries``) when it judges some.

    >>> draw_over_budget("--budget", "5,000 tokens", ("a", 2), "4,129 tokens", "9,045 tokens", "4,916 tokens")
    "--budget: the budget (5,000 tokens) cannot start a single draw, so the run would make no call: the least a draw \
needs is 4,129 tokens at its worst case (case a's with-skill answer and its 2 judge samples), beside the 4,916 tokens \
the judge-anchor canaries are reserved; raise --budget to at least 9,045 tokens"
    """
    case, samples = draw
    beside = f", beside the {canaries} the judge-anchor canaries are reserved" if canaries is not None else ""
    return (
        f"{flag}: the budget ({given}) cannot start a single draw, so the run would make no call: the least a draw "
        f"needs is {need} at its worst case (case {case}'s with-skill answer and its "
        f"{_counted(samples, 'judge sample')}){beside}; raise {flag} to at least {least}"
    )


def price_line(role: str, model: str | None, price: Price | None, calls: str = "") -> str:
    """Which price a plan's dollar figures read for one role (``calls``: which of its calls, when not all), or why
    it has none."""
    if price is None:
        return no_price_line(model, role)
    return (
        f"price of the {role} {model}{calls}: ${price.input_per_mtok:g} in, ${price.output_per_mtok:g} out per "
        f"million tokens ({price.source})"
    )


UNBATCHED_CALLS = " for the canary and pairwise calls, which are not batched"
"""Which calls of a ``--batch`` run the judge's list price is for."""


def unbatched_price_line(plan: Plan, prices: Pricing, model: str | None) -> str | None:
    """With ``--batch``, the price the plan's canary and pairwise calls read: the judge's list price, since they
    are never sent in a batch; ``None`` without ``--batch``, without such calls, or without a price (the judge's
    line says it all).

    >>> from driftproof.core.plan import CaseSizes, PlanSettings, plan_suite
    >>> p = Price(input_per_mtok=1, output_per_mtok=5, source="t: j")
    >>> plan = plan_suite([CaseSizes("a", 10, 40, 50)], PlanSettings(3, 10, 5, 2048, 1024, pairwise=True), Pricing())
    >>> unbatched_price_line(plan, Pricing(p, p, batch=True), "j")
    'price of the judge j for the canary and pairwise calls, which are not batched: $1 in, $5 out per million \
tokens (t: j)'
    >>> unbatched_price_line(plan, Pricing(p, p), "j") is None
    True
    """
    if not prices.batch or prices.unbatched_judge is None or (plan.canaries is None and not plan.settings.pairwise):
        return None
    return price_line("judge", model, prices.unbatched_judge, UNBATCHED_CALLS)


def plan_lines(
    plan: Plan, prices: Pricing, models: tuple[str | None, str | None], budget: Budget | None, *, by_case: bool
) -> list[str]:
    """The plan as printed: its head line, each case (``by_case``), the total, how tokens and prices are read,
    and the budget; ``models`` are the answering model's and the judge's."""
    lines = [plan_head(plan, len(plan.cases))]
    if by_case:
        lines += [case_line(c) for c in plan.cases]
    if (canaries := canaries_line(plan)) is not None:
        lines.append(canaries)
    lines.append(case_line(plan.total))
    lines.append(sizes_line(plan))
    lines.append(price_line("answering model", models[0], prices.answer))
    lines.append(price_line("judge", models[1], prices.judge))
    if (unbatched := unbatched_price_line(plan, prices, models[1])) is not None:
        lines.append(unbatched)
    if budget is not None:
        lines.append(budget_line(plan, budget))
    return lines
