"""The placebo section of the view, the first-run report and the PR comment (``templates/placebo.md.j2``).

Reports layer: reads a receipt's placebo arm (`driftproof.core.placebo_reading`) beside its headline reading
(`driftproof.core.reading.read_receipt`) into rows the template prints; nothing for a receipt without one.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.core.models import Receipt
from driftproof.core.placebo_reading import placebo_note, read_placebo
from driftproof.core.placebo_sentences import placebo_lead
from driftproof.core.reading import ArmSummary, ReceiptReading, summarize
from driftproof.core.words import CaseVerdict, Status


@dataclass(frozen=True, slots=True)
class PlaceboRow:
    """One case: its three arms, and with skill against baseline and against placebo."""

    id: str
    with_skill: ArmSummary
    baseline: ArmSummary
    placebo: ArmSummary
    vs_none: float | None
    vs_none_verdict: CaseVerdict | None
    vs_context: float | None
    vs_context_verdict: CaseVerdict | None


@dataclass(frozen=True, slots=True)
class PlaceboSection:
    """What the template prints: the lead, each case, and the two overall lifts with their statuses."""

    lead: str
    rows: tuple[PlaceboRow, ...]
    lift_vs_none: float | None
    status_vs_none: Status
    lift_vs_context: float | None
    status_vs_context: Status
    label: str | None = None


def placebo_section(receipt: Receipt, reading: ReceiptReading, label: str | None = None) -> PlaceboSection | None:
    """The section of ``receipt`` (read as ``reading``); ``None`` when it has no placebo arm."""
    placebo = read_placebo(receipt)
    if placebo is None or receipt.placebo is None:
        return None
    rows = tuple(
        PlaceboRow(
            id=case.id,
            with_skill=head.with_skill,
            baseline=head.baseline,
            placebo=summarize(case.placebo, case.threshold) if case.placebo is not None else head.baseline,
            vs_none=head.comparison.delta,
            vs_none_verdict=head.verdict,
            vs_context=pair.lift,
            vs_context_verdict=pair.verdict,
        )
        for case, head, pair in zip(receipt.cases, reading.cases, placebo.cases, strict=True)
    )
    lead = placebo_lead(placebo.tokens, receipt.placebo.sha256)
    return PlaceboSection(lead, rows, reading.lift, reading.status, placebo.lift, placebo.status, label)


def diff_placebo(
    before: Receipt, after: Receipt, readings: tuple[ReceiptReading, ReceiptReading], labels: tuple[str, str]
) -> tuple[PlaceboSection | None, str | None]:
    """The comparison report's placebo section (AFTER's, else BEFORE's) and its note when only one has one."""
    section = placebo_section(after, readings[1], labels[1]) or placebo_section(before, readings[0], labels[0])
    return section, placebo_note(before, after, labels)
