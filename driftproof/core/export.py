"""The stable JSON forms of ``driftproof view`` and ``driftproof diff`` (documented in receipt-spec.md).

Keys named by the spec are a public interface: add to them, never rename them.
"""

from __future__ import annotations

from typing import Any

from driftproof.core.breakdown import ArmFigures, CaseShare, LiftBreakdown
from driftproof.core.diff import DiffCase, DiffResult, NotLikeForLike
from driftproof.core.reading import ArmSummary, CaseReading, NotRun, ReceiptReading
from driftproof.core.sentences import NO_VERDICT_NO_COUNT, not_underpowered
from driftproof.core.words import CaseVerdict

ROUND = 6


def _num(value: float | None) -> float | None:
    return None if value is None else round(value, ROUND)


def arm_json(arm: ArmSummary) -> dict[str, Any]:
    """One arm: mean, sd, measured, drawn, lost (and its reasons, band source, outcome, checks)."""
    return {
        "mean": _num(arm.mean),
        "sd": _num(arm.sd),
        "measured": arm.measured,
        "drawn": arm.drawn,
        "lost": arm.lost,
        "lost_reasons": sorted(set(arm.lost_reasons)),
        "band_source": str(arm.band_source),
        "outcome": None if arm.outcome is None else str(arm.outcome),
        "checks": {"passed": arm.checks_passed, "total": arm.checks_total},
        "skill_fired": None if arm.skill_fired is None else {"fired": arm.skill_fired, "of": arm.skill_fired_of},
        "replaced": arm.replaced,
        "replaced_reasons": sorted(set(arm.replaced_reasons)),
        # which skills fired, with neighbours installed; absent otherwise, so other output stays as it was
        **(
            {"skills_fired": [{"name": c.name, "fired": c.fired, "of": c.of} for c in arm.skills_fired]}
            if arm.skills_fired
            else {}
        ),
    }


def not_run_json(notices: NotRun) -> dict[str, Any]:
    """What the run did not run: ``suite`` (the suite's notices) and ``cases`` (``id`` and ``notices``)."""
    return {
        "suite": list(notices.suite),
        "cases": [{"id": c.id, "notices": list(c.notices)} for c in notices.cases],
    }


def not_like_for_like_json(mismatch: NotLikeForLike | None) -> dict[str, Any] | None:
    """Why the two receipts get no per-case verdict against each other, and each setting that differs."""
    if mismatch is None:
        return None
    return {
        "reason": mismatch.reason,
        "differs": [{"field": d.field, "before": d.before, "after": d.after} for d in mismatch.differs],
    }


def _draws_needed(case: CaseReading | DiffCase) -> tuple[int | None, str | None]:
    """The draws per arm needed, or why there is no count: every ``null`` comes with its reason."""
    cmp = case.comparison
    if case.verdict is None:  # withheld with the verdict when a side has none
        return None, NO_VERDICT_NO_COUNT
    if case.verdict != CaseVerdict.UNDERPOWERED:
        return None, not_underpowered(case.verdict)
    return cmp.draws_needed, cmp.draws_needed_reason


def _figures_json(arm: ArmFigures) -> dict[str, Any]:
    return {"mean": _num(arm.mean), "sd": _num(arm.sd), "measured": arm.measured, "drawn": arm.drawn, "lost": arm.lost}


def _share_json(case: CaseShare) -> dict[str, Any]:
    return {
        "id": case.id,
        "included": case.excluded_reason is None,
        "excluded_reason": case.excluded_reason,
        "with_skill": _figures_json(case.with_skill),
        "baseline": _figures_json(case.baseline),
        "difference": _num(case.difference),
        "lift_without": _num(case.lift_without),
        "lift_without_reason": case.lift_without_reason,
        "separation": None if case.separation is None else str(case.separation),
        "separation_reason": case.separation_reason,
        "carrier": case.carrier,
    }


def breakdown_json(breakdown: LiftBreakdown) -> dict[str, Any]:
    """One receipt's lift breakdown (``view``, and ``diff --lift-breakdown`` for each receipt)."""
    return {
        "available": breakdown.unavailable_reason is None,
        "unavailable_reason": breakdown.unavailable_reason,
        "limits": {"max_cases": breakdown.limits.cases, "max_draws": breakdown.limits.draws},
        "lift": _num(breakdown.lift),
        "lift_reason": breakdown.lift_reason,
        "included_cases": breakdown.included,
        "labels_reason": breakdown.labels_reason,
        "carrier_reason": breakdown.carrier_reason,
        "downward": list(breakdown.downward),
        "carriers": list(breakdown.carriers),
        "cases": [_share_json(c) for c in breakdown.cases],
    }


def view_json(
    reading: ReceiptReading, breakdown: LiftBreakdown | None = None, placebo: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``driftproof view --format json``; with ``breakdown``, its ``lift_breakdown`` too (the CLI always gives it);
    with ``placebo`` (a ``--placebo`` receipt: `core.placebo_reading.placebo_json`), its ``placebo``."""
    cases = []
    for c in reading.cases:
        needed, why = _draws_needed(c)
        cases.append(
            {
                "id": c.id,
                "verdict": None if c.verdict is None else str(c.verdict),
                "delta": _num(c.comparison.delta),
                "outcome": None if c.with_skill.outcome is None else str(c.with_skill.outcome),
                "threshold": c.threshold,
                "draws_needed": needed,
                "draws_needed_reason": why,
                "reason": c.comparison.reason,
                "with_skill": arm_json(c.with_skill),
                "baseline": arm_json(c.baseline),
                "stopped": c.stop_reason,
            }
        )
    return {
        "status": str(reading.status),
        "status_reason": reading.status_reason,
        "no_verdict_reason": reading.no_verdict_reason,
        "verification": str(reading.verification),
        "lift": _num(reading.lift),
        "lift_per_1k": _num(reading.lift_per_1k),
        "skill_tokens": reading.skill_tokens,
        "band_sources": [str(s) for s in reading.band_sources],
        "wide_band": None
        if reading.wide is None
        else {"band": _num(reading.wide.band), "underpowered": reading.wide.underpowered},
        "cases": cases,
        "not_run": not_run_json(reading.not_run),
        **({} if breakdown is None else {"lift_breakdown": breakdown_json(breakdown)}),
        **({} if placebo is None else {"placebo": placebo}),
    }


def diff_json(
    result: DiffResult,
    breakdowns: tuple[LiftBreakdown, LiftBreakdown] | None = None,
    placebo: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``driftproof diff --format json``; with ``breakdowns`` (``--lift-breakdown``: BEFORE's, AFTER's), the
    ``lift_breakdown`` of each receipt too; with ``placebo`` (either receipt has a placebo arm), ``placebo``.
    Without them the document is exactly what it always was."""
    cases = []
    for c in result.cases:
        needed, why = _draws_needed(c)
        cases.append(
            {
                "id": c.id,
                "verdict": None if c.verdict is None else str(c.verdict),
                "delta": _num(c.comparison.delta),
                "before": arm_json(c.before),
                "after": arm_json(c.after),
                "draws_needed": needed,
                "draws_needed_reason": why,
                "reason": c.comparison.reason,
                "lost": c.lost_note,
                "thin": c.comparison.thin,
                "stopped": {"before": c.before_stop, "after": c.after_stop},
            }
        )
    side = {
        name: {
            "status": str(r.status),
            "verification": str(r.verification),
            "no_verdict_reason": r.no_verdict_reason,
            "lift": _num(r.lift),
            "lift_per_1k": _num(r.lift_per_1k),
            "skill_tokens": r.skill_tokens,
            "band_sources": [str(s) for s in r.band_sources],
            "not_run": not_run_json(r.not_run),
        }
        for name, r in (("before", result.before), ("after", result.after))
    }
    return {
        "status": str(result.status),
        "status_reason": result.status_reason,
        "headline": result.headline,
        "rule": result.rule,
        "counts": {
            "improved": result.counts.improved,
            "regressed": result.counts.regressed,
            "below_effect_floor": result.counts.below_effect_floor,
            "no_separation": result.counts.no_separation,
            "underpowered": result.counts.underpowered,
            "inconclusive": result.counts.inconclusive,
        },
        "cases": cases,
        "unmatched": {"before": list(result.unmatched_before), "after": list(result.unmatched_after)},
        "no_verdict": dict(result.no_verdict),
        "different_sources": result.different_sources,
        "not_like_for_like": not_like_for_like_json(result.not_like_for_like),
        "receipts": side,
        **(
            {}
            if breakdowns is None
            else {"lift_breakdown": {"before": breakdown_json(breakdowns[0]), "after": breakdown_json(breakdowns[1])}}
        ),
        **({} if placebo is None else {"placebo": placebo}),
    }
