"""What a user reads of pairwise judging (``--judge-mode pairwise``): written once, here. Pure."""

from __future__ import annotations

from driftproof.core.pairwise_models import PairwiseSummary

PAIRWISE_LABEL = "Pairwise judge (beside the scores, never in the verdict)"
"""The heading every reader puts over the pairwise figures."""

NOT_REGRADABLE_PAIRWISE = (
    "it was judged with --judge-mode pairwise, whose side-by-side calls a regrade does not make again; "
    "run the suite again instead"
)
"""Why ``driftproof regrade`` refuses a pairwise receipt (after the receipt's path)."""


def pairwise_start_line(pairs: int) -> str:
    """What a pairwise run prints before its side-by-side calls, once every draw is judged.

    >>> pairwise_start_line(8)
    'driftproof: pairwise: judging 8 draw pairs side by side, positions swapped (16 judge calls)'
    """
    return (
        f"driftproof: pairwise: judging {pairs} draw pair{'s' if pairs != 1 else ''} side by side, "
        f"positions swapped ({2 * pairs} judge calls)"
    )


def pairwise_line(summary: PairwiseSummary) -> str:
    """The one sentence of some pairs' figures.

    >>> s = PairwiseSummary(pairs=8, complete=8, with_skill_preferred=7, baseline_preferred=0, ties=0, disagreed=1)
    >>> pairwise_line(s)
    'with-skill preferred in 7 of 8 pairs; positions disagreed in 1 of 8 (position bias)'
    >>> pairwise_line(PairwiseSummary(pairs=3, complete=2, with_skill_preferred=1, baseline_preferred=1, ties=0,
    ...     disagreed=0))
    'with-skill preferred in 1 of 2 pairs (baseline in 1); positions disagreed in 0 of 2; 1 pair incomplete'
    >>> pairwise_line(PairwiseSummary(pairs=1, complete=0, with_skill_preferred=0, baseline_preferred=0, ties=0,
    ...     disagreed=0))
    'no pair was judged in both orders (1 pair incomplete)'
    """
    incomplete = summary.pairs - summary.complete
    left = f"{incomplete} pair{'s' if incomplete != 1 else ''} incomplete"
    if summary.complete == 0:
        return f"no pair was judged in both orders ({left})"
    n = summary.complete
    others = [f"baseline in {summary.baseline_preferred}"] if summary.baseline_preferred else []
    others += [f"tie in {summary.ties}"] if summary.ties else []
    text = f"with-skill preferred in {summary.with_skill_preferred} of {n} pairs"
    text += f" ({', '.join(others)})" if others else ""
    text += f"; positions disagreed in {summary.disagreed} of {n}"
    text += " (position bias)" if summary.disagreed else ""
    return text + (f"; {left}" if incomplete else "")
