"""The vocabulary: status words as ``StrEnum`` (values are the JSON strings), the effect floor and the tolerance.

The JSON strings are a public interface: change none of them. What a report or the terminal says of each word
is in ``driftproof.core.sentences``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

#: The effect floor F on the judge scale [0, 1] (R-3).
EFFECT_FLOOR = 0.05

#: Differences closer than this are treated as equal (touching bands overlap, R-2; a gap this close
#: below the floor still meets it, R-3). Scores sit on a ~0.05 grid, so 1e-9 only absorbs float residue.
TOLERANCE = 1e-9


Word = TypeVar("Word", bound=StrEnum)
"""Any of the vocabularies below, for a function that takes a word of whichever one it is given."""


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


SKIPPED = "skipped"
"""The Action's ``status`` output when nothing was measured, so no status word applies: a fork pull request without
the provider's key, a monorepo pull request that touches no skill."""


class Separation(StrEnum):
    """A case's label in the lift breakdown: its with-skill arm separated from its baseline upward or downward,
    under the floor and the spread rule with the lost-draw protections (R-1 … R-4, R-6)."""

    HELPS = "helps"
    HURTS = "hurts"


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


class JudgeMode(StrEnum):
    """How the judge grades (``--judge-mode``): absolute scores always; pairwise comparisons on top (opt-in)."""

    ABSOLUTE = "absolute"
    """Each answer scored on its own, several samples per draw: what the band rule reads."""
    PAIRWISE = "pairwise"
    """As absolute, and each draw pair also judged side by side twice, positions swapped: never in the band rule."""


class ImportKind(StrEnum):
    """The sources ``driftproof import KIND FILE…`` converts (its first argument)."""

    CALIPER = "caliper"
    """Caliper saved results: a full run, and its ``--ablate <skill>`` run as the baseline."""
    PLUGIN_EVAL = "plugin-eval"
    """``claude plugin eval --json`` output, with and without arms."""
    SKILL_CREATOR = "skill-creator"
    """skill-creator's ``benchmark.json``, runs by configuration."""
    PROMPTFOO = "promptfoo"
    """``promptfoo eval -o results.json``, one provider or prompt marked as the with-skill arm."""
    NVIDIA_CARD = "nvidia-card"
    """NVIDIA skill benchmark cards (``BENCHMARK.md`` / ``benchmarks.json``): aggregates only."""


class FailOn(StrEnum):
    """When a gate fails: ``diff --fail-on`` and the Action's ``fail-on`` input."""

    REGRESSED = "regressed"
    """A case separated downward against the receipt compared with."""
    UNDERPOWERED = "underpowered"
    """As ``regressed``, and also when the comparison could not conclude for lack of draws."""
    NEVER = "never"
    """Report only; exit 0 whatever the verdict."""


class Staleness(StrEnum):
    """What ``driftproof stale`` says of one arm of one case, least to most work (``--format json`` ``status``)."""

    STANDS = "stands"
    """Nothing it depends on changed: its draws and grades still hold."""
    REGRADE = "regrade"
    """Only the grading changed and the receipt kept its answers: grade the saved answers again."""
    RERUN = "rerun"
    """Draw the arm again: what produced its answers changed, is unknown, or its answers were not kept."""
