"""``driftproof run``: load the suite and skill, pick the lanes, draw, judge, seal, write.

Shared by the CLI and the Action. Everything a user can get wrong is an ``InputError`` before any call.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from driftproof.assemble import RunContext, build_receipt
from driftproof.batch_runner import BatchRunner, check_batch_lanes
from driftproof.canaries import CanaryJob, CanaryRun, CanarySet, canary_set, refuse_canary_clash
from driftproof.canary_planning import canary_sizes, plan_with_canaries, reserve_canaries
from driftproof.carry import NONE, RUN_CONDITIONS, Carry, RunFacts, carried_counts, carry_for, refuse_pairwise_carry
from driftproof.conditions_today import neighbour_records
from driftproof.core.defaults import DEFAULTS, LIMITS, judge_provider_for
from driftproof.core.economics import estimate_tokens
from driftproof.core.models import NeighbourSkill, Receipt, Shard
from driftproof.core.placebo import GENERATOR, PLACEBO_ARM, placebo_text
from driftproof.core.plan_sentences import plan_lines
from driftproof.core.stopping import StoppingRule, reference_rule, rule_for
from driftproof.core.words import Capture, Delivery, JudgeMode, Provider, Surface
from driftproof.errors import InputError, RunInterrupted, RunStopped
from driftproof.journal import DrawResult, Journal, run_fingerprint
from driftproof.journal_passes import restore_passes
from driftproof.lanes.base import Lane
from driftproof.pairwise_pass import PairCollector, run_pairwise
from driftproof.planning import (
    budget_fingerprint,
    budget_needed,
    budget_passed,
    check_budget,
    check_max_tokens,
    plan_of,
    plan_settings,
    pricing_for,
)
from driftproof.progress import make_progress
from driftproof.receipts import write_receipt
from driftproof.reference import Reference, load_reference, reference_for
from driftproof.runner import ARMS, JUDGE_MAX_TOKENS, Runner, RunOptions
from driftproof.safe_text import printable
from driftproof.sharding import default_shard_out, shard_line, shard_suite
from driftproof.suite import (
    Suite,
    installed_neighbours,
    load_suite,
    neighbour_texts,
    notice_lines,
    read_skill,
    skill_flag_given,
)
from driftproof.targets import ANSWERS, JOURNAL, Input, Output, check_outputs
from driftproof.transcripts import Archive, TranscriptSpool, archive_beside

QUICK = {"draws": 2, "judge_samples": 2, "concurrency": 4}
"""What ``--quick`` fixes: a smoke run of the first case."""


@dataclass(frozen=True)
class RunRequest:
    """The settings of one run, from flags or Action inputs. ``None`` means "not given": the default applies."""

    suite: Path
    skill: Path | None = None
    out: Path | None = None
    provider: Provider = DEFAULTS.provider
    surface: Surface | None = None
    model: str | None = None
    judge_provider: Provider | None = None
    judge_model: str | None = None
    base_url: str | None = None
    judge_base_url: str | None = None
    draws: int | None = None
    max_draws: int | None = None
    judge_samples: int | None = None
    concurrency: int | None = None
    timeout_s: float | None = None
    max_retries: int = DEFAULTS.max_retries
    max_consecutive_failures: int = DEFAULTS.max_consecutive_failures
    script: Path | None = None
    reference: Path | Receipt | None = None
    """The receipt this run will be diffed against (its with-skill arms): a file, or a receipt already read."""
    as_reference: bool = False
    """Draw to the deeper rule of a stored reference receipt (the default branch's)."""
    carry_baseline: bool = True
    """With ``reference``: reuse its baseline arms where ``driftproof stale`` says they stand for this run
    (``--no-carry-baseline`` draws them)."""
    reference_label: str | None = None
    """How reports name the reference (the Action: the default branch); ``None``: its path."""
    quick: bool = False
    resume: bool = False
    keep_transcripts: bool = False
    price_table: Path | None = None
    capture: Capture = DEFAULTS.capture
    delivery: Delivery = DEFAULTS.delivery
    shard: str | None = None
    """``INDEX/COUNT``: run only the cases of that shard (``driftproof.sharding``), to a shard receipt."""
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    max_tokens: int | None = None
    """Each answer's output ceiling (``--max-tokens``); ``None``: `DEFAULTS.max_tokens`."""
    budget: int | None = None
    """``--budget TOKENS``: no draw starts whose worst case could take the run past it."""
    budget_usd: float | None = None
    """``--budget-usd``: the same in USD, at the price table's prices."""
    plan_by_case: bool = False
    """Print the plan case by case before the first call (the Action does), not only its total."""
    batch: bool = False
    """``--batch``: send each round's answers, then its judge calls, through the provider's batch API."""
    placebo: bool = False
    """``--placebo``: draw a third arm given neutral text of the skill's token length (`driftproof.core.placebo`)."""
    canaries: bool = DEFAULTS.canaries
    """Re-judge the suite's canaries with the run's judge; ``--no-canaries``: none."""
    default_canaries: bool = DEFAULTS.default_canaries
    """``--default-canaries``: a suite without ``canaries:`` re-judges the default set shipped with Driftproof."""
    judge_mode: JudgeMode = DEFAULTS.judge_mode
    """``--judge-mode``: ``pairwise`` also judges each draw pair side by side (beside the scores, never a verdict)."""
    also_writes: tuple[Output, ...] = ()
    """Files the caller writes once the run is done (``--junit``): checked with the receipt, before any call."""


@dataclass(frozen=True)
class RunOutcome:
    """A finished run."""

    receipt: Receipt
    path: Path
    runner: Runner
    suite: Suite
    carry: Carry = NONE
    """What the run carried from its reference."""


@dataclass(frozen=True)
class Counts:
    """Draws, judge samples and concurrency as the run will use them, with the preset they come from."""

    draws: int
    max_draws: int
    judge_samples: int
    concurrency: int
    preset: str | None
    rule: StoppingRule | None = None
    """The stopping rule of these counts (``None`` for the quick preset, whose counts are the rule)."""

    def stopping_rule(self) -> StoppingRule:
        """The rule the runner applies."""
        return self.rule or rule_for(self.draws, self.max_draws)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_count(name: str, value: int, low: int = 1) -> int:
    """``--NAME``'s value when it is a whole number from ``low`` to ``LIMITS.count``; else one line, exit 2 (``run``,
    ``plan``, ``stale`` and ``regrade`` refuse a count alike)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= LIMITS.count:
        raise InputError(f"--{name} must be a whole number from {low} to {LIMITS.count}, got {value}")
    return value


def resolve_counts(request: RunRequest) -> Counts:
    """The counts of this run; ``--quick`` refuses counts given beside it rather than override them silently."""
    given = {"draws": request.draws, "judge_samples": request.judge_samples, "concurrency": request.concurrency}
    if request.quick:
        clash = [f"--{k.replace('_', '-')}" for k, v in given.items() if v is not None]
        if request.max_draws is not None:
            clash.append("--max-draws")
        if clash:
            fixed = ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in QUICK.items())
            raise InputError(
                f"--quick fixes {fixed} (a smoke run of the first case); drop {' and '.join(clash)} or drop --quick"
            )
        if request.as_reference:
            raise InputError("--quick is a smoke run, which can never be a reference: drop --quick or --as-reference")
        return Counts(QUICK["draws"], QUICK["draws"], QUICK["judge_samples"], QUICK["concurrency"], "quick")
    draws = check_count("draws", given["draws"] if given["draws"] is not None else DEFAULTS.draws)
    samples = check_count(
        "judge-samples", given["judge_samples"] if given["judge_samples"] is not None else DEFAULTS.judge_samples
    )
    concurrency = check_count(
        "concurrency", given["concurrency"] if given["concurrency"] is not None else DEFAULTS.concurrency
    )
    given_max = None if request.max_draws is None else check_count("max-draws", request.max_draws)
    if given_max is not None and given_max < draws:
        raise InputError(f"--max-draws ({given_max}) must be at least --draws ({draws})")
    rule = reference_rule(draws, given_max) if request.as_reference else rule_for(draws, given_max)
    return Counts(rule.min_draws, rule.max_draws, samples, concurrency, None, rule)


def _skill(request: RunRequest, suite: Suite) -> tuple[Path, str]:
    return read_skill(request.skill, suite)


def surface_of(request: RunRequest) -> Surface:
    """The surface asked for: as given, else ``none`` for the stub (which has no other) and ``api`` otherwise."""
    if request.surface is not None:
        return Surface(request.surface)
    return Surface.NONE if request.provider == Provider.STUB else DEFAULTS.surface


def check_run_script(request: RunRequest) -> dict[str, Any] | None:
    """``--script``, read and checked against the suite (a missing or bad file is one line), and refused beside a
    lane other than the stub; ``None`` without one. ``driftproof plan`` checks it the same way."""
    from driftproof.lanes.stub import check_script, load_script

    script = load_script(request.script) if request.script else None
    if script is not None and request.script is not None:
        check_script(script, load_suite(request.suite), request.script)
    if request.script and request.provider != Provider.STUB:
        raise InputError("--script drives the stub lane only: add --provider stub")
    return script


def carry_of(
    request: RunRequest,
    source: Receipt | None,
    suite: Suite,
    skill_text: str,
    lanes: tuple[Lane, Lane, str | None],
    counts: Counts,
) -> Carry:
    """What a run of ``request`` carries from its reference ``source``: the baseline arms ``driftproof stale`` says
    stand for it (`driftproof.carry.carry_for`, with the lanes built); nothing without a reference or with
    ``--no-carry-baseline``. The run and ``driftproof plan`` both ask it."""
    if source is None or not request.carry_baseline:
        return NONE
    facts = RunFacts(
        request.model,
        request.capture,
        request.delivery,
        counts.stopping_rule().describe(),
        counts.judge_samples,
        **{name: getattr(request, name) for name in RUN_CONDITIONS},
    )
    label = request.reference_label or str(request.reference if isinstance(request.reference, Path) else "")
    return carry_for(source, suite, skill_text, lanes, facts, label or "the reference")


def make_lanes(request: RunRequest) -> tuple[Lane, Lane, str | None]:
    """The answering lane, the judge lane and the requested judge model, all built by the lane registry."""
    from driftproof.lanes.registry import check_choice, make_lane

    script = check_run_script(request)
    judge_provider = judge_provider_for(request.provider, request.judge_provider)
    surface = surface_of(request)
    delivery = check_choice("delivery", request.delivery, Delivery)
    if delivery == Delivery.DISCOVER and surface != Surface.CLI:
        raise InputError("--delivery discover installs the skill where an agent looks for it: add --surface cli")
    common: dict[str, Any] = {
        "timeout_s": request.timeout_s,
        "max_retries": request.max_retries,
        "environ": request.environ,
    }
    extra: dict[str, Any] = {"script": script} if request.provider == Provider.STUB else {}
    if surface == Surface.CLI:
        extra["delivery"] = request.delivery
    if surface == Surface.API:  # the answers' ceiling, which the plan's and the budget's worst case count
        extra["max_tokens"] = check_max_tokens(request.max_tokens)
    lane = make_lane(
        request.provider, surface, request.model, base_url=request.base_url, capture=request.capture, **common, **extra
    )
    if judge_provider == Provider.STUB:
        judge = make_lane(Provider.STUB, Surface.NONE, None, base_url=request.judge_base_url, script=script, **common)
        return lane, judge, request.judge_model or "stub-judge"
    judge_model = request.judge_model or (DEFAULTS.judge_model if judge_provider == DEFAULTS.judge_provider else None)
    if judge_model is None:
        lane.close()
        raise InputError(f"--judge-model is required with --judge-provider {judge_provider}")
    judge = make_lane(
        judge_provider, Surface.API, judge_model, base_url=request.judge_base_url, max_tokens=JUDGE_MAX_TOKENS, **common
    )  # its ceiling is the judge's budget: the sampling it reports before a call is the one a run records
    return lane, judge, judge_model


def default_out(suite_path: Path, quick: bool) -> Path:
    """Beside the suite, under ``.driftproof/``."""
    return suite_path.parent / ".driftproof" / ("receipt.quick.json" if quick else "receipt.json")


def journal_beside(out: Path) -> Path:
    """Where the run's journal goes: beside its receipt, as ``RECEIPT.journal``."""
    return out.with_name(out.name + ".journal")


def check_run_outputs(request: RunRequest, out: Path, suite: Suite, skill_path: Path) -> None:
    """Refuse, before any call, a receipt path (or the answers archive, the journal, ``--junit`` beside it) the
    run may not write: not a regular file, a file the run reads, a directory it cannot write in
    (`driftproof.targets`). Creates nothing: the directories are made when the run writes."""
    outputs = [Output(out, "-o"), Output(journal_beside(out), "-o", JOURNAL)]
    if request.keep_transcripts:
        outputs.append(Output(archive_beside(out), "--keep-transcripts", ANSWERS))
    reads = [
        Input(request.suite, "the suite this run reads"),
        Input(skill_path, "the SKILL.md this run reads"),
        *(Input(p, "a neighbour skill this run installs") for p in suite.neighbours),
    ]
    for path, what in (
        (request.script, "the stub script (--script)"),
        (request.price_table, "the price table (--price-table)"),
        (request.reference if isinstance(request.reference, Path) else None, "the reference receipt (--reference)"),
    ):
        if path is not None:
            reads.append(Input(path, what))
    check_outputs([*outputs, *request.also_writes], reads)


def _journal_for(
    request: RunRequest, out: Path, fingerprint: str, neighbours: dict[str, str], batch: tuple[bool, str]
) -> Journal:
    journal = Journal(journal_beside(out), fingerprint, neighbours, batch=batch)
    if request.resume and not journal.path.exists():
        raise InputError(
            f"--resume: there is no journal at {journal.path}, so there is no interrupted run to finish "
            "(a run that finished removed its journal); drop --resume to start the run"
        )
    return journal


def run_suite(
    request: RunRequest,
    *,
    progress_stream: Any = None,
    log_answer: Callable[[str, str, int, str], None] | None = None,
) -> RunOutcome:
    """Run a suite end to end and write its receipt atomically; every check a user can fail comes first."""
    counts = resolve_counts(request)
    check_budget(request.budget, request.budget_usd)
    check_max_tokens(request.max_tokens)
    refuse_pairwise_carry(request.judge_mode, request.carry_baseline, request.reference)
    refuse_canary_clash(request.canaries, request.default_canaries)
    suite = load_suite(request.suite)
    if counts.preset is not None:
        suite = replace(suite, cases=suite.cases[:1])
    suite, shard = shard_suite(request.shard, suite, quick=request.quick)
    skill_path, skill_text = _skill(request, suite)
    suite = skill_flag_given(suite) if request.skill is not None else suite
    neighbours: tuple[str, ...] = ()
    if request.delivery == Delivery.DISCOVER and suite.neighbours:  # installed beside the skill, in both arms
        neighbours, suite = neighbour_texts(suite), installed_neighbours(suite)
    installed = neighbour_records(suite, neighbours) if request.delivery == Delivery.DISCOVER else None
    out = request.out or default_out(request.suite, request.quick)
    out = default_shard_out(out, shard) if shard is not None and request.out is None else out
    check_run_outputs(request, out, suite, skill_path)
    max_failures = check_count("max-consecutive-failures", request.max_consecutive_failures, low=0)
    lane, judge, judge_model = make_lanes(request)
    lane.install_neighbours(neighbours)
    try:  # what can still be refused once the lanes exist: --batch, the reference, the price table, the journal
        if request.batch:
            check_batch_lanes(lane, judge)
        plan = _plan(request, suite, skill_text, (lane, judge, judge_model), counts, max_failures, out, installed)
    except BaseException:
        lane.close()
        judge.close()
        raise
    job = CanaryJob(plan.anchors, plan.options.pricing.unbatched_judge) if plan.anchors is not None else None
    spool = TranscriptSpool() if request.keep_transcripts else None  # the answers archive, written as draws finish
    try:
        runner, started = _draw(
            request,
            suite,
            skill_text,
            (lane, judge),
            plan.options,
            counts,
            plan.journal,
            progress_stream,
            log_answer,
            (
                *plan.reference.lines,
                *plan.carry.lines,
                *((shard_line(shard),) if shard is not None else ()),
                *plan.lines,
            ),
            spool,
            job,
        )
        archive = spool.archive(out) if spool is not None else None
        receipt = _seal(
            request,
            runner,
            plan,
            counts,
            (lane, judge, judge_model),
            skill_path,
            skill_text,
            started,
            archive,
            shard,
            job.result if job is not None else None,
            installed,
        )
        write_receipt(receipt, out, beside={archive.path: archive.lines} if archive else None)  # both, or neither
    finally:
        if spool is not None:
            spool.close()
    plan.journal.close(remove=True)
    return RunOutcome(receipt, out, runner, suite, plan.carry)


def _seal(
    request: RunRequest,
    runner: Runner,
    plan: _Plan,
    counts: Counts,
    lanes: tuple[Lane, Lane, str | None],
    skill_path: Path | None,
    skill_text: str,
    started: str,
    archive: Archive | None,
    shard: Shard | None,
    canaries: CanaryRun | None = None,
    neighbours: tuple[NeighbourSkill, ...] | None = None,
) -> Receipt:
    """The sealed receipt of a finished run (of one shard of the suite when ``shard`` is given)."""
    lane, judge, judge_model = lanes
    ctx = RunContext(
        suite_path=str(request.suite),
        skill_path=str(skill_path) if skill_path else None,
        skill_text=skill_text,
        lane=lane,
        judge=judge,
        options=plan.options,
        judge_model=judge_model,
        preset=counts.preset,
        started_at=started,
        finished_at=_now(),
        timeout_s=options_timeout(request, lane),
        max_retries=request.max_retries if lane.surface == Surface.API else None,  # a CLI retries its own calls
        transcripts=archive.reference if archive else None,
        delivery=request.delivery,
        reference_sha256=plan.reference.sha256,
        as_reference=request.as_reference,
        shard=shard,
        canaries=canaries.record if canaries is not None else None,
        canary_overhead=canaries.overhead if canaries is not None else None,
        canary_identity=canaries.identity if canaries is not None else (),
        neighbours=neighbours,
    )
    return build_receipt(runner, ctx)


@dataclass(frozen=True)
class _Plan:
    """What a run settles before its first call, once its lanes exist."""

    reference: Reference
    carry: Carry
    options: RunOptions
    journal: Journal
    lines: tuple[str, ...] = ()
    """The plan as printed before the first call (`driftproof.core.plan_sentences.plan_lines`)."""
    anchors: CanarySet | None = None
    """The judge-anchor canaries the run judges before its first draw; ``None``: none."""


def _plan(
    request: RunRequest,
    suite: Suite,
    skill_text: str,
    lanes: tuple[Lane, Lane, str | None],
    counts: Counts,
    max_failures: int,
    out: Path,
    neighbours: tuple[NeighbourSkill, ...] | None = None,
) -> _Plan:
    """The reference drawn against, the runner's options (the prices each kind of call is billed at among them) and
    the journal (fingerprinted)."""
    lane, judge, judge_model = lanes
    rule = counts.stopping_rule()
    source = _reference_receipt(request.reference)
    reference = reference_for(source, suite, lane.provider, judge.provider, judge_model)
    carry = carry_of(request, source, suite, skill_text, lanes, counts)
    if reference.arms and rule.max_draws < rule.call_min:
        reference = replace(
            reference,
            lines=(
                *reference.lines,
                f"driftproof: reference: with --max-draws {rule.max_draws} no case can be called against it "
                f"(a call needs {rule.call_min} measured draws per arm)",
            ),
        )
    budget = check_budget(request.budget, request.budget_usd)
    models = (request.model or lane.default_model(), judge_model)
    pricing = pricing_for(models, request.price_table, budget, batch=request.batch)  # a batch call at half price
    ceilings = (check_max_tokens(request.max_tokens), JUDGE_MAX_TOKENS)
    placebo = placebo_text(estimate_tokens(skill_text)) if request.placebo else None
    arms = (*ARMS, PLACEBO_ARM) if placebo else ARMS
    grouped = (lane.samples_per_request(), judge.samples_per_request())  # a batch line asks for as many
    settings = plan_settings(rule, counts.judge_samples, ceilings, skill_text, arms=arms, per_request=grouped)
    settings = replace(settings, carried_cases=carried_counts(carry))  # per case, as the runner draws them
    settings = replace(settings, pairwise=request.judge_mode == JudgeMode.PAIRWISE)
    anchors = canary_set(suite, request.canaries, default=request.default_canaries)
    sizes = canary_sizes(anchors.canaries if anchors else None, counts.judge_samples, JUDGE_MAX_TOKENS)
    whole = plan_with_canaries(
        plan_of(suite.cases, settings, pricing), sizes, pricing, budget, suite.cases
    )  # refused: too dear
    shown = tuple(plan_lines(whole, pricing, models, budget, by_case=request.plan_by_case))
    options = RunOptions(
        judge_model=judge_model,
        model=request.model,
        judge_samples=counts.judge_samples,
        rule=rule,
        concurrency=counts.concurrency,
        capture=request.capture,
        max_consecutive_failures=max_failures,
        reference=reference.arms or None,
        carried=carry.draws or None,
        max_tokens=check_max_tokens(request.max_tokens),
        budget=budget,
        pricing=pricing,
        placebo_text=placebo,
        judge_mode=JudgeMode(request.judge_mode),
    )
    installed = {n.path: n.sha256 for n in neighbours or ()}  # the neighbour skills beside it, by path
    parts: dict[str, Any] = {
        "suite": suite.sha256,
        "cases": [c.id for c in suite.cases],
        "skill": skill_text,
        "lane": [lane.provider, lane.surface, request.model, request.base_url],
        "judge": [judge.provider, judge_model, request.judge_base_url],
        "rule": rule.describe(),
        "samples": counts.judge_samples,
        "capture": request.capture,
        **({"delivery": request.delivery} if request.delivery != Delivery.SYSTEM_PROMPT else {}),
        "preset": counts.preset,
        "script": str(request.script) if request.script else None,
        **({"reference": reference.sha256} if reference.sha256 else {}),
        **({"carried": [carry.sha256, sorted(carry.draws)]} if carry.draws else {}),
        **budget_fingerprint(options),
        **({"placebo": GENERATOR} if placebo else {}),
        **({"neighbours": installed} if installed else {}),
    }
    batched = {"batch": True}  # a batch run's prices, batch ids and attempts: resumed alike only
    fingerprint = run_fingerprint({**parts, **(batched if request.batch else {})})
    other = run_fingerprint({**parts, **({} if request.batch else batched)})  # a resume refused for --batch says so
    journal = _journal_for(request, out, fingerprint, installed, (request.batch, other))
    return _Plan(reference, carry, options, journal, shown, anchors)


def _shard_lines(shard: Shard | None) -> tuple[str, ...]:
    """What a shard run says before its first call: which shard of the suite it is."""
    return (shard_line(shard),) if shard is not None else ()


def _reference_receipt(source: Path | Receipt | None) -> Receipt | None:
    """The reference receipt, read once (its seal checked); a file that is not one is a `ReceiptError`."""
    if source is None or isinstance(source, Receipt):
        return source
    return load_reference(source)


def options_timeout(request: RunRequest, lane: Lane) -> float | None:
    """The per-attempt timeout the lane applied, as the receipt records it (the stub has none)."""
    if lane.provider == Provider.STUB:
        return None
    return lane.timeout_s() if request.timeout_s is None else request.timeout_s


def _draw(
    request: RunRequest,
    suite: Suite,
    skill_text: str | None,
    lanes: tuple[Lane, Lane],
    options: RunOptions,
    counts: Counts,
    journal: Journal,
    progress_stream: Any,
    log_answer: Callable[[str, str, int, str], None] | None,
    said: tuple[str, ...] = (),
    spool: TranscriptSpool | None = None,
    canaries: CanaryJob | None = None,
) -> tuple[Runner, str]:
    """Draw and judge every case; a stopped run keeps its journal only when it holds finished draws."""
    lane, judge = lanes
    stream = progress_stream if progress_stream is not None else sys.stderr
    for line in (*notice_lines(suite), *said):  # what is not run, what the reference does, the plan: before any call
        print(printable(line), file=stream, flush=True)
    label = f"{suite.name} · {lane.provider}/{request.model or lane.default_model() or 'default'} ({lane.surface})"
    carried = sum(min(len(draws), counts.draws) for draws in (options.carried or {}).values())
    arms = len(ARMS) + (options.placebo_text is not None)
    least = (len(suite.cases) * arms * counts.draws - carried) * (1 + counts.judge_samples)
    progress = make_progress(label, least, stream)
    pairs = PairCollector() if options.judge_mode == JudgeMode.PAIRWISE else None
    keep: dict[str, Any] = {"on_draw": _on_draw(spool, suite, pairs)} if spool is not None or pairs is not None else {}
    if request.batch:  # what a batch run waits on: the batch's id once submitted, its long waits
        keep["say"] = progress.say
    runner = (BatchRunner if request.batch else Runner)(  # the quick preset shows its answers, a full run none
        suite,
        skill_text,
        lane,
        judge,
        options,
        progress=progress,
        log_answer=log_answer,
        keep_texts=counts.preset is not None,
        **keep,
    )
    started = _now()
    finished = False
    try:
        passes = restore_passes(journal.load()) if request.resume else None  # the canary and pairwise calls kept
        journal.open(fresh=not request.resume)
        if canaries is not None:  # the judge-anchor canaries first: a judge that cannot be reached stops before a draw
            anchors = canary_sizes(canaries.canaries.canaries, options.judge_samples, options.judge_max_tokens)
            reserve_canaries(runner.ledger, anchors)  # their worst case is committed before their first call
            overhead = canaries.run(judge, options, stream, journal, passes).overhead
            if runner.ledger is not None:  # the usage the canaries reported, in place of their worst case
                runner.ledger.settle_canaries(overhead.usage)
            progress.add_outside(overhead.judge_calls)
        runner.run(journal, resume=request.resume)
        if pairs is not None:
            runner.pairwise = run_pairwise(runner, pairs, stream, journal, passes)
        finished = True
        if (needed := budget_needed(runner)) is not None:  # how much budget the refused draws would have needed
            print(needed, file=stream, flush=True)
        if (passed := budget_passed(runner)) is not None:  # the provider counted more than the estimates
            print(passed, file=stream, flush=True)
    except KeyboardInterrupt:  # in the canaries or the pairwise pass (the runner words its own)
        raise RunInterrupted(
            f"interrupted: the calls that came back are kept in {journal.path}; add --resume to finish the run"
        ) from None
    except RunStopped as exc:
        if exc.keep_journal:  # a submitted batch could not be polled or read: kept in the journal for --resume
            raise
        kept = runner.finished_draws()
        if kept == 0:
            journal.close(remove=True)
            raise
        raise RunStopped(
            f"{exc}; the {kept} finished draws are kept in {journal.path}: fix the cause, then run again with --resume",
            in_a_row=exc.in_a_row,
        ) from None
    finally:
        journal.close()
        progress.close(runner.tally, finished=finished)
        lane.close()
        judge.close()
    return runner, started


def _on_draw(
    spool: TranscriptSpool | None, suite: Suite, pairs: PairCollector | None
) -> Callable[[int, str, DrawResult], None]:
    """What the runner calls with each finished draw: its line of the answers archive, on disk, and (pairwise)
    its answer kept until its pair is complete."""

    def on_draw(ci: int, arm: str, result: DrawResult) -> None:
        if spool is not None:
            spool.add(ci, suite.cases[ci].id, arm, result)
        if pairs is not None:
            pairs.add(ci, arm, result)

    return on_draw
