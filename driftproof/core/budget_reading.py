"""How a budget's stops read: the status reason that names the budget, and the run it stopped before any draw.
Pure.

A case the budget stopped reads ``underpowered`` (`core.reading.at_budget`). When the budget is what left every
underpowered case short, the status says so, with how many cases it stopped and the least budget their draws
needed (``run.settings.budget``), rather than the generic "Not enough draws": the fix is a larger budget. A run
the budget stopped in every case before any draw of its own returned a judge sample measured nothing, so it has
nothing to verify (``UNVERIFIED``, `plan_sentences.EVERY_CASE_AT_BUDGET`); it still reads ``underpowered``, never
``no_verdict``, so a gate set to fail on underpowered fails it.
"""

from __future__ import annotations

from collections.abc import Sequence

from driftproof.core.compare import Comparison
from driftproof.core.models import Receipt
from driftproof.core.plan_sentences import EVERY_CASE_AT_BUDGET, STOPPED_AT_BUDGET, budget_status_reason
from driftproof.core.words import CaseVerdict, Verification

__all__ = ["budget_reason", "stopped_before_a_draw"]

THIN_BEFORE = ("before", "both")
"""R-7's thin sides that a larger budget for this run cannot fill: the default branch's receipt is short."""


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
