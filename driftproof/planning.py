"""The plan of a run and its budget ledger: what each case's calls weigh, and what the run has committed to.

``driftproof plan`` and every run read `plan_of` (no call is made); the runner keeps a `Ledger` when it has a
budget (``--budget``, ``--budget-usd``) and asks it before starting each draw. The arithmetic is the core's
(`driftproof.core.plan`); this module only measures the texts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from driftproof.core.defaults import DEFAULTS, LIMITS
from driftproof.core.economics import estimate_tokens
from driftproof.core.models import RunBudget, Usage
from driftproof.core.placebo import PLACEBO_ARM
from driftproof.core.plan import (
    ARM_ORDER,
    Budget,
    CaseSizes,
    Plan,
    PlanSettings,
    Pricing,
    Spend,
    afford,
    answer_worst,
    draw_worst,
    plan_suite,
    sample_worst,
    spend_of,
)
from driftproof.core.plan_sentences import STOPPED_AT_BUDGET, budget_needed_line, budget_passed_line
from driftproof.core.stopping import StoppingRule
from driftproof.core.words import JudgeMode
from driftproof.errors import InputError
from driftproof.judge import judge_prompt
from driftproof.judge_pairwise import pairwise_parts
from driftproof.prices import price_for
from driftproof.suite import SuiteCase


def case_sizes(cases: Sequence[SuiteCase]) -> list[CaseSizes]:
    """Each case's prompt and judge template (with an empty answer) as token estimates."""
    return [
        CaseSizes(
            c.id,
            estimate_tokens(c.prompt),
            estimate_tokens(judge_prompt(c, "")),
            estimate_tokens(pairwise_parts(c, "", "").text),
        )
        for c in cases
    ]


def plan_of(cases: Sequence[SuiteCase], settings: PlanSettings, prices: Pricing) -> Plan:
    """The plan of a suite's cases under ``settings``."""
    return plan_suite(case_sizes(cases), settings, prices)


@dataclass
class Ledger:
    """What a budgeted run has committed to: the worst case of every draw it started, and, per case, the worst
    case of the draws the budget refused it (the last round it asked for).

    The worst case counts each prompt at its estimate, ceil(chars / 4), which is not an upper bound on what a
    provider's tokenizer counts (code, CJK text). So each call that comes back is settled too (`settle`): its worst
    case is set against the usage the provider reported (kept where it reported none). A draw starts only when its
    worst case fits both beside ``committed`` and beside `settled` (the reported usage, with the worst case of the
    calls still out), so no call starts once the reported usage and the reservations could pass the budget; the
    calls already under way on an estimate can still take it past, which `passed` says."""

    budget: Budget
    prices: Pricing
    settings: PlanSettings
    sizes: list[CaseSizes]
    committed: Spend = field(default_factory=Spend)
    refused: dict[int, Spend] = field(default_factory=dict)
    canaries: Spend = field(default_factory=Spend)
    """The judge-anchor canaries' worst case, reserved before they are judged (part of ``committed``)."""
    returned: Spend = field(default_factory=Spend)
    """Of ``committed``, the worst case of the calls that came back (or that a finished draw will never make)."""
    reported: Spend = field(default_factory=Spend)
    """What the provider reported for those calls: their usage, their worst case where they reported none."""

    def reserve_canaries(self, worst: Spend) -> None:
        """The canaries' judge calls are about to start: their worst case is committed first."""
        self.committed += worst
        self.canaries += worst

    def settle_canaries(self, usage: Usage | None) -> None:
        """The canaries were judged: their worst case set against the usage their samples reported."""
        self._settle(self.canaries, spend_of(usage, "unbatched"))

    def worst(self, ci: int, arm: str) -> Spend:
        """The most one draw of case ``ci``'s ``arm`` can spend."""
        return draw_worst(self.sizes[ci], self.settings, arm)

    @property
    def settled(self) -> Spend:
        """What the run has spent as the provider reported it, with the worst case of every call still out."""
        return self.committed - self.returned + self.reported

    def allow(self, ci: int, wants: Mapping[str, int]) -> tuple[dict[str, int], bool]:
        """How many of the draws a round asks for may start, and whether the budget refused any."""
        worst = {arm: self.worst(ci, arm) for arm in self.settings.arms}
        afforded = afford(self.budget, self.prices, self.committed, wants, worst, self.settled)
        if afforded.refused.tokens:
            self.refused[ci] = afforded.refused
        else:
            self.refused.pop(ci, None)
        return dict(afforded.take), bool(afforded.refused.tokens)

    def commit(self, ci: int, arm: str) -> None:
        """A draw of case ``ci``'s ``arm`` starts (or was started by the run a journal resumes)."""
        self.committed += self.worst(ci, arm)

    def settle(self, ci: int, arm: str, role: str, usage: Usage | None, calls: int = 1) -> None:
        """One request of case ``ci``'s ``arm`` came back (``role``: answers, or judge samples, ``calls`` of them):
        their worst case set against the usage it reported, or kept when it reported none (a failed call)."""
        sizes = self.sizes[ci]
        worst = answer_worst(sizes, self.settings, arm) if role == "answer" else sample_worst(sizes, self.settings)
        self._settle(worst.times(calls), spend_of(usage, role))

    def unused(self, ci: int, samples: int) -> None:
        """A lost draw of case ``ci`` will never make its ``samples`` judge samples: settled at nothing."""
        self._settle(sample_worst(self.sizes[ci], self.settings).times(samples), Spend())

    def _settle(self, worst: Spend, reported: Spend | None) -> None:
        self.returned += worst
        self.reported += worst if reported is None else reported

    def passed(self) -> Spend | None:
        """The settled spend when the provider's reported usage took the run past the budget; ``None`` when the
        run stayed within it."""
        settled = self.settled
        return None if self.budget.fits(settled, self.prices) else settled

    def record(self, stop_reasons: Mapping[int, str]) -> RunBudget:
        """The receipt's ``run.settings.budget``: the committed figures are the worst cases, or the reported usage
        where it is the larger (`settled`), so they pass the budget only when the provider's count did."""
        stopped = [ci for ci, why in stop_reasons.items() if why == STOPPED_AT_BUDGET]
        settled = self.settled
        spent = settled if settled.tokens > self.committed.tokens else self.committed
        usd = [v for v in (self.committed.usd(self.prices), settled.usd(self.prices)) if v is not None]
        needed = sum((self.refused[ci] for ci in stopped if ci in self.refused), spent)
        return RunBudget(
            tokens=self.budget.tokens,
            usd=self.budget.usd,
            max_tokens=self.settings.max_tokens,
            committed_tokens=spent.tokens,
            committed_usd=max(usd) if len(usd) == 2 else None,
            canaries_tokens=self.canaries.tokens or None,
            stopped_cases=len(stopped),
            needed_tokens=needed.tokens if stopped else None,
            needed_usd=needed.usd(self.prices) if stopped else None,
        )


def plan_settings(
    rule: StoppingRule,
    judge_samples: int,
    max_tokens: tuple[int, int],
    skill_text: str | None,
    carried: Mapping[str, int] | None = None,
    arms: tuple[str, ...] = ARM_ORDER,
    per_request: tuple[int, int] = (1, 1),
) -> PlanSettings:
    """The counts a plan and a budget read, from a run's rule and flags; ``carried``: by arm, draws per case this
    run carries rather than draws (baseline carrying wires it; a plain run carries none); ``max_tokens``: the
    answers' ceiling and the judge's; ``per_request``: the draws one answer request and the judge samples one judge
    request can ask for (`Lane.samples_per_request` of each lane, with ``--batch`` too)."""
    return PlanSettings(
        rule.min_draws,
        rule.max_draws,
        judge_samples,
        max_tokens[0],
        max_tokens[1],
        skill=estimate_tokens(skill_text),
        carried=dict(carried or {}),
        arms=arms,
        draws_per_request=per_request[0],
        samples_per_request=per_request[1],
    )


def ledger_for(options: Any, cases: Sequence[SuiteCase], skill_text: str | None) -> Ledger | None:
    """The ledger of a run with a budget (``options``: its `driftproof.runner.RunOptions`); ``None`` without one."""
    if options.budget is None:
        return None
    ceilings = (options.max_tokens, options.judge_max_tokens)
    settings = plan_settings(options.rule, options.judge_samples, ceilings, skill_text, arms=arms_of(options))
    settings = replace(settings, pairwise=options.judge_mode == JudgeMode.PAIRWISE)
    return Ledger(options.budget, options.pricing, settings, case_sizes(cases))


def arms_of(options: Any) -> tuple[str, ...]:
    """The arms a run draws (``options``: its `driftproof.runner.RunOptions`): a third with ``--placebo``."""
    return (*ARM_ORDER, PLACEBO_ARM) if getattr(options, "placebo_text", None) else ARM_ORDER


def budget_fingerprint(options: Any) -> dict[str, Any]:
    """What a budget adds to a run's journal fingerprint, so ``--resume`` finishes under the same budget."""
    if options.budget is None and options.max_tokens == DEFAULTS.max_tokens:
        return {}
    budget = options.budget or Budget()
    return {"budget": [budget.tokens, budget.usd, options.max_tokens]}


def budget_needed(runner: Any) -> str | None:
    """After a run the budget stopped: how much budget its draws would have needed (``runner``: the `Runner`)."""
    ledger: Ledger | None = runner.ledger
    if ledger is None:
        return None
    record = ledger.record(runner.stop_reasons)
    if not record.stopped_cases or record.needed_tokens is None:
        return None
    return budget_needed_line(record.stopped_cases, ledger.budget, record.needed_tokens, record.needed_usd)


def budget_passed(runner: Any) -> str | None:
    """After a run whose reported usage passed its budget (a prompt's tokens above its estimate): by how much
    (``runner``: the `Runner`); ``None`` when it stayed within it, or had no budget."""
    ledger: Ledger | None = runner.ledger
    if ledger is None or (spent := ledger.passed()) is None:
        return None
    return budget_passed_line(ledger.budget, spent.tokens, spent.usd(ledger.prices), ledger.committed.tokens)


MOST_TOKENS = LIMITS.tokens
"""The largest ``--budget`` and ``--max-tokens`` taken (10^12): a guard against a typo, not a limit anyone meets."""


def check_budget(tokens: int | None, usd: float | None) -> Budget | None:
    """``--budget TOKENS`` and ``--budget-usd``, checked before any call; ``None`` when neither is given."""
    if tokens is not None and (
        isinstance(tokens, bool) or not isinstance(tokens, int) or not 1 <= tokens <= MOST_TOKENS
    ):
        raise InputError(f"--budget: a whole number of tokens from 1 to 10^12, got {tokens}")
    if usd is not None and (isinstance(usd, bool) or not isinstance(usd, (int, float)) or not 0 < usd < math.inf):
        raise InputError(f"--budget-usd: a number of USD above 0, got {usd}")
    if tokens is None and usd is None:  # DEFAULTS.budget, DEFAULTS.budget_usd
        return None
    return Budget(tokens=tokens, usd=None if usd is None else float(usd))


def check_max_tokens(value: int | None) -> int:
    """``--max-tokens``: each answer's output ceiling (default `DEFAULTS.max_tokens`)."""
    if value is None:
        return DEFAULTS.max_tokens
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MOST_TOKENS:
        raise InputError(f"--max-tokens: a whole number of tokens from 1 to 10^12, got {value}")
    return value


def pricing_for(
    models: tuple[str | None, str | None], table: Path | None, budget: Budget | None, *, batch: bool = False
) -> Pricing:
    """The answering model's and the judge's prices; a dollar budget needs both. ``batch`` (``--batch``): the
    answers and the draws' judge samples at the price a batch call is billed, the canaries' and the pairwise calls
    at the list price (`Pricing`), which the plan and the budget then count."""
    pricing = Pricing(price_for(models[0], table), price_for(models[1], table), batch=batch)
    if budget is not None and budget.usd is not None:
        roles = (
            ("answering model", models[0], pricing.answer, "answer with a priced model (--model)"),
            ("judge", models[1], pricing.judge, "grade with a priced judge (--judge-model)"),
        )
        for role, model, price, instead in roles:
            if price is None:
                raise InputError(
                    f"--budget-usd: no price for the {role} {model or '(default)'} in the price table; add it with "
                    f"--price-table FILE, {instead}, or give --budget TOKENS"
                )
    return pricing
