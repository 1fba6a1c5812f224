"""Is a receipt still current? What it recorded against what would run today, arm by arm (``driftproof stale``).

Pure: the shell gathers today's facts (``Today``) exactly as a run would and hands them here. Each fact that
differs is a finding of one of two kinds: a *draw* finding (what produced the answers changed: the arm is drawn
again, ``rerun``) or a *grade* finding (only the grading changed: ``regrade`` when the receipt kept its answers,
else ``rerun``). A finding names the arms it touches: the skill and its delivery touch the with-skill arm only,
since the baseline arm contains no skill text. A fact the receipt does not record is ``unknown``, never current:
it is a finding of its kind, and its field is listed in ``StaleReport.unknown``. An arm's status is the most work
any of its findings asks: ``rerun`` over ``regrade`` over ``stands``. A grade finding about the grader or its
samples (``Kind.JUDGE``) says, when it is a regrade, that ``driftproof regrade`` keeps the receipt's own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple

from driftproof.core import stale_sentences
from driftproof.core.models import Case, Harness, Judge, Receipt
from driftproof.core.pairwise_sentences import NOT_REGRADABLE_PAIRWISE
from driftproof.core.placebo_sentences import PLACEBO_NOT_REGRADED
from driftproof.core.reading import not_regradable
from driftproof.core.shards import ShardSpec, shard_cases
from driftproof.core.stale_conditions import ConditionsToday, conditions
from driftproof.core.stopping import parse_rule, reference_form
from driftproof.core.words import ArmName, Staleness, Surface

BOTH = (ArmName.WITH_SKILL, ArmName.BASELINE)
SKILL_ONLY = (ArmName.WITH_SKILL,)


class Kind(Enum):
    """What a finding asks of the arms it touches."""

    DRAW = "draw"
    GRADE = "grade"
    JUDGE = "judge"
    """A grade finding about the grader or its samples, which ``driftproof regrade`` holds to the receipt's."""


@dataclass(frozen=True, slots=True)
class CaseToday:
    """One case of the suite as it reads today."""

    id: str
    prompt_sha256: str
    rubric_sha256: str
    """Over prompt, rubric or criteria and today's judge template (``judge.rubric_hash``)."""
    rubric_sha256_recorded_template: str | None = None
    """The same hash under the template the receipt recorded: equal to the recorded hash when only the
    template changed, so the rubric itself is not reported changed too; ``None`` when not computed."""


@dataclass(frozen=True, slots=True)
class Today:
    """What a run with these flags would record today, gathered without a model call."""

    provider: str
    surface: str
    model_requested: str | None
    base_url: str | None
    harness: Harness | None
    capture: str
    delivery: str
    skill_sha256: str
    suite_sha256: str
    stopping_rule: str
    judge: Judge
    judge_samples: int
    cases: tuple[CaseToday, ...]
    sampling: Mapping[str, Any] = field(default_factory=dict)
    conditions: ConditionsToday | None = None
    """The neighbour skills, pairwise judging, placebo and canaries (`core.stale_conditions`); ``None``: not
    gathered, so not compared (only facts built by hand: ``today_of`` always gathers them)."""


class ArmStaleness(NamedTuple):
    """One arm's status and why."""

    status: Staleness
    reasons: tuple[str, ...]


class CaseStaleness(NamedTuple):
    """One case's two arms."""

    id: str
    with_skill: ArmStaleness
    baseline: ArmStaleness


class StaleReport(NamedTuple):
    """Every case of today's suite, the advisories, the fields the receipt does not record."""

    cases: tuple[CaseStaleness, ...]
    advisories: tuple[str, ...]
    unknown: tuple[str, ...]
    dropped: tuple[str, ...]
    """Case ids in the receipt that the suite no longer has (also an advisory each)."""

    @property
    def stands(self) -> bool:
        """True when every arm of every case stands."""
        return all(c.with_skill.status == c.baseline.status == Staleness.STANDS for c in self.cases)


class _Finding(NamedTuple):
    kind: Kind
    reason: str
    arms: tuple[ArmName, ...]


@dataclass(slots=True)
class _Collector:
    findings: list[_Finding] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    advisories: list[str] = field(default_factory=list)

    def compare(
        self,
        name: str,
        what: str,
        recorded: object,
        today: object,
        kind: Kind,
        arms: tuple[ArmName, ...] = BOTH,
        *,
        none_is_unknown: bool = True,
    ) -> None:
        """A finding when ``recorded`` differs from ``today``; ``unknown`` when the receipt holds ``None``."""
        if recorded is None and none_is_unknown:
            self.missing(name, what, kind, arms)
        elif recorded != today:
            self.findings.append(
                _Finding(kind, stale_sentences.stale_changed(what, _shown(recorded), _shown(today)), arms)
            )

    def missing(
        self, name: str, what: str, kind: Kind, arms: tuple[ArmName, ...] = BOTH, reason: str | None = None
    ) -> None:
        if name not in self.unknown:
            self.unknown.append(name)
        self.findings.append(_Finding(kind, reason or stale_sentences.stale_unknown(what), arms))


def _shown(value: object) -> str:
    """A fact as a reason shows it: a hash by its first 12 digits, a mapping as sorted JSON, nothing as ``none``.

    >>> _shown(None), _shown("a" * 64), _shown({"b": 1, "a": 0.5}), _shown("judge-1")
    ('none', 'aaaaaaaaaaaa', '{"a":0.5,"b":1}', 'judge-1')
    """
    if value is None:
        return "none"
    if isinstance(value, Mapping):
        return json.dumps(dict(value), sort_keys=True, separators=(",", ":"))
    text = str(value)
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text):
        return text[:12]
    return text


def major_minor(version: str) -> tuple[int, int] | None:
    """The major and minor number of the first ``N.N…`` word of a printed version; ``None`` when there is none.

    >>> major_minor("2.1.3 (Claude Code)"), major_minor("codex-cli 0.45.0"), major_minor("v1.2"), major_minor("dev")
    ((2, 1), (0, 45), (1, 2), None)
    """
    for word in version.split():
        parts = word.removeprefix("v").split(".")
        if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
            return int(parts[0]), int(parts[1])
    return None


def _harness(c: _Collector, receipt: Receipt, today: Today) -> None:
    """Name and version: a major or minor change is a rerun, a patch release of the same harness an advisory."""
    recorded = receipt.run.harness
    if recorded is None:
        if receipt.run.lane.surface == Surface.CLI:
            c.missing("run.harness", "harness", Kind.DRAW)
        elif today.harness is not None:
            c.compare("run.harness", "harness", "none", today.harness.name, Kind.DRAW)
        return
    now = today.harness
    if now is None or now.name != recorded.name:
        c.compare("run.harness.name", "harness", recorded.name, now.name if now else None, Kind.DRAW)
        return
    if recorded.version is None:
        c.missing("run.harness.version", "harness version", Kind.DRAW)
        return
    if recorded.version == now.version:
        return
    before, after = major_minor(recorded.version), major_minor(now.version or "")
    if before is not None and before == after and now.version is not None:
        c.advisories.append(stale_sentences.stale_harness_patch(recorded.name, recorded.version, now.version))
        return
    c.compare("run.harness.version", "harness version", recorded.version, now.version, Kind.DRAW)


def _stopping_rule(c: _Collector, recorded: str | None, today: str) -> None:
    """The rule that drew the arms: any difference is a rerun, except the reference form of today's rule.

    A receipt drawn ``--as-reference`` records ``reference_form`` of the rule its counts give (at least
    ``REFERENCE_MIN_DRAWS`` per arm, every other parameter the same): its arms are drawn at least as deep as
    today's rule would draw them, so that is an advisory, not a reason to draw again. Decided on the exact
    strings: today's must read back as a rule (``parse_rule``) and the recorded one must be the ``describe()``
    of that rule's reference form, character for character.
    """
    now = parse_rule(today)
    if recorded is not None and recorded != today and now is not None:
        deep = reference_form(now)
        if recorded == deep.describe():
            c.advisories.append(
                stale_sentences.stale_reference_rule(deep.min_draws, deep.max_draws, now.min_draws, now.max_draws)
            )
            return
    c.compare("run.settings.stopping_rule", "stopping rule", recorded, today, Kind.DRAW)


def _run_facts(c: _Collector, receipt: Receipt, today: Today) -> None:
    """What produced every answer: the lane, harness, capture, delivery, skill, sampling and stopping rule."""
    run, lane = receipt.run, receipt.run.lane
    c.compare("run.lane.provider", "lane provider", lane.provider, today.provider, Kind.DRAW)
    c.compare("run.lane.surface", "lane surface", lane.surface, today.surface, Kind.DRAW)
    if lane.model_requested is None and lane.surface == Surface.CLI:  # recorded: none asked for, the CLI chose
        unpinned = stale_sentences.stale_model_unpinned(lane.models_reported)
        c.missing("run.lane.model_requested", "answering model", Kind.DRAW, reason=unpinned)
    else:
        c.compare("run.lane.model_requested", "answering model", lane.model_requested, today.model_requested, Kind.DRAW)
    c.compare("run.lane.base_url", "lane base URL", lane.base_url, today.base_url, Kind.DRAW, none_is_unknown=False)
    c.compare("run.sampling", "answering sampling", run.sampling, dict(today.sampling), Kind.DRAW)
    _harness(c, receipt, today)
    c.compare("run.capture", "capture mode", run.capture, today.capture, Kind.DRAW)
    c.compare("run.settings.delivery", "delivery", run.settings.delivery, today.delivery, Kind.DRAW, SKILL_ONLY)
    skill = receipt.skill.sha256 if receipt.skill else None
    c.compare("skill.sha256", "skill sha256", skill, today.skill_sha256, Kind.DRAW, SKILL_ONLY)
    _stopping_rule(c, run.settings.stopping_rule, today.stopping_rule)
    if receipt.suite.sha256 is None:
        c.unknown.append("suite.sha256")
    elif receipt.suite.sha256 != today.suite_sha256:
        c.advisories.append(stale_sentences.stale_suite_changed(receipt.suite.sha256[:12], today.suite_sha256[:12]))


def _judge_facts(c: _Collector, receipt: Receipt, today: Today) -> None:
    """Who grades and how: provider, surface, model, sampling, template, grading code, base URL, samples."""
    judge, now = receipt.judge, today.judge
    samples = receipt.run.settings.judge_samples
    c.compare("run.settings.judge_samples", "judge samples per draw", samples, today.judge_samples, Kind.JUDGE)
    if judge is None:
        c.missing("judge", "judge", Kind.JUDGE)
        return
    c.compare("judge.provider", "judge provider", judge.provider, now.provider, Kind.JUDGE)
    c.compare("judge.surface", "judge surface", judge.surface, now.surface, Kind.JUDGE)
    c.compare("judge.model_requested", "judge model", judge.model_requested, now.model_requested, Kind.JUDGE)
    c.compare("judge.sampling", "judge sampling", judge.sampling, now.sampling, Kind.JUDGE)
    c.compare("judge.template_sha256", "judge template", judge.template_sha256, now.template_sha256, Kind.JUDGE)
    code = judge.grading_code_sha256
    c.compare("judge.grading_code_sha256", "grading code", code, now.grading_code_sha256, Kind.JUDGE)
    c.compare("judge.base_url", "judge base URL", judge.base_url, now.base_url, Kind.JUDGE, none_is_unknown=False)


def _case_findings(c: _Collector, recorded: Case, today: CaseToday) -> None:
    """The prompt (a rerun) and the rubric or criteria (a regrade); a template change is the judge's finding."""
    name = f"cases[{recorded.id}]"
    c.compare(f"{name}.prompt_sha256", "prompt", recorded.prompt_sha256, today.prompt_sha256, Kind.DRAW)
    if recorded.rubric_sha256 is None:
        c.missing(f"{name}.rubric_sha256", "rubric hash", Kind.GRADE)
        return
    prompt_changed = recorded.prompt_sha256 is not None and recorded.prompt_sha256 != today.prompt_sha256
    only_template = today.rubric_sha256_recorded_template == recorded.rubric_sha256
    if recorded.rubric_sha256 != today.rubric_sha256 and not prompt_changed and not only_template:
        c.compare(
            f"{name}.rubric_sha256", "rubric or criteria", recorded.rubric_sha256, today.rubric_sha256, Kind.GRADE
        )


def _arm(findings: Iterable[_Finding], arm: ArmName, no_regrade: str | None) -> ArmStaleness:
    """The most work this arm's findings ask, and their reasons in order; ``no_regrade``: why its kept answers
    cannot be graded again (`_no_regrade`), added as a note to a grading change that is then a rerun."""
    mine = [f for f in findings if arm in f.arms]
    if not mine:
        return ArmStaleness(Staleness.STANDS, ())
    reasons = tuple(f.reason for f in mine)
    if any(f.kind == Kind.DRAW for f in mine):
        return ArmStaleness(Staleness.RERUN, reasons)
    if no_regrade is None:
        said = (f.reason if f.kind == Kind.GRADE else stale_sentences.stale_judge_regrade(f.reason) for f in mine)
        return ArmStaleness(Staleness.REGRADE, tuple(said))
    return ArmStaleness(Staleness.RERUN, (*reasons, no_regrade))


def _no_regrade(receipt: Receipt) -> str | None:
    """Why ``driftproof regrade`` would refuse this receipt whatever the grader (its own kept answers aside),
    as the note a grading change gets; ``None`` when its kept answers can be graded again."""
    if receipt.transcripts is None:
        merged = receipt.shards is not None
        return stale_sentences.STALE_MERGED_NO_ANSWERS if merged else stale_sentences.STALE_NO_ANSWERS
    pairwise = receipt.judge is not None and receipt.judge.pairwise is not None
    why = not_regradable(receipt) or (NOT_REGRADABLE_PAIRWISE if pairwise else None)
    why = why or (PLACEBO_NOT_REGRADED if receipt.placebo is not None else None)
    return None if why is None else stale_sentences.stale_not_regradable(why)


def _own_cases(receipt: Receipt, cases: tuple[CaseToday, ...]) -> tuple[CaseToday, ...]:
    """Today's cases a receipt is asked about: a shard receipt's, the cases ``run --shard`` would run today."""
    shard = receipt.run.shard
    if shard is None:
        return cases
    ids = [c.id for c in cases]
    mine = set(shard_cases(ids, ShardSpec(shard.index, shard.count)) if shard.count <= len(ids) else shard.case_ids)
    return tuple(c for c in cases if c.id in mine)


def stale(receipt: Receipt, today: Today) -> StaleReport:
    """Each arm of each case of today's suite: ``stands``, ``rerun`` or ``regrade``, with its reasons."""
    shared = _Collector()
    _run_facts(shared, receipt, today)
    _judge_facts(shared, receipt, today)
    if today.conditions is not None:
        more = conditions(receipt, today.conditions)
        shared.findings.extend(_Finding(Kind.DRAW, reason, BOTH) for reason in more.rerun_both)
        shared.advisories.extend(more.advisories)
        shared.unknown.extend(u for u in more.unknown if u not in shared.unknown)
    no_regrade = _no_regrade(receipt)
    recorded = {case.id: case for case in receipt.cases}
    cases = []
    unknown = list(shared.unknown)
    for now in _own_cases(receipt, today.cases):
        if now.id not in recorded:
            new = ArmStaleness(Staleness.RERUN, (stale_sentences.STALE_NEW_CASE,))
            cases.append(CaseStaleness(now.id, new, new))
            continue
        own = _Collector(findings=list(shared.findings))
        _case_findings(own, recorded[now.id], now)
        unknown.extend(u for u in own.unknown if u not in unknown)
        arms = {arm: _arm(own.findings, arm, no_regrade) for arm in BOTH}
        cases.append(CaseStaleness(now.id, arms[ArmName.WITH_SKILL], arms[ArmName.BASELINE]))
    ids = {now.id for now in today.cases}
    dropped = tuple(case.id for case in receipt.cases if case.id not in ids)
    advisories = (*shared.advisories, *(stale_sentences.stale_dropped_case(cid) for cid in dropped))
    return StaleReport(tuple(cases), advisories, tuple(unknown), dropped)


#: How many of the reasons the baseline line of the Action's report names before "and N more".
BASELINE_REASONS_SHOWN = 2


class BaselineStanding(NamedTuple):
    """Whether a stored receipt's baseline arms stand for a run: what the Action's report line says."""

    cases: int
    """Cases of today's suite."""
    rerun: int
    """Of them, the cases whose baseline arm is to be drawn again."""
    regrade: int
    """Of them, the cases whose baseline arm is to be graded again (its answers were kept)."""
    reasons: tuple[str, ...]
    """The first `BASELINE_REASONS_SHOWN` distinct reasons over those arms, in case order: what changed (the
    note that no answers were kept, which only says why a grading change is a rerun, is left out)."""
    more: int
    """How many distinct reasons there are beyond ``reasons``."""

    @property
    def stands(self) -> bool:
        """True when every case's baseline arm stands."""
        return self.rerun == self.regrade == 0


def baseline_standing(report: StaleReport) -> BaselineStanding:
    """The baseline arms of ``report`` alone: how many do not stand, and why (the first distinct reasons).

    >>> arm = ArmStaleness(Staleness.RERUN, ("prompt changed: a → b",))
    >>> fine = ArmStaleness(Staleness.STANDS, ())
    >>> report = StaleReport((CaseStaleness("x", arm, arm), CaseStaleness("y", arm, fine)), (), (), ())
    >>> baseline_standing(report)
    BaselineStanding(cases=2, rerun=1, regrade=0, reasons=('prompt changed: a → b',), more=0)
    """
    arms = [case.baseline for case in report.cases]
    changed = (reason for arm in arms for reason in arm.reasons if not stale_sentences.is_note(reason))
    reasons = list(dict.fromkeys(changed))
    return BaselineStanding(
        cases=len(arms),
        rerun=sum(arm.status == Staleness.RERUN for arm in arms),
        regrade=sum(arm.status == Staleness.REGRADE for arm in arms),
        reasons=tuple(reasons[:BASELINE_REASONS_SHOWN]),
        more=max(0, len(reasons) - BASELINE_REASONS_SHOWN),
    )


def stale_json(report: StaleReport) -> dict[str, Any]:
    """The ``--format json`` document; every key is documented in ``docs/stale.md``."""
    return {
        "stands": report.stands,
        "cases": [
            {
                "id": case.id,
                **{
                    str(arm): {"status": str(state.status), "reasons": list(state.reasons)}
                    for arm, state in ((ArmName.WITH_SKILL, case.with_skill), (ArmName.BASELINE, case.baseline))
                },
            }
            for case in report.cases
        ],
        "advisories": list(report.advisories),
        "unknown": list(report.unknown),
        "dropped_cases": list(report.dropped),
    }
