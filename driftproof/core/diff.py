"""Diff: ``with_skill`` of BEFORE against ``with_skill`` of AFTER, per case id.

Cases only on one side are listed as unmatched and left out. Each lost-draw case is named with each
side's lost and drawn counts and reasons. The headline says "no separation detected at this sample
size" when nothing separated, and otherwise names the direction of each separation.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.core.compare import Comparison, compare
from driftproof.core.models import Receipt
from driftproof.core.reading import (
    ArmSummary,
    ReceiptReading,
    StatusReading,
    evidence,
    judge_status,
    no_verdict_reason,
    read_receipt,
    summarize,
)
from driftproof.core.wide_band import WideBand
from driftproof.core.words import DIFFERENT_SOURCES, NO_SEPARATION_HEADLINE, SMOKE_RUN, CaseVerdict, Status


@dataclass(frozen=True, slots=True)
class DiffCase:
    """One matched case: BEFORE's and AFTER's with_skill arms."""

    id: str
    comparison: Comparison
    verdict: CaseVerdict | None
    before: ArmSummary
    after: ArmSummary

    @property
    def lost_note(self) -> str | None:
        """Each side's lost and drawn counts and reasons, when either side lost a draw."""
        if not (self.before.lost or self.after.lost):
            return None
        return f"after lost {_side(self.after)}; before lost {_side(self.before)}"


def _side(arm: ArmSummary) -> str:
    reasons = sorted(set(arm.lost_reasons))
    why = f" ({', '.join(reasons)})" if reasons else ""
    return f"{arm.lost} of {arm.drawn} draws{why}"


@dataclass(frozen=True, slots=True)
class Counts:
    """How many cases read each verdict; below_effect_floor is counted apart from no_separation."""

    improved: int = 0
    regressed: int = 0
    below_effect_floor: int = 0
    no_separation: int = 0
    underpowered: int = 0
    inconclusive: int = 0


@dataclass(frozen=True, slots=True)
class DiffResult:
    """The comparison of two receipts."""

    status: Status
    status_reason: str
    headline: str
    counts: Counts
    cases: tuple[DiffCase, ...]
    unmatched_before: tuple[str, ...]
    unmatched_after: tuple[str, ...]
    before: ReceiptReading
    after: ReceiptReading
    no_verdict: dict[str, str]
    """Each side without a verdict, with its full reason."""
    wide: WideBand | None
    different_sources: str | None


def headline(counts: Counts, withheld: dict[str, str]) -> str:
    """The one line a reviewer reads first.

    >>> headline(Counts(regressed=1, improved=2), {})
    '1 case separated downward (regressed), 2 cases separated upward (improved)'
    >>> headline(Counts(no_separation=3), {})
    'no separation detected at this sample size'
    """
    if withheld:
        return "no verdict: " + "; ".join(f"{side} is {why}" for side, why in withheld.items())
    parts = []
    if counts.regressed:
        parts.append(f"{_n(counts.regressed)} separated downward (regressed)")
    if counts.improved:
        parts.append(f"{_n(counts.improved)} separated upward (improved)")
    return ", ".join(parts) if parts else NO_SEPARATION_HEADLINE


def _n(k: int) -> str:
    return f"{k} case" if k == 1 else f"{k} cases"


def short_reason(receipt: Receipt) -> str | None:
    """Why a side gets no verdict, in a few words for the headline.

    The full reason (with the receipt's own ``verification_reason``) is ``no_verdict_reason``.
    """
    if no_verdict_reason(receipt) is None:
        return None
    if receipt.run.preset is not None:
        return f"a smoke run ({SMOKE_RUN})"
    if receipt.uncertainty_unavailable == "aggregates_only":
        return "aggregates only"
    return f"below TESTED ({receipt.verification})"


def diff(before: Receipt, after: Receipt) -> DiffResult:
    """Compare AFTER's with_skill arm against BEFORE's, case by case (matched by id)."""
    sides = (("before", before), ("after", after))
    withheld = {side: why for side, r in sides if (why := short_reason(r))}
    full = {side: why for side, r in sides if (why := no_verdict_reason(r))}
    before_cases = {c.id: c for c in before.cases}
    after_ids = [c.id for c in after.cases]
    matched = [c for c in after.cases if c.id in before_cases]
    new = [evidence(c.with_skill) for c in matched]
    ref = [evidence(before_cases[c.id].with_skill) for c in matched]
    comparisons = [compare(n, r) for n, r in zip(new, ref, strict=True)]
    cases = tuple(
        DiffCase(
            id=c.id,
            comparison=cmp,
            verdict=None if withheld else cmp.verdict,
            before=summarize(before_cases[c.id].with_skill, before_cases[c.id].threshold),
            after=summarize(c.with_skill, c.threshold),
        )
        for c, cmp in zip(matched, comparisons, strict=True)
    )
    tally = {v: 0 for v in CaseVerdict}
    for case in cases:
        if case.verdict is not None:
            tally[case.verdict] += 1
    counts = Counts(**{v.value: n for v, n in tally.items()})
    if withheld:
        status = StatusReading(Status.NO_VERDICT, headline(counts, withheld), None)
    else:
        status = judge_status(comparisons, new, ref)
    r_before, r_after = read_receipt(before), read_receipt(after)
    src_before = {s for c in cases for s in [c.before.band_source]}
    src_after = {s for c in cases for s in [c.after.band_source]}
    return DiffResult(
        status=status.status,
        status_reason=status.reason,
        headline=headline(counts, withheld),
        counts=counts,
        cases=cases,
        unmatched_before=tuple(i for i in before_cases if i not in set(after_ids)),
        unmatched_after=tuple(i for i in after_ids if i not in before_cases),
        before=r_before,
        after=r_after,
        no_verdict=full,
        wide=status.wide,
        different_sources=DIFFERENT_SOURCES if src_before and src_after and src_before != src_after else None,
    )
