"""What a run will cost before it spends anything: calls, tokens and dollars per case, and the budget rule.

``driftproof plan`` and every run (before its first call) read `plan_suite`; the runner asks `afford` before it
starts a draw. Pure: sizes come in as token estimates (`driftproof.core.economics.estimate_tokens`, ceil(chars / 4))
and prices as `Price`.

The worst case of one call is its prompt estimate plus its output ceiling:

* an answer: the case's prompt (and, in the with-skill arm, the skill) + ``max_tokens``;
* a judge sample: the judge's template around the prompt and rubric, plus the answer it grades (at most
  ``max_tokens``), + the judge's own ceiling ``judge_max_tokens``.

A draw is an answer and its judge samples; the budget rule reserves a draw's worst case before its answer call
starts, so no judge call of a started draw can take the run past the budget.

Where a lane answers one prompt several times in one request (Chat Completions ``n``: `PlanSettings.draws_per_request`
for the answers of an arm's round, `PlanSettings.samples_per_request` for a draw's judge samples), the request's
input is sent, and billed, once: the floor counts it once (an arm's first-round draws in one request, a draw's
samples in one). The worst case does not change: a server that ignores ``n`` is asked again for every draw and
sample it left out, one per request, so each still reserves its own input.

Dollars are at the price each kind of call is billed at (`Pricing`): with ``--batch`` the answers and the draws'
judge samples go through a provider batch API, at the batch price, while the judge calls never batched (the
canaries', the pairwise calls: `Spend.unbatched_input`) stay at the list price.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from driftproof.core.spend import Pricing as Pricing
from driftproof.core.spend import Spend as Spend
from driftproof.core.spend import spend_of as spend_of
from driftproof.core.words import ArmName

ARM_ORDER = (ArmName.WITH_SKILL.value, ArmName.BASELINE.value)


@dataclass(frozen=True, slots=True)
class CaseSizes:
    """One case's text, as token estimates: its prompt, and the judge's template around it with an empty answer."""

    id: str
    prompt: int
    judge_template: int
    pairwise_template: int = 0
    """The pairwise judge's template around the prompt and rubric with two empty answers (``--judge-mode pairwise``)."""


@dataclass(frozen=True, slots=True)
class PlanSettings:
    """The counts a plan reads: draws per arm (the stopping rule's bounds), judge samples, the output ceilings,
    and the draws each arm already holds that this run carries rather than draws (per case)."""

    min_draws: int
    max_draws: int
    judge_samples: int
    max_tokens: int
    judge_max_tokens: int
    skill: int = 0
    """The skill's token estimate, sent with every with-skill answer."""
    carried: Mapping[str, int] = field(default_factory=dict)
    """By arm, draws per case carried from elsewhere (not drawn, so not called for)."""
    carried_cases: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """By case id, by arm, the draws that case carries, in place of ``carried`` for each case it names (a run that
    carries a standing baseline: each case carries its reference arm's draws, or none)."""
    arms: tuple[str, ...] = ARM_ORDER
    """The arms each case draws: with ``--placebo`` the third, ``placebo``, which sends the skill's size too."""
    pairwise: bool = False
    """``--judge-mode pairwise``: each draw pair adds two side-by-side judge calls (`pair_worst`)."""
    draws_per_request: int = 1
    """How many draws of one arm one answer request can ask for (the answering lane's ``n``; 1 with ``--batch``)."""
    samples_per_request: int = 1
    """How many judge samples of one draw one judge request can ask for (the judge lane's ``n``)."""


def answer_worst(sizes: CaseSizes, settings: PlanSettings, arm: str) -> Spend:
    """The most one answer of ``arm`` can spend: its prompt (and the skill, or the placebo) + ``max_tokens``.

    >>> s = PlanSettings(3, 10, 5, max_tokens=2048, judge_max_tokens=1024, skill=300)
    >>> answer_worst(CaseSizes("c", prompt=100, judge_template=400), s, "with_skill").tokens  # 100 + 300 + 2048
    2448
    """
    skill = settings.skill if arm != ArmName.BASELINE else 0  # the placebo is as long as the skill
    return Spend(answer_input=sizes.prompt + skill, answer_output=settings.max_tokens)


def sample_worst(sizes: CaseSizes, settings: PlanSettings) -> Spend:
    """The most one judge sample of a draw can spend: the judge's template + the answer (≤ ``max_tokens``) +
    ``judge_max_tokens``.

    >>> sample_worst(CaseSizes("c", prompt=100, judge_template=400), PlanSettings(3, 10, 5, 2048, 1024)).tokens
    3472
    """
    return Spend(judge_input=sizes.judge_template + settings.max_tokens, judge_output=settings.judge_max_tokens)


def draw_worst(sizes: CaseSizes, settings: PlanSettings, arm: str) -> Spend:
    """The most one draw of ``arm`` can spend: its answer (`answer_worst`) and each of its judge samples
    (`sample_worst`).

    >>> s = PlanSettings(3, 10, 5, max_tokens=2048, judge_max_tokens=1024, skill=300)
    >>> draw_worst(CaseSizes("c", prompt=100, judge_template=400), s, "with_skill").tokens  # 2448 + 5 × 3472
    19808
    """
    drawn = answer_worst(sizes, settings, arm) + sample_worst(sizes, settings).times(settings.judge_samples)
    # each with-skill draw makes at most one pair: its worst case reserves the pair's two calls
    return drawn + pair_worst(sizes, settings) if arm == ArmName.WITH_SKILL and settings.pairwise else drawn


def pair_worst(sizes: CaseSizes, settings: PlanSettings) -> Spend:
    """The most a draw pair's two pairwise calls can spend: each the template + both answers (≤ ``max_tokens``
    each) + ``judge_max_tokens``.

    >>> s = PlanSettings(3, 10, 5, max_tokens=2048, judge_max_tokens=1024, pairwise=True)
    >>> pair_worst(CaseSizes("c", 100, 400, pairwise_template=450), s).tokens  # 2 × (450 + 2 × 2048 + 1024)
    11140
    """
    return Spend(
        unbatched_input=2 * (sizes.pairwise_template + 2 * settings.max_tokens),
        unbatched_output=2 * settings.judge_max_tokens,
    )


def pairs_of(draws: Mapping[str, Range]) -> Range:
    """Draw pairs a case can make: each with-skill draw with the baseline draw of its index, at most.

    >>> pairs_of({"with_skill": Range(3, 10), "baseline": Range(0, 6)})
    Range(low=0, high=6)
    """
    ws, base = draws[ArmName.WITH_SKILL.value], draws[ArmName.BASELINE.value]
    return Range(min(int(ws.low or 0), int(base.low or 0)), min(int(ws.high or 0), int(base.high or 0)))


def draw_floor(sizes: CaseSizes, settings: PlanSettings, arm: str, draws: int = 1) -> Spend:
    """The least ``draws`` draws of one arm, asked for in one round, can spend: the prompts alone, no output (the
    answer and the scores come on top); a request for several draws or samples sends its prompt once.

    >>> s = PlanSettings(3, 10, 5, max_tokens=2048, judge_max_tokens=1024, skill=300)
    >>> draw_floor(CaseSizes("c", prompt=100, judge_template=400), s, "baseline").tokens  # 100 + 5 × 400
    2100
    >>> n = PlanSettings(3, 10, 5, 2048, 1024, skill=300, draws_per_request=128, samples_per_request=128)
    >>> draw_floor(CaseSizes("c", prompt=100, judge_template=400), n, "with_skill", 3).tokens  # 400 + 3 × 400
    1600
    """
    skill = settings.skill if arm != ArmName.BASELINE else 0
    answers = -(-draws // max(1, settings.draws_per_request))  # requests: ceil(draws / per request)
    judged = -(-settings.judge_samples // max(1, settings.samples_per_request))
    return Spend(answers * (sizes.prompt + skill), 0, draws * judged * sizes.judge_template, 0)


@dataclass(frozen=True, slots=True)
class Range:
    """A low and a high figure; ``None`` for a dollar figure without a price."""

    low: int | float | None
    high: int | float | None


@dataclass(frozen=True, slots=True)
class CasePlan:
    """One case: draws per arm, logical calls, tokens and dollars, each from the fewest draws to the most."""

    id: str
    draws: Mapping[str, Range]
    calls: Range
    tokens: Range
    usd: Range


@dataclass(frozen=True, slots=True)
class Plan:
    """A run's plan: each case and the total."""

    settings: PlanSettings
    cases: tuple[CasePlan, ...]
    total: CasePlan
    canaries: CasePlan | None = None
    """The judge-anchor canaries' judge calls, before the first draw (counted in ``total``); ``None``: none."""
    canary_count: int = 0
    """How many canaries ``canaries`` judges (each ``settings.judge_samples`` times)."""


def carried_draws(settings: PlanSettings, arm: str, case: str | None = None) -> int:
    """The draws case ``case``'s ``arm`` carries (`PlanSettings.carried_cases`, else `PlanSettings.carried`).

    >>> s = PlanSettings(3, 10, 5, 2048, 1024, carried_cases={"a": {"baseline": 4}})
    >>> carried_draws(s, "baseline", "a"), carried_draws(s, "baseline", "b")
    (4, 0)
    """
    named = settings.carried_cases.get(case) if case is not None else None
    return (named if named is not None else settings.carried).get(arm, 0)


def arm_draws(settings: PlanSettings, arm: str, case: str | None = None) -> Range:
    """Draws case ``case``'s arm makes: the rule's bounds less what it carries, never below 0.

    >>> arm_draws(PlanSettings(3, 10, 5, 2048, 1024, carried={"baseline": 4}), "baseline")
    Range(low=0, high=6)
    """
    carried = carried_draws(settings, arm, case)
    return Range(max(0, settings.min_draws - carried), max(0, settings.max_draws - carried))


def plan_case(sizes: CaseSizes, settings: PlanSettings, prices: Pricing) -> CasePlan:
    """One case's plan: per arm, the fewest draws at their floor to the most draws at their worst case."""
    draws = {arm: arm_draws(settings, arm, sizes.id) for arm in settings.arms}
    per_draw = 1 + settings.judge_samples
    low = sum((draw_floor(sizes, settings, a, int(draws[a].low or 0)) for a in settings.arms), Spend())
    high = sum((draw_worst(sizes, settings, a).times(int(draws[a].high or 0)) for a in settings.arms), Spend())
    pairs = pairs_of(draws) if settings.pairwise else Range(0, 0)
    low += Spend(unbatched_input=2 * sizes.pairwise_template).times(int(pairs.low or 0))
    return CasePlan(
        id=sizes.id,
        draws=draws,
        calls=Range(
            sum(int(d.low or 0) for d in draws.values()) * per_draw + 2 * int(pairs.low or 0),
            sum(int(d.high or 0) for d in draws.values()) * per_draw + 2 * int(pairs.high or 0),
        ),
        tokens=Range(low.tokens, high.tokens),
        usd=Range(low.usd(prices), high.usd(prices)),
    )


def _sum(values: Iterable[int | float | None]) -> int | float | None:
    """A total, or ``None`` when any part is unknown (a dollar figure without a price)."""
    items = list(values)
    if any(v is None for v in items):
        return None
    return round(sum(v for v in items if v is not None), 8)


def plan_suite(cases: Sequence[CaseSizes], settings: PlanSettings, prices: Pricing) -> Plan:
    """Every case's plan and their total.

    >>> s = PlanSettings(3, 10, 5, max_tokens=2048, judge_max_tokens=1024)
    >>> p = plan_suite([CaseSizes("a", 100, 400), CaseSizes("b", 50, 350)], s, Pricing())
    >>> (p.total.calls, p.total.usd)  # 2 cases × 2 arms × 3…10 draws × 6 calls
    (Range(low=72, high=240), Range(low=None, high=None))
    """
    planned = tuple(plan_case(c, settings, prices) for c in cases)
    total = CasePlan(
        id="total",
        draws={
            a: Range(_sum(c.draws[a].low for c in planned), _sum(c.draws[a].high for c in planned))
            for a in settings.arms
        },
        calls=Range(_sum(c.calls.low for c in planned), _sum(c.calls.high for c in planned)),
        tokens=Range(_sum(c.tokens.low for c in planned), _sum(c.tokens.high for c in planned)),
        usd=Range(_sum(c.usd.low for c in planned), _sum(c.usd.high for c in planned)),
    )
    return Plan(settings, planned, total)


# -- the budget -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Budget:
    """``--budget TOKENS`` and ``--budget-usd``: the most a run may commit to, counting every started call at its
    worst case. ``None``: no limit of that kind."""

    tokens: int | None = None
    usd: float | None = None

    def fits(self, committed: Spend, prices: Pricing) -> bool:
        """Whether ``committed`` (worst cases of every call started, and the one about to be) is within budget.

        >>> Budget(tokens=100).fits(Spend(50, 50), Pricing()), Budget(tokens=99).fits(Spend(50, 50), Pricing())
        (True, False)
        """
        if self.tokens is not None and committed.tokens > self.tokens:
            return False
        if self.usd is not None:
            usd = committed.usd(prices)
            return usd is not None and usd <= self.usd
        return True


@dataclass(frozen=True, slots=True)
class Afforded:
    """What the budget lets a round start: how many draws of each arm, the new commitment, what was refused."""

    take: Mapping[str, int]
    committed: Spend
    refused: Spend


def afford(
    budget: Budget,
    prices: Pricing,
    committed: Spend,
    wants: Mapping[str, int],
    worst: Mapping[str, Spend],
    settled: Spend | None = None,
) -> Afforded:
    """Start the draws a round asks for, arms taking turns, while each draw's worst case still fits the budget;
    the first that does not fit stops the round (no later draw of it starts either). ``settled``: what the run
    has spent by the usage the provider reported for the calls that came back (their worst case where it reported
    none) and the worst case of the rest; each draw must fit beside it too.

    >>> w = {"with_skill": Spend(0, 40), "baseline": Spend(0, 30)}
    >>> a = afford(Budget(tokens=100), Pricing(), Spend(), {"with_skill": 2, "baseline": 2}, w)
    >>> dict(a.take), a.committed.tokens, a.refused.tokens  # 40 + 30 fits, + 40 = 110 does not
    ({'with_skill': 1, 'baseline': 1}, 70, 70)
    >>> a = afford(Budget(tokens=100), Pricing(), Spend(), {"with_skill": 2, "baseline": 2}, w, Spend(0, 50))
    >>> dict(a.take), a.refused.tokens  # reported 50 + 40 fits, + 30 = 120 does not
    ({'with_skill': 1, 'baseline': 0}, 100)
    """
    order = [*ARM_ORDER, *(arm for arm in wants if arm not in ARM_ORDER)]  # a placebo arm takes the third turn
    take = dict.fromkeys(order, 0)
    refused = Spend()
    stopped = False
    for turn in range(max(wants.values(), default=0)):
        for arm in order:
            if turn >= wants.get(arm, 0):
                continue
            fits = budget.fits(committed + worst[arm], prices)
            if fits and settled is not None:
                fits = budget.fits(settled + worst[arm], prices)
            if not stopped and fits:
                committed += worst[arm]
                settled = None if settled is None else settled + worst[arm]
                take[arm] += 1
            else:
                stopped = True
                refused += worst[arm]
    return Afforded(take, committed, refused)
