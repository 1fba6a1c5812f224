"""Markdown of one Action run over a set of skills: the one PR comment's body.

A summary table (skill, status, lift, verdict) of every skill run, a line naming the skills not touched, then a
section per skill holding the report a one-suite run would have posted (its comparison, or its first run).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.core.changed_sentences import SET_SKIPPED, set_heading, set_verdict
from driftproof.core.decision import Decision, signed_or_na
from driftproof.core.reading import ReceiptReading
from driftproof.markdown import code, status_text

__all__ = ["SetRow", "render_skill_set"]


@dataclass(frozen=True, slots=True)
class SetRow:
    """One skill run: its name, its decision, its receipt's reading and its own report."""

    name: str
    decision: Decision
    reading: ReceiptReading
    report: str


def render_skill_set(rows: Sequence[SetRow], skipped: Sequence[str]) -> str:
    """The set's report.

    >>> print(render_skill_set([], ["alpha"]), end="")
    **Driftproof · no skill run** · 1 not touched by this change
    <BLANKLINE>
    Not run, not touched by this change: `alpha`
    """
    lines = [set_heading(len(rows), len(skipped)), ""]
    if rows:
        lines += ["| skill | status | lift | verdict |", "|---|---|---|---|"]
        for row in rows:
            d = row.decision
            cells = [
                code(row.name),
                status_text(d.status),
                signed_or_na(d.lift),
                set_verdict(d.compared, d.regressed, d.improved),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    if skipped:
        lines += [f"{SET_SKIPPED} {', '.join(code(n, table=False) for n in skipped)}", ""]
    for row in rows:
        lines += ["---", "", f"## Skill {code(row.name, table=False)}", "", row.report.rstrip("\n"), ""]
    return "\n".join(lines).rstrip("\n") + "\n"
