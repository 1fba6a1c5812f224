"""Building receipt parts from numbers: a draw's score is the mean of its valid judge samples.

Used by the runner and by tests; pure (no I/O, no clock).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from driftproof.core.bands import mean
from driftproof.core.economics import sum_usage
from driftproof.core.models import Arm, CheckResult, Draw, JudgeSample, Usage
from driftproof.core.words import BandSource, DrawStatus


def measured_draw(
    index: int,
    samples: Sequence[JudgeSample],
    *,
    checks: Sequence[CheckResult] = (),
    usage: Usage | None = None,
    reported_model: str | None = None,
    answer_sha256: str | None = None,
    **extra: object,
) -> Draw:
    """A draw scored by its valid judge samples; lost ("no valid judge sample") when none is valid.

    >>> d = measured_draw(0, [JudgeSample(score=0.8, valid=True), JudgeSample(score=None, valid=False)])
    >>> d.status, d.score
    ('measured', 0.8)
    """
    valid = [s.score for s in samples if s.valid and s.score is not None]
    common: dict[str, object] = {
        "index": index,
        "judge_samples": list(samples),
        "checks": list(checks),
        "usage": usage,
        "reported_model": reported_model,
        "answer_sha256": answer_sha256,
        **extra,
    }
    if not valid:
        return Draw.model_validate(
            {**common, "status": DrawStatus.LOST, "lost_reason": no_valid_sample_reason(samples), "score": None}
        )
    return Draw.model_validate({**common, "status": DrawStatus.MEASURED, "score": mean(valid)})


def no_valid_sample_reason(samples: Sequence[JudgeSample]) -> str:
    """Why a draw has no score: "no valid judge sample", and the commonest reason its samples gave.

    >>> failed = JudgeSample(score=None, valid=False, invalid_reason="judge call failed: connection refused")
    >>> no_valid_sample_reason([failed, failed])
    'no valid judge sample: judge call failed: connection refused (all 2 samples)'
    >>> no_valid_sample_reason([failed, JudgeSample(score=None, valid=False, invalid_reason="no score")])
    'no valid judge sample: judge call failed: connection refused (1 of 2 samples; 1 other reason)'
    >>> no_valid_sample_reason([])
    'no valid judge sample'
    """
    reasons = [s.invalid_reason for s in samples if s.invalid_reason]
    if not reasons:
        return "no valid judge sample"
    counted = Counter(reasons)
    top, n = counted.most_common(1)[0]
    if n == len(samples):
        return f"no valid judge sample: {top} (all {n} samples)"
    others = len(counted) - 1
    rest = f"; {others} other reason{'s' if others != 1 else ''}" if others else ""
    return f"no valid judge sample: {top} ({n} of {len(samples)} samples{rest})"


def lost_draw(index: int, reason: str, **extra: object) -> Draw:
    """A lost draw with its reason."""
    return Draw.model_validate({"index": index, "status": DrawStatus.LOST, "lost_reason": reason, **extra})


def arm_of(draws: Sequence[Draw]) -> Arm:
    """An arm from its draws; band source ``generation`` (the runner draws 2+ per arm)."""
    return Arm(band_source=BandSource.GENERATION, draws=list(draws), usage=sum_usage([d.usage for d in draws]))
