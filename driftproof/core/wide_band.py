"""R-5: the wide band over several cases.

Asked of a receipt (or a diff) in which 2+ cases read ``no_separation`` and none is ``underpowered``
on its own, and no case was called. Per arm, S is the sample sd across cases of the case means and the
comparison band is B = sqrt(S_new² + S_ref²). B ≥ F reads UNDERPOWERED, with no draw count, and one of
two sentences says what makes the band wide.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.core.bands import mean, sample_sd
from driftproof.core.compare import ArmEvidence, lost_range
from driftproof.core.sentences import MORE_CASES, NOT_ENOUGH_DRAWS
from driftproof.core.words import EFFECT_FLOOR, TOLERANCE


@dataclass(frozen=True, slots=True)
class WideBand:
    """The outcome of R-5."""

    band: float
    underpowered: bool
    sentence: str | None
    between_cases: float | None = None
    reason: str | None = None


#: Up to this many lost-draw cases in an arm, the widest spread is found at the exact worst vertex
#: (2^k corners); beyond it, a bound that is never below the exact one (``_spread_bound``).
MAX_EXACT_LOST_CASES = 12


def _spread_of_means(arms: Sequence[ArmEvidence]) -> float:
    """S for one arm, each lost-draw case's mean anywhere its lost draws could put it: the widest S that allows.

    A case with lost draws widens its case mean by the most it could move with its lost draws anywhere in
    [0, 1] (seed 000, R-5): its mean lies in [sum/drawn, (sum + lost)/drawn]. S is a convex function of the case
    means, so its largest value over that box sits at a corner: with up to `MAX_EXACT_LOST_CASES` such cases
    every corner is tried; with more, `_spread_bound` gives a value at least as wide.
    """
    fixed = [mean(a.scores) for a in arms if not a.lost]
    boxes = [r for a in arms if a.lost and (r := lost_range(a)) is not None]
    n = len(fixed) + len(boxes)
    if not boxes:
        sd = sample_sd(fixed)
        assert sd is not None  # 2+ cases on every call
        return sd
    if len(boxes) > MAX_EXACT_LOST_CASES:
        return _spread_bound(fixed, boxes)
    total, squares = math.fsum(fixed), math.fsum(x * x for x in fixed)
    widest = 0.0
    for corner in itertools.product(*boxes):
        t, q = total + math.fsum(corner), squares + math.fsum(x * x for x in corner)
        widest = max(widest, max(0.0, q - t * t / n) / (n - 1))
    return math.sqrt(widest)


def _spread_bound(fixed: Sequence[float], boxes: Sequence[tuple[float, float]]) -> float:
    """An upper bound on S over the box: min over c of sqrt(Σ max-distance² to c / (n − 1)).

    For any choice of case means x, Σ(x − x̄)² ≤ Σ(x − c)² for every c, and each box term is at most its
    farther end's distance², so the bound holds; it is convex in c, minimised by ternary search on [0, 1].
    """
    n = len(fixed) + len(boxes)

    def total(c: float) -> float:
        far = math.fsum(max((lo - c) ** 2, (hi - c) ** 2) for lo, hi in boxes)
        return math.fsum((x - c) ** 2 for x in fixed) + far

    lo, hi = 0.0, 1.0
    for _ in range(100):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        lo, hi = (lo, b) if total(a) <= total(b) else (a, hi)
    return math.sqrt(total((lo + hi) / 2) / (n - 1))


def _draw_part(arms: Sequence[ArmEvidence]) -> float:
    """Mean over cases of s_i²/n_i: the draw-to-draw part of the variance of the case means."""
    parts = []
    for a in arms:
        sd = sample_sd(a.scores)
        assert sd is not None  # callers rule out n < 2 first
        parts.append(sd**2 / len(a.scores))
    return mean(parts)


def wide_band(new: Sequence[ArmEvidence], ref: Sequence[ArmEvidence], floor: float = EFFECT_FLOOR) -> WideBand:
    """R-5 over the cases given (each with a measured draw in both arms); needs 2+ cases.

    >>> wb = wide_band([ArmEvidence((0.3, 0.3)), ArmEvidence((0.6, 0.6))],
    ...                [ArmEvidence((0.3, 0.3)), ArmEvidence((0.6, 0.6))])
    >>> wb.underpowered, wb.sentence == MORE_CASES   # S = 0.2121 per arm, no draw spread at all
    (True, True)
    """
    if len(new) != len(ref) or len(new) < 2:
        raise ValueError("the wide band needs the same 2+ cases on both sides")
    s_new, s_ref = _spread_of_means(new), _spread_of_means(ref)
    b = math.sqrt(s_new**2 + s_ref**2)
    if b + TOLERANCE < floor:
        return WideBand(band=b, underpowered=False, sentence=None)
    everything = list(new) + list(ref)
    if any(a.lost for a in everything):
        return WideBand(b, True, NOT_ENOUGH_DRAWS, reason="a case lost draws")
    if any(a.measured < 2 or a.is_legacy for a in everything):
        return WideBand(b, True, NOT_ENOUGH_DRAWS, reason="an arm has no recorded spread across draws")
    between_new = max(0.0, s_new**2 - _draw_part(new))
    between_ref = max(0.0, s_ref**2 - _draw_part(ref))
    between = math.sqrt(between_new + between_ref)
    if between + TOLERANCE >= floor:
        return WideBand(b, True, MORE_CASES, between_cases=between, reason="the cases disagree")
    return WideBand(b, True, NOT_ENOUGH_DRAWS, between_cases=between, reason="draw spread widens the band")
