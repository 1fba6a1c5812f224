"""Diff: ``with_skill`` of BEFORE against ``with_skill`` of AFTER, per case id.

Cases only on one side are listed as unmatched and left out. Each lost-draw case is named with each
side's lost and drawn counts and reasons. The headline says "no separation detected at this sample
size" when nothing separated, and otherwise names the direction of each separation.

Two receipts are compared case by case only when they are like for like: graded by the same judge
(provider, surface, model requested, models reported, template, sampling) and answered by models of
one provider. Otherwise the diff reads ``no_verdict`` and ``not_like_for_like`` says what differs;
across providers the lifts lead and the raw scores are background, never a ranking.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from driftproof.core.between import DIFF_RULE, compare_between
from driftproof.core.budget_reading import budget_reason, diff_at_budget
from driftproof.core.canaries import anchors_disagree, anchors_text
from driftproof.core.compare import Comparison
from driftproof.core.models import Judge, Receipt
from driftproof.core.reading import (
    ArmSummary,
    ReceiptReading,
    StatusReading,
    evidence,
    judge_status,
    no_verdict,
    read_receipt,
    summarize,
)
from driftproof.core.sentences import (
    DIFFERENT_SOURCES,
    NO_SEPARATION_HEADLINE,
    THIN_REFERENCE,
    different_judges,
    different_providers,
    headline_downward,
    headline_upward,
    lost_draws,
    lost_of,
    no_verdict_headline,
    side_is,
)
from driftproof.core.wide_band import WideBand
from driftproof.core.words import CaseVerdict, Status

#: The recorded settings that make two receipts' judges one judge, with how a reason names each.
JUDGE_FIELDS = {
    "provider": "judge provider",
    "surface": "judge surface",
    "model_requested": "judge model requested",
    "models_reported": "judge models reported",
    "template_sha256": "judge template sha256",
    "sampling": "judge sampling",
}
#: Compared only when both receipts record a value (an empty list or object records nothing): an
#: unrecorded one is unknown, not different.
IF_RECORDED = frozenset({"models_reported", "template_sha256", "sampling"})
PROVIDER_FIELD = "run.lane.provider"


@dataclass(frozen=True, slots=True)
class Difference:
    """One recorded setting on which the two receipts differ, each side's value as text."""

    field: str
    """Where the receipt records it: ``judge.model_requested``, ``run.lane.provider``, ..."""
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class NotLikeForLike:
    """Why two receipts that may each have a verdict get no per-case verdict against each other."""

    reason: str
    differs: tuple[Difference, ...]

    @property
    def providers_differ(self) -> bool:
        """The answering models are of different providers: the lifts lead, raw scores are background."""
        return any(d.field == PROVIDER_FIELD for d in self.differs)


def _text(value: Any) -> str:
    """A recorded value as text: ids joined, sampling as compact sorted JSON, no model requested as ``default``.

    Only ``model_requested`` reaches here as ``None``: the other fields are compared only when recorded.

    >>> _text(None), _text(["a", "b"]), _text({"max_tokens": 9, "a": 1})
    ('default', 'a, b', '{"a":1,"max_tokens":9}')
    """
    if value is None:
        return "default"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return str(value)


def judge_differences(before: Judge | None, after: Judge | None) -> tuple[Difference, ...]:
    """The judge settings recorded on both sides that differ, in ``JUDGE_FIELDS`` order."""
    if before is None or after is None:
        if before is after:
            return ()
        return (
            Difference(
                "judge", "none" if before is None else before.provider, "none" if after is None else after.provider
            ),
        )
    found = []
    for name in JUDGE_FIELDS:
        b, a = getattr(before, name), getattr(after, name)
        if name in IF_RECORDED and not (b and a):
            continue
        if b != a:
            found.append(Difference(f"judge.{name}", _text(b), _text(a)))
    return tuple(found)


def like_for_like(before: Receipt, after: Receipt) -> NotLikeForLike | None:
    """``None`` when one judge graded both and one provider answered both; otherwise what differs.

    >>> from driftproof.core.models import Lane, Run
    >>> def made(provider: str) -> Receipt:
    ...     lane = Lane.model_construct(provider=provider)
    ...     return Receipt.model_construct(judge=None, run=Run.model_construct(lane=lane))
    >>> like_for_like(made("anthropic"), made("anthropic")) is None
    True
    >>> like_for_like(made("anthropic"), made("openai")).differs
    (Difference(field='run.lane.provider', before='anthropic', after='openai'),)
    """
    judges = judge_differences(before.judge, after.judge)
    parts = []
    if judges:
        shown = "; ".join(f"{JUDGE_FIELDS.get(d.field.removeprefix('judge.'), 'judge')}: {_short(d)}" for d in judges)
        parts.append(different_judges(shown))
    providers: tuple[Difference, ...] = ()
    b, a = before.run.lane.provider, after.run.lane.provider
    if b != a:
        providers = (Difference(PROVIDER_FIELD, b, a),)
        parts.append(different_providers(b, a))
    anchors: tuple[Difference, ...] = ()
    if (why := anchors_disagree(before.canaries, after.canaries)) is not None:  # judge-anchor canaries (0.17)
        anchors = (Difference("canaries", anchors_text(before.canaries), anchors_text(after.canaries)),)
        parts.append(why)
    if not parts:
        return None
    return NotLikeForLike(" · ".join(parts), judges + providers + anchors)


def _short(d: Difference) -> str:
    """``before → after``, a template hash cut to 12 characters."""
    if d.field == "judge.template_sha256":
        return f"{d.before[:12]} → {d.after[:12]}"
    return f"{d.before} → {d.after}"


@dataclass(frozen=True, slots=True)
class DiffCase:
    """One matched case: BEFORE's and AFTER's with_skill arms."""

    id: str
    comparison: Comparison
    verdict: CaseVerdict | None
    before: ArmSummary
    after: ArmSummary
    before_stop: str | None = None
    """Why BEFORE's run stopped drawing this case (its receipt's ``stop_reason``; null before 0.15)."""
    after_stop: str | None = None
    """Why AFTER's run stopped drawing this case."""

    @property
    def lost_note(self) -> str | None:
        """Each side's lost and drawn counts and reasons, when either side lost a draw."""
        if not (self.before.lost or self.after.lost):
            return None
        return lost_draws("after", _lost(self.after), "before", _lost(self.before))


def _lost(arm: ArmSummary) -> str:
    return lost_of(arm.lost, arm.drawn, arm.lost_reasons)


@dataclass(frozen=True, slots=True)
class Counts:
    """How many cases read each verdict; below_effect_floor is counted apart from no_separation."""

    improved: int = 0
    regressed: int = 0
    below_effect_floor: int = 0
    no_separation: int = 0
    underpowered: int = 0
    inconclusive: int = 0


@dataclass(frozen=True, slots=True)
class DiffResult:
    """The comparison of two receipts."""

    status: Status
    status_reason: str
    headline: str
    counts: Counts
    cases: tuple[DiffCase, ...]
    unmatched_before: tuple[str, ...]
    unmatched_after: tuple[str, ...]
    before: ReceiptReading
    after: ReceiptReading
    no_verdict: dict[str, str]
    """Each side without a verdict, with its full reason."""
    wide: WideBand | None
    different_sources: str | None
    not_like_for_like: NotLikeForLike | None = None
    """Why the two receipts are not compared case by case though each may have a verdict."""
    rule: str = DIFF_RULE
    """The rule that made (or withheld) each call: R-1 … R-6 and R-7."""


def headline(counts: Counts, withheld: dict[str, str], mismatch: str | None = None) -> str:
    """The one line a reviewer reads first.

    >>> headline(Counts(regressed=1, improved=2), {})
    '1 case separated downward (regressed), 2 cases separated upward (improved)'
    >>> headline(Counts(no_separation=3), {})
    'no separation detected at this sample size'
    >>> headline(Counts(), {"after": "a smoke run"}, "graded by different judges")
    'no verdict: after is a smoke run; graded by different judges'
    """
    if withheld or mismatch:
        reasons = [side_is(side, why) for side, why in withheld.items()] + ([mismatch] if mismatch else [])
        return no_verdict_headline(reasons)
    parts = []
    if counts.regressed:
        parts.append(headline_downward(counts.regressed))
    if counts.improved:
        parts.append(headline_upward(counts.improved))
    return ", ".join(parts) if parts else NO_SEPARATION_HEADLINE


def _thin_reference(status: StatusReading, comparisons: list[Comparison]) -> StatusReading:
    """An underpowered diff whose R-7 cases are thin on BEFORE's side says so: more draws of this pull request
    cannot help; the default branch's receipt needs them."""
    thin = [c for c in comparisons if c.verdict == CaseVerdict.UNDERPOWERED and c.thin is not None]
    if status.status != Status.UNDERPOWERED or not thin:
        return status
    if all(c.thin in ("before", "both") for c in thin) and len(thin) == sum(
        1 for c in comparisons if c.verdict == CaseVerdict.UNDERPOWERED
    ):
        return StatusReading(status.status, THIN_REFERENCE, status.wide)
    return status


def diff(
    before: Receipt, after: Receipt, *, readings: tuple[ReceiptReading, ReceiptReading] | None = None
) -> DiffResult:
    """Compare AFTER's with_skill arm against BEFORE's, case by case (matched by id).

    ``readings``, when the caller has already read both receipts (`read_receipt`), are used as they are rather
    than read again.
    """
    sides = (("before", before), ("after", after))
    why_not = {side: why for side, r in sides if (why := no_verdict(r)) is not None}
    withheld = {side: why.short for side, why in why_not.items()}
    mismatch = like_for_like(before, after)
    no_call = bool(withheld) or mismatch is not None
    before_cases = {c.id: c for c in before.cases}
    after_ids = [c.id for c in after.cases]
    after_id_set = frozenset(after_ids)
    matched = [c for c in after.cases if c.id in before_cases]
    new = [evidence(c.with_skill) for c in matched]
    ref = [evidence(before_cases[c.id].with_skill) for c in matched]
    comparisons = [
        diff_at_budget(compare_between(n, r), before_cases[c.id].stop_reason, c.stop_reason)
        for c, n, r in zip(matched, new, ref, strict=True)
    ]
    cases = tuple(
        DiffCase(
            id=c.id,
            comparison=cmp,
            verdict=None if no_call else cmp.verdict,
            before=summarize(before_cases[c.id].with_skill, before_cases[c.id].threshold, r),
            after=summarize(c.with_skill, c.threshold, n),
            before_stop=before_cases[c.id].stop_reason,
            after_stop=c.stop_reason,
        )
        for c, cmp, n, r in zip(matched, comparisons, new, ref, strict=True)
    )
    tally = {v: 0 for v in CaseVerdict}
    for case in cases:
        if case.verdict is not None:
            tally[case.verdict] += 1
    counts = Counts(**{v.value: n for v, n in tally.items()})
    line = headline(counts, withheld, mismatch.reason if mismatch else None)
    if no_call:
        status = StatusReading(Status.NO_VERDICT, line, None)
    else:
        status = _thin_reference(judge_status(comparisons, new, ref), comparisons)
        if (budget := budget_reason(after, comparisons)) is not None:  # this run's budget left it short
            status = replace(status, reason=budget)
    r_before, r_after = readings or (read_receipt(before), read_receipt(after))
    src_before = {s for c in cases for s in [c.before.band_source]}
    src_after = {s for c in cases for s in [c.after.band_source]}
    return DiffResult(
        status=status.status,
        status_reason=status.reason,
        headline=line,
        counts=counts,
        cases=cases,
        unmatched_before=tuple(i for i in before_cases if i not in after_id_set),
        unmatched_after=tuple(i for i in after_ids if i not in before_cases),
        before=r_before,
        after=r_after,
        no_verdict={side: why.reason for side, why in why_not.items()},
        wide=status.wide,
        different_sources=DIFFERENT_SOURCES if src_before and src_after and src_before != src_after else None,
        not_like_for_like=mismatch,
    )
