"""R-7: what a call between two receipts needs beyond R-1 … R-6 (the diff, and the Action's gate).

Inside one receipt both arms are drawn by the same run, and the stopping rule ends a case early only when its
verdict no longer hinges on the spreads. Between two receipts one side is fixed: the default branch's receipt
was drawn by an earlier run, and a pull request cannot draw more of it. A 3-draw spread is a poor estimate of
the true one (with 2 degrees of freedom it comes out below half the true sd in 22 % of arms), so two runs
of an unchanged skill separated in 1–4 % of cases, and a 10-case pull request that changed nothing failed the
gate in up to a fifth of runs. R-7 is the calibrated condition that stops this (``benchmarks/false_calls.py``):

**R-7.** Between two receipts, a case is called ``improved`` or ``regressed`` only when R-1 … R-6 call it and
each of the two arms compared has at least ``CALL_MIN_DRAWS`` measured draws. Otherwise the case is
``underpowered``: with the sentence "Not enough draws on the default branch's receipt to conclude at this
effect floor." when BEFORE's arm is the thin one, and "Not enough draws to conclude at this effect floor." when
AFTER's is; the draws per arm needed are ``CALL_MIN_DRAWS``.

At 7 draws a sample sd is within [0.64, 1.89] of the true sd at 90 % (chi-square, 6 degrees of freedom); the
calibration shows it keeps an unchanged skill's false calls under 0.5 % per case for every spread tried, while a
drop of 2.5 generation sds is still called in about 80 % of cases. Pure: evidence in, a comparison out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from driftproof.core.compare import ArmEvidence, Comparison, compare
from driftproof.core.sentences import NOT_ENOUGH_DRAWS, THIN_REFERENCE
from driftproof.core.words import EFFECT_FLOOR, CaseVerdict

#: R-7: the fewest measured draws each arm compared needs for a call between two receipts.
CALL_MIN_DRAWS = 7

#: The rule between two receipts, as the diff names it.
DIFF_RULE = f"R-1…R-6, R-7 (a call needs {CALL_MIN_DRAWS} measured draws in each arm compared)"

Thin = Literal["before", "after", "both"]


def thin_side(new: ArmEvidence, ref: ArmEvidence, needed: int = CALL_MIN_DRAWS) -> Thin | None:
    """Which arm has fewer than ``needed`` measured draws: ``ref`` is BEFORE (the default branch's receipt).

    >>> seven, three = ArmEvidence((0.5,) * 7), ArmEvidence((0.5,) * 3)
    >>> thin_side(seven, three), thin_side(three, seven), thin_side(seven, seven)
    ('before', 'after', None)
    """
    new_thin, ref_thin = new.measured < needed, ref.measured < needed
    if new_thin and ref_thin:
        return "both"
    if ref_thin:
        return "before"
    return "after" if new_thin else None


def compare_between(
    new: ArmEvidence, ref: ArmEvidence, floor: float = EFFECT_FLOOR, needed: int = CALL_MIN_DRAWS
) -> Comparison:
    """The verdict of AFTER's arm ``new`` against BEFORE's ``ref``: R-1 … R-6, then R-7.

    >>> up = ArmEvidence((0.80, 0.82, 0.84))
    >>> compare_between(up, ArmEvidence((0.50, 0.52, 0.54))).verdict  # apart, but 3 draws a side
    <CaseVerdict.UNDERPOWERED: 'underpowered'>
    >>> compare_between(ArmEvidence((0.80, 0.82, 0.84) * 3), ArmEvidence((0.50, 0.52, 0.54) * 3)).verdict
    <CaseVerdict.IMPROVED: 'improved'>
    """
    base = compare(new, ref, floor)
    thin = thin_side(new, ref, needed)
    if base.verdict not in (CaseVerdict.IMPROVED, CaseVerdict.REGRESSED) or thin is None:
        return base
    sentence = THIN_REFERENCE if thin in ("before", "both") else NOT_ENOUGH_DRAWS
    counts = f"before has {ref.measured}, after {new.measured}"
    return replace(
        base,
        verdict=CaseVerdict.UNDERPOWERED,
        draws_needed=needed,
        draws_needed_reason=None,
        reason=f"R-7: separated, but a call needs {needed} measured draws in each arm ({counts})",
        thin=thin,
        sentence=sentence,
    )
