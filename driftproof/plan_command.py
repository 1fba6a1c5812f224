"""``driftproof plan SUITE``: what a run with the same flags would call, and what it could cost. Makes no call.

Reads the suite and the skill as ``run`` does, checks every flag ``run`` would check before its first call, and
prints the plan (`driftproof.core.plan_sentences`): per case and in total, the fewest and the most logical calls,
tokens estimated from the texts and ``--max-tokens``, and a dollar range from the price table (with ``--batch``,
at the batch price: every rate halved, its source saying so). Builds no lane, so it needs no API key; except with
``--reference``, whose standing baseline arms the run would carry: they are asked as the run asks them, through
the lanes built as ``driftproof stale`` builds them (no call is made; ``--no-carry-baseline`` plans both arms
drawn). ``-o`` is checked as the run checks it, and writes nothing; ``--resume`` is refused.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from driftproof.batch_runner import check_batch_choice
from driftproof.canaries import canary_set
from driftproof.canary_planning import canary_sizes, plan_with_canaries
from driftproof.carry import NONE, Carry, carried_counts, refuse_pairwise_carry
from driftproof.core.defaults import DEFAULTS, judge_provider_for
from driftproof.core.models import Receipt, Shard
from driftproof.core.placebo import PLACEBO_ARM
from driftproof.core.plan import ARM_ORDER, Budget, Plan, Pricing
from driftproof.core.plan_json import plan_json
from driftproof.core.plan_sentences import plan_lines
from driftproof.core.reading import not_regradable
from driftproof.core.words import JudgeMode, Provider, Surface
from driftproof.errors import InputError, LaneError
from driftproof.lanes.registry import default_model_of, samples_per_request_of
from driftproof.planning import check_budget, check_max_tokens, plan_of, plan_settings, pricing_for
from driftproof.reference import load_reference
from driftproof.run import (
    Counts,
    RunRequest,
    carry_of,
    check_run_outputs,
    check_run_script,
    make_lanes,
    resolve_counts,
    surface_of,
)
from driftproof.runner import JUDGE_MAX_TOKENS
from driftproof.sharding import shard_line, shard_suite
from driftproof.suite import Suite, load_suite, read_skill


@dataclass(frozen=True)
class PlanReport:
    """A plan with what it was priced at: the plan, the prices, the models priced, the budget."""

    plan: Plan
    pricing: Pricing
    models: tuple[str | None, str | None]
    budget: Budget | None
    shard: Shard | None = None
    """With ``--shard``, the shard planned (its cases are the plan's)."""
    lines: tuple[str, ...] = ()
    """What the run would say before its plan (the baseline it carries), printed first in text form."""


def judge_model_of(request: RunRequest) -> str | None:
    """The judge model a run of ``request`` asks for (as `driftproof.run.make_lanes` picks it)."""
    judge_provider = judge_provider_for(request.provider, request.judge_provider)
    if judge_provider == Provider.STUB:
        return request.judge_model or "stub-judge"
    return request.judge_model or (DEFAULTS.judge_model if judge_provider == DEFAULTS.judge_provider else None)


def lanes_of(request: RunRequest) -> tuple[tuple[str, str, str], ...]:
    """The lanes a run of ``request`` builds, as (role, provider, surface) (as `driftproof.run.make_lanes` picks
    them: the judge on the API surface, the stub's on none)."""
    judge_provider = judge_provider_for(request.provider, request.judge_provider)
    judge_surface = Surface.NONE if judge_provider == Provider.STUB else Surface.API
    return (("answering model", request.provider, surface_of(request)), ("judge", judge_provider, judge_surface))


def plan_for(request: RunRequest) -> PlanReport:
    """The plan of ``request``, refusing what ``run`` would refuse of its counts, suite, skill, script, judge,
    ``--batch``, reference, prices and budget. With a reference to carry from, the baseline arms a run would carry
    are asked as the run asks (`driftproof.run.carry_of`, through the lanes built as ``driftproof stale`` builds
    them: no call) and counted per case as the run counts them."""
    counts = resolve_counts(request)
    check_run_script(request)
    refuse_pairwise_carry(request.judge_mode, request.carry_baseline, request.reference)
    budget = check_budget(request.budget, request.budget_usd)
    max_tokens = check_max_tokens(request.max_tokens)
    suite = load_suite(request.suite)
    if counts.preset is not None:
        suite = replace(suite, cases=suite.cases[:1])
    suite, shard = shard_suite(request.shard, suite, quick=request.quick)  # as run cuts it, refused as run does
    skill_path, skill_text = read_skill(request.skill, suite)
    if request.out is not None:  # as the run refuses it before any call; the plan writes nothing
        check_run_outputs(request, request.out, suite, skill_path)
    judge_model = judge_model_of(request)  # what a run refuses as it builds its lanes, then once they exist
    if judge_model is None:
        raise InputError(f"--judge-model is required with --judge-provider {request.judge_provider}")
    if request.batch:
        check_batch_choice(lanes_of(request))
    carry = NONE
    if isinstance(request.reference, Path):
        receipt = load_reference(request.reference)
        if (why := not_regradable(receipt)) is not None:
            raise InputError(f"{request.reference}: {why}; a plan draws against a receipt of Driftproof's own runs")
        carry = _carry(request, receipt, suite, skill_text, counts)
    models = (request.model or default_model_of(request.provider, surface_of(request)), judge_model)
    pricing = pricing_for(models, request.price_table, budget, batch=request.batch)
    (_, provider, surface), (_, judge_provider, judge_surface) = lanes_of(request)  # as the run builds them
    answering = samples_per_request_of(provider, surface)
    grouped = (answering, samples_per_request_of(judge_provider, judge_surface))  # with --batch too
    ceilings = (max_tokens, JUDGE_MAX_TOKENS)
    settings = plan_settings(counts.stopping_rule(), counts.judge_samples, ceilings, skill_text, per_request=grouped)
    arms = (*ARM_ORDER, PLACEBO_ARM) if request.placebo else ARM_ORDER  # a placebo arm is as long as the skill
    pairwise = request.judge_mode == JudgeMode.PAIRWISE
    settings = replace(settings, carried_cases=carried_counts(carry), arms=arms, pairwise=pairwise)
    anchors = canary_set(suite, request.canaries, default=request.default_canaries)
    sizes = canary_sizes(anchors.canaries if anchors else None, counts.judge_samples, JUDGE_MAX_TOKENS)
    plan = plan_with_canaries(plan_of(suite.cases, settings, pricing), sizes, pricing, budget, suite.cases)
    return PlanReport(plan, pricing, models, budget, shard, carry.lines)


def _carry(request: RunRequest, source: Receipt, suite: Suite, skill_text: str, counts: Counts) -> Carry:
    """What a run of ``request`` would carry from ``source``, asked as the run asks it; the lanes are built to
    ask it (a key is needed, as for ``driftproof stale``), closed before the plan is printed, and call nothing."""
    if not request.carry_baseline:
        return NONE
    try:
        lanes = make_lanes(request)
    except LaneError as exc:  # no key, no CLI: said with what plans without carrying
        raise LaneError(
            f"--reference: to count the baseline a run would carry, plan builds the lanes as driftproof stale does "
            f"(no call): {exc}; or add --no-carry-baseline to plan both arms drawn"
        ) from None
    try:
        return carry_of(request, source, suite, skill_text, lanes, counts)
    finally:
        lanes[0].close()
        lanes[1].close()


def plan_request(
    args: argparse.Namespace, lane_flags: Mapping[str, Any], budget_flags: Mapping[str, Any]
) -> PlanReport:
    """The plan of ``driftproof plan``'s flags (``run``'s flags): ``-o`` is checked as the run checks it (the plan
    writes nothing), ``--resume``, whose remaining calls a plan cannot know, is refused."""
    if args.resume:
        raise InputError(
            "--resume: driftproof plan reads no journal, so it cannot say what an interrupted run has left; "
            "drop --resume to print the whole run's plan"
        )
    request = RunRequest(
        suite=Path(args.suite),
        skill=Path(args.skill) if args.skill else None,
        out=Path(args.output) if args.output else None,
        **lane_flags,
        script=Path(args.script) if args.script else None,
        quick=args.quick,
        price_table=Path(args.price_table) if args.price_table else None,
        reference=Path(args.reference) if args.reference else None,
        carry_baseline=args.carry_baseline,
        judge_mode=args.judge_mode,
        canaries=args.canaries,
        default_canaries=args.default_canaries,
        batch=args.batch,
        shard=args.shard,
        **budget_flags,
    )
    return plan_for(request)


def plan_text(report: PlanReport, form: str) -> str:
    """The plan as ``--format text`` (each case, then the total) or ``--format json`` prints it."""
    if form == "json":
        doc = plan_json(report.plan, report.pricing, report.models, report.budget)
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    lines = plan_lines(report.plan, report.pricing, report.models, report.budget, by_case=True)
    return "\n".join([*((shard_line(report.shard),) if report.shard else ()), *report.lines, *lines]) + "\n"
