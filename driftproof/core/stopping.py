"""The stopping rule: how many draws to make per arm of a case, decided after each round of draws.

The verdict (R-1 … R-6) is fixed; this module only decides when the evidence it reads is ready.
Pure: plain numbers in, a decision out; no I/O, no randomness, no clock.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from driftproof.core.bands import band, meets_floor
from driftproof.core.words import EFFECT_FLOOR, TOLERANCE

RULE_NAME = "settle-v1"


@dataclass(frozen=True)
class StoppingRule:
    """When to stop drawing: ``settle-v1``.

    Each arm first gets ``min_draws`` measured draws. From then on, after every round, each arm's draw-to-draw
    sd gets a chi-square confidence interval (``s·sqrt((n−1)/χ²_q(n−1))``, the top end at the lower-tail
    quantile ``q = alpha_separate``, the bottom end at ``q = 1 − alpha_overlap``). Drawing stops, settled, when
    the verdict no longer hinges on where in those intervals the true spread sits: the bands separate and meet
    the floor even with both spreads at the top of their intervals, or they overlap (or the gap is under the
    floor) even with both spreads at the bottom. Otherwise the case is fragile (an apparent separation may be a
    spread that came out small by chance, an apparent overlap may hide a lift) and each arm gets ``step`` more
    draws, up to ``max_draws`` draws made per arm, where drawing stops unsettled and the fixed rule reads what
    was drawn.

    >>> DEFAULT_RULE.describe()
    'settle-v1(min=3,max=10,step=1,alpha_sep=0.05,alpha_ovl=0.1)'
    """

    id: str = RULE_NAME
    min_draws: int = 3
    max_draws: int = 10
    step: int = 1
    alpha_separate: float = 0.05
    alpha_overlap: float = 0.1
    floor: float = EFFECT_FLOOR

    def __post_init__(self) -> None:
        if self.min_draws < 1:
            raise ValueError("min_draws must be at least 1")
        if self.max_draws < self.min_draws:
            raise ValueError("max_draws must be at least min_draws")
        if self.step < 1:
            raise ValueError("step must be at least 1")
        for name in ("alpha_separate", "alpha_overlap"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must lie in (0, 0.5)")

    def describe(self) -> str:
        """The string recorded in the receipt as ``run.settings.stopping_rule``.

        >>> StoppingRule(min_draws=5, max_draws=5).describe()
        'settle-v1(min=5,max=5,step=1,alpha_sep=0.05,alpha_ovl=0.1)'
        """
        return (
            f"{self.id}(min={self.min_draws},max={self.max_draws},step={self.step},"
            f"alpha_sep={self.alpha_separate:g},alpha_ovl={self.alpha_overlap:g})"
        )


DEFAULT_RULE = StoppingRule()


@dataclass(frozen=True)
class StopDecision:
    """How many more draws to make in each arm now; ``(0, 0)`` means stop."""

    add_with: int
    add_baseline: int
    settled: bool
    reason: str

    @property
    def stop(self) -> bool:
        """True when no arm gets another draw."""
        return self.add_with == 0 and self.add_baseline == 0


def _chi2_cdf(x: float, df: int) -> float:
    """CDF of the chi-square distribution, exact for integer ``df`` (P(df/2, x/2) by recurrence).

    >>> round(_chi2_cdf(5.991464547, 2), 6)
    0.95
    >>> round(_chi2_cdf(3.841458821, 1), 6)
    0.95
    """
    if x <= 0.0:
        return 0.0
    h = x / 2.0
    if df % 2 == 0:
        a, p = 1.0, -math.expm1(-h)  # P(1, h)
    else:
        a, p = 0.5, math.erf(math.sqrt(h))  # P(1/2, h)
    while a < df / 2.0 - 1e-12:  # P(a + 1, h) = P(a, h) − h^a e^(−h) / Γ(a + 1)
        p -= math.exp(a * math.log(h) - h - math.lgamma(a + 1.0))
        a += 1.0
    return min(1.0, max(0.0, p))


@lru_cache(maxsize=512)
def chi2_quantile(q: float, df: int) -> float:
    """The ``q`` quantile of the chi-square distribution with ``df`` degrees of freedom (bisection).

    >>> round(chi2_quantile(0.05, 2), 4)  # −2·ln(0.95)
    0.1026
    >>> round(chi2_quantile(0.95, 1), 4), round(chi2_quantile(0.05, 9), 3)
    (3.8415, 3.325)
    """
    if not 0.0 < q < 1.0 or df < 1:
        raise ValueError("need 0 < q < 1 and df >= 1")
    lo, hi = 0.0, float(df) + 10.0 * math.sqrt(2.0 * df) + 10.0
    while _chi2_cdf(hi, df) < q:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if _chi2_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


def sd_factor(n: int, q: float) -> float:
    """Multiplier taking a sample sd of ``n`` scores to a confidence limit for the true sd: sqrt((n−1)/χ²_q(n−1)).

    A small ``q`` gives the upper limit, a large ``q`` the lower one.

    >>> round(sd_factor(3, 0.05), 3), round(sd_factor(3, 0.9), 3), round(sd_factor(10, 0.05), 3)
    (4.415, 0.659, 1.645)
    """
    return math.sqrt((n - 1) / chi2_quantile(q, n - 1))


def high_factor(n: int, alpha: float) -> float:
    """The top of the spread interval as a multiple of the sample sd, never below 1.

    >>> round(high_factor(3, 0.05), 3)
    4.415
    """
    return max(1.0, sd_factor(n, alpha))


def low_factor(n: int, alpha: float) -> float:
    """The bottom of the spread interval as a multiple of the sample sd, never above 1.

    Clamped so that a stop on "overlap at the low ends" always implies overlap at the observed spreads.

    >>> round(low_factor(3, 0.1), 3), low_factor(3, 0.45)
    (0.659, 1.0)
    """
    return min(1.0, sd_factor(n, 1.0 - alpha))


def _room(rule: StoppingRule, made: int) -> int:
    return max(0, rule.max_draws - made)


def more_draws(
    rule: StoppingRule,
    with_skill: Sequence[float],
    baseline: Sequence[float],
    *,
    lost_with: int = 0,
    lost_baseline: int = 0,
) -> StopDecision:
    """How many more draws each arm needs now, from the measured draw scores so far.

    ``with_skill`` and ``baseline`` are the measured draw scores (lost draws left out). ``lost_with`` and
    ``lost_baseline`` count lost draws, which use up the ``max_draws`` budget of their arm: an arm never
    gets more than ``max_draws`` draws made, measured or lost. Below ``min_draws`` measured draws an arm
    is topped up (as far as its budget allows).

    >>> more_draws(DEFAULT_RULE, [], [])
    StopDecision(add_with=3, add_baseline=3, settled=False, reason='min_draws not reached')
    >>> more_draws(DEFAULT_RULE, [0.5, 0.55, 0.6], [0.5, 0.6, 0.55])  # plain overlap
    StopDecision(add_with=0, add_baseline=0, settled=True, reason='overlap even at the low ends of the spreads')
    >>> more_draws(DEFAULT_RULE, [0.9, 0.9, 0.91], [0.3, 0.31, 0.3])  # clear separation
    StopDecision(add_with=0, add_baseline=0, settled=True, reason='separation even at the high ends of the spreads')
    >>> more_draws(DEFAULT_RULE, [0.7, 0.72, 0.74], [0.6, 0.62, 0.64])  # separates, but on 3-draw spreads
    StopDecision(add_with=1, add_baseline=1, settled=False, reason='fragile: the spreads could still turn the verdict')
    >>> more_draws(DEFAULT_RULE, [0.7] * 10, [0.6] * 10)
    StopDecision(add_with=0, add_baseline=0, settled=True, reason='separation even at the high ends of the spreads')
    """
    n_w, n_b = len(with_skill), len(baseline)
    room_w, room_b = _room(rule, n_w + lost_with), _room(rule, n_b + lost_baseline)
    need = max(rule.min_draws, 2)  # a spread needs two measured draws
    if n_w < need or n_b < need:
        add_w = min(max(0, need - n_w), room_w)
        add_b = min(max(0, need - n_b), room_b)
        if add_w or add_b:
            return StopDecision(add_w, add_b, False, "min_draws not reached")
        return StopDecision(0, 0, False, "max_draws reached before min_draws were measured")
    verdict = fragility(rule, with_skill, baseline)
    if verdict is not None:
        return StopDecision(0, 0, True, verdict)
    add_w, add_b = min(rule.step, room_w), min(rule.step, room_b)
    if add_w or add_b:
        return StopDecision(add_w, add_b, False, "fragile: the spreads could still turn the verdict")
    return StopDecision(0, 0, False, "max_draws reached, not settled")


def fragility(rule: StoppingRule, a: Sequence[float], b: Sequence[float]) -> str | None:
    """Why the case is settled, or ``None`` while its verdict still hinges on the spreads.

    >>> fragility(DEFAULT_RULE, [0.5, 0.6, 0.7], [0.5, 0.6, 0.7])
    'overlap even at the low ends of the spreads'
    """
    band_a, band_b = band(a), band(b)
    assert band_a.mean is not None and band_b.mean is not None and band_a.sd is not None and band_b.sd is not None
    gap = abs(band_a.mean - band_b.mean)
    top = band_a.sd * high_factor(band_a.n, rule.alpha_separate) + band_b.sd * high_factor(
        band_b.n, rule.alpha_separate
    )
    if gap - top > TOLERANCE and meets_floor(gap, rule.floor):
        return "separation even at the high ends of the spreads"
    bottom = band_a.sd * low_factor(band_a.n, rule.alpha_overlap) + band_b.sd * low_factor(band_b.n, rule.alpha_overlap)
    if gap - bottom <= TOLERANCE or not meets_floor(gap, rule.floor):
        return "overlap even at the low ends of the spreads"
    return None
