"""The receipt's judge-anchor canaries (``canaries``, since 0.17): pre-graded answers re-judged in every run.

Pure models; the rule that fills them is `driftproof.core.canaries`, their cost is in
``economics.judge_overhead.canaries`` (`driftproof.core.models.CanaryOverhead`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from driftproof.core.model_base import Count, Score, Sha256
from driftproof.core.model_base import ReceiptPart as _Model


class CanaryScore(_Model):
    """One canary: a fixed answer with the score it should get, and what the judge gave it in this run."""

    id: str
    """The canary's id, unique within the set."""
    case_id: str | None = None
    """The suite case whose task and rubric grade it; null when it carries a task of its own."""
    expected: Score
    """The score the canary was pre-graded at, from 0 to 1."""
    answer_sha256: Sha256 = Field(description="SHA-256 of the canary's answer text.")
    rubric_sha256: Sha256 = Field(
        description="SHA-256 of the task, rubric or criteria and judge template it is graded with."
    )
    scores: list[Score]
    """The valid judge samples' scores, in sample order."""
    invalid: Count = 0
    """Judge samples that gave no valid score (a failed call, an unparseable reply, or a reply that did not report
    the requested judge), out of the mean."""
    identity_failures: dict[str, Count] | None = None
    """The samples counted in invalid because their reply did not report the requested judge (the identity check
    of the run's other judge samples), by reason, with how many gave it; null when none failed it (and in
    receipts written before the check)."""
    reported_ids: list[str] | None = None
    """Every model id this canary's returned judge samples reported, each once, in the order first seen; null in
    receipts written before canary replies were identity-checked."""
    mean: Score | None = None
    """The mean of scores; null when no sample was valid."""


class Canaries(_Model):
    """The run's canaries, re-judged by the run's judge at its sampling and judge-samples count."""

    source: Literal["suite", "default"]
    """Where the set came from: the suite's canaries: list, or the set shipped with Driftproof."""
    set_sha256: Sha256 = Field(description="SHA-256 over every canary's id, expected score, answer and rubric.")
    judge_samples: Count
    """Judge samples per canary: the run's judge samples per draw (in a receipt merged from shards, every shard's
    pooled: the shards × that)."""
    tolerance: float
    """The tolerance the rule used (docs/canaries.md)."""
    mean_abs_deviation: float | None = None
    """The mean over scored canaries of |mean − expected|; null when no canary was scored."""
    mean_difference: float | None = None
    """The mean over scored canaries of (mean − expected), signed: which way the judge moved; null when none."""
    scored: Count = 0
    """Canaries with at least one valid judge sample: the ones the figures are over."""
    judge_drifted: bool | None = None
    """True when mean_abs_deviation is above tolerance; null when no canary was scored (drift not ruled out)."""
    sentence: str
    """The finding in words, with its figures: "judge drifted: …", "judge held: …" or why it is unknown."""
    canaries: list[CanaryScore]
    """Every canary, in set order."""
