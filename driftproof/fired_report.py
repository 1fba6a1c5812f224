"""Markdown of which skill fired (``--delivery discover`` with neighbours): a section after ``view`` and ``diff``.

The counts are :mod:`driftproof.core.fired`'s; every name and case id goes through ``code``. A receipt whose
draws recorded no ``skills_fired`` gets no section, so every other report reads exactly as before.
"""

from __future__ import annotations

from driftproof.core.changed_sentences import FIRED_HEADING, FIRED_NOTE, fired_line, fired_share, neighbour_took
from driftproof.core.fired import FiredCount, arm_fired, fired_shifts, has_fired, stolen
from driftproof.core.models import Receipt
from driftproof.markdown import code, md

__all__ = ["fired_diff_section", "fired_view_section"]


def _cell(counts: tuple[FiredCount, ...]) -> str:
    return fired_line([fired_share(code(c.name), c.fired, c.of) for c in counts if c.fired or c.of])


def _under_test(receipt: Receipt) -> str | None:
    return receipt.skill.installed_as if receipt.skill is not None else None


def fired_view_section(receipt: Receipt) -> str:
    """Per case, each installed skill's count in each arm; ``""`` when the receipt recorded none."""
    if not has_fired(receipt):
        return ""
    names = [n] if (n := _under_test(receipt)) else []
    rows = [
        f"| {code(c.id)} | {_cell(arm_fired(c.with_skill, names))} | {_cell(arm_fired(c.baseline))} |"
        for c in receipt.cases
    ]
    table = ["| case | with skill | baseline |", "|---|---|---|", *rows]
    return "\n".join(["", FIRED_HEADING, "", FIRED_NOTE, "", *table, ""]) + "\n"


def _count(c: FiredCount | None) -> str:
    return f"{c.fired}/{c.of}" if c is not None else "–"


def fired_diff_section(before: Receipt, after: Receipt, before_label: str, after_label: str) -> str:
    """Per case, each skill's with-skill count on both sides, and a line for each neighbour that took activations
    of the skill under test; ``""`` when neither receipt recorded which skill fired."""
    if not (has_fired(before) or has_fired(after)):
        return ""
    shifts = fired_shifts(before, after)
    rows = [f"| {code(s.case)} | {code(s.name)} | {_count(s.before)} | {_count(s.after)} |" for s in shifts]
    table = [f"| case | skill | {md(before_label)} | {md(after_label)} |", "|---|---|---|---|", *rows]
    mine = _under_test(after) or _under_test(before)
    by_case = {(s.case, s.name): s for s in shifts}
    took = []
    for s in stolen(shifts, mine):
        own = by_case[(s.case, mine or "")]
        took.append(
            "- "
            + neighbour_took(
                code(s.case),
                code(s.name),
                _count(s.after),
                _count(s.before),
                code(mine),
                _count(own.after),
                _count(own.before),
            )
        )
    return (
        "\n".join(["", FIRED_HEADING + " (with skill)", "", FIRED_NOTE, "", *took, *([""] if took else []), *table, ""])
        + "\n"
    )
