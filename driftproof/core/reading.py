"""Reading one receipt: evidence per arm, case verdicts (with_skill vs baseline), lift, status.

Readers give no verdict for a receipt below ``TESTED``, for one that names a preset (whatever level
it carries: a smoke run), for a shard receipt (part of the suite), or for one marked ``aggregates_only``; the
lift stays as context. That rule is ``no_verdict``, the one place that decides it and words it, in full and in
a headline's few words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from driftproof.core.bands import mean, sample_sd
from driftproof.core.budget_reading import CALLS as CALLS
from driftproof.core.budget_reading import at_budget as at_budget
from driftproof.core.budget_reading import budget_reason, stopped_before_a_draw
from driftproof.core.canaries import drift_mark
from driftproof.core.compare import ArmEvidence, Comparison, compare
from driftproof.core.fired import FiredCount, arm_fired
from driftproof.core.import_sentences import NOT_REGRADABLE_AGGREGATES, NOT_REGRADABLE_DECLARED
from driftproof.core.lift import lift_per_1k, missing_arm
from driftproof.core.models import Arm, Case, Receipt
from driftproof.core.sentences import (
    AGGREGATES_ONLY,
    AGGREGATES_ONLY_SHORT,
    NO_SEPARATION_HEADLINE,
    NOT_ENOUGH_DRAWS,
    SMOKE_RUN,
    SMOKE_RUN_SHORT,
    below_tested,
    below_tested_short,
    separated_downward,
    separated_upward,
)
from driftproof.core.shard_sentences import shard_no_verdict, shard_short
from driftproof.core.wide_band import WideBand, wide_band
from driftproof.core.words import BandSource, CaseVerdict, DrawStatus, Outcome, Status, Verification

_MEASURED = DrawStatus.MEASURED.value


def evidence(arm: Arm) -> ArmEvidence:
    """The evidence of one recorded arm: measured draw scores, the lost draws R-6 counts and their reasons.

    A lost draw marked ``replaced`` (its call failed and a later measured draw took its place) is not one R-6
    counts: it is kept apart in ``replaced``.
    """
    measured: list[float] = []
    lost: list[str] = []
    replaced = 0
    for d in arm.draws:  # one pass (a diff of two 1,000-case receipts asks this 16,000 times)
        if d.status == _MEASURED:
            if d.score is not None:
                measured.append(d.score)
        elif d.replaced:
            replaced += 1
        else:
            lost.append(d.lost_reason or "lost")
    scores = tuple(measured)
    legacy: tuple[float, ...] = ()
    if arm.band_source == BandSource.LEGACY and len(scores) == 1:
        draw = next(d for d in arm.draws if d.status == DrawStatus.MEASURED)
        legacy = tuple(s.score for s in draw.judge_samples if s.valid and s.score is not None)
    return ArmEvidence(scores, len(lost), tuple(lost), BandSource(arm.band_source), legacy, replaced)


def outcome(mean_: float | None, sd: float | None, threshold: float | None) -> Outcome | None:
    """An arm against its case's threshold: pass when m − s > t, fail when m + s < t, else borderline.

    A mean exactly at the threshold is borderline. An arm whose spread is unknown (one draw) cannot
    establish either side, so it is borderline too.

    >>> outcome(0.8, 0.05, 0.7), outcome(0.6, 0.05, 0.7), outcome(0.7, 0.0, 0.7), outcome(0.9, None, 0.7)
    (<Outcome.PASS: 'pass'>, <Outcome.FAIL: 'fail'>, <Outcome.BORDERLINE: 'borderline'>, \
<Outcome.BORDERLINE: 'borderline'>)
    """
    if threshold is None or mean_ is None:
        return None
    if sd is None:
        return Outcome.BORDERLINE
    if mean_ - sd > threshold:
        return Outcome.PASS
    if mean_ + sd < threshold:
        return Outcome.FAIL
    return Outcome.BORDERLINE


@dataclass(frozen=True, slots=True)
class ArmSummary:
    """What a report shows of one arm."""

    mean: float | None
    sd: float | None
    measured: int
    drawn: int
    lost: int
    lost_reasons: tuple[str, ...]
    band_source: BandSource
    outcome: Outcome | None
    checks_passed: int
    checks_total: int
    skill_fired: int | None
    skill_fired_of: int
    replaced: int = 0
    """Lost draws whose call failed and that a later measured draw replaced (left out of R-6)."""
    replaced_reasons: tuple[str, ...] = ()
    skills_fired: tuple[FiredCount, ...] = ()
    """With neighbour skills installed (``draws[].skills_fired``), each skill's count over the recording draws."""


def summarize(arm: Arm, threshold: float | None, ev: ArmEvidence | None = None) -> ArmSummary:
    """The summary of one recorded arm; ``ev`` is its `evidence` when the caller has it already."""
    if ev is None:
        ev = evidence(arm)
    b = ev.band()
    checks = [c for d in arm.draws for c in d.checks]
    fired = [d.skill_fired for d in arm.draws if d.skill_fired is not None]
    fired_count = sum(1 for f in fired if f) if fired else None
    fired_of = len(fired)
    if arm.skill_fired is not None:  # an import's count per arm, trigger-only runs in; none where not applicable
        fired_count = arm.skill_fired.fired
        fired_of = arm.skill_fired.observed if fired_count is not None else 0
    return ArmSummary(
        mean=b.mean if not ev.is_legacy else mean(ev.scores),
        sd=b.sd,
        measured=ev.measured,
        drawn=ev.drawn,
        lost=ev.lost,
        lost_reasons=ev.lost_reasons,
        band_source=b.source if ev.measured else BandSource(arm.band_source),
        outcome=outcome(b.mean, b.sd, threshold),
        checks_passed=sum(1 for c in checks if c.passed),
        checks_total=len(checks),
        skill_fired=fired_count,
        skill_fired_of=fired_of,
        replaced=ev.replaced,
        replaced_reasons=tuple(d.lost_reason or "lost" for d in arm.draws if d.replaced),
        skills_fired=arm_fired(arm),
    )


@dataclass(frozen=True, slots=True)
class NoVerdict:
    """Why readers give a receipt no verdict, said two ways."""

    reason: str
    """In full, with the receipt's own ``verification_reason``: the view, a diff's ``no_verdict``, the JSON."""
    short: str
    """In the few words of a comparison's headline: ``after is a smoke run (Smoke run, no verdict)``."""


def no_verdict(receipt: Receipt) -> NoVerdict | None:
    """The one no-verdict rule: ``None`` when readers may give ``receipt`` a verdict, else why not.

    A preset names a smoke run whatever level it carries; a shard receipt (``run.shard``) holds part of the
    suite; ``aggregates_only`` has no per-run score to band;
    below ``TESTED`` the receipt's level cannot carry a verdict, unless the budget stopped every case before a
    draw of its own returned (`stopped_before_a_draw`): that receipt reads underpowered.

    >>> from driftproof.core.models import Run
    >>> made = Receipt.model_construct(run=Run.model_construct(preset=None, shard=None), uncertainty_unavailable=None)
    >>> no_verdict(made.model_copy(update={"verification": "TESTED"})) is None
    True
    >>> no_verdict(made.model_copy(update={"verification": "DECLARED", "verification_reason": "no tests ran"}))
    NoVerdict(reason='below TESTED: the receipt reads DECLARED (no tests ran)', short='below TESTED (DECLARED)')
    """
    if receipt.run.preset is not None:
        return NoVerdict(SMOKE_RUN, SMOKE_RUN_SHORT)
    if (shard := receipt.run.shard) is not None:  # a part of the suite: its verdict would read as the suite's
        why = shard_no_verdict(shard.index, shard.count, len(shard.case_ids), len(shard.suite_case_ids))
        return NoVerdict(why, shard_short(shard.index, shard.count))
    if receipt.uncertainty_unavailable == "aggregates_only":
        return NoVerdict(AGGREGATES_ONLY, AGGREGATES_ONLY_SHORT)
    if receipt.verification != Verification.TESTED and not stopped_before_a_draw(receipt):
        reason = below_tested(receipt.verification, receipt.verification_reason)
        return NoVerdict(reason, below_tested_short(receipt.verification))
    return None


def not_regradable(receipt: Receipt) -> str | None:
    """Why ``regrade`` and ``plan`` must refuse ``receipt``, or ``None`` when they may start from it: an import
    (``DECLARED``) holds another tool's figures and no answers of its own; an aggregates-only one has no per-run
    score at all. The one predicate both commands ask.

    >>> from driftproof.core.models import Run
    >>> made = Receipt.model_construct(run=Run.model_construct(preset=None), uncertainty_unavailable=None)
    >>> not_regradable(made.model_copy(update={"verification": "TESTED"})) is None
    True
    >>> not_regradable(made.model_copy(update={"verification": "DECLARED"})) == NOT_REGRADABLE_DECLARED
    True
    """
    if receipt.uncertainty_unavailable == "aggregates_only":
        return NOT_REGRADABLE_AGGREGATES
    if receipt.verification == Verification.DECLARED or receipt.source is not None:
        return NOT_REGRADABLE_DECLARED
    return None


@dataclass(frozen=True, slots=True)
class StatusReading:
    """A status with the sentence that explains it."""

    status: Status
    reason: str
    wide: WideBand | None


def judge_status(
    comparisons: Sequence[Comparison], new: Sequence[ArmEvidence], ref: Sequence[ArmEvidence]
) -> StatusReading:
    """Status from case verdicts, R-5 included: passing, regressed, underpowered or no_separation."""
    verdicts = [c.verdict for c in comparisons]
    down = verdicts.count(CaseVerdict.REGRESSED)
    up = verdicts.count(CaseVerdict.IMPROVED)
    if down:
        return StatusReading(Status.REGRESSED, separated_downward(down), None)
    if up:
        return StatusReading(Status.PASSING, separated_upward(up), None)
    if CaseVerdict.UNDERPOWERED in verdicts or CaseVerdict.INCONCLUSIVE in verdicts:
        # an inconclusive case separated on its measured draws; only its lost draws stopped the call
        return StatusReading(Status.UNDERPOWERED, NOT_ENOUGH_DRAWS, None)
    quiet = [i for i, v in enumerate(verdicts) if v == CaseVerdict.NO_SEPARATION]
    usable = [i for i, c in enumerate(comparisons) if c.new.mean is not None and c.ref.mean is not None]
    if len(quiet) >= 2 and len(usable) >= 2:
        wide = wide_band([new[i] for i in usable], [ref[i] for i in usable])
        if wide.underpowered and wide.sentence:
            return StatusReading(Status.UNDERPOWERED, wide.sentence, wide)
        return StatusReading(Status.NO_SEPARATION, NO_SEPARATION_HEADLINE, wide)
    return StatusReading(Status.NO_SEPARATION, NO_SEPARATION_HEADLINE, None)


@dataclass(frozen=True, slots=True)
class CaseReading:
    """One case of one receipt: with_skill against baseline."""

    id: str
    comparison: Comparison
    verdict: CaseVerdict | None
    with_skill: ArmSummary
    baseline: ArmSummary
    threshold: float | None
    stop_reason: str | None = None
    """Why the run stopped drawing this case (the receipt's ``stop_reason``)."""


@dataclass(frozen=True, slots=True)
class CaseNotices:
    """What one case did not run on this lane, as the receipt records it (``cases[].notices``)."""

    id: str
    notices: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NotRun:
    """What the run did not run of the suite as written: ``suite.notices`` and each case's ``notices``."""

    suite: tuple[str, ...] = ()
    cases: tuple[CaseNotices, ...] = ()


def not_run(receipt: Receipt) -> NotRun:
    """The notices of a receipt, in receipt order; cases without a notice are left out."""
    cases = tuple(CaseNotices(c.id, tuple(c.notices)) for c in receipt.cases if c.notices)
    return NotRun(tuple(receipt.suite.notices), cases)


def skill_name(receipt: Receipt) -> str | None:
    """The skill's name: the directory holding the skill file, else the suite's name, else ``None``.

    >>> from driftproof.core.models import Skill, Suite
    >>> r = Receipt.model_construct(skill=Skill.model_construct(path="skills/commit-writer/SKILL.md"), suite=Suite())
    >>> skill_name(r), skill_name(r.model_copy(update={"skill": None}))
    ('commit-writer', None)
    """
    if receipt.skill is not None:
        parts = [p for p in receipt.skill.path.replace("\\", "/").split("/") if p not in ("", ".")]
        if len(parts) >= 2 and parts[-2] != "..":
            return parts[-2]
    return receipt.suite.name or None


@dataclass(frozen=True, slots=True)
class ReceiptReading:
    """Everything a reader says about one receipt."""

    status: Status
    status_reason: str
    no_verdict_reason: str | None
    verification: Verification
    lift: float | None
    lift_per_1k: float | None
    lift_spread: float | None
    skill_tokens: int | None
    cases: tuple[CaseReading, ...]
    wide: WideBand | None
    band_sources: tuple[BandSource, ...]
    not_run: NotRun = NotRun()
    """What the run did not run of the suite as written (the "Not run on this lane" section)."""
    skill_name: str | None = None
    """The skill's name, for the badge's label (see ``skill_name``)."""
    judge_drift: str | None = None
    """``judge drifted`` (or ``judge anchors unscored``) when the receipt's canaries say so: printed beside every
    verdict; ``None`` when the judge held or the receipt has no canaries."""
    canaries: str | None = None
    """The receipt's canaries finding with its figures; ``None`` without canaries."""
    lift_reason: str | None = None
    """Why ``lift`` is ``None`` when a case arm records no draw (`missing_arm`); ``None`` otherwise."""


def lift_of(
    cases: Sequence[Case], arms: Iterable[tuple[ArmEvidence, ArmEvidence]] | None = None
) -> tuple[float | None, float | None]:
    """Lift = mean over included cases of (m_with − m_base), each case weighted equally; and the sd of
    the per-case differences (context). A case is included when both arms measured a draw; none is given when
    an arm of any case records no draw (`missing_arm`). ``arms``: each case's (with_skill, baseline) `evidence`,
    when the caller has it already."""
    if missing_arm(cases) is not None:
        return None, None
    deltas = []
    pairs = arms if arms is not None else ((evidence(c.with_skill), evidence(c.baseline)) for c in cases)
    for w, b in pairs:
        if w.measured and b.measured:
            deltas.append(mean(w.scores) - mean(b.scores))
    if not deltas:
        return None, None
    return mean(deltas), sample_sd(deltas)


def read_receipt(receipt: Receipt) -> ReceiptReading:
    """Read one receipt: per-case with_skill vs baseline, lift, and the receipt status."""
    withheld = None if (why := no_verdict(receipt)) is None else why.reason
    new = [evidence(c.with_skill) for c in receipt.cases]
    ref = [evidence(c.baseline) for c in receipt.cases]
    comparisons = [at_budget(compare(n, r), c.stop_reason) for n, r, c in zip(new, ref, receipt.cases, strict=True)]
    cases = tuple(
        CaseReading(
            id=c.id,
            comparison=cmp,
            verdict=None if withheld else cmp.verdict,
            with_skill=summarize(c.with_skill, c.threshold, n),
            baseline=summarize(c.baseline, c.threshold, r),
            threshold=c.threshold,
            stop_reason=c.stop_reason,
        )
        for c, cmp, n, r in zip(receipt.cases, comparisons, new, ref, strict=True)
    )
    tokens = receipt.skill.tokens if receipt.skill else None
    aggregates = receipt.uncertainty_unavailable == "aggregates_only"
    lift, spread = (None, None) if aggregates else lift_of(receipt.cases, zip(new, ref, strict=True))
    if withheld:
        status = StatusReading(Status.NO_VERDICT, withheld, None)
    else:
        status = judge_status(comparisons, new, ref)
        if (budget := budget_reason(receipt, comparisons)) is not None:  # the budget left it short: say so
            status = replace(status, reason=budget)
    sources = sorted({s for c in cases for s in (c.with_skill.band_source, c.baseline.band_source)})
    return ReceiptReading(
        status=status.status,
        status_reason=status.reason,
        no_verdict_reason=withheld,
        verification=Verification(receipt.verification),
        lift=lift,
        lift_per_1k=lift_per_1k(lift, tokens),
        lift_spread=spread,
        skill_tokens=tokens,
        cases=cases,
        wide=status.wide,
        band_sources=tuple(sources),
        not_run=not_run(receipt),
        skill_name=skill_name(receipt),
        judge_drift=drift_mark(receipt.canaries),
        canaries=receipt.canaries.sentence if receipt.canaries is not None else None,
        lift_reason=None if aggregates else missing_arm(receipt.cases),
    )
