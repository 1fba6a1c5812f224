"""Markdown rendering: Jinja templates in a sandboxed environment, every receipt string escaped.

Anything that comes from a receipt or a suite (case ids, reasons, model ids) goes through ``md`` or
``code``: no markdown or HTML injection, no ``@mention`` pings, no broken tables from ``|`` or newlines.

Four forms: the comparison report (``render_diff``, also the PR comment), the first-run report
(``render_first_run``: nothing stored on the default branch yet), the single-receipt view
(``render_view``) and the short job-summary form (``render_summary``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from driftproof.core.decision import Decision
from driftproof.core.decision import signed_or_na as signed
from driftproof.core.diff import DiffResult, short_reason
from driftproof.core.models import Receipt
from driftproof.core.reading import CALLS, ArmSummary, ReceiptReading
from driftproof.core.words import (
    DIFFERENT_SOURCES,
    MORE_CASES,
    NO_DRAW_COUNT,
    NO_SEPARATION_HEADLINE,
    NOT_ENOUGH_DRAWS,
    NOT_PROOF,
    SMOKE_RUN,
    SPREAD_UNKNOWN,
    BandSource,
    CaseVerdict,
)
from driftproof.resources import data_dir

__all__ = [
    "code",
    "first_run_sentence",
    "md",
    "render_diff",
    "render_error_comment",
    "render_first_run",
    "render_summary",
    "render_view",
    "signed",
]

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]|<>~&#])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")

SOURCE_LEGEND = {
    BandSource.GENERATION: "generation: mean ± sd across the arm's draws, each draw scored by the judge",
    BandSource.LEGACY: "legacy: one draw per arm; the band is the spread of the judge's samples, not of the model",
}


def md(value: object) -> str:
    """Escape text for a markdown table cell or line: one line, no markup, no mentions, no HTML.

    >>> md("a|b\\n<b>@team **x** (y)")
    'a\\\\|b \\\\<b\\\\>@\\u200bteam \\\\*\\\\*x\\\\*\\\\* (y)'
    """
    text = " ".join(str(value).split())
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MENTION.sub("@\u200b", text)


def code(value: object, table: bool = True) -> str:
    """Inline code for an id: one line, backticks replaced so the span cannot break, no mentions.

    In a table cell ``|`` is escaped (GFM splits cells before it reads code spans).

    >>> code("a|b `x`\\n@team"), code("a|b", table=False)
    ("`a\\\\|b 'x' @\\u200bteam`", '`a|b`')
    """
    text = _MENTION.sub("@\u200b", " ".join(str(value).split()).replace("`", "'"))
    if table:
        text = text.replace("|", "\\|")
    return f"`{text or ' '}`"


def band_text(arm: ArmSummary) -> str:
    """``0.91 ± 0.02 (5/6)``: mean ± sd with measured/drawn counts."""
    if arm.mean is None:
        return f"no measured draw ({arm.measured}/{arm.drawn})"
    sd = "sd unknown" if arm.sd is None else f"± {arm.sd:.2f}"
    return f"{arm.mean:.2f} {sd} ({arm.measured}/{arm.drawn})"


def checks_text(arm: ArmSummary) -> str:
    """Checks passed x/y, or a dash."""
    return f"{arm.checks_passed}/{arm.checks_total}" if arm.checks_total else "–"


def fired_text(arm: ArmSummary) -> str:
    """Skill fired x/y where measured, or a dash."""
    return f"{arm.skill_fired}/{arm.skill_fired_of}" if arm.skill_fired is not None else "–"


def lost_text(arm: ArmSummary) -> str:
    """``1 of 6 draws (timeout)``: lost and drawn counts with the recorded reasons."""
    reasons = sorted(set(arm.lost_reasons))
    why = f" ({', '.join(reasons)})" if reasons else ""
    return f"{arm.lost} of {arm.drawn} draws{why}"


def needed_text(verdict: CaseVerdict | None, draws_needed: int | None, reason: str | None) -> str:
    """R-4's draws per arm needed for an underpowered case, or why no count is given; a dash otherwise."""
    if verdict != CaseVerdict.UNDERPOWERED:
        return "–"
    if draws_needed is not None:
        return str(draws_needed)
    if reason == NO_DRAW_COUNT:
        return f"{NO_DRAW_COUNT}: the spreads alone reach it"
    return reason or SPREAD_UNKNOWN


@cache
def environment() -> SandboxedEnvironment:
    """The sandboxed Jinja environment over ``templates/``."""
    env = SandboxedEnvironment(
        loader=FileSystemLoader(str(data_dir("templates"))),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # markdown, not HTML: every receipt string goes through ``md`` or ``code``
    )
    env.filters.update(
        md=md, code=code, signed=signed, band=band_text, checks=checks_text, fired=fired_text, lost=lost_text
    )
    env.globals.update(
        needed=needed_text,
        NO_SEPARATION=NO_SEPARATION_HEADLINE,
        NOT_ENOUGH_DRAWS=NOT_ENOUGH_DRAWS,
        MORE_CASES=MORE_CASES,
        SMOKE_RUN=SMOKE_RUN,
        NO_DRAW_COUNT=NO_DRAW_COUNT,
        DIFFERENT_SOURCES=DIFFERENT_SOURCES,
        NOT_PROOF=NOT_PROOF,
    )
    return env


def _legend(sources: Iterable[BandSource]) -> list[str]:
    """Legend lines for exactly the band sources on the page."""
    present = set(sources)
    return [SOURCE_LEGEND[s] for s in BandSource if s in present]


def _sources(arms: Iterable[ArmSummary]) -> dict[str, Any]:
    """The band sources of one column: named in its header, and per cell only when the column mixes them."""
    found = sorted({str(a.band_source) for a in arms})
    return {"header": ", ".join(found) or "no band", "mixed": len(found) > 1}


def _receipt_facts(receipt: Receipt) -> dict[str, Any]:
    lane = receipt.run.lane
    judge = receipt.judge
    overhead = receipt.economics.judge_overhead
    draws = [len(c.with_skill.draws) for c in receipt.cases] + [len(c.baseline.draws) for c in receipt.cases]
    return {
        "lane": f"{lane.provider}/{lane.model_requested or 'default'} ({lane.surface})",
        "reported": ", ".join(lane.models_reported) or "none reported",
        "harness": f"{receipt.run.harness.name} {receipt.run.harness.version or ''}".strip()
        if receipt.run.harness
        else None,
        "capture": receipt.run.capture,
        "judge": f"{judge.provider}/{judge.model_requested or 'default'} ({judge.surface})" if judge else "none",
        "judge_reported": ", ".join(judge.models_reported) if judge and judge.models_reported else "none reported",
        "template": (judge.template_sha256 or "")[:12] if judge and judge.template_sha256 else "unknown",
        "seal": receipt.seal.sha256[:12],
        "tool": f"{receipt.tool.name} {receipt.tool.version}",
        "verification": str(receipt.verification),
        "preset": receipt.run.preset,
        "draws": f"{min(draws)}–{max(draws)}"
        if draws and min(draws) != max(draws)
        else (str(draws[0]) if draws else "0"),
        "samples": receipt.counts.judge_samples_per_draw,
        "skill_tokens": receipt.skill.tokens if receipt.skill else None,
        "judge_tokens": (overhead.usage.input_tokens or 0) + (overhead.usage.output_tokens or 0),
        "judge_cost": overhead.cost_usd,
        "judged_counted": overhead.judged_draws_counted,
        "judged_missing": overhead.judged_draws_missing_usage,
    }


def view_lead(reading: ReceiptReading, preset: str | None) -> str:
    """The words after a view's status: the smoke-run sentence, the no-verdict reason, or the status reason."""
    if reading.no_verdict_reason is None:
        return reading.status_reason
    if preset is not None:
        return SMOKE_RUN
    return f"{reading.verification} receipt, no verdict"


def render_view(receipt: Receipt, reading: ReceiptReading, *, title: str = "receipt") -> str:
    """Markdown of one receipt (``driftproof view --format markdown``)."""
    lost = [c for c in reading.cases if c.with_skill.lost or c.baseline.lost]
    return (
        environment()
        .get_template("view.md.j2")
        .render(
            r=reading,
            facts=_receipt_facts(receipt),
            title=title,
            lead=view_lead(reading, receipt.run.preset),
            lost=lost,
            src_with=_sources(c.with_skill for c in reading.cases),
            src_base=_sources(c.baseline for c in reading.cases),
            legend=_legend(s for c in reading.cases for s in (c.with_skill.band_source, c.baseline.band_source)),
        )
    )


def diff_headline(before: Receipt, after: Receipt, result: DiffResult, labels: Mapping[str, str]) -> str:
    """The diff's headline, with each side named by its label (a side without a verdict says why)."""
    if not result.no_verdict:
        return result.headline
    sides = (("before", before), ("after", after))
    return "no verdict: " + "; ".join(
        f"{labels[side]} is {why}" for side, receipt in sides if (why := short_reason(receipt))
    )


def render_diff(
    before: Receipt,
    after: Receipt,
    result: DiffResult,
    *,
    before_label: str = "before",
    after_label: str = "after",
) -> str:
    """Markdown of the comparison report (``driftproof diff --format markdown``; the PR comment body)."""
    labels = {"before": before_label, "after": after_label}
    cases = result.cases
    return (
        environment()
        .get_template("diff.md.j2")
        .render(
            d=result,
            headline=diff_headline(before, after, result, labels),
            withheld=[(labels[side], why) for side, why in result.no_verdict.items()],
            called=[c for c in cases if c.verdict in CALLS],
            under=[c for c in cases if c.verdict == CaseVerdict.UNDERPOWERED],
            lost=[c for c in cases if c.before.lost or c.after.lost],
            bf=_receipt_facts(before),
            af=_receipt_facts(after),
            before_label=before_label,
            after_label=after_label,
            src_before=_sources(c.before for c in cases),
            src_after=_sources(c.after for c in cases),
            legend=_legend(s for c in cases for s in (c.before.band_source, c.after.band_source)),
        )
    )


def render_error_comment(message: str, fix: str) -> str:
    """The PR comment of a run that failed: no verdict, the one-line error and its fix.

    >>> render_error_comment("bad key", "Check it.").splitlines()[0]
    '**Driftproof · error** · the run failed, so this push has no verdict.'
    """
    return (
        "**Driftproof · error** · the run failed, so this push has no verdict.\n\n"
        f"> {md(message)}\n\n**Fix:** {md(fix)}\n\n<sub>The job summary and the step's log say more.</sub>\n"
    )


def first_run_sentence(branch: str) -> str:
    """The plain words of a first run: nothing stored on the default branch to compare against.

    >>> first_run_sentence("main")
    'No receipt is stored on `main` yet: this is the first run; nothing to compare against.'
    """
    where = code(branch, table=False)
    return f"No receipt is stored on {where} yet: this is the first run; nothing to compare against."


def render_first_run(after: Receipt, reading: ReceiptReading, *, branch: str, title: str = "this run") -> str:
    """The report when the default branch stores no receipt yet: the sentence, then the new receipt's view."""
    return (
        f"**Driftproof · first run** · {first_run_sentence(branch)}\n\n"
        f"The new receipt on its own, with the skill against without it:\n\n"
        f"{render_view(after, reading, title=title)}"
    )


def render_summary(
    after: Receipt,
    reading: ReceiptReading,
    decision: Decision,
    *,
    result: DiffResult | None = None,
    before: Receipt | None = None,
    before_label: str = "before",
    after_label: str = "after",
    first_run_branch: str | None = None,
    paths: Mapping[str, str] | None = None,
) -> str:
    """The short job-summary form: status, headline, the decision's figures (lift ``n/a`` without a verdict)."""
    if result is not None and before is not None:
        labels = {"before": before_label, "after": after_label}
        lead = md(f"{diff_headline(before, after, result, labels)} (with-skill arm, {after_label} vs {before_label})")
    elif first_run_branch is not None:
        lead = first_run_sentence(first_run_branch)
    else:
        lead = md(view_lead(reading, after.run.preset))
    return (
        environment()
        .get_template("summary.md.j2")
        .render(
            lead=lead,  # already markdown: escaped here, or the first-run sentence with its code span
            first_run=result is None and first_run_branch is not None,
            decision=decision,
            outputs=decision.outputs(),
            r=reading,
            facts=_receipt_facts(after),
            paths=dict(paths or {}),
        )
    )
