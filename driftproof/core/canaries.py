"""Judge-anchor canaries: whether the judge scored the pre-graded answers as expected, and whether two receipts'
judges scored them alike. Pure: scores in, the receipt's ``canaries`` and a diff's reason out.

**The rule** (docs/canaries.md). Each canary's mean is the mean of its valid judge samples. The judge *drifted*
when the mean absolute deviation of the canary means from their expected scores (over the canaries with a mean)
is above the tolerance, `DEFAULTS.canary_tolerance` (0.10). Two receipts' canaries *disagree* when either judge
drifted, either receipt's canaries went unscored, or (same set) the mean absolute difference of their canary
means is above the same tolerance. Deviations are rounded to 9 decimals before the comparison, so a deviation
of exactly the tolerance on the 0.05 grid reads as within it, whatever the float error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

from driftproof.core.bands import mean
from driftproof.core.canary_models import Canaries, CanaryScore
from driftproof.core.canary_sentences import (
    ANCHORS_UNSCORED,
    JUDGE_DRIFTED,
    anchors_differ,
    drifted,
    held,
    means_apart,
    side_drifted,
    side_unscored,
    unscored,
)
from driftproof.core.defaults import DEFAULTS
from driftproof.core.seal import content_hash


class AnchorSpec(NamedTuple):
    """One canary as the run judges it: its id, where its rubric comes from, its expected score, its fingerprints."""

    id: str
    case_id: str | None
    expected: float
    answer_sha256: str
    rubric_sha256: str


def set_hash(specs: Sequence[AnchorSpec]) -> str:
    """SHA-256 over the set: two receipts' canaries are the same set exactly when it matches."""
    return content_hash([list(s) for s in specs])


def canary_score(
    spec: AnchorSpec,
    samples: Sequence[float | None],
    identity_failures: Mapping[str, int] | None = None,
    reported_ids: Sequence[str] | None = None,
) -> CanaryScore:
    """One canary's record from its judge samples' scores (``None``: a sample with no valid score, a sample that
    failed the identity check included: ``identity_failures`` says why, by reason).

    >>> s = canary_score(AnchorSpec("a", None, 0.9, "0" * 64, "1" * 64), [0.8, None, 0.7])
    >>> s.scores, s.invalid, round(s.mean, 9)
    ([0.8, 0.7], 1, 0.75)
    """
    valid = [s for s in samples if s is not None]
    return CanaryScore(
        id=spec.id,
        case_id=spec.case_id,
        expected=spec.expected,
        answer_sha256=spec.answer_sha256,
        rubric_sha256=spec.rubric_sha256,
        scores=valid,
        invalid=len(samples) - len(valid),
        mean=mean(valid) if valid else None,  # no valid sample: no mean, never a NaN
        identity_failures=dict(identity_failures) if identity_failures else None,
        reported_ids=list(reported_ids) if reported_ids is not None else None,
    )


def _above(value: float, tolerance: float) -> bool:
    """``value`` above ``tolerance`` once float error is rounded away (9 decimals)."""
    return round(value, 9) > round(tolerance, 9)


def read_anchors(
    source: Literal["suite", "default"],
    specs: Sequence[AnchorSpec],
    scored: Sequence[CanaryScore],
    judge_samples: int,
    tolerance: float = DEFAULTS.canary_tolerance,
) -> Canaries:
    """The receipt's ``canaries``: the figures, the finding and its sentence.

    >>> spec = AnchorSpec("a", None, 0.9, "0" * 64, "1" * 64)
    >>> c = read_anchors("default", [spec], [canary_score(spec, [0.7, 0.75])], 2)
    >>> c.judge_drifted, round(c.mean_abs_deviation, 9), round(c.mean_difference, 9)  # |0.725 − 0.9| = 0.175
    (True, 0.175, -0.175)
    """
    means = [(c.mean, c.expected) for c in scored if c.mean is not None]
    base = {
        "source": source,
        "set_sha256": set_hash(specs),
        "judge_samples": judge_samples,
        "tolerance": tolerance,
        "canaries": list(scored),
        "scored": len(means),
    }
    if not means:  # degenerate: nothing to compare, drift cannot be ruled out
        return Canaries(**base, judge_drifted=None, sentence=unscored(len(scored)))
    deviation = mean([abs(m - e) for m, e in means])
    difference = mean([m - e for m, e in means])
    moved = _above(deviation, tolerance)
    words = (drifted if moved else held)(deviation, difference, tolerance, len(means), judge_samples)
    return Canaries(
        **base, mean_abs_deviation=deviation, mean_difference=difference, judge_drifted=moved, sentence=words
    )


def drift_mark(canaries: Canaries | None) -> str | None:
    """What the reports print beside every verdict: ``judge drifted``, ``judge anchors unscored``, or nothing.

    >>> drift_mark(None) is None
    True
    """
    if canaries is None or canaries.judge_drifted is False:
        return None
    return JUDGE_DRIFTED if canaries.judge_drifted else ANCHORS_UNSCORED


def anchors_disagree(
    before: Canaries | None, after: Canaries | None, tolerance: float = DEFAULTS.canary_tolerance
) -> str | None:
    """Why a diff between receipts with these canaries gives no verdict (``None``: the anchors agree, or neither
    receipt has canaries, as before 0.17). Receipts with different sets are each read against their own
    expected scores only."""
    reasons = []
    for side, canaries in (("before", before), ("after", after)):
        if canaries is not None and canaries.judge_drifted is not False:
            reasons.append(side_drifted(side) if canaries.judge_drifted else side_unscored(side))
    if not reasons and before is not None and after is not None and before.set_sha256 == after.set_sha256:
        apart = mean_abs_difference(before, after)
        if apart is not None and _above(apart, tolerance):
            reasons.append(means_apart(apart, tolerance, len(after.canaries)))
    return anchors_differ("; ".join(reasons)) if reasons else None


def mean_abs_difference(before: Canaries, after: Canaries) -> float | None:
    """The mean over canaries scored on both sides of |after's mean − before's mean|; ``None`` when none is.

    >>> from driftproof.core.canary_models import CanaryScore as S
    >>> one = dict(expected=0.5, answer_sha256="0" * 64, rubric_sha256="1" * 64, scores=[])
    >>> b = Canaries.model_construct(canaries=[S.model_construct(id="a", mean=0.9, **one)])
    >>> a = Canaries.model_construct(canaries=[S.model_construct(id="a", mean=0.75, **one)])
    >>> round(mean_abs_difference(b, a), 9)
    0.15
    """
    then = {c.id: c.mean for c in before.canaries if c.mean is not None}
    pairs = [abs(c.mean - then[c.id]) for c in after.canaries if c.mean is not None and c.id in then]
    return mean(pairs) if pairs else None


def anchors_text(canaries: Canaries | None) -> str:
    """One side's canaries in a diff's list of differences.

    >>> anchors_text(None)
    'none'
    """
    if canaries is None:
        return "none"
    if canaries.judge_drifted is None or canaries.mean_abs_deviation is None:
        return f"unscored ({len(canaries.canaries)} canaries)"
    state = "drifted" if canaries.judge_drifted else "held"
    return f"judge {state}, mean absolute deviation {canaries.mean_abs_deviation:.3f} ({canaries.set_sha256[:12]})"
