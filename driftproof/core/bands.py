"""Bands and the arithmetic of the rule: R-1 band, R-2 separation, R-3 effect floor, R-4 resolution.

Pure functions over plain numbers. Degenerate input is an explicit branch, never a NaN:
one score gives ``sd=None``; no score gives ``mean=None``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.core.sentences import NO_DRAW_COUNT, SPREAD_UNKNOWN
from driftproof.core.words import EFFECT_FLOOR, TOLERANCE, BandSource


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean (``math.fsum``); needs at least one value.

    >>> mean([0.25, 0.5, 0.75])
    0.5
    """
    if not values:  # an empty arm has no mean; callers branch on n == 0 before asking
        raise ValueError("mean requires at least one data point")
    return math.fsum(values) / len(values)


def sample_sd(values: Sequence[float]) -> float | None:
    """Sample standard deviation (ddof=1); ``None`` below two values (the spread is unknown).

    >>> round(sample_sd([0.1, 0.2, 0.3]), 12)
    0.1
    >>> sample_sd([0.4]) is None
    True
    """
    n = len(values)
    if n < 2:
        return None
    m = mean(values)
    return math.sqrt(math.fsum((x - m) ** 2 for x in values) / (n - 1))


@dataclass(frozen=True, slots=True)
class Band:
    """R-1: an arm's mean ± one sample sd over ``n`` scores. ``sd`` is ``None`` when n < 2."""

    mean: float | None
    sd: float | None
    n: int
    source: BandSource = BandSource.GENERATION

    @property
    def lo(self) -> float | None:
        """Lower edge, mean − sd."""
        return None if self.mean is None or self.sd is None else self.mean - self.sd

    @property
    def hi(self) -> float | None:
        """Upper edge, mean + sd."""
        return None if self.mean is None or self.sd is None else self.mean + self.sd


def band(scores: Sequence[float], source: BandSource = BandSource.GENERATION) -> Band:
    """R-1: the band of a list of scores (measured draw scores, or one legacy draw's judge samples).

    >>> b = band([0.5, 0.6, 0.7])
    >>> round(b.mean, 12), round(b.sd, 12), b.n
    (0.6, 0.1, 3)
    """
    if not scores:
        return Band(mean=None, sd=None, n=0, source=source)
    return Band(mean=mean(scores), sd=sample_sd(scores), n=len(scores), source=source)


def separated(a: Band, b: Band) -> bool:
    """R-2: the bands separate when one lies wholly above the other; touching is overlap.

    A band without a spread (n < 2) never separates.

    >>> separated(band([0.1, 0.2, 0.3]), band([0.5, 0.6, 0.7]))
    True
    >>> separated(band([0.1, 0.2, 0.3]), band([0.3, 0.4, 0.5]))  # 0.3 touches 0.3
    False
    """
    if a.lo is None or b.lo is None or a.hi is None or b.hi is None:
        return False
    return a.lo - b.hi > TOLERANCE or b.lo - a.hi > TOLERANCE


def meets_floor(delta: float, floor: float = EFFECT_FLOOR) -> bool:
    """R-3: |delta| ≥ F (within float tolerance).

    >>> meets_floor(0.05), meets_floor(-0.07), meets_floor(0.049)
    (True, True, False)
    """
    return abs(delta) >= floor - TOLERANCE


def resolution(a: Band, b: Band) -> float | None:
    """R-4: r = s_a + s_b + 2·sqrt(s_a²/n_a + s_b²/n_b); ``None`` when a spread is unknown.

    >>> round(resolution(band([0.1, 0.2, 0.3]), band([0.1, 0.2, 0.3])), 6)  # 0.2 + 2*sqrt(0.02/3)
    0.363299
    """
    if a.sd is None or b.sd is None:
        return None
    return a.sd + b.sd + 2.0 * math.sqrt(a.sd**2 / a.n + b.sd**2 / b.n)


@dataclass(frozen=True, slots=True)
class DrawsNeeded:
    """R-4: draws per arm that would reach the floor with the spreads held, or why none is given."""

    n: int | None
    reason: str | None


def draws_needed(sd_a: float | None, sd_b: float | None, floor: float = EFFECT_FLOOR) -> DrawsNeeded:
    """R-4: the smallest n ≥ 2 with s_a + s_b + 2·sqrt((s_a² + s_b²)/n) < F, strictly: a value within
    ``TOLERANCE`` of F reaches it (judge-grid scores are exact decimals that floats only approximate).

    >>> draws_needed(0.01, 0.01)  # need 2*sqrt(0.0002/n) < 0.03, n > 0.0008/0.0009: n = 2 (R-1 minimum)
    DrawsNeeded(n=2, reason=None)
    >>> draws_needed(0.015, 0.01)  # 4*0.000325/0.025**2 = 2.08, so n = 3
    DrawsNeeded(n=3, reason=None)
    >>> draws_needed(0.03, 0.03).reason
    'no draw count reaches the floor'
    >>> draws_needed(None, 0.01).reason
    'spread unknown: an arm has one draw'
    """
    if sd_a is None or sd_b is None:
        return DrawsNeeded(n=None, reason=SPREAD_UNKNOWN)
    room = floor - TOLERANCE - sd_a - sd_b  # what 2·sqrt((s_a² + s_b²)/n) must stay strictly below
    if room <= TOLERANCE:  # the spreads alone reach the floor: more draws narrow only the standard error
        return DrawsNeeded(n=None, reason=NO_DRAW_COUNT)
    variance = sd_a**2 + sd_b**2

    def reaches(n: int) -> bool:  # strictly below the floor, by more than the one tolerance (a tie is not below)
        return sd_a + sd_b + 2.0 * math.sqrt(variance / n) < floor - TOLERANCE

    n = max(2, math.floor(4.0 * variance / room**2) + 1)  # within a step or two of the answer: floats only
    while not reaches(n):  # float guard: step up until the inequality holds
        n += 1
    while n > 2 and reaches(n - 1):  # and down to the smallest that does
        n -= 1
    return DrawsNeeded(n=n, reason=None)
