"""Markdown rendering: Jinja templates in a sandboxed environment, every receipt string escaped.

Anything that comes from a receipt or a suite (case ids, reasons, model ids) goes through ``md``:
no markdown or HTML injection, no ``@mention`` pings, no broken tables from ``|`` or newlines.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from driftproof.core.diff import DiffResult
from driftproof.core.models import Receipt
from driftproof.core.reading import ArmSummary, ReceiptReading
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
)
from driftproof.resources import data_dir

#: The hidden marker that finds Driftproof's one PR comment.
COMMENT_MARKER = "<!-- driftproof:comment -->"

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]|<>~&])")
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


def code(value: object) -> str:
    """Inline code for an id: backticks inside are replaced so the span cannot break."""
    text = _MENTION.sub("@\u200b", " ".join(str(value).split()).replace("`", "'"))
    return f"`{text}`"


def signed(value: float | None, digits: int = 3) -> str:
    """A number with its sign, or ``n/a``.

    >>> signed(0.1234), signed(-0.05), signed(None)
    ('+0.123', '-0.050', 'n/a')
    """
    if value is None:
        return "n/a"
    return f"{value:+.{digits}f}"


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
    env.filters.update(md=md, code=code, signed=signed, band=band_text, checks=checks_text, fired=fired_text)
    env.globals.update(
        MARKER=COMMENT_MARKER,
        NO_SEPARATION=NO_SEPARATION_HEADLINE,
        NOT_ENOUGH_DRAWS=NOT_ENOUGH_DRAWS,
        MORE_CASES=MORE_CASES,
        SMOKE_RUN=SMOKE_RUN,
        NO_DRAW_COUNT=NO_DRAW_COUNT,
        SPREAD_UNKNOWN=SPREAD_UNKNOWN,
        DIFFERENT_SOURCES=DIFFERENT_SOURCES,
        NOT_PROOF=NOT_PROOF,
    )
    return env


def _legend(sources: set[BandSource]) -> list[str]:
    return [SOURCE_LEGEND[s] for s in BandSource if s in sources]


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
        "template": (judge.template_sha256 or "")[:12] if judge else "",
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


def render_view(receipt: Receipt, reading: ReceiptReading, *, title: str = "receipt") -> str:
    """Markdown of one receipt (``driftproof view --format markdown``)."""
    sources = {c.with_skill.band_source for c in reading.cases} | {c.baseline.band_source for c in reading.cases}
    return (
        environment()
        .get_template("view.md.j2")
        .render(r=reading, facts=_receipt_facts(receipt), title=title, legend=_legend(sources))
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
    sources = {c.before.band_source for c in result.cases} | {c.after.band_source for c in result.cases}
    called = [c for c in result.cases if c.verdict in ("improved", "regressed")]
    under = [c for c in result.cases if c.verdict == "underpowered"]
    lost = [c for c in result.cases if c.lost_note]
    return (
        environment()
        .get_template("diff.md.j2")
        .render(
            d=result,
            called=called,
            under=under,
            lost=lost,
            bf=_receipt_facts(before),
            af=_receipt_facts(after),
            before_label=before_label,
            after_label=after_label,
            legend=_legend(sources),
        )
    )


def render_summary(after: Receipt, result: DiffResult | None, reading: ReceiptReading) -> str:
    """The short job-summary form."""
    return environment().get_template("summary.md.j2").render(d=result, r=reading, facts=_receipt_facts(after))
