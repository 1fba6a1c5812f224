"""R-5: the wide band over several cases.

Asked of a receipt (or a diff) in which 2+ cases read ``no_separation`` and none is ``underpowered``
on its own, and no case was called. Per arm, S is the sample sd across cases of the case means and the
comparison band is B = sqrt(S_new² + S_ref²). B ≥ F reads UNDERPOWERED, with no draw count, and one of
two sentences says what makes the band wide.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.core.bands import mean, sample_sd
from driftproof.core.compare import ArmEvidence, lost_range
from driftproof.core.words import EFFECT_FLOOR, MORE_CASES, NOT_ENOUGH_DRAWS, TOLERANCE


@dataclass(frozen=True, slots=True)
class WideBand:
    """The outcome of R-5."""

    band: float
    underpowered: bool
    sentence: str | None
    between_cases: float | None = None
    reason: str | None = None


def _spread_of_means(arms: Sequence[ArmEvidence]) -> float:
    """S for one arm, a lost-draw case's mean moved to the end of its range farther from the rest.

    A case with lost draws widens its case mean by the most it could move with its lost draws anywhere
    in [0, 1]: its mean is taken at whichever end of that range lies farther from the mean of the
    measured case means, which can only widen S.
    """
    measured = [mean(a.scores) for a in arms]
    centre = mean(measured)
    moved: list[float] = []
    for arm, m in zip(arms, measured, strict=True):
        rng = lost_range(arm) if arm.lost else None
        if rng is None:
            moved.append(m)
        else:
            lo, hi = rng
            moved.append(lo if abs(lo - centre) >= abs(hi - centre) else hi)
    sd = sample_sd(moved)
    assert sd is not None  # 2+ cases on every call
    return sd


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
