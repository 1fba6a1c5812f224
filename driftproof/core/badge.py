"""The shields.io endpoint badge of one receipt. Pure: a reading in, the JSON object out.

The badge reads ``passing`` or ``regressed`` only when a case separated under the rule (R-1 … R-6);
otherwise ``underpowered`` (with the draws per arm that would have been needed, or "no draw count
reaches the floor") or ``no separation``. A smoke receipt reads ``smoke run, no verdict`` and one below
TESTED ``no verdict``. The lift, with its sign, follows as context whenever the receipt has one.

The label says what the badge measures, so that a README reader does not take ``passing`` for "this pull
request passed": the skill's name when the receipt gives one (the directory that holds the skill file, else
the suite's name: ``reading.skill_name``), else ``skill lift``.

With ``verified`` (`driftproof.core.badge_age`) the message ends "verified 2026-12-01 on claude-sonnet-5-5" and the
color is ``lightgrey`` when the receipt is too old, records no day, no longer stands or drifted.

Only the endpoint schema's keys are written: shields.io refuses a badge with any other key.
"""

from __future__ import annotations

from collections.abc import Mapping

from driftproof.core.badge_age import Verified
from driftproof.core.decision import needed_draws
from driftproof.core.drift_sentences import verified_on
from driftproof.core.reading import ReceiptReading
from driftproof.core.sentences import BADGE_WORDS, NO_DRAW_COUNT, SMOKE_RUN, draws_per_arm_needed
from driftproof.core.words import CaseVerdict, Status

#: The label when the receipt names no skill.
LABEL = "skill lift"

COLORS: Mapping[Status, str] = {
    Status.PASSING: "brightgreen",
    Status.REGRESSED: "red",
    Status.UNDERPOWERED: "yellow",
    Status.NO_SEPARATION: "lightgrey",
    Status.NO_VERDICT: "lightgrey",
}


GREY = "lightgrey"
"""The color of a badge whose receipt is too old, records no day, no longer stands or drifted."""


def badge_message(reading: ReceiptReading, verified: Verified | None = None) -> str:
    """The badge's right-hand text: status word, draws needed when underpowered, the signed lift.

    >>> from driftproof.core.reading import ReceiptReading
    >>> from driftproof.core.words import Verification
    >>> r = ReceiptReading(Status.PASSING, "1 case separated upward, none downward", None,
    ...                    Verification.TESTED, 0.1416, 0.354, 0.02, 400, (), None, ())
    >>> badge_message(r)
    'passing · lift +0.14'
    """
    if reading.status == Status.NO_VERDICT and reading.no_verdict_reason == SMOKE_RUN:
        parts = [SMOKE_RUN.lower()]
    else:
        parts = [BADGE_WORDS[reading.status]]
    if reading.status == Status.UNDERPOWERED:
        needed = needed_draws(c.comparison for c in reading.cases if c.verdict == CaseVerdict.UNDERPOWERED)
        if needed.n is not None:
            parts.append(draws_per_arm_needed(needed.n))
        elif needed.sentence == NO_DRAW_COUNT:
            parts.append(NO_DRAW_COUNT)
    if reading.lift is not None:
        parts.append(f"lift {reading.lift:+.2f}")
    if verified is not None and verified.day is not None:
        parts.append(verified_on(verified.day, verified.model))
    return " · ".join(parts)


def badge_json(reading: ReceiptReading, verified: Verified | None = None) -> dict[str, object]:
    """The shields.io endpoint JSON: ``schemaVersion``, ``label``, ``message``, ``color`` and nothing else."""
    return {
        "schemaVersion": 1,
        "label": reading.skill_name or LABEL,
        "message": badge_message(reading, verified),
        "color": GREY if verified is not None and verified.grey is not None else COLORS[reading.status],
    }
