"""How a case the budget stopped reads: underpowered, for the budget's reason. Pure.

The one place that reason is chosen (`at_budget`), for a receipt's reading (`driftproof.core.reading`) and a diff's
(`budget_reason`); kept apart so ``core/reading.py`` stays under its size cap.
"""

from __future__ import annotations

from dataclasses import replace

from driftproof.core.compare import Comparison
from driftproof.core.plan_sentences import STOPPED_AT_BUDGET
from driftproof.core.words import CaseVerdict


def at_budget(comparison: Comparison, stop_reason: str | None) -> Comparison:
    """A case the budget stopped reads underpowered, whatever its draws show: the stopping rule wanted more. The one
    place its reason is chosen: no draw count is given (more draws is what the budget refused), and every report
    (the run's headline, ``view``, ``diff``, JUnit) says "stopped at the token budget".

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


def budget_reason(comparison: Comparison, *stop_reasons: str | None) -> Comparison:
    """A diff's underpowered case where either receipt's run was stopped by the budget: its reason is the budget's
    (`at_budget`), not a draw count the budget refused; a case the diff calls keeps its call.

    >>> from driftproof.core.compare import ArmEvidence, compare
    >>> one = compare(ArmEvidence((0.8,)), ArmEvidence((0.1, 0.15, 0.2)))
    >>> budget_reason(one, None, STOPPED_AT_BUDGET).draws_needed_reason, budget_reason(one, None).draws_needed_reason
    ('stopped at the token budget', 'spread unknown: an arm has one draw')
    """
    if comparison.verdict != CaseVerdict.UNDERPOWERED or STOPPED_AT_BUDGET not in stop_reasons:
        return comparison
    return at_budget(comparison, STOPPED_AT_BUDGET)
