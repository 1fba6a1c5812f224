"""One comparison of two arms of one case: the verdict of R-1 … R-4 and R-6.

``compare(new, ref)`` asks whether ``new`` moved against ``ref``: inside a receipt ``new`` is the
``with_skill`` arm and ``ref`` the ``baseline``; in a diff ``new`` is AFTER's ``with_skill`` arm and
``ref`` BEFORE's. ``delta = mean(new) − mean(ref)``; ``improved`` means ``new`` lies above.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from driftproof.core.bands import Band, band, draws_needed, meets_floor, resolution, separated
from driftproof.core.sentences import SPREAD_UNKNOWN
from driftproof.core.words import EFFECT_FLOOR, TOLERANCE, BandSource, CaseVerdict


@dataclass(frozen=True, slots=True)
class ArmEvidence:
    """What one arm measured: the measured draw scores, and how many draws were lost and why.

    For a ``legacy`` arm (one draw, band from its judge samples) ``band_scores`` holds the valid
    judge sample scores; otherwise it is the measured draw scores.
    """

    scores: tuple[float, ...]
    lost: int = 0
    lost_reasons: tuple[str, ...] = ()
    source: BandSource = BandSource.GENERATION
    legacy_samples: tuple[float, ...] = ()
    replaced: int = 0
    """Lost draws whose call failed and that a later measured draw replaced: never drawn, as far as R-6 goes."""

    @property
    def drawn(self) -> int:
        """Draws R-6 reads: measured plus lost (replaced draws left out)."""
        return len(self.scores) + self.lost

    @property
    def measured(self) -> int:
        """Draws with a score."""
        return len(self.scores)

    @property
    def is_legacy(self) -> bool:
        """R-1's one exception: a single draw whose band comes from its judge samples."""
        return self.source == BandSource.LEGACY and len(self.scores) == 1 and len(self.legacy_samples) >= 2

    def band(self) -> Band:
        """R-1 band of this arm (legacy: the one draw's judge samples)."""
        if self.is_legacy:
            return band(self.legacy_samples, BandSource.LEGACY)
        return band(self.scores, BandSource.GENERATION)


@dataclass(frozen=True, slots=True)
class Comparison:
    """The verdict on one case, with what a report needs to explain it."""

    verdict: CaseVerdict
    delta: float | None
    new: Band
    ref: Band
    resolution: float | None = None
    draws_needed: int | None = None
    draws_needed_reason: str | None = None
    reason: str | None = None
    lost_vertices_failed: tuple[tuple[int, int], ...] = field(default=())
    thin: str | None = None
    """R-7, between two receipts: which arm had too few measured draws for the call it would have been
    (``before``, ``after`` or ``both``); ``None`` otherwise."""
    sentence: str | None = None
    """The exact sentence that explains an R-7 underpowered case."""


def _holds_everywhere(
    new: ArmEvidence, ref: ArmEvidence, upward: bool, floor: float | None
) -> tuple[tuple[int, int], ...]:
    """R-6: the (zeros_new, zeros_ref) vertices of the lost-score box where the separation, in the same
    direction and (when ``floor`` is given) still meeting the floor, fails.

    Each side's lost draws can score anywhere in [0, 1]; the worst case sits at a vertex, and only how
    many lost draws sit at 0 (the rest at 1) matters: (L_new + 1)(L_ref + 1) checks.
    """
    failed: list[tuple[int, int]] = []
    for zeros_new in range(new.lost + 1):
        filled_new = band(new.scores + (0.0,) * zeros_new + (1.0,) * (new.lost - zeros_new))
        for zeros_ref in range(ref.lost + 1):
            filled_ref = band(ref.scores + (0.0,) * zeros_ref + (1.0,) * (ref.lost - zeros_ref))
            assert filled_new.mean is not None and filled_ref.mean is not None  # n ≥ 2 on both sides here
            delta = filled_new.mean - filled_ref.mean
            floor_met = floor is None or meets_floor(delta, floor)
            if not (separated(filled_new, filled_ref) and floor_met and (delta > 0) == upward):
                failed.append((zeros_new, zeros_ref))
    return tuple(failed)


def compare(new: ArmEvidence, ref: ArmEvidence, floor: float = EFFECT_FLOOR) -> Comparison:
    """The case verdict of ``new`` against ``ref`` under R-1 … R-4 and R-6.

    >>> compare(ArmEvidence((0.5, 0.6, 0.7)), ArmEvidence((0.1, 0.2, 0.3))).verdict
    <CaseVerdict.IMPROVED: 'improved'>
    >>> compare(ArmEvidence((0.5,)), ArmEvidence((0.1, 0.2, 0.3))).verdict  # R-1: one draw
    <CaseVerdict.UNDERPOWERED: 'underpowered'>
    """
    b_new, b_ref = new.band(), ref.band()
    if b_new.mean is None or b_ref.mean is None:
        return Comparison(
            CaseVerdict.UNDERPOWERED,
            None,
            b_new,
            b_ref,
            draws_needed_reason="spread unknown: an arm has no measured draw",
            reason="an arm has no measured draw",
        )
    delta = b_new.mean - b_ref.mean
    if b_new.sd is None or b_ref.sd is None:  # a single measured draw never separates
        return Comparison(
            CaseVerdict.UNDERPOWERED,
            delta,
            b_new,
            b_ref,
            draws_needed_reason=SPREAD_UNKNOWN,
            reason="an arm has one measured draw",
        )
    if separated(b_new, b_ref):
        upward = delta > 0
        if new.lost or ref.lost:  # R-6, asked of every separation before the floor is
            failed = _holds_everywhere(new, ref, upward, floor if meets_floor(delta, floor) else None)
            if failed:
                return Comparison(
                    CaseVerdict.INCONCLUSIVE,
                    delta,
                    b_new,
                    b_ref,
                    reason="separated on measured draws, but not at every score the lost draws could have had",
                    lost_vertices_failed=failed,
                )
        if not meets_floor(delta, floor):
            return Comparison(CaseVerdict.BELOW_EFFECT_FLOOR, delta, b_new, b_ref, reason="separated, |Δ| < F")
        return Comparison(CaseVerdict.IMPROVED if upward else CaseVerdict.REGRESSED, delta, b_new, b_ref)
    r = resolution(b_new, b_ref)
    assert r is not None  # both spreads are known on this branch
    if r + TOLERANCE >= floor:
        needed = draws_needed(b_new.sd, b_ref.sd, floor)
        return Comparison(
            CaseVerdict.UNDERPOWERED,
            delta,
            b_new,
            b_ref,
            resolution=r,
            draws_needed=needed.n,
            draws_needed_reason=needed.reason,
            reason="resolution reaches the floor",
        )
    return Comparison(CaseVerdict.NO_SEPARATION, delta, b_new, b_ref, resolution=r)


def lost_range(evidence: ArmEvidence) -> tuple[float, float] | None:
    """The lowest and highest mean this arm could have had at any score of its lost draws in [0, 1]."""
    if evidence.drawn == 0:
        return None
    total = sum(evidence.scores)
    return total / evidence.drawn, (total + evidence.lost) / evidence.drawn
