"""Reading a receipt's placebo arm: "lift vs more context" (with_skill − placebo), per case and overall.

The same verdict rule as "lift vs no skill" (`driftproof.core.compare.compare`, R-1 … R-4 and R-6; a case the
budget stopped reads underpowered, `at_budget`), the same status words (`judge_status`, R-5 included), and the
same no-verdict rule (`no_verdict`). The receipt's headline status and the Action's gate stay with_skill vs
baseline (`driftproof.core.reading.read_receipt`): the placebo pair is reported beside them, never gated on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from driftproof.core.bands import mean, sample_sd
from driftproof.core.compare import ArmEvidence, Comparison, compare
from driftproof.core.models import Receipt
from driftproof.core.placebo_sentences import only_one_placebo
from driftproof.core.reading import at_budget, evidence, judge_status, no_verdict
from driftproof.core.words import CaseVerdict, Status


@dataclass(frozen=True, slots=True)
class PairReading:
    """One case's with-skill arm against its placebo arm ("lift vs more context")."""

    id: str
    comparison: Comparison
    verdict: CaseVerdict | None
    """The verdict under the one rule; ``None`` when the receipt gets no verdict (`no_verdict`)."""
    lift: float | None
    """mean(with_skill) − mean(placebo); ``None`` when either arm has no measured draw."""
    placebo_mean: float | None
    placebo_sd: float | None
    placebo_measured: int


@dataclass(frozen=True, slots=True)
class PlaceboReading:
    """What a receipt's placebo arm says: per case, and overall with the headline rule's wording."""

    cases: tuple[PairReading, ...]
    lift: float | None
    """Mean over the cases where both arms measured of (m_with − m_placebo), each case weighted equally."""
    lift_spread: float | None
    """The sample sd of those per-case differences (context); ``None`` with fewer than two."""
    status: Status
    """passing, regressed, underpowered or no_separation of with_skill vs placebo; no_verdict as the receipt."""
    tokens: int
    """The placebo's token estimate (equal to the skill's)."""


def pair_lift(new: Sequence[ArmEvidence], ref: Sequence[ArmEvidence]) -> tuple[float | None, float | None]:
    """Mean and sample sd over cases of mean(new) − mean(ref), cases where an arm measured nothing left out.

    >>> pair_lift([ArmEvidence((0.75, 0.25)), ArmEvidence((0.5,))], [ArmEvidence((0.5, 0.0)), ArmEvidence(())])
    (0.25, None)
    """
    deltas = [mean(n.scores) - mean(r.scores) for n, r in zip(new, ref, strict=True) if n.measured and r.measured]
    if not deltas:
        return None, None
    return mean(deltas), sample_sd(deltas)


def has_placebo(receipt: Receipt) -> bool:
    """Whether ``receipt`` was drawn with ``--placebo``: its top-level record and every case's third arm."""
    return receipt.placebo is not None and all(c.placebo is not None for c in receipt.cases)


def read_placebo(receipt: Receipt) -> PlaceboReading | None:
    """with_skill against placebo in every case and overall; ``None`` for a receipt drawn without ``--placebo``.

    The status words and the sentences are the headline's; ``no_verdict`` withholds every verdict here as it
    does there, and the lift stays as context.
    """
    if not has_placebo(receipt) or receipt.placebo is None:
        return None
    withheld = no_verdict(receipt) is not None
    new = [evidence(c.with_skill) for c in receipt.cases]
    ref = [evidence(c.placebo) for c in receipt.cases if c.placebo is not None]
    comparisons = [at_budget(compare(n, r), c.stop_reason) for n, r, c in zip(new, ref, receipt.cases, strict=True)]
    cases = tuple(
        PairReading(
            id=c.id,
            comparison=cmp,
            verdict=None if withheld else cmp.verdict,
            lift=cmp.delta if n.measured and r.measured else None,
            placebo_mean=cmp.ref.mean,
            placebo_sd=cmp.ref.sd,
            placebo_measured=r.measured,
        )
        for c, cmp, n, r in zip(receipt.cases, comparisons, new, ref, strict=True)
    )
    lift, spread = pair_lift(new, ref)
    status = Status.NO_VERDICT if withheld else judge_status(comparisons, new, ref).status
    return PlaceboReading(cases, lift, spread, status, receipt.placebo.tokens)


def placebo_note(before: Receipt, after: Receipt, labels: tuple[str, str] = ("before", "after")) -> str | None:
    """The diff's one line when only one of its receipts has a placebo arm; ``None`` when both or neither do."""
    had = has_placebo(before), has_placebo(after)
    if had[0] == had[1]:
        return None
    has, lacks = (labels[0], labels[1]) if had[0] else (labels[1], labels[0])
    return only_one_placebo(has, lacks)


def placebo_json(reading: PlaceboReading | None, receipt: Receipt) -> dict[str, Any] | None:
    """The ``placebo`` key of ``view --format json`` (and of each side of ``diff --format json``)."""
    if reading is None or receipt.placebo is None:
        return None
    return {
        "sha256": receipt.placebo.sha256,
        "tokens": reading.tokens,
        "status": str(reading.status),
        "lift_vs_more_context": reading.lift,
        "lift_spread": reading.lift_spread,
        "cases": [
            {
                "id": c.id,
                "verdict": None if c.verdict is None else str(c.verdict),
                "lift_vs_more_context": c.lift,
                "placebo": {"mean": c.placebo_mean, "sd": c.placebo_sd, "measured": c.placebo_measured},
                "reason": c.comparison.reason,
            }
            for c in reading.cases
        ],
    }


def diff_placebo_json(before: Receipt, after: Receipt) -> dict[str, Any] | None:
    """The ``placebo`` key of ``diff --format json``: each side's placebo reading (``null`` for a side without one)
    and the note when only one has it; ``None`` when neither receipt has a placebo arm."""
    if not (has_placebo(before) or has_placebo(after)):
        return None
    return {
        "before": placebo_json(read_placebo(before), before),
        "after": placebo_json(read_placebo(after), after),
        "note": placebo_note(before, after),
    }
