"""Pairwise judging in figures: a call's choice mapped back to the arms, a pair's agreement, the summaries. Pure.

With ``--judge-mode pairwise`` each draw pair (with-skill draw i, baseline draw i) is shown to the judge side by
side twice: first with the with-skill answer as A, then swapped. A judge without position bias prefers the same
arm both times; a pair whose preference moved with the positions is position-bias evidence. None of this is
read by the band rule (R-1 … R-6), a verdict, a status or a gate: it is reported beside the absolute scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from driftproof.core.models import Receipt
from driftproof.core.pairwise_models import PairwiseCall, PairwiseResult, PairwiseSummary, Preference
from driftproof.core.pairwise_sentences import pairwise_line

PAIRWISE_ARM = "pairwise"
"""The arm a pairwise judge call names in its request (its sample index is the call: 0 first, 1 swapped)."""

CHOICES = ("A", "B", "tie")
"""What a pairwise reply may choose: a position, or neither."""


def preference(choice: str | None, with_skill_position: str) -> Preference | None:
    """The arm a choice of position prefers, given where the with-skill answer was shown.

    >>> preference("A", "A"), preference("A", "B"), preference("tie", "B"), preference(None, "A")
    ('with_skill', 'baseline', 'tie', None)
    """
    if choice is None:
        return None
    if choice == "tie":
        return "tie"
    return "with_skill" if choice == with_skill_position else "baseline"


def pair_result(draw_index: int, first: PairwiseCall, second: PairwiseCall) -> PairwiseResult:
    """One pair from its two calls (first: with-skill as A; second: swapped); ``agree`` only when both yield one.

    A call yields a preference only when it has a choice and no invalid reason (a failed call, an unparseable
    reply, a reply that is not the requested judge's).

    >>> a = PairwiseCall(with_skill_position="A", choice="A", returned=True)
    >>> b = PairwiseCall(with_skill_position="B", choice="A", returned=True)  # A is now the baseline
    >>> r = pair_result(0, a, b)
    >>> r.first, r.second, r.agree
    ('with_skill', 'baseline', False)
    """
    prefs = [preference(c.choice, c.with_skill_position) if c.invalid_reason is None else None for c in (first, second)]
    agree = None if prefs[0] is None or prefs[1] is None else prefs[0] == prefs[1]
    return PairwiseResult(draw_index=draw_index, first=prefs[0], second=prefs[1], agree=agree, calls=[first, second])


def _rate(count: int, total: int) -> float | None:
    """``count / total``; ``None`` for no complete pair (no rate, never a 0 or a NaN)."""
    return count / total if total else None


def summarize(results: Iterable[PairwiseResult]) -> PairwiseSummary:
    """The figures of some pairs: complete pairs are the denominator; a pair prefers an arm when both calls do.

    >>> ws = PairwiseResult(draw_index=0, first="with_skill", second="with_skill", agree=True, calls=[])
    >>> moved = PairwiseResult(draw_index=1, first="with_skill", second="baseline", agree=False, calls=[])
    >>> half = PairwiseResult(draw_index=2, first="tie", second=None, agree=None, calls=[])
    >>> s = summarize([ws, ws, ws, moved, half])
    >>> s.pairs, s.complete, s.with_skill_preferred, s.disagreed, s.with_skill_preferred_rate, s.position_bias_rate
    (5, 4, 3, 1, 0.75, 0.25)
    >>> summarize([]).with_skill_preferred_rate is None
    True
    """
    items = list(results)
    complete = [r for r in items if r.agree is not None]
    agreed = [r.first for r in complete if r.agree]
    disagreed = len(complete) - len(agreed)
    ws = agreed.count("with_skill")
    return PairwiseSummary(
        pairs=len(items),
        complete=len(complete),
        with_skill_preferred=ws,
        baseline_preferred=agreed.count("baseline"),
        ties=agreed.count("tie"),
        disagreed=disagreed,
        with_skill_preferred_rate=_rate(ws, len(complete)),
        position_bias_rate=_rate(disagreed, len(complete)),
    )


def overall(per_case: Sequence[Sequence[PairwiseResult] | None]) -> PairwiseSummary | None:
    """The figures over every case's pairs; ``None`` when no case was judged pairwise.

    >>> ws = PairwiseResult(draw_index=0, first="with_skill", second="with_skill", agree=True, calls=[])
    >>> overall([[ws], None, [ws, ws]]).with_skill_preferred, overall([None, None])
    (3, None)
    """
    if all(results is None for results in per_case):
        return None
    return summarize(r for results in per_case if results is not None for r in results)


class CasePairwise(NamedTuple):
    """One case's pairwise figures and their sentence."""

    id: str
    summary: PairwiseSummary
    line: str


class PairwiseView(NamedTuple):
    """A receipt's pairwise figures as its readers show them, beside the absolute scores."""

    summary: PairwiseSummary
    line: str
    cases: list[CasePairwise]


def pairwise_view(receipt: Receipt) -> PairwiseView | None:
    """Every case's pairwise figures and their total, read from the cases' pairs (so a merged receipt reads
    the same); ``None`` for a receipt judged without ``--judge-mode pairwise``."""
    total = overall([c.pairwise for c in receipt.cases])
    if total is None:
        return None
    cases = []
    for c in receipt.cases:
        if c.pairwise is not None:
            summary = summarize(c.pairwise)
            cases.append(CasePairwise(c.id, summary, pairwise_line(summary)))
    return PairwiseView(total, pairwise_line(total), cases)


def pairwise_json(receipt: Receipt) -> dict[str, Any] | None:
    """The ``pairwise`` key of ``view --format json`` (and each side of ``diff``'s): the figures and sentences."""
    view = pairwise_view(receipt)
    if view is None:
        return None
    return {
        **view.summary.model_dump(),
        "line": view.line,
        "cases": [{"id": c.id, **c.summary.model_dump(), "line": c.line} for c in view.cases],
    }


def with_pairwise_json(doc: dict[str, Any], *receipts: Receipt) -> dict[str, Any]:
    """``view``'s (one receipt) or ``diff``'s (before, after) JSON with a ``pairwise`` key when any receipt was
    judged pairwise: the view's figures, or ``{"before": …, "after": …}``; unchanged otherwise."""
    docs = [pairwise_json(r) for r in receipts]
    if all(d is None for d in docs):
        return doc
    return {**doc, "pairwise": docs[0] if len(docs) == 1 else dict(zip(("before", "after"), docs, strict=True))}
