"""The sentences of judge-anchor canaries: the receipt's finding, the reports' mark, the diff's reason. Pure."""

from __future__ import annotations

JUDGE_DRIFTED = "judge drifted"
"""What the reports print beside every verdict of a receipt whose canaries moved beyond the tolerance."""

ANCHORS_DIFFER = "the judge scored the anchors differently"
"""Why a diff between two receipts whose canaries disagree gives no verdict."""

ANCHORS_UNSCORED = "judge anchors unscored"
"""What the reports print beside every verdict of a receipt none of whose canaries got a valid judge sample."""


def _figures(deviation: float, difference: float, tolerance: float, scored: int, samples: int) -> str:
    """The figures of a finding: the deviation against the tolerance, the signed mean, the sample size."""
    return (
        f"the canaries' mean absolute deviation from their expected scores is {deviation:.3f} "
        f"(tolerance {tolerance:.2f}; mean difference {difference:+.3f}; {scored} canaries × {samples} judge samples)"
    )


def drifted(deviation: float, difference: float, tolerance: float, scored: int, samples: int) -> str:
    """The receipt's sentence when the judge drifted.

    >>> drifted(0.15, -0.15, 0.1, 4, 5)
    "judge drifted: the canaries' mean absolute deviation from their expected scores is 0.150 (tolerance 0.10; \
mean difference -0.150; 4 canaries × 5 judge samples)"
    """
    return f"{JUDGE_DRIFTED}: {_figures(deviation, difference, tolerance, scored, samples)}"


def held(deviation: float, difference: float, tolerance: float, scored: int, samples: int) -> str:
    """The receipt's sentence when the judge scored the canaries within the tolerance."""
    return f"judge held: {_figures(deviation, difference, tolerance, scored, samples)}"


def unscored(count: int) -> str:
    """The receipt's sentence when no canary got a valid judge sample.

    >>> unscored(4)
    'judge anchors unscored: none of the 4 canaries got a valid judge sample, so drift cannot be ruled out'
    """
    return f"{ANCHORS_UNSCORED}: none of the {count} canaries got a valid judge sample, so drift cannot be ruled out"


def anchors_differ(why: str) -> str:
    """The diff's no-verdict reason, with why the anchors disagree.

    >>> anchors_differ("after's judge drifted")
    "the judge scored the anchors differently (after's judge drifted)"
    """
    return f"{ANCHORS_DIFFER} ({why})"


def means_apart(difference: float, tolerance: float, count: int) -> str:
    """Why two receipts' canaries disagree: their means are apart beyond the tolerance.

    >>> means_apart(0.125, 0.1, 4)
    "the 4 canaries' means differ by 0.125 on average, above the tolerance 0.10"
    """
    return f"the {count} canaries' means differ by {difference:.3f} on average, above the tolerance {tolerance:.2f}"


def side_drifted(side: str) -> str:
    """One side's own canaries moved beyond the tolerance."""
    return f"{side}'s judge drifted"


def side_unscored(side: str) -> str:
    """One side's canaries got no valid judge sample."""
    return f"{side}'s canaries were not scored"


def judging_line(count: int, source: str, samples: int) -> str:
    """What a run prints before it judges its canaries.

    >>> judging_line(4, "default", 5)
    'driftproof: canaries: re-judging the 4 canaries of the default set × 5 judge samples (--no-canaries skips them)'
    """
    where = "the default set" if source == "default" else "the suite"
    return (
        f"driftproof: canaries: re-judging the {count} canaries of {where} × {samples} judge samples "
        "(--no-canaries skips them)"
    )
