"""What the reports say of a receipt and of a diff, line by line, as markdown (every receipt string escaped).

The first line a reviewer reads (``diff_lead``, ``view_lead``), each receipt's setup side by side
(``receipt_facts``: answering model, lane, harness, judge), the "Not run on this lane" items
(``not_run_lines``) and whether the stored receipt's baseline arms stand (``baseline_line``, also the
Action's log line). The templates place them; the sentences themselves live in ``core.sentences`` (and
``core.stale_sentences``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from driftproof.core.carry import carried_summary, own
from driftproof.core.carry_sentences import baseline_carried
from driftproof.core.decision import signed_or_na as signed
from driftproof.core.diff import DiffCase, DiffResult
from driftproof.core.import_sentences import IMPORTED_FROM, PRINTED_FIGURES
from driftproof.core.models import Receipt
from driftproof.core.reading import CALLS, NotRun, ReceiptReading, no_verdict
from driftproof.core.regrade import regrade_line
from driftproof.core.sentences import (
    NO_SERVED_MODEL,
    SMOKE_RUN,
    VERDICT_WORDS,
    n_cases,
    side_is,
    unverified_lead,
    with_skill_against_without,
    with_skill_arm,
)
from driftproof.core.stale import BaselineStanding
from driftproof.core.stale_sentences import baseline_stale, baseline_stands
from driftproof.core.words import CaseVerdict, Status
from driftproof.markdown import code, md

__all__ = ["LIST_CAP", "baseline_line", "carried_line", "diff_lead", "not_run_lines", "receipt_facts", "view_lead"]

#: How many called cases the first line names per direction before "and N more".
LIST_CAP = 3


def _means(case: DiffCase) -> str:
    """``0.90 → 0.55``: the with-skill means of BEFORE and AFTER."""
    return " → ".join("–" if a.mean is None else f"{a.mean:.2f}" for a in (case.before, case.after))


def _item(case: DiffCase) -> str:
    return f"{code(case.id, table=False)} {signed(case.comparison.delta, 2)}"


def called_text(called: Sequence[DiffCase], where: str) -> str:
    """The called cases by id with their Δ and means, downward first, at most ``LIST_CAP`` per direction.

    One case carries the arm and the sides inside its parentheses; several share them at the end, and each
    direction is named when both are present.
    """
    if len(called) == 1:
        return f"{_item(called[0])} ({_means(called[0])}, {where})"
    groups = [
        (VERDICT_WORDS[v], [c for c in called if c.verdict == v]) for v in (CaseVerdict.REGRESSED, CaseVerdict.IMPROVED)
    ]
    groups = [(word, cases) for word, cases in groups if cases]
    parts = []
    for word, cases in groups:
        items = ", ".join(f"{_item(c)} ({_means(c)})" for c in cases[:LIST_CAP])
        more = f" and {len(cases) - LIST_CAP} more" if len(cases) > LIST_CAP else ""
        parts.append(f"{word} {items}{more}" if len(groups) > 1 else f"{items}{more}")
    return f"{'; '.join(parts)} ({where})"


def diff_lead(before: Receipt, after: Receipt, result: DiffResult, labels: Mapping[str, str]) -> str:
    """The words after a comparison's status: what happened and where, as markdown.

    Called cases by id with their Δ; otherwise the spec's sentence (no separation, or the underpowered one);
    without a verdict, why (each side named by its label, then what is not like for like). Across providers
    the lifts lead, and no raw score is ranked.
    """
    where = with_skill_arm(md(labels["before"]), md(labels["after"]))
    if result.status == Status.NO_VERDICT:
        sides = (("before", before), ("after", after))
        reasons = [side_is(labels[side], why.short) for side, receipt in sides if (why := no_verdict(receipt))]
        mismatch = result.not_like_for_like
        if mismatch is not None:
            reasons.append(mismatch.reason)
        if mismatch is not None and mismatch.providers_differ:
            lifts = ", ".join(
                f"{md(labels[s])} {signed(r.lift)}" for s, r in (("before", result.before), ("after", result.after))
            )
            return f"{md('; '.join(reasons))} · lift {lifts}"
        return f"{md('; '.join(reasons))} ({where})"
    called = [c for c in result.cases if c.verdict in CALLS]
    if called:
        return called_text(called, where)
    if result.status == Status.UNDERPOWERED:
        return f"{md(result.status_reason)} ({n_cases(len(result.cases))}, {where})"
    return f"{n_cases(len(result.cases))}, {where}"


def view_lead(reading: ReceiptReading, preset: str | None) -> str:
    """The words after a view's status: the smoke-run sentence, the no-verdict reason, or the status reason.

    A status in words already says "no separation detected at this sample size", so the words after it
    say over how many cases.
    """
    if reading.no_verdict_reason is None:
        if reading.status == Status.NO_SEPARATION:
            return with_skill_against_without(len(reading.cases))
        return reading.status_reason
    if preset is not None:
        return SMOKE_RUN
    return unverified_lead(reading.verification)


def baseline_line(standing: BaselineStanding, label: str, seal: str, escape: Callable[[str], str] = md) -> str:
    """Whether the stored receipt (``label``'s, sealed ``seal``) still stands for this run's baseline arms, in
    one line; each receipt or suite string through ``escape`` (``md`` for a report, ``printable`` for the log).
    """
    if standing.stands:
        return baseline_stands(escape(label), seal[:12])
    reasons = [escape(reason) for reason in standing.reasons]
    return baseline_stale(
        escape(label), seal[:12], standing.rerun, standing.regrade, standing.cases, reasons, standing.more
    )


def carried_line(
    receipt: Receipt, label: str, source: Receipt | None = None, escape: Callable[[str], str] = md
) -> str | None:
    """ "baseline carried from main (<sha>) …" when ``receipt`` carried baseline draws, else ``None``. ``label``
    names the source: when ``source`` is given and is not the receipt carried from, it is "another receipt"."""
    summary = carried_summary(receipt)
    if summary is None:
        return None
    if source is not None and source.seal.sha256 != summary.source:
        label = "another receipt"
    return baseline_carried(
        escape(label), summary.source[:12], summary.cases, summary.of, summary.reused, summary.drawn
    )


def not_run_lines(sides: Sequence[tuple[str, NotRun]]) -> list[str]:
    """One markdown line per notice (a case's notices joined), each once; a side named when only it has it."""
    found: dict[tuple[str | None, str], list[str]] = {}
    for label, notices in sides:
        keys = [(None, text) for text in notices.suite] + [(c.id, "; ".join(c.notices)) for c in notices.cases]
        for key in keys:
            labels = found.setdefault(key, [])
            if label not in labels:
                labels.append(label)
    lines = []
    for (case_id, text), labels in found.items():
        head = "" if case_id is None else f"{code(case_id, table=False)}: "
        only = f" ({md(labels[0])} only)" if len(labels) < len(sides) else ""
        lines.append(f"{head}{md(text)}{only}")
    return lines


def _models(receipt: Receipt) -> str:
    """The reported model ids; an id a lane configured rather than reported says so beside it."""
    configured = {
        d.reported_model
        for c in receipt.cases
        for arm in (c.with_skill, c.baseline)
        for d in arm.draws
        if d.model_source == "configured" and d.reported_model
    }
    ids = sorted(set(receipt.run.lane.models_reported) | configured)
    if not ids:
        return "none reported"
    harness = receipt.run.harness.name if receipt.run.harness else "the lane"
    shown = [f"{i} (configured: {harness} {NO_SERVED_MODEL})" if i in configured else i for i in ids]
    return "reported " + ", ".join(shown)


def _spread(counts: Sequence[int]) -> str:
    """Draws per arm as a report shows them: ``3–7``, or one figure when every arm has the same.

    >>> _spread([3, 7, 3]), _spread([12, 12]), _spread([])
    ('3–7', '12', '0')
    """
    if counts and min(counts) != max(counts):
        return f"{min(counts)}–{max(counts)}"
    return str(counts[0] if counts else 0)


def receipt_facts(receipt: Receipt) -> dict[str, Any]:
    """What a report shows of one receipt's setup and cost; plain text, escaped by the template."""
    lane, judge, run = receipt.run.lane, receipt.judge, receipt.run
    overhead = receipt.economics.judge_overhead
    draws = [len(a.draws) for c in receipt.cases for a in (c.with_skill, c.baseline)]
    drawn = [len(own(a.draws)) for c in receipt.cases for a in (c.with_skill, c.baseline)]  # carried ones left out
    template = judge.template_sha256[:12] if judge and judge.template_sha256 else None
    judge_ids = ", ".join(judge.models_reported) if judge and judge.models_reported else None
    judge_name = f"{judge.provider}/{judge.model_requested or 'default'} ({judge.surface})" if judge else "none"
    judge_cell = f"{judge_name} · {'reported ' + judge_ids if judge_ids else 'none reported'}"
    return {
        "lane": f"{lane.provider}/{lane.model_requested or 'default'} ({lane.surface})",
        "models": _models(receipt),
        "harness": f"{run.harness.name} {run.harness.version or ''}".strip() if run.harness else None,
        "capture": run.capture,
        "judge": judge_name,
        "judge_cell": judge_cell + (f" · template {template}" if template else ""),
        "template": template or "unknown",
        "seal": receipt.seal.sha256[:12],
        "tool": f"{receipt.tool.name} {receipt.tool.version}",
        "verification": str(receipt.verification),
        "preset": run.preset,
        "regrade": regrade_line(receipt.regrade) if receipt.regrade else None,
        "draws": _spread(draws),
        "draws_mean": f"{sum(draws) / len(draws):.1f}" if draws else "0",
        "draws_total": sum(draws),
        "drawn": _spread(drawn),
        "drawn_mean": f"{sum(drawn) / len(drawn):.1f}" if drawn else "0",
        "drawn_total": sum(drawn),
        "as_reference": bool(run.settings.as_reference),
        "reference": run.settings.reference_sha256[:12] if run.settings.reference_sha256 else None,
        "samples": receipt.counts.judge_samples_per_draw,
        "skill_tokens": receipt.skill.tokens if receipt.skill else None,
        "judge_tokens": (overhead.usage.input_tokens or 0) + (overhead.usage.output_tokens or 0),
        "judge_cost": overhead.cost_usd,
        "judged_counted": overhead.judged_draws_counted,
        "judged_missing": overhead.judged_draws_missing_usage,
    }


SOURCE_LINES_CAP = 60
"""The most lines of an import's printed figures a report shows (the receipt keeps them all)."""


def _printed(value: Any) -> str:
    """A printed figure as one line: a mapping's items joined, anything else as it stands."""
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_printed(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "; ".join(_printed(v) for v in value)
    return str(value)


def source_lines(receipt: Receipt) -> list[str]:
    """What an import came from and what it did not record, then the figures its source printed (plain text)."""
    source = receipt.source
    if source is None:
        return []
    version = source.version or "version unknown"
    lines = [f"{IMPORTED_FROM} {source.harness or 'an unnamed tool'} ({version})"]
    where = f" at {source.repository}@{source.commit[:12]}" if source.repository and source.commit else ""
    for doc in source.documents:
        blob = f", git blob {doc.git_blob_sha1[:12]}" if doc.git_blob_sha1 else ""
        lines.append(f"document {doc.name}{where} (sha256 {doc.sha256[:12]}{blob})")
    lines += [f"not recorded: {item}" for item in source.unknown]
    figures = [
        f"{name}: {_printed(row)}"
        for name, block in (receipt.source_figures or {}).items()
        for row in (block.values() if isinstance(block, Mapping) else [block])
        for row in (row if isinstance(row, list) else [row])
    ]
    if figures:
        lines.append(PRINTED_FIGURES)
        lines += figures[:SOURCE_LINES_CAP]
        if len(figures) > SOURCE_LINES_CAP:
            lines.append(f"… {len(figures) - SOURCE_LINES_CAP} more in the receipt's source_figures")
    return lines
