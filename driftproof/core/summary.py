"""The minimal interchange summary of one receipt: ``driftproof export RECEIPT --format summary-json``. Pure.

Its JSON Schema ships as ``schemas/summary-1.schema.json`` (``SUMMARY_SCHEMA_ID``), documented in docs/interop.md.
What it holds: the skill, the model and lane, the judge, the verification level, the status with its reason, the
lift and the lift per 1k skill tokens with their signs (kept as context below TESTED, as every reader keeps them),
and per case each arm's mean, spread and counts. A count the receipt does not establish is the string
``"unknown"``, never ``null`` read as a number and never 1. A receipt with no verdict (DECLARED, a smoke run,
aggregates only) exports its figures beside the marks that say why: ``no_verdict_reason``, ``verification``,
``preset`` and ``uncertainty_unavailable``; an aggregates-only receipt exports no lift, and its source's figures
as the source printed them.
"""

from __future__ import annotations

from typing import Any

from driftproof.core.models import Receipt
from driftproof.core.reading import ArmSummary, ReceiptReading, skill_name

#: The version of the summary's own format (not a receipt schema version).
SUMMARY_VERSION = "1"
SUMMARY_SCHEMA_ID = f"https://driftproof.dev/spec/summary-{SUMMARY_VERSION}.schema.json"
#: How the summary says a count the receipt does not establish.
UNKNOWN = "unknown"
ROUND = 6


def _num(value: float | None) -> float | None:
    return None if value is None else round(value, ROUND)


def _signed(value: float | None) -> str | None:
    """The figure as text with its sign, at the same 6 places as the number: ``+0.399375``, ``-0.050000``.

    >>> _signed(0.399375), _signed(-0.05), _signed(None)
    ('+0.399375', '-0.050000', None)
    """
    return None if value is None else f"{round(value, ROUND):+.{ROUND}f}"


def _count(value: int | None) -> int | str:
    """A count as recorded, or ``"unknown"`` when the receipt does not establish it (never 1)."""
    return UNKNOWN if value is None else value


def _arm(arm: ArmSummary, recorded: int) -> dict[str, Any]:
    """One arm: mean and sd over the measured draws, the counts (unknown when the arm records no draw at all)."""
    known = recorded > 0
    return {
        "mean": _num(arm.mean),
        "sd": _num(arm.sd),
        "measured": arm.measured if known else UNKNOWN,
        "drawn": arm.drawn if known else UNKNOWN,
        "lost": arm.lost if known else UNKNOWN,
        "skill_fired": None if arm.skill_fired is None else {"fired": arm.skill_fired, "of": arm.skill_fired_of},
    }


def _setup(receipt: Receipt) -> dict[str, Any]:
    """The skill, the model, the lane and the judge, as the receipt records them."""
    skill, lane, run, judge = receipt.skill, receipt.run.lane, receipt.run, receipt.judge
    return {
        "skill": {
            "name": skill_name(receipt),
            "path": skill.path if skill else None,
            "sha256": skill.sha256 if skill else None,
            "tokens": _count(skill.tokens if skill else None),
        },
        "model": {"requested": lane.model_requested, "reported": list(lane.models_reported)},
        "lane": {
            "provider": lane.provider,
            "surface": str(lane.surface),
            "harness": None if run.harness is None else {"name": run.harness.name, "version": run.harness.version},
            "capture": None if run.capture is None else str(run.capture),
            "delivery": None if run.settings.delivery is None else str(run.settings.delivery),
        },
        "judge": None
        if judge is None
        else {
            "provider": judge.provider,
            "surface": str(judge.surface),
            "model_requested": judge.model_requested,
            "models_reported": list(judge.models_reported),
            "template_sha256": judge.template_sha256,
        },
    }


def summary_json(receipt: Receipt, reading: ReceiptReading) -> dict[str, Any]:
    """The summary-json document of ``receipt`` as ``reading`` (`read_receipt`) reads it."""
    counts = receipt.counts
    cases = [
        {
            "id": c.id,
            "delta": _num(r.comparison.delta),
            "with_skill": _arm(r.with_skill, len(c.with_skill.draws)),
            "baseline": _arm(r.baseline, len(c.baseline.draws)),
        }
        for c, r in zip(receipt.cases, reading.cases, strict=True)
    ]
    return {
        "$schema": SUMMARY_SCHEMA_ID,
        "summary_version": SUMMARY_VERSION,
        "receipt": {
            "schema_version": receipt.schema_version,
            "seal_sha256": receipt.seal.sha256,
            "tool": {"name": receipt.tool.name, "version": receipt.tool.version},
            "created_at": receipt.created_at,
        },
        **_setup(receipt),
        "verification": str(reading.verification),
        "verification_reason": receipt.verification_reason,
        "preset": receipt.run.preset,
        "uncertainty_unavailable": receipt.uncertainty_unavailable,
        "status": str(reading.status),
        "status_reason": reading.status_reason,
        "no_verdict_reason": reading.no_verdict_reason,
        "lift": _num(reading.lift),
        "lift_signed": _signed(reading.lift),
        "lift_per_1k": _num(reading.lift_per_1k),
        "lift_per_1k_signed": _signed(reading.lift_per_1k),
        "counts": {
            "cases": len(receipt.cases),
            "draws_per_arm_min": _count(counts.draws_per_arm_min),
            "draws_per_arm_max": _count(counts.draws_per_arm_max),
            "judge_samples_per_draw": _count(counts.judge_samples_per_draw),
        },
        "cases": cases,
        "source": None if receipt.source is None else receipt.source.model_dump(mode="json"),
        "source_figures": receipt.source_figures,
    }
