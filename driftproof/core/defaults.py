"""The defaults of a run and of a gate, written once: the CLI's flags and help, the Action's inputs, the lanes,
the runner and the stopping rule all read `DEFAULTS`.

>>> DEFAULTS.draws, DEFAULTS.max_draws, DEFAULTS.judge_samples, DEFAULTS.concurrency
(3, 10, 5, 8)
>>> str(DEFAULTS.judge_provider), DEFAULTS.judge_model
('anthropic', 'claude-haiku-4-5')
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.core.words import Capture, Delivery, FailOn, JudgeMode, Provider, Surface


@dataclass(frozen=True, slots=True)
class Defaults:
    """What a run does when a flag or input is not given."""

    provider: Provider = Provider.ANTHROPIC
    surface: Surface = Surface.API
    judge_provider: Provider = Provider.ANTHROPIC
    """One fixed, cheap judge for every run (the stub judges a stub run)."""
    judge_model: str = "claude-haiku-4-5"
    draws: int = 3
    """The fewest draws per arm per case; the stopping rule may draw more."""
    max_draws: int = 10
    """The most draws per arm per case the stopping rule may make."""
    judge_samples: int = 5
    """Judge samples per answer."""
    concurrency: int = 8
    """Calls in flight at once."""
    max_tokens: int = 2048
    """The output ceiling of each answer (``--max-tokens``), which a plan's and a budget's worst case count."""
    api_timeout_s: float = 120.0
    """Seconds one attempt may take on an API lane; a CLI lane has its own, longer default."""
    max_retries: int = 4
    """Retries per call after the first attempt (429, 529, 5xx, timeouts)."""
    max_consecutive_failures: int = 10
    """Calls that may fail in a row, after their retries, before the run stops; 0 never stops."""
    capture: Capture = Capture.TEXT
    delivery: Delivery = Delivery.SYSTEM_PROMPT
    judge_mode: JudgeMode = JudgeMode.ABSOLUTE
    """Absolute scores only; ``pairwise`` adds the side-by-side comparisons (``--judge-mode``, ``judge-mode``)."""
    diff_fail_on: FailOn = FailOn.NEVER
    """``driftproof diff`` reports and exits 0 unless asked to gate."""
    action_fail_on: FailOn = FailOn.REGRESSED
    """The Action gates the merge on a regression unless told otherwise."""
    receipt_path: str = ".driftproof/receipt.json"
    """Where the Action stores the default branch's receipt."""
    badge_path: str = ".driftproof/badge.json"
    """Where the Action writes the shields.io endpoint JSON."""
    stale_after: int = 30
    """Days after which the badge turns grey (``driftproof badge --stale-after``, the Action's ``stale-after``)."""
    sentinel: bool = False
    """The Action's ``sentinel`` input: a scheduled re-run compared with the stored receipt for drift."""
    budget: int | None = None
    """No token budget (``--budget``, the Action's ``budget``): the run draws as the stopping rule asks."""
    budget_usd: float | None = None
    """No dollar budget (``--budget-usd``, the Action's ``budget-usd``)."""
    canary_tolerance: float = 0.10
    """Judge-anchor canaries (docs/canaries.md): the judge drifted when the mean absolute deviation of the canary
    means from their expected scores is above it, and two receipts' judges disagree when the mean absolute
    difference of their canary means is above it."""
    canaries: bool = True
    """A run re-judges the suite's ``canaries:`` (``--no-canaries``: none)."""
    default_canaries: bool = False
    """A suite without ``canaries:`` is run without any unless ``--default-canaries`` asks for the shipped set: it
    costs judge calls on every run and anchors the judge on a task unrelated to the suite (docs/canaries.md)."""


DEFAULTS = Defaults()


@dataclass(frozen=True, slots=True)
class Limits:
    """The most a flag or input may ask for: guards against a typo that would cost a fortune or never end."""

    count: int = 10_000
    """Draws, judge samples, calls in flight, failures in a row."""
    retries: int = 100
    """Retries per call."""
    timeout_s: float = 86_400.0
    """Seconds per attempt: a day."""
    tokens: int = 10**12
    """Tokens of a budget or of an answer's output ceiling."""


LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class EvidenceLimits:
    """Bounds on the answers and judge identity entering a regrade, checked before an archive is parsed or an id
    copied (docs/receipt-spec.md, "Bounds"). Not on provider transport buffering, nor on receipt or suite size."""

    archive_bytes: int = 64 * 1024 * 1024
    """Bytes of an answers archive, read no further."""
    archive_lines: int = 100_000
    """Lines (draws) of an answers archive."""
    answer_chars: int = 2_000_000
    """Characters of one archived answer."""
    reply_chars: int = 1_000_000
    """Characters of one archived judge reply."""
    replies_per_answer: int = 1_000
    """Judge replies archived beside one answer."""
    ids_per_sample: int = 16
    """Model ids one judge reply may report."""
    id_chars: int = 256
    """Characters of one reported model id or serving id."""


EVIDENCE = EvidenceLimits()


def judge_provider_for(provider: str, judge_provider: str | None) -> Provider:
    """The judge's provider: as given, else the stub for a stub run, else the one fixed judge's.

    >>> [str(p) for p in (judge_provider_for("openai", None), judge_provider_for("stub", None),
    ...                   judge_provider_for("stub", "openai"))]
    ['anthropic', 'stub', 'openai']
    """
    if judge_provider:
        return Provider(judge_provider)
    return Provider.STUB if provider == Provider.STUB else DEFAULTS.judge_provider
