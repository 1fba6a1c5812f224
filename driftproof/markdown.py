"""Markdown for receipt strings: escaping (``md``, ``code``) and the small cell formatters of every report.

Anything that comes from a receipt or a suite (case ids, reasons, model ids, notices) goes through ``md``
or ``code``: no markdown or HTML injection, no ``@mention`` pings, no broken tables from ``|`` or newlines,
and no control, bidi or zero-width character (``safe_text.printable``).
"""

from __future__ import annotations

import re

from driftproof.core.breakdown import ArmFigures
from driftproof.core.reading import ArmSummary
from driftproof.core.sentences import (
    NO_DRAW_COUNT,
    NO_DRAW_COUNT_EXPLAINED,
    NO_VERDICT,
    SPREAD_UNKNOWN,
    STATUS_WORDS,
    VERDICT_WORDS,
    lost_of,
    needed_on_reference,
    replaced_of,
)
from driftproof.core.stopping import REFERENCE_MIN_DRAWS
from driftproof.core.words import CaseVerdict, Status
from driftproof.safe_text import SHOWN_CHARS, printable, shorten

__all__ = [
    "band_text",
    "checks_text",
    "code",
    "figures_text",
    "fired_text",
    "lost_text",
    "md",
    "needed_text",
    "status_text",
    "verdict_text",
]

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]|<>~&#])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")


def md(value: object) -> str:
    """Escape text for a markdown table cell or line: one line, no markup, no mentions, no HTML, bounded.

    >>> md("a|b\\n<b>@team **x** (y)")
    'a\\\\|b \\\\<b\\\\>@\\u200bteam \\\\*\\\\*x\\\\*\\\\* (y)'
    """
    text = shorten(" ".join(printable(str(value)).split()), keep=SHOWN_CHARS)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MENTION.sub("@\u200b", text)


def code(value: object, table: bool = True) -> str:
    """Inline code for an id: one line, bounded, backticks replaced so the span cannot break, no mentions.

    In a table cell ``|`` is escaped (GFM splits cells before it reads code spans).

    >>> code("a|b `x`\\n@team"), code("a|b", table=False)
    ("`a\\\\|b 'x' @\\u200bteam`", '`a|b`')
    """
    flat = shorten(" ".join(printable(str(value)).split()), keep=SHOWN_CHARS)
    text = _MENTION.sub("@\u200b", flat.replace("`", "'"))
    if table:
        text = text.replace("|", "\\|")
    return f"`{text or ' '}`"


def band_text(arm: ArmSummary) -> str:
    """``0.91 ± 0.02 (5/6)``: mean ± sd with measured/drawn counts."""
    if arm.mean is None:
        return f"no measured draw ({arm.measured}/{arm.drawn})"
    sd = "sd unknown" if arm.sd is None else f"± {arm.sd:.2f}"
    return f"{arm.mean:.2f} {sd} ({arm.measured}/{arm.drawn})"


def figures_text(arm: ArmFigures) -> str:
    """One arm of a lift breakdown: ``0.90 ± 0.10 (3/4, 1 lost)``, the mean ± sd across answers, measured/drawn, lost.

    >>> figures_text(ArmFigures(0.9, 0.1, 3, 4, 1, 4)), figures_text(ArmFigures(0.5, None, 1, 1, 0, 1))
    ('0.90 ± 0.10 (3/4, 1 lost)', '0.50 sd unknown (1/1, 0 lost)')
    >>> figures_text(ArmFigures(None, None, 0, 2, 2, 2)), figures_text(ArmFigures(None, None, 0, 0, 0, 0))
    ('no measured draw (0/2, 2 lost)', 'no draw recorded')
    """
    if arm.recorded == 0:
        return "no draw recorded"
    counts = f"({arm.measured}/{arm.drawn}, {arm.lost} lost)"
    if arm.mean is None:
        return f"no measured draw {counts}"
    sd = "sd unknown" if arm.sd is None else f"± {arm.sd:.2f}"
    return f"{arm.mean:.2f} {sd} {counts}"


def checks_text(arm: ArmSummary) -> str:
    """Checks passed x/y, or a dash."""
    return f"{arm.checks_passed}/{arm.checks_total}" if arm.checks_total else "–"


def fired_text(arm: ArmSummary) -> str:
    """Skill fired x/y where measured, or a dash."""
    return f"{arm.skill_fired}/{arm.skill_fired_of}" if arm.skill_fired is not None else "–"


def lost_text(arm: ArmSummary) -> str:
    """``1 of 6 draws (timeout)``: lost and drawn counts with the recorded reasons, then any replaced draws.

    A replaced draw (its call failed; a later measured draw took its place) is named apart: R-6 leaves it out.
    """
    text = lost_of(arm.lost, arm.drawn, arm.lost_reasons)
    return text + replaced_of(arm.replaced, arm.replaced_reasons) if arm.replaced else text


def needed_text(
    verdict: CaseVerdict | None, draws_needed: int | None, reason: str | None, thin: str | None = None
) -> str:
    """R-4's (or R-7's) draws per arm needed for an underpowered case, or why no count is given; a dash otherwise.

    >>> needed_text(CaseVerdict.UNDERPOWERED, 7, None, "before")
    "7 on the default branch's receipt (its store job draws 12 per arm, --as-reference)"
    """
    if verdict != CaseVerdict.UNDERPOWERED:
        return "–"
    if draws_needed is not None and thin in ("before", "both"):
        return needed_on_reference(draws_needed, REFERENCE_MIN_DRAWS)
    if draws_needed is not None:
        return str(draws_needed)
    if reason == NO_DRAW_COUNT:
        return NO_DRAW_COUNT_EXPLAINED
    return reason or SPREAD_UNKNOWN


def verdict_text(verdict: CaseVerdict | str | None) -> str:
    """A case verdict in words (the JSON keeps the token); ``no verdict`` when it is withheld.

    >>> verdict_text(CaseVerdict.BELOW_EFFECT_FLOOR), verdict_text(None)
    ('below effect floor', 'no verdict')
    """
    return NO_VERDICT if verdict is None else VERDICT_WORDS[CaseVerdict(verdict)]


def status_text(status: Status | str) -> str:
    """A receipt or diff status in words, for a report's first line.

    >>> status_text("no_separation"), status_text(Status.NO_VERDICT)
    ('no separation detected at this sample size', 'no verdict')
    """
    return STATUS_WORDS[Status(status)]
