"""Reading a receipt's placebo arm: "lift vs more context" (with_skill − placebo), per case and overall.

The same verdict rule as "lift vs no skill" (`driftproof.core.compare.compare`, R-1 … R-4 and R-6; a case the
budget stopped reads underpowered, `at_budget`), the same status words (`judge_status`, R-5 included), and the
same no-verdict rule (`no_verdict`). The receipt's headline status and the Action's gate stay with_skill vs
baseline (`driftproof.core.reading.read_receipt`): the placebo pair is reported beside them, never gated on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.core.bands import mean, sample_sd
from driftproof.core.compare import ArmEvidence, Comparison, compare
from driftproof.core.models import Receipt
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
