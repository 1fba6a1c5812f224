"""Markdown rendering: Jinja templates in a sandboxed environment, every receipt string escaped.

Anything that comes from a receipt or a suite (case ids, reasons, model ids, notices) goes through ``md``
or ``code`` (``driftproof.markdown``): no markdown or HTML injection, no ``@mention`` pings, no broken
tables from ``|`` or newlines. What each line says is built in ``driftproof.report_lines``, in the words of
``driftproof.core.sentences`` (every one of them a global of the templates).

Four forms: the comparison report (``render_diff``, also the PR comment), the first-run report
(``render_first_run``: nothing stored on the default branch yet, ``first_run.md.j2``), the single-receipt view
(``render_view``) and the short job-summary form (``render_summary``). Each opens with one line: the
status in words (the JSON keeps the token), then what happened and where.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from driftproof.core import breakdown_sentences, pairwise_sentences, sentences
from driftproof.core.breakdown import LiftBreakdown
from driftproof.core.carry_sentences import CARRIED_SOURCE
from driftproof.core.decision import Decision
from driftproof.core.decision import signed_or_na as signed
from driftproof.core.diff import DiffResult
from driftproof.core.models import Receipt
from driftproof.core.pairwise import pairwise_view
from driftproof.core.placebo_sentences import PLACEBO_HEADING, PLACEBO_RULE
from driftproof.core.plan_sentences import budget_status_reason, receipt_past_budget
from driftproof.core.reading import CALLS, ArmSummary, ReceiptReading
from driftproof.core.sentences import (
    BAND_SOURCE_LEGEND,
    ERROR_HEADLINE,
    ERROR_SAYS_MORE,
    NOT_ENOUGH_DRAWS,
    first_run_sentence,
)
from driftproof.core.stale import BaselineStanding
from driftproof.core.stopping import REFERENCE_MIN_DRAWS
from driftproof.core.words import BandSource, CaseVerdict
from driftproof.fired_report import fired_diff_section, fired_view_section
from driftproof.markdown import (
    band_text,
    checks_text,
    code,
    figures_text,
    fired_text,
    lost_text,
    md,
    needed_text,
    status_text,
    verdict_text,
)
from driftproof.render_placebo import diff_placebo, placebo_section
from driftproof.report_lines import (
    baseline_line,
    carried_line,
    diff_lead,
    not_run_lines,
    receipt_facts,
    source_lines,
    view_lead,
)
from driftproof.resources import data_dir

__all__ = [
    "render_diff",
    "render_error_comment",
    "render_first_run",
    "render_summary",
    "render_view",
]

#: Every constant and function of ``core.sentences`` and ``core.breakdown_sentences``, under its own name: the
#: templates' words.
SENTENCES = {
    name: value
    for module in (sentences, breakdown_sentences, pairwise_sentences)
    for name, value in vars(module).items()
    if name.isupper() or (callable(value) and getattr(value, "__module__", None) == module.__name__)
}

#: A list longer than this is folded (the underpowered table past its first rows, the notices whole).
FOLD_AFTER = 5


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
        md=md,
        code=code,
        signed=signed,
        band=band_text,
        checks=checks_text,
        figures=figures_text,
        fired=fired_text,
        lost=lost_text,
        verdict=verdict_text,
        status=status_text,
    )
    env.globals.update(SENTENCES)
    env.globals.update(PLACEBO_HEADING=PLACEBO_HEADING, PLACEBO_RULE=PLACEBO_RULE)
    env.globals.update(needed=needed_text, FOLD_AFTER=FOLD_AFTER, REFERENCE_MIN_DRAWS=REFERENCE_MIN_DRAWS)
    return env


def _legend(sources: Iterable[BandSource]) -> list[str]:
    """Legend lines for exactly the band sources on the page."""
    present = set(sources)
    return [BAND_SOURCE_LEGEND[s] for s in BandSource if s in present]


def _sources(arms: Iterable[ArmSummary]) -> dict[str, Any]:
    """The band sources of one column: named in its header, and per cell only when the column mixes them."""
    found = sorted({str(a.band_source) for a in arms})
    return {"header": ", ".join(found) or "no band", "mixed": len(found) > 1}


def render_view(
    receipt: Receipt, reading: ReceiptReading, *, title: str = "receipt", breakdown: LiftBreakdown | None = None
) -> str:
    """Markdown of one receipt (``driftproof view --format markdown``), with its lift by case when ``breakdown`` is
    given (the view always gives it; the first-run report does not)."""
    lost = [
        c for c in reading.cases if c.with_skill.lost or c.baseline.lost or c.with_skill.replaced or c.baseline.replaced
    ]
    return (
        environment()
        .get_template("view.md.j2")
        .render(
            r=reading,
            facts=receipt_facts(receipt),
            title=title,
            lead=view_lead(reading, receipt.run.preset),
            lost=lost,
            breakdown=breakdown,
            fired=any(a.skill_fired is not None for c in reading.cases for a in (c.with_skill, c.baseline)),
            not_run=not_run_lines([("receipt", reading.not_run)]),
            source=source_lines(receipt),
            src_with=_sources(c.with_skill for c in reading.cases),
            src_base=_sources(c.baseline for c in reading.cases),
            legend=_legend(s for c in reading.cases for s in (c.with_skill.band_source, c.baseline.band_source)),
            placebo=placebo_section(receipt, reading),
            pairwise=pairwise_view(receipt),
            carried=carried_line(receipt, CARRIED_SOURCE),
            past_budget=None if receipt.shards else receipt_past_budget(receipt.run.settings.budget),
        )
    ) + fired_view_section(receipt)  # which skill fired, with neighbours installed (none: nothing added)


def render_diff(
    before: Receipt,
    after: Receipt,
    result: DiffResult,
    *,
    before_label: str = "before",
    after_label: str = "after",
    baseline: BaselineStanding | None = None,
    breakdowns: tuple[LiftBreakdown, LiftBreakdown] | None = None,
) -> str:
    """Markdown of the comparison report (``driftproof diff --format markdown``; the PR comment body).

    ``baseline``: whether BEFORE's baseline arms stand for AFTER's run (the Action's stored receipt), said in
    one line below the figures; nothing when not given. With ``breakdowns`` (BEFORE's and AFTER's:
    ``diff --lift-breakdown``) each receipt's lift by case follows the report; without them the report is
    exactly what it always was."""
    labels = {"before": before_label, "after": after_label}
    placebo, placebo_line = diff_placebo(before, after, (result.before, result.after), (before_label, after_label))
    cases = result.cases
    under = [c for c in cases if c.verdict == CaseVerdict.UNDERPOWERED]
    return (
        environment()
        .get_template("diff.md.j2")
        .render(
            d=result,
            under_sentences=list(dict.fromkeys(c.comparison.sentence or NOT_ENOUGH_DRAWS for c in under)),
            stopped=[c for c in cases if c.before_stop or c.after_stop],
            lead=diff_lead(before, after, result, labels),
            withheld=[(labels[side], why) for side, why in result.no_verdict.items()],
            mismatch=result.not_like_for_like,
            called=[c for c in cases if c.verdict in CALLS],
            under=under,
            lost=[c for c in cases if c.before.lost or c.after.lost or c.after.replaced or c.before.replaced],
            not_run=not_run_lines([(after_label, result.after.not_run), (before_label, result.before.not_run)]),
            bf=receipt_facts(before),
            af=receipt_facts(after),
            before_label=before_label,
            after_label=after_label,
            baseline=baseline_line(baseline, before_label, before.seal.sha256) if baseline else None,
            carried=carried_line(after, before_label, before),
            src_before=_sources(c.before for c in cases),
            src_after=_sources(c.after for c in cases),
            legend=_legend(s for c in cases for s in (c.before.band_source, c.after.band_source)),
            breakdowns=None if breakdowns is None else list(zip((before_label, after_label), breakdowns, strict=True)),
            placebo=placebo,
            placebo_line=placebo_line,
            pairwise=[
                (label, view)
                for label, side in ((before_label, before), (after_label, after))
                if (view := pairwise_view(side)) is not None
            ],
        )
    ) + fired_diff_section(before, after, before_label, after_label)


def render_error_comment(message: str, fix: str) -> str:
    """The PR comment of a run that failed: no verdict, the one-line error and its fix.

    >>> render_error_comment("bad key", "Check it.").splitlines()[0]
    '**Driftproof · error** · the run failed, so this push has no verdict.'
    """
    return (
        f"**Driftproof · error** · {ERROR_HEADLINE}\n\n"
        f"> {md(message)}\n\n**Fix:** {md(fix)}\n\n<sub>{ERROR_SAYS_MORE}</sub>\n"
    )


def render_first_run(after: Receipt, reading: ReceiptReading, *, branch: str, title: str = "this run") -> str:
    """The report when the default branch stores no receipt yet: the first-run sentence, then the new receipt's view."""
    view = render_view(after, reading, title=title)
    return environment().get_template("first_run.md.j2").render(branch=branch, view=view)


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
    baseline: BaselineStanding | None = None,
) -> str:
    """The short job-summary form: status, headline, the decision's figures (lift ``n/a`` without a verdict);
    with ``baseline`` and ``before``, whether ``before``'s baseline arms stand, below the draws."""
    if result is not None and before is not None:
        lead = diff_lead(before, after, result, {"before": before_label, "after": after_label})
    elif first_run_branch is not None:
        lead = first_run_sentence(code(first_run_branch, table=False))
    else:
        lead = md(view_lead(reading, after.run.preset))
    record = after.run.settings.budget
    stopped = budget_status_reason(len(after.cases), record) if record and record.stopped_cases else None
    return (
        environment()
        .get_template("summary.md.j2")
        .render(
            lead=lead,  # already markdown: escaped here, or the first-run sentence with its code span
            budget=md(stopped) if stopped and md(stopped) not in lead else None,  # said once: the lead may say it
            first_run=result is None and first_run_branch is not None,
            decision=decision,
            outputs=decision.outputs(),
            r=reading,
            facts=receipt_facts(after),
            paths=dict(paths or {}),
            baseline=baseline_line(baseline, before_label, before.seal.sha256) if baseline and before else None,
            carried=carried_line(after, before_label, before),
            placebo=placebo_section(after, reading),
            pairwise=pairwise_view(after),
        )
    )
