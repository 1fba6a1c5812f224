"""The lift's small rules: the skill's size in tokens, the lift per 1k of them, and why a receipt has no suite
lift. Pure; `driftproof.core.reading` computes the lift and re-exports these.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from driftproof.core.breakdown_sentences import missing_evidence
from driftproof.core.economics import CHARS_PER_TOKEN
from driftproof.core.models import Case

__all__ = ["lift_per_1k", "missing_arm", "skill_tokens"]


def skill_tokens(chars: int) -> int:
    """ceil(chars ÷ 4), the coarse token estimate of a SKILL.md of ``chars`` characters (`estimate_tokens`).

    >>> skill_tokens(1601)
    401
    """
    return math.ceil(chars / CHARS_PER_TOKEN)


def lift_per_1k(lift: float | None, tokens: int | None) -> float | None:
    """Lift per 1k skill tokens = lift ÷ (tokens ÷ 1000); ``None`` without a lift or a skill size.

    >>> lift_per_1k(0.1, 400)
    0.25
    """
    if lift is None or not tokens:
        return None
    return lift / (tokens / 1000)


def missing_arm(cases: Sequence[Case]) -> str | None:
    """Why a receipt has no suite lift: a case arm that records no draw at all (a case the budget never let
    draw), which the lift cannot leave out unannounced; ``None`` when every arm records one. The headline lift and
    the lift breakdown both ask it.

    >>> missing_arm([])
    """
    for case in cases:
        for arm, words in ((case.with_skill, "with-skill"), (case.baseline, "baseline")):
            if not arm.draws:
                return missing_evidence(case.id, words)
    return None
