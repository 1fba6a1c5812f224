"""Turn a finished run into a sealed receipt: what produced the numbers, every draw, the economics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from driftproof import judge as judge_module
from driftproof._version import __version__
from driftproof.core import economics, pairwise
from driftproof.core.build import arm_of
from driftproof.core.carry import own
from driftproof.core.economics import sum_usage
from driftproof.core.fired import skill_name
from driftproof.core.models import (
    Arm,
    ArmUsage,
    Canaries,
    CanaryOverhead,
    Case,
    Counts,
    Economics,
    Judge,
    JudgeOverhead,
    NeighbourSkill,
    Receipt,
    Run,
    RunSettings,
    Shard,
    Skill,
    Tool,
    Usage,
)
from driftproof.core.models import Lane as LaneRecord
from driftproof.core.models import Suite as SuiteRecord
from driftproof.core.placebo import PLACEBO_ARM, placebo_record
from driftproof.core.plan_sentences import STOPPED_AT_BUDGET
from driftproof.core.rounds import replaced_flags
from driftproof.core.seal import seal_receipt, sha256_text
from driftproof.core.verification import verify
from driftproof.core.words import Delivery, JudgeMode, Verification
from driftproof.judge import TEMPLATE_SHA256, TEMPLATE_VERSION, judge_ids, rubric_hash, sample_identity
from driftproof.judge_pairwise import pairwise_fields, pairwise_setting
from driftproof.lanes.base import Lane
from driftproof.runner import Runner, RunOptions

#: SHA-256 of the code on the grading path (the judge module: template, parsing, identity check).
GRADING_CODE_SHA256 = sha256_text(Path(judge_module.__file__).read_text(encoding="utf-8"))


@dataclass(frozen=True, slots=True)
class RunContext:
    """What the receipt records beside the draws."""

    suite_path: str
    skill_path: str | None
    skill_text: str | None
    lane: Lane
    judge: Lane
    options: RunOptions
    judge_model: str | None
    preset: str | None
    started_at: str
    finished_at: str
    timeout_s: float | None
    max_retries: int | None
    transcripts: dict[str, str] | None = None
    delivery: str = "system_prompt"
    """How the skill reached the agent: ``system_prompt``, or ``discover`` (installed; CLI surface only)."""
    reference_sha256: str | None = None
    """The seal of the receipt the run was drawn against (``--reference``)."""
    as_reference: bool = False
    """Drawn to the deeper rule of a stored reference receipt (``--as-reference``)."""
    shard: Shard | None = None
    """Which part of the suite the run drew (``--shard``); ``None`` for the whole suite."""
    neighbours: tuple[NeighbourSkill, ...] | None = None
    """With ``discover`` delivery, the neighbour skills installed in both arms (empty: none); ``None`` otherwise."""
    canaries: Canaries | None = None
    """The judge-anchor canaries as judged (`driftproof.canaries`); ``None`` when the run judged none."""
    canary_overhead: CanaryOverhead | None = None
    """What judging them cost, reported apart in ``economics.judge_overhead.canaries``."""
    canary_identity: tuple[str | None, ...] = ()
    """Per returned canary sample, why its reply is not the requested judge's, or ``None``
    (`driftproof.canary_identity`): checked for the verification level like the draws' samples."""


def verification(runner: Runner, ctx: RunContext) -> tuple[Verification, str | None]:
    """The run's level (`core.verification.verify`) over every judge sample that returned a reply, the canaries'
    included (docs/canaries.md)."""
    draws = [r.draw for case in runner.results for arm in runner.arms for r in case[arm].values()]
    returned = [s for d in own(draws) for s in d.judge_samples if s.returned is not False]
    carried = sum(s.returned is not False for d in draws if d.carried_from is not None for s in d.judge_samples)
    problems = [*(sample_identity(ctx.judge_model, s) for s in returned), *ctx.canary_identity]
    first = next((p for p in problems if p is not None), None)
    matched = [p is None for p in problems]
    cases = range(len(runner.results))
    budget_stopped = bool(cases) and all(runner.stop_reasons.get(ci) == STOPPED_AT_BUDGET for ci in cases)
    drawn = len(returned)  # the canaries' samples alone never make a receipt TESTED
    return verify(
        ctx.preset,
        ctx.lane.provider,
        ctx.judge.provider,
        matched,
        first,
        carried=carried,
        budget_stopped=budget_stopped,
        drawn=drawn,
    )


def _arm(runner: Runner, ci: int, arm: str) -> Arm:
    """One arm's draws in index order, each lost draw a later measured draw replaced marked ``replaced``."""
    results = [runner.results[ci][arm][i] for i in sorted(runner.results[ci][arm])]
    flags = replaced_flags([(r.draw.score is not None, r.failed_call) for r in results])
    draws = [
        r.draw.model_copy(update={"replaced": True}) if gone else r.draw for r, gone in zip(results, flags, strict=True)
    ]
    return arm_of(draws)


def judge_overhead(runner: Runner, ctx: RunContext) -> JudgeOverhead:
    """Grading cost over every draw sent to the judge, each once (`core.economics.judge_overhead`), and the
    pairwise calls' (`core.economics.with_pairwise`): the judge samples at their price, the pairwise calls (never
    batched) at the judge's list price (`core.plan.Pricing`)."""
    judged = [
        [s.usage for s in result.draw.judge_samples if s.usage is not None]
        for case in runner.results
        for arm in runner.arms
        for result in case[arm].values()
        if result.judged
    ]
    pricing = ctx.options.pricing
    overhead = economics.judge_overhead(ctx.judge_model, pricing.judge, judged)
    if ctx.canary_overhead:
        overhead = overhead.model_copy(update={"canaries": ctx.canary_overhead})
    if runner.pairwise is None:
        return overhead
    calls = [c for results in runner.pairwise.values() for r in results for c in r.calls]
    return economics.with_pairwise(overhead, [c.usage for c in calls], len(calls), pricing.unbatched_judge)


def build_receipt(runner: Runner, ctx: RunContext) -> Receipt:
    """The sealed receipt of a finished run, built from the models part by part."""
    level, why = verification(runner, ctx)
    arms = {ci: {arm: _arm(runner, ci, arm) for arm in runner.arms} for ci in range(len(runner.suite.cases))}
    drawn = [len(a.draws) for per in arms.values() for a in per.values()]
    body = {
        "tool": Tool(name="driftproof", version=__version__),
        "created_at": ctx.finished_at,
        "verification": level,
        "verification_reason": why,
        "run": _run(runner, ctx, arms),
        "skill": _skill(ctx),
        "suite": _suite(runner, ctx),
        "judge": _judge(ctx, arms),
        "counts": Counts(
            draws_per_arm_min=min(drawn) if drawn else None,
            draws_per_arm_max=max(drawn) if drawn else None,
            judge_samples_per_draw=ctx.options.judge_samples,
        ),
        "cases": [_case(runner, ci, arms[ci]) for ci in range(len(runner.suite.cases))],
        "economics": Economics(
            generation=ArmUsage(**{arm: arms_usage(arms, arm) for arm in runner.arms}),
            judge_overhead=judge_overhead(runner, ctx),
        ),
        "transcripts": ctx.transcripts,
        "placebo": placebo_record(runner.options.placebo_text),
        "canaries": ctx.canaries,
        "pairwise_summary": pairwise.overall(list((runner.pairwise or {}).values())) if runner.pairwise else None,
    }
    return seal_receipt(body)


def _reported(arms: dict[int, dict[str, Arm]], judged: bool) -> list[str]:
    """The unique, sorted model ids the answers (or, ``judged``, the judge samples) reported."""
    draws = [d for per in arms.values() for a in per.values() for d in a.draws]
    if judged:
        return sorted({i for d in draws for s in d.judge_samples for i in judge_ids(s)})
    return sorted({d.reported_model for d in draws if d.reported_model})


def _run(runner: Runner, ctx: RunContext, arms: dict[int, dict[str, Arm]]) -> Run:
    """What produced the numbers: the lane, the harness, the settings as run, the calls made."""
    rule = ctx.options.rule
    return Run(
        lane=LaneRecord(
            provider=ctx.lane.provider,
            surface=ctx.lane.surface,
            model_requested=ctx.options.model or ctx.lane.default_model(),
            models_reported=_reported(arms, judged=False),
            base_url=ctx.lane.base_url(),
        ),
        harness=ctx.lane.harness(),
        capture=ctx.options.capture,
        preset=ctx.preset,
        settings=RunSettings(
            draws_min=rule.min_draws,
            draws_max=rule.max_draws,
            judge_samples=ctx.options.judge_samples,
            stopping_rule=rule.describe(),
            concurrency=ctx.options.concurrency,
            timeout_s=ctx.timeout_s,
            max_retries=ctx.max_retries,
            delivery=ctx.delivery,
            max_consecutive_failures=ctx.options.max_consecutive_failures,
            reference_sha256=ctx.reference_sha256,
            as_reference=ctx.as_reference,
            budget=runner.ledger.record(runner.stop_reasons) if runner.ledger is not None else None,
        ),
        sampling=ctx.lane.sampling(),
        started_at=ctx.started_at,
        finished_at=ctx.finished_at,
        logical_calls=runner.tally.logical_calls,
        endpoint_attempts=runner.tally.endpoint_attempts,
        shard=ctx.shard,
        batch_ids=list(runner.batch_ids) or None,
    )


def _skill(ctx: RunContext) -> Skill | None:
    """The skill measured, by hash and size; ``None`` for a run without one."""
    if ctx.skill_text is None or ctx.skill_path is None:
        return None
    return Skill(
        path=ctx.skill_path,
        sha256=sha256_text(ctx.skill_text),
        chars=len(ctx.skill_text),
        tokens=economics.estimate_tokens(ctx.skill_text),
        installed_as=skill_name(ctx.skill_text) if ctx.delivery == Delivery.DISCOVER else None,
        neighbours=list(ctx.neighbours) if ctx.neighbours is not None else None,
    )


def _suite(runner: Runner, ctx: RunContext) -> SuiteRecord:
    suite = runner.suite
    return SuiteRecord(
        path=ctx.suite_path, sha256=suite.sha256, format=suite.format, name=suite.name, notices=list(suite.notices)
    )


def _judge(ctx: RunContext, arms: dict[int, dict[str, Arm]]) -> Judge:
    """The one fixed judge as it ran, with the ids its replies reported."""
    judge = judge_setting(ctx.judge, ctx.judge_model, _reported(arms, judged=True))
    return judge if ctx.options.judge_mode != JudgeMode.PAIRWISE else judge.model_copy(update=pairwise_setting())


def judge_setting(judge: Lane, judge_model: str | None, reported: Sequence[str] = ()) -> Judge:
    """The judge's recorded setting: who was asked, through what, how, where, with which template and code."""
    return Judge(
        provider=judge.provider,
        surface=judge.surface,
        model_requested=judge_model,
        models_reported=sorted(set(reported)),
        sampling=judge.sampling(),
        template_version=TEMPLATE_VERSION,
        template_sha256=TEMPLATE_SHA256,
        grading_code_sha256=GRADING_CODE_SHA256,
        base_url=judge.base_url(),
        tool_version=judge.tool_version(),
        isolation=judge.isolation(),
        routing=judge.routing(),
    )


def _case(runner: Runner, ci: int, arms: dict[str, Arm]) -> Case:
    """One case: its fingerprints, how it is graded, why drawing stopped, and its two arms."""
    case = runner.suite.cases[ci]
    return Case(
        id=case.id,
        prompt_sha256=sha256_text(case.prompt),
        rubric_sha256=rubric_hash(case),
        mode=case.mode,
        criteria=list(case.criteria) if case.criteria else None,
        threshold=case.threshold,
        notices=list(case.notices),
        stop_reason=runner.stop_reasons.get(ci),
        with_skill=arms["with_skill"],
        baseline=arms["baseline"],
        placebo=arms.get(PLACEBO_ARM),
        **pairwise_fields(runner.pairwise, ci),
    )


def arms_usage(arms: dict[int, dict[str, Arm]], arm: str) -> Usage:
    """Generation usage of one arm over every case: the draws this run made (a carried draw cost this run
    nothing; its usage stays on the draw, as its source recorded it)."""
    return sum_usage([d.usage for per in arms.values() for d in own(per[arm].draws)])
