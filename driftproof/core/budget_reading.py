"""How a budget's stops read: a case it stopped, the status reason that names it, and the run it stopped before
any draw. Pure.

A case the budget stopped reads ``underpowered`` for the budget's reason (`at_budget`, the one place that reason
is chosen: the run's headline, ``view``, ``diff`` and JUnit all say "stopped at the token budget"), and in a diff
(`diff_at_budget`) unless R-7 already calls it. When the budget is what left every underpowered case short, the
status says so (`budget_reason`), with how many cases it stopped and the least budget their draws needed
(``run.settings.budget``), rather than the generic "Not enough draws": the fix is a larger budget. A run the
budget stopped in every case before any draw of its own returned a judge sample measured nothing, so it has
nothing to verify (``UNVERIFIED``, `plan_sentences.EVERY_CASE_AT_BUDGET`); it still reads ``underpowered``, never
``no_verdict``, so a gate set to fail on underpowered fails it (`stopped_before_a_draw`). Kept apart from
``core/reading.py`` so that module stays under its size cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from driftproof.core.compare import Comparison
from driftproof.core.models import Receipt
from driftproof.core.plan_sentences import EVERY_CASE_AT_BUDGET, STOPPED_AT_BUDGET, budget_status_reason
from driftproof.core.words import CaseVerdict, Verification

__all__ = ["at_budget", "budget_reason", "diff_at_budget", "stopped_before_a_draw"]

CALLS = (CaseVerdict.IMPROVED, CaseVerdict.REGRESSED)
"""The verdicts a comparison calls: a separation the draws already show, which the budget never hides."""

THIN_BEFORE = ("before", "both")
"""R-7's thin sides that a larger budget for this run cannot fill: the default branch's receipt is short."""


def at_budget(comparison: Comparison, stop_reason: str | None) -> Comparison:
    """A case the budget stopped reads underpowered, whatever its draws show: the stopping rule wanted more. No
    draw count is given (more draws is what the budget refused), and its reason is "stopped at the token budget".

    >>> from driftproof.core.compare import ArmEvidence, compare
    >>> moved = compare(ArmEvidence((0.8, 0.85, 0.9)), ArmEvidence((0.1, 0.15, 0.2)))
    >>> at_budget(moved, STOPPED_AT_BUDGET).verdict, at_budget(moved, None).verdict
    (<CaseVerdict.UNDERPOWERED: 'underpowered'>, <CaseVerdict.IMPROVED: 'improved'>)
    >>> at_budget(moved, STOPPED_AT_BUDGET).draws_needed_reason
    'stopped at the token budget'
    """
    if stop_reason != STOPPED_AT_BUDGET:
        return comparison
    return replace(
        comparison,
        verdict=CaseVerdict.UNDERPOWERED,
        reason=STOPPED_AT_BUDGET,
        draws_needed=None,
        draws_needed_reason=STOPPED_AT_BUDGET,
        sentence=None,
    )


def diff_at_budget(comparison: Comparison, before_stop: str | None, after_stop: str | None) -> Comparison:
    """A diff's case: one R-7 calls keeps its call (a gate set to ``regressed`` still fails); else AFTER's case
    the budget stopped reads underpowered for the budget's reason, as inside a receipt, and so does an underpowered
    case BEFORE's budget stopped (the draws it lacks are the ones the budget refused there).

    >>> from driftproof.core.compare import ArmEvidence, compare
    >>> one = compare(ArmEvidence((0.8,)), ArmEvidence((0.1, 0.15, 0.2)))
    >>> diff_at_budget(one, STOPPED_AT_BUDGET, None).draws_needed_reason
    'stopped at the token budget'
    >>> diff_at_budget(one, None, None).draws_needed_reason
    'spread unknown: an arm has one draw'
    """
    if comparison.verdict in CALLS:
        return comparison
    if after_stop == STOPPED_AT_BUDGET:
        return at_budget(comparison, after_stop)
    if comparison.verdict == CaseVerdict.UNDERPOWERED and before_stop == STOPPED_AT_BUDGET:
        return at_budget(comparison, before_stop)
    return comparison


def stopped_before_a_draw(receipt: Receipt) -> bool:
    """Whether ``receipt`` is below ``TESTED`` only because the budget stopped every case before a draw of its
    own returned a judge sample (`core.verification.verify` words exactly this reason, after the preset and the
    stub lane): readers give it its status, ``underpowered``, rather than no verdict."""
    return receipt.verification == Verification.UNVERIFIED and receipt.verification_reason == EVERY_CASE_AT_BUDGET


def budget_reason(receipt: Receipt, comparisons: Sequence[Comparison]) -> str | None:
    """The status reason naming the budget when every underpowered one of ``comparisons`` is a case the budget
    stopped (its reason ``STOPPED_AT_BUDGET``) and ``receipt`` records the budget; ``None`` otherwise, and when
    a case is thin on the default branch's side (R-7): more draws of this run would not settle that one."""
    budget = receipt.run.settings.budget
    under = [c for c in comparisons if c.verdict == CaseVerdict.UNDERPOWERED]
    if budget is None or not under or any(c.reason != STOPPED_AT_BUDGET or c.thin in THIN_BEFORE for c in under):
        return None
    return budget_status_reason(len(receipt.cases), budget)
