"""The drift report in markdown (``driftproof drift``, the sentinel's job summary and issue) and as plain lines.

Reports layer: the verdict comes from `driftproof.core.drift`, the words from `driftproof.core.drift_sentences`;
every string from a receipt goes through ``md`` or ``code``.
"""

from __future__ import annotations

from driftproof.core.drift import ArmDrift, DriftResult
from driftproof.core.drift_sentences import arm_moved
from driftproof.markdown import band_text, code, md, verdict_text

__all__ = ["drift_lines", "render_drift"]

_ARM_LABEL = {"with_skill": "with-skill", "baseline": "baseline"}


def _moved_line(case_id: str, arm: ArmDrift) -> str:
    return arm_moved(
        case_id,
        _ARM_LABEL[str(arm.arm)],
        arm.direction or "",
        band_text(arm.before),
        band_text(arm.after),
        arm.comparison.delta or 0.0,
    )


def drift_lines(result: DriftResult) -> list[str]:
    """The plain lines a terminal (or the Action's log) shows: the headline, the models, each arm that moved."""
    lines = [f"driftproof drift: {result.headline}", f"models: {result.models.sentence}"]
    lines += [_moved_line(case.id, arm) for case, arm in result.moved]
    if result.changed_cases:
        lines.append(f"left out (prompt or rubric changed): {', '.join(result.changed_cases)}")
    return lines


def _arm_cell(arm: ArmDrift) -> str:
    moved = f" **moved {arm.direction}**" if arm.direction else ""
    delta = "" if arm.comparison.delta is None else f", Δ {arm.comparison.delta:+.2f}"
    return f"{band_text(arm.before)} → {band_text(arm.after)}{delta}: {verdict_text(arm.comparison.verdict)}{moved}"


def render_drift(result: DriftResult, *, before_label: str = "before", after_label: str = "after") -> str:
    """The markdown drift report: headline, models on both sides, a row per case with both arms."""
    out = [
        f"## Driftproof drift · {md(str(result.status))}",
        "",
        f"**{md(result.headline)}**",
        "",
        f"Compared: {md(before_label)} (then) against {md(after_label)} (now), each arm under {md(result.rule)}.",
        "",
        f"Answering models: {md(result.models.sentence)}.",
        "",
    ]
    if result.cases:
        out += ["| case | with-skill (then → now) | baseline (then → now) | models (then → now) |", "|---|---|---|---|"]
        for c in result.cases:
            models = f"{md(', '.join(c.models_before) or '—')} → {md(', '.join(c.models_after) or '—')}"
            out.append(f"| {code(c.id)} | {_arm_cell(c.with_skill)} | {_arm_cell(c.baseline)} | {models} |")
        out.append("")
    if result.moved:
        out += [f"- {md(_moved_line(case.id, arm))}" for case, arm in result.moved]
        out.append("")
    if result.changed_cases:
        shown = ", ".join(code(i, table=False) for i in result.changed_cases)
        out += [f"Left out, their prompt or rubric changed: {shown}.", ""]
    unmatched = [*result.unmatched_before, *result.unmatched_after]
    if unmatched:
        out += [f"Left out, in one receipt only: {', '.join(code(i, table=False) for i in unmatched)}.", ""]
    return "\n".join(out)
