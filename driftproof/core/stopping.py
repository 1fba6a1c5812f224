"""The stopping rule: how many draws to make per arm of a case, decided after each round of draws.

The verdict (R-1 … R-6) is fixed; this module only decides when the draws it reads are enough. Three draws per
arm are not: with realistic generation noise a 3-draw spread often comes out small by chance, and two arms from
one distribution then separate in several percent of cases. ``settle-v1`` keeps drawing while the verdict still
hinges on where the true spreads sit. Calibration: ``benchmarks/false_calls.py``; write-up: ``docs/stopping-rule.md``.

Pure: plain numbers in, a decision out; no I/O, no randomness, no clock.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from driftproof.core.bands import band, draws_needed, meets_floor, resolution, separated
from driftproof.core.between import CALL_MIN_DRAWS
from driftproof.core.defaults import DEFAULTS
from driftproof.core.words import EFFECT_FLOOR, TOLERANCE

RULE_NAME = "settle-v2"

#: The fewest draws per arm of a receipt drawn to be the reference (``--as-reference``: the default branch's
#: stored receipt, which pull requests are compared against and cannot draw more of).
REFERENCE_MIN_DRAWS = 12

MIN_NOT_REACHED = "min_draws not reached"
BUDGET_SPENT = "max_draws reached before min_draws were measured"
BELOW_FLOOR = "gap below the effect floor"
OVERLAP = "overlap even at the low ends of the spreads"
SEPARATION = "separation even at the high ends of the spreads"
FRAGILE = "fragile: the spreads could still turn the verdict"
AT_MAX = "max_draws reached, not settled"
UNRESOLVED = "no call, but R-4 resolution is within max_draws"


@dataclass(frozen=True)
class StoppingRule:
    """``settle-v1``: draw until the across-draw spreads have settled enough to decide the case.

    Each arm first gets ``min_draws`` measured draws. After every round, each arm's sample sd s over its n draws
    gets a chi-square confidence interval for the true sd, from ``s·sqrt((n−1)/χ²(1 − alpha_overlap; n−1))``
    (never above s) up to ``s·sqrt((n−1)/χ²(alpha_separate; n−1))`` (never below s). Drawing stops, settled,
    when the verdict no longer hinges on where in those intervals the true spreads sit: the gap between the
    means is below the floor F; or the bands overlap even with both spreads at the low ends; or they separate
    (R-2) even with both spreads at the high ends and the gap meets F. Otherwise the case is fragile (a
    separation may rest on spreads that came out small by chance; an overlap may hide a lift) and each arm gets
    ``step`` more draws, until ``max_draws`` draws made per arm, where drawing stops unsettled and the fixed rule
    reads what was drawn. With ``resolve`` on, a settled case that makes no call but is underpowered (R-4) while
    R-4's draw count lies within ``max_draws`` keeps drawing towards that count, so the receipt says "no
    separation" instead of naming a draw count the run could have afforded.

    >>> DEFAULT_RULE.describe()
    'settle-v2(min=3,max=10,step=1,alpha_sep=0.05,alpha_ovl=0.1,floor=0.05,resolve=yes,call_min=7)'
    """

    id: str = RULE_NAME
    min_draws: int = DEFAULTS.draws
    max_draws: int = DEFAULTS.max_draws
    step: int = 1
    alpha_separate: float = 0.05
    alpha_overlap: float = 0.1
    floor: float = EFFECT_FLOOR
    resolve: bool = True
    call_min: int = CALL_MIN_DRAWS
    """R-7: measured draws each arm compared needs for a call between two receipts (see ``rounds``)."""

    def __post_init__(self) -> None:
        if self.min_draws < 1:
            raise ValueError("min_draws must be at least 1")
        if self.max_draws < self.min_draws:
            raise ValueError("max_draws must be at least min_draws")
        if self.step < 1:
            raise ValueError("step must be at least 1")
        if not (0.0 < self.alpha_separate < 0.5 and 0.0 < self.alpha_overlap < 0.5):
            raise ValueError("alpha_separate and alpha_overlap must lie in (0, 0.5)")
        if self.floor <= 0.0:
            raise ValueError("floor must be positive")
        if self.call_min < 2:
            raise ValueError("call_min must be at least 2")

    def describe(self) -> str:
        """The string recorded in the receipt as ``run.settings.stopping_rule``: the id and every parameter.

        >>> StoppingRule(min_draws=5, max_draws=5).describe()
        'settle-v2(min=5,max=5,step=1,alpha_sep=0.05,alpha_ovl=0.1,floor=0.05,resolve=yes,call_min=7)'
        """
        return (
            f"{self.id}(min={self.min_draws},max={self.max_draws},step={self.step},"
            f"alpha_sep={self.alpha_separate:g},alpha_ovl={self.alpha_overlap:g},floor={self.floor:g},"
            f"resolve={'yes' if self.resolve else 'no'},call_min={self.call_min})"
        )


#: The calibrated default (``benchmarks/false_calls.py``, table in ``docs/stopping-rule.md``).
DEFAULT_RULE = StoppingRule()


def rule_for(min_draws: int | None = None, max_draws: int | None = None) -> StoppingRule:
    """The default rule with the CLI's ``--draws`` (minimum) and ``--max-draws``; a minimum above the default
    maximum raises the maximum to it unless ``max_draws`` is given.

    >>> rule_for(5).describe()
    'settle-v2(min=5,max=10,step=1,alpha_sep=0.05,alpha_ovl=0.1,floor=0.05,resolve=yes,call_min=7)'
    >>> (rule_for(12).max_draws, rule_for(3, 6).max_draws)
    (12, 6)
    """
    low = DEFAULT_RULE.min_draws if min_draws is None else min_draws
    high = max(DEFAULT_RULE.max_draws, low) if max_draws is None else max_draws
    return replace(DEFAULT_RULE, min_draws=low, max_draws=high)


def reference_rule(min_draws: int | None = None, max_draws: int | None = None) -> StoppingRule:
    """The deeper rule a stored reference receipt is drawn to (``--as-reference``): at least
    `REFERENCE_MIN_DRAWS` draws per arm (or ``min_draws`` when that is more), then the same rule.

    >>> (reference_rule().min_draws, reference_rule().max_draws, reference_rule(15, 20).max_draws)
    (12, 12, 20)
    """
    low = max(REFERENCE_MIN_DRAWS, min_draws or 0)
    return rule_for(low, None if max_draws is None else max(low, max_draws))


def reference_form(rule: StoppingRule) -> StoppingRule:
    """What a run with ``rule``'s counts is drawn to with ``--as-reference``: the counts of `reference_rule`,
    every other parameter kept. A rule already in that form is its own reference form.

    >>> reference_form(rule_for(3, 10)) == reference_rule(3, 10), reference_form(rule_for(15, 20)).max_draws
    (True, 20)
    >>> reference_form(reference_form(DEFAULT_RULE)) == reference_form(DEFAULT_RULE)
    True
    """
    deep = reference_rule(rule.min_draws, rule.max_draws)
    return replace(rule, min_draws=deep.min_draws, max_draws=deep.max_draws)


_RULE_KEYS = ("min", "max", "step", "alpha_sep", "alpha_ovl", "floor", "resolve", "call_min")
"""The parameters of a ``describe()`` string, in its order."""


def parse_rule(text: str) -> StoppingRule | None:
    """The rule a ``describe()`` string records, exactly: ``None`` unless describing the rule read gives back
    ``text`` itself (another id such as ``settle-v1``, a parameter missing, extra or out of order, a value
    written another way or out of range).

    >>> parse_rule(DEFAULT_RULE.describe()) == DEFAULT_RULE, parse_rule("settle-v1(min=3,max=10)")
    (True, None)
    >>> parse_rule(DEFAULT_RULE.describe().replace("min=3", "min=03"))  # reads as 3, which describes as "min=3"
    """
    head, opened, rest = text.partition("(")
    if head != RULE_NAME or not opened or not rest.endswith(")"):
        return None
    pairs = [part.partition("=") for part in rest[:-1].split(",")]
    if tuple(key for key, _, _ in pairs) != _RULE_KEYS or not all(eq for _, eq, _ in pairs):
        return None
    value = {key: raw for key, _, raw in pairs}
    if value["resolve"] not in ("yes", "no"):
        return None
    try:
        rule = StoppingRule(
            min_draws=int(value["min"]),
            max_draws=int(value["max"]),
            step=int(value["step"]),
            alpha_separate=float(value["alpha_sep"]),
            alpha_overlap=float(value["alpha_ovl"]),
            floor=float(value["floor"]),
            resolve=value["resolve"] == "yes",
            call_min=int(value["call_min"]),
        )
    except ValueError:  # not a number, or a rule StoppingRule refuses
        return None
    return rule if rule.describe() == text else None


@dataclass(frozen=True)
class StopDecision:
    """How many more draws to make in each arm now; ``(0, 0)`` means stop.

    ``settled`` is True when drawing stopped because the verdict no longer hinges on the spreads; False while
    drawing goes on, and when it stopped at the budget.
    """

    add_with: int
    add_baseline: int
    settled: bool
    reason: str

    @property
    def stop(self) -> bool:
        """True when no arm gets another draw."""
        return self.add_with == 0 and self.add_baseline == 0


def _chi2_cdf(x: float, df: int) -> float:
    """CDF of the chi-square distribution, exact for integer ``df``: P(df/2, x/2) by the recurrence from P(1) or P(½).

    >>> round(_chi2_cdf(5.991464547, 2), 6), round(_chi2_cdf(3.841458821, 1), 6)
    (0.95, 0.95)
    """
    if x <= 0.0:
        return 0.0
    h = x / 2.0
    if df % 2 == 0:
        a, p = 1.0, -math.expm1(-h)  # P(1, h)
    else:
        a, p = 0.5, math.erf(math.sqrt(h))  # P(1/2, h)
    while a < df / 2.0 - 1e-9:  # P(a + 1, h) = P(a, h) − h^a e^(−h) / Γ(a + 1)
        p -= math.exp(a * math.log(h) - h - math.lgamma(a + 1.0))
        a += 1.0
    return min(1.0, max(0.0, p))


@lru_cache(maxsize=1024)
def chi2_quantile(q: float, df: int) -> float:
    """The ``q`` quantile of the chi-square distribution with ``df`` degrees of freedom (bisection on the CDF).

    >>> round(chi2_quantile(0.05, 2), 4)  # −2·ln(0.95)
    0.1026
    >>> round(chi2_quantile(0.95, 1), 4), round(chi2_quantile(0.05, 9), 3), round(chi2_quantile(0.9, 30), 3)
    (3.8415, 3.325, 40.256)
    """
    if not 0.0 < q < 1.0 or df < 1:
        raise ValueError("need 0 < q < 1 and df >= 1")
    lo, hi = 0.0, df + 10.0 * math.sqrt(2.0 * df) + 10.0
    while _chi2_cdf(hi, df) < q:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if _chi2_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return (lo + hi) / 2.0


def sd_factor(n: int, q: float) -> float:
    """sqrt((n−1)/χ²(q; n−1)): times a sample sd of ``n`` scores, a confidence limit for the true sd.

    A small ``q`` gives an upper limit, a large ``q`` a lower one.

    >>> round(sd_factor(3, 0.05), 3), round(sd_factor(3, 0.9), 3), round(sd_factor(10, 0.05), 3)
    (4.415, 0.659, 1.645)
    """
    if n < 2:
        raise ValueError("a spread needs two scores")
    return math.sqrt((n - 1) / chi2_quantile(q, n - 1))


def high_factor(n: int, alpha: float) -> float:
    """The high end of the spread interval as a multiple of the sample sd; never below 1.

    >>> round(high_factor(3, 0.05), 3), round(high_factor(8, 0.05), 3)
    (4.415, 1.797)
    """
    return max(1.0, sd_factor(n, alpha))


def low_factor(n: int, alpha: float) -> float:
    """The low end of the spread interval as a multiple of the sample sd; never above 1, so a stop on overlap
    at the low ends implies overlap at the observed spreads.

    >>> round(low_factor(3, 0.1), 3), low_factor(3, 0.45)
    (0.659, 1.0)
    """
    return min(1.0, sd_factor(n, 1.0 - alpha))


def settled_reason(rule: StoppingRule, a: Sequence[float], b: Sequence[float]) -> str | None:
    """Why the case is settled, or ``None`` while its verdict still hinges on the spreads. Both arms need 2+ scores.

    >>> settled_reason(DEFAULT_RULE, [0.5, 0.6, 0.7], [0.5, 0.6, 0.8])
    'gap below the effect floor'
    >>> settled_reason(DEFAULT_RULE, [0.5, 0.6, 0.7], [0.6, 0.7, 0.8])
    'overlap even at the low ends of the spreads'
    >>> settled_reason(DEFAULT_RULE, [0.8, 0.82, 0.84], [0.5, 0.52, 0.54])
    'separation even at the high ends of the spreads'
    >>> settled_reason(DEFAULT_RULE, [0.7, 0.72, 0.74], [0.6, 0.62, 0.64]) is None
    True
    """
    band_a, band_b = band(a), band(b)
    if band_a.mean is None or band_b.mean is None or band_a.sd is None or band_b.sd is None:
        raise ValueError("each arm needs two measured draws")
    gap = abs(band_a.mean - band_b.mean)
    if not meets_floor(gap, rule.floor):  # no spread makes this a call
        return BELOW_FLOOR
    low = band_a.sd * low_factor(band_a.n, rule.alpha_overlap) + band_b.sd * low_factor(band_b.n, rule.alpha_overlap)
    if gap - low <= TOLERANCE:  # overlap at the low ends, hence at the observed spreads (R-2: touching overlaps)
        return OVERLAP
    high = band_a.sd * high_factor(band_a.n, rule.alpha_separate)
    high += band_b.sd * high_factor(band_b.n, rule.alpha_separate)
    if gap - high > TOLERANCE and separated(band_a, band_b):
        return SEPARATION
    return None


def resolvable_at(rule: StoppingRule, a: Sequence[float], b: Sequence[float]) -> int | None:
    """R-4: the draws per arm that would make a non-separating, underpowered case resolved, if within max_draws.

    ``None`` when the bands separate, when the case is already resolved (resolution below the floor), or when
    no draw count up to ``max_draws`` reaches the floor with the spreads held.

    >>> resolvable_at(DEFAULT_RULE, [0.5, 0.515, 0.53], [0.5, 0.515, 0.53])  # s = 0.015: r = 0.0545 ≥ F at n = 3
    5
    >>> resolvable_at(DEFAULT_RULE, [0.5, 0.6, 0.7], [0.5, 0.6, 0.7]) is None  # s_a + s_b ≥ F: no count reaches it
    True
    """
    band_a, band_b = band(a), band(b)
    r = resolution(band_a, band_b)
    if r is None or separated(band_a, band_b) or r + TOLERANCE < rule.floor:
        return None
    needed = draws_needed(band_a.sd, band_b.sd, rule.floor).n
    return needed if needed is not None and needed <= rule.max_draws else None


def more_draws(
    rule: StoppingRule,
    with_skill: Sequence[float],
    baseline: Sequence[float],
    *,
    lost_with: int = 0,
    lost_baseline: int = 0,
) -> StopDecision:
    """How many more draws each arm gets now, from the measured draw scores so far (lost draws left out).

    ``lost_with`` / ``lost_baseline`` count lost draws: they use up their arm's budget, so an arm never gets
    more than ``max_draws`` draws made, measured or lost. An arm below ``min_draws`` measured draws (and below
    two, which a spread needs) is topped up as far as its budget allows; then :func:`settled_reason` decides,
    and a fragile case gets ``step`` more draws in each arm that has budget left.

    >>> more_draws(DEFAULT_RULE, [], [])
    StopDecision(add_with=3, add_baseline=3, settled=False, reason='min_draws not reached')
    >>> more_draws(DEFAULT_RULE, [0.5, 0.55, 0.6], [0.5, 0.6, 0.55])
    StopDecision(add_with=0, add_baseline=0, settled=True, reason='gap below the effect floor')
    >>> more_draws(DEFAULT_RULE, [0.9, 0.9, 0.91], [0.3, 0.31, 0.3])
    StopDecision(add_with=0, add_baseline=0, settled=True, reason='separation even at the high ends of the spreads')
    >>> more_draws(DEFAULT_RULE, [0.7, 0.72, 0.74], [0.6, 0.62, 0.64])  # separates, but on 3-draw spreads
    StopDecision(add_with=1, add_baseline=1, settled=False, reason='fragile: the spreads could still turn the verdict')
    >>> more_draws(DEFAULT_RULE, [0.7, 0.72, 0.74] * 3 + [0.72], [0.6, 0.62, 0.64] * 3 + [0.62]).settled
    True
    >>> more_draws(DEFAULT_RULE, [0.6], [0.5, 0.3, 0.4], lost_with=9).reason
    'max_draws reached before min_draws were measured'
    """
    n_w, n_b = len(with_skill), len(baseline)
    room_w = max(0, rule.max_draws - n_w - lost_with)
    room_b = max(0, rule.max_draws - n_b - lost_baseline)
    need = max(rule.min_draws, 2)
    if n_w < need or n_b < need:
        add_w, add_b = min(max(0, need - n_w), room_w), min(max(0, need - n_b), room_b)
        if add_w or add_b:
            return StopDecision(add_w, add_b, False, MIN_NOT_REACHED)
        if n_w < 2 or n_b < 2:
            return StopDecision(0, 0, False, BUDGET_SPENT)
    reason = settled_reason(rule, with_skill, baseline)
    if reason is not None:
        if rule.resolve and reason != SEPARATION:
            target = resolvable_at(rule, with_skill, baseline)
            if target is not None:
                add_w, add_b = (
                    min(rule.step, room_w, max(0, target - n_w)),
                    min(rule.step, room_b, max(0, target - n_b)),
                )
                if add_w or add_b:
                    return StopDecision(add_w, add_b, False, f"{UNRESOLVED} ({target} draws per arm)")
        return StopDecision(0, 0, True, reason)
    add_w, add_b = min(rule.step, room_w), min(rule.step, room_b)
    if add_w or add_b:
        return StopDecision(add_w, add_b, False, FRAGILE)
    return StopDecision(0, 0, False, AT_MAX)
