"""The identity check of the judge-anchor canaries' samples: the canaries judge the judge, so a canary reply that
reports another model than the requested judge (or none) must not count as the judge's score.

Each returned canary sample goes through the check every returned judge sample of a draw goes through
(`driftproof.judge.sample_identity`). A sample that fails it is left out of the canary's figures: counted in
``invalid``, its reason in ``identity_failures``. The reasons also reach the receipt's verification level, by the
same rule as the draws' samples (docs/canaries.md). A sample whose call failed returned no reply and has no
identity to check; it is out of the figures already.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from driftproof.core.models import JudgeSample
from driftproof.judge import judge_ids, sample_identity


class CheckedSamples(NamedTuple):
    """One canary's samples once checked."""

    scores: list[float | None]
    """Per sample, in sample order, its score when valid and the requested judge's; else ``None``."""
    failures: dict[str, int]
    """Samples that failed the identity check, by reason."""
    reported_ids: list[str]
    """Every model id the returned samples reported, each once, in the order first seen."""
    identity: list[str | None]
    """Per returned sample, why it is not the requested judge's, or ``None``."""


def checked_samples(requested: str | None, samples: Sequence[JudgeSample | None]) -> CheckedSamples:
    """Score, identity reasons and reported ids of one canary's samples (``None``: a sample never returned).

    >>> ok = JudgeSample(score=0.9, valid=True, returned=True, reported_ids=["j-1"], serving_id="j-1")
    >>> other = JudgeSample(score=0.2, valid=True, returned=True, reported_ids=["k-2"], serving_id="k-2")
    >>> c = checked_samples("j-1", [ok, other, None])
    >>> c.scores, c.failures, c.reported_ids
    ([0.9, None, None], {"a judge reply named 'k-2' as serving it, not the requested 'j-1'": 1}, ['j-1', 'k-2'])
    """
    scores: list[float | None] = []
    failures: dict[str, int] = {}
    ids: list[str] = []
    identity: list[str | None] = []
    for sample in samples:
        if sample is None or sample.returned is False:
            scores.append(None)
            continue
        ids += [i for i in dict.fromkeys(judge_ids(sample)) if i not in ids]
        reason = sample_identity(requested, sample)
        identity.append(reason)
        if reason is not None:
            failures[reason] = failures.get(reason, 0) + 1
            scores.append(None)
            continue
        scores.append(sample.score if sample.valid else None)
    return CheckedSamples(scores, failures, ids, identity)
