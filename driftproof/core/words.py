"""The vocabulary: status words as ``StrEnum`` (values are the JSON strings) and the exact sentences.

Users grep for these strings; they are a public interface. Change none of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

#: The effect floor F on the judge scale [0, 1] (R-3).
EFFECT_FLOOR = 0.05

#: Differences closer than this are treated as equal (touching bands overlap, R-2; a gap this close
#: below the floor still meets it, R-3). Scores sit on a ~0.05 grid, so 1e-9 only absorbs float residue.
TOLERANCE = 1e-9


class ArmName(StrEnum):
    """One of the two arms of a case."""

    WITH_SKILL = "with_skill"
    BASELINE = "baseline"


class DrawStatus(StrEnum):
    """A draw either has a score or is lost with a reason."""

    MEASURED = "measured"
    LOST = "lost"


class BandSource(StrEnum):
    """Where an arm's band comes from: across draws (``generation``) or one draw's judge samples (``legacy``)."""

    GENERATION = "generation"
    LEGACY = "legacy"


class Verification(StrEnum):
    """Verification levels. ``FORMAL`` is reserved: never written, refused on read."""

    UNVERIFIED = "UNVERIFIED"
    DECLARED = "DECLARED"
    TESTED = "TESTED"


class CaseVerdict(StrEnum):
    """Per-case verdict, inside a receipt (with_skill vs baseline) and in a diff (before vs after)."""

    IMPROVED = "improved"
    REGRESSED = "regressed"
    BELOW_EFFECT_FLOOR = "below_effect_floor"
    NO_SEPARATION = "no_separation"
    UNDERPOWERED = "underpowered"
    INCONCLUSIVE = "inconclusive"


class Status(StrEnum):
    """Status of a receipt or of a diff."""

    PASSING = "passing"
    REGRESSED = "regressed"
    UNDERPOWERED = "underpowered"
    NO_SEPARATION = "no_separation"
    NO_VERDICT = "no_verdict"


class Outcome(StrEnum):
    """An arm's outcome against its case's threshold."""

    PASS = "pass"
    FAIL = "fail"
    BORDERLINE = "borderline"


class Provider(StrEnum):
    """Who serves a model: the lane's provider, and the judge's (``--provider``, ``--judge-provider``)."""

    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    STUB = "stub"
    """The offline lane: scripted or seeded answers and scores, no endpoint."""


class Surface(StrEnum):
    """How a lane reaches its model (``--surface``)."""

    API = "api"
    """The provider's HTTP API through its SDK."""
    CLI = "cli"
    """An agent CLI run as a subprocess (``claude -p``, ``codex exec``)."""
    NONE = "none"
    """No endpoint: the stub lane, or an imported receipt."""


class Capture(StrEnum):
    """Which answer is graded (``--capture``)."""

    TEXT = "text"
    """The agent's final text."""
    FILES = "files"
    """The files the agent wrote in its working directory (CLI surface only)."""


class Delivery(StrEnum):
    """How the skill reaches the agent in the with-skill arm (``--delivery``)."""

    SYSTEM_PROMPT = "system_prompt"
    """The skill's text in the system prompt."""
    DISCOVER = "discover"
    """Installed where the agent discovers skills, for it to load (CLI surface only)."""


class FailOn(StrEnum):
    """When a gate fails: ``diff --fail-on`` and the Action's ``fail-on`` input."""

    REGRESSED = "regressed"
    """A case separated downward against the receipt compared with."""
    UNDERPOWERED = "underpowered"
    """As ``regressed``, and also when the comparison could not conclude for lack of draws."""
    NEVER = "never"
    """Report only; exit 0 whatever the verdict."""


# The exact sentences (seed 000, DESIGN.md). Users grep for them.
NOT_ENOUGH_DRAWS = "Not enough draws to conclude at this effect floor."
MORE_CASES = "More cases, not more draws, are needed to conclude at this effect floor."
THIN_REFERENCE = "Not enough draws on the default branch's receipt to conclude at this effect floor."
NO_SEPARATION_HEADLINE = "no separation detected at this sample size"
SMOKE_RUN = "Smoke run, no verdict"
NO_DRAW_COUNT = "no draw count reaches the floor"
SPREAD_UNKNOWN = "spread unknown: an arm has one draw"
DIFFERENT_SOURCES = (
    "The two receipts' bands come from different sources, and a per-case comparison across them is not like for like."
)
NOT_PROOF = "A separation is what these tests saw, not proof that the skill changed."
NO_DRAW_COUNT_HELP = "the spreads alone reach it; more cases, or a less noisy case, would help"
NO_VERDICT = "no verdict"
DIFFERENT_JUDGES = "graded by different judges: not like for like"
DIFFERENT_PROVIDERS = "raw scores across model families are background, never a ranking; compare the lifts"
NOT_RUN = "Not run on this lane"
NO_SERVED_MODEL = "reports no served model"

#: A status in words, for the first line of every report (the JSON keeps the token).
STATUS_WORDS: Mapping[Status, str] = {
    Status.PASSING: "passing",
    Status.REGRESSED: "regressed",
    Status.UNDERPOWERED: "underpowered",
    Status.NO_SEPARATION: NO_SEPARATION_HEADLINE,
    Status.NO_VERDICT: NO_VERDICT,
}

#: A case verdict in words, for every table cell and line of prose (the JSON keeps the token).
VERDICT_WORDS: Mapping[CaseVerdict, str] = {
    CaseVerdict.IMPROVED: "improved",
    CaseVerdict.REGRESSED: "regressed",
    CaseVerdict.BELOW_EFFECT_FLOOR: "below effect floor",
    CaseVerdict.NO_SEPARATION: NO_SEPARATION_HEADLINE,
    CaseVerdict.UNDERPOWERED: "underpowered",
    CaseVerdict.INCONCLUSIVE: "inconclusive",
}
