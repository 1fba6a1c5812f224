"""``driftproof run``: load the suite and skill, pick the lanes, draw, judge, seal, write.

Shared by the CLI and the Action. Everything a user can get wrong is an ``InputError`` before any call.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from driftproof.assemble import RunContext, build_receipt
from driftproof.core.defaults import DEFAULTS, LIMITS, judge_provider_for
from driftproof.core.models import Price, Receipt
from driftproof.core.plan_sentences import plan_lines
from driftproof.core.seal import sha256_text
from driftproof.core.stopping import StoppingRule, reference_rule, rule_for
from driftproof.core.words import Capture, Delivery, Provider, Surface
from driftproof.errors import InputError, RunStopped
from driftproof.journal import Journal, run_fingerprint
from driftproof.lanes.base import Lane
from driftproof.planning import (
    budget_fingerprint,
    budget_needed,
    check_budget,
    check_max_tokens,
    plan_of,
    plan_settings,
    pricing_for,
)
from driftproof.prices import price_for
from driftproof.progress import make_progress
from driftproof.receipts import write_receipt
from driftproof.reference import Reference, reference_for
from driftproof.runner import ARMS, JUDGE_MAX_TOKENS, Runner, RunOptions
from driftproof.safe_text import printable
from driftproof.suite import Suite, load_suite, notice_lines, read_skill

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
    quick: bool = False
    resume: bool = False
    keep_transcripts: bool = False
    price_table: Path | None = None
    capture: Capture = DEFAULTS.capture
    delivery: Delivery = DEFAULTS.delivery
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    max_tokens: int | None = None
    """Each answer's output ceiling (``--max-tokens``); ``None``: `DEFAULTS.max_tokens`."""
    budget: int | None = None
    """``--budget TOKENS``: no draw starts whose worst case could take the run past it."""
    budget_usd: float | None = None
    """``--budget-usd``: the same in USD, at the price table's prices."""
    plan_by_case: bool = False
    """Print the plan case by case before the first call (the Action does), not only its total."""


@dataclass(frozen=True)
class RunOutcome:
    """A finished run."""

    receipt: Receipt
    path: Path
    runner: Runner
    suite: Suite


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

    def worst_case_calls(self, cases: int) -> int:
        """cases × 2 arms × max draws × (1 answer + judge samples): the most calls the run can make."""
        return cases * len(ARMS) * self.max_draws * (1 + self.judge_samples)

    def plan_line(self, cases: int) -> str:
        """Printed before the first call, so a run's cost is visible before it is spent."""
        low = cases * len(ARMS) * self.draws * (1 + self.judge_samples)
        return (
            f"plan: {cases} case{'' if cases == 1 else 's'} × {len(ARMS)} arms × {self.draws} to {self.max_draws} "
            f"draws × (1 answer + {self.judge_samples} judge samples): at least {low}, at most "
            f"{self.worst_case_calls(cases)} calls"
        )


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _count(name: str, value: int, low: int = 1) -> int:
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
    draws = _count("draws", given["draws"] if given["draws"] is not None else DEFAULTS.draws)
    samples = _count(
        "judge-samples", given["judge_samples"] if given["judge_samples"] is not None else DEFAULTS.judge_samples
    )
    concurrency = _count(
        "concurrency", given["concurrency"] if given["concurrency"] is not None else DEFAULTS.concurrency
    )
    given_max = None if request.max_draws is None else _count("max-draws", request.max_draws)
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


def make_lanes(request: RunRequest) -> tuple[Lane, Lane, str | None]:
    """The answering lane, the judge lane and the requested judge model, all built by the lane registry."""
    from driftproof.lanes.registry import check_choice, make_lane
    from driftproof.lanes.stub import check_script, load_script

    script = load_script(request.script) if request.script else None
    if script is not None and request.script is not None:
        check_script(script, load_suite(request.suite), request.script)
    if request.script and request.provider != Provider.STUB:
        raise InputError("--script drives the stub lane only: add --provider stub")
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


def check_output(out: Path) -> None:
    """Refuse, before any call, a receipt path the run could not write: a directory, a parent that is a file,
    a directory this process may not write in. Creates nothing: the directories are made when the run writes."""
    if out.is_dir():
        raise InputError(f"{out}: is a directory; give the receipt a file path, e.g. {out / 'receipt.json'}")
    ancestor = next((p for p in (out.parent, *out.parent.parents) if p.exists()), Path("."))
    if not ancestor.is_dir():
        raise InputError(f"{out}: {ancestor} is a file, not a directory, so the receipt cannot go there")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        why = "Read-only file system" if _read_only(ancestor) else "Permission denied"
        raise InputError(f"{out}: cannot write in {ancestor} ({why}); pick another -o")


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _journal_for(request: RunRequest, out: Path, fingerprint: str) -> Journal:
    journal = Journal(out.with_name(out.name + ".journal"), fingerprint)
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
    suite = load_suite(request.suite)
    if counts.preset is not None:
        suite = replace(suite, cases=suite.cases[:1])
    skill_path, skill_text = _skill(request, suite)
    out = request.out or default_out(request.suite, request.quick)
    check_output(out)
    max_failures = _count("max-consecutive-failures", request.max_consecutive_failures, low=0)
    lane, judge, judge_model = make_lanes(request)
    try:  # what can still be refused once the lanes exist: the reference, the price table, the journal
        plan = _plan(request, suite, skill_text, (lane, judge, judge_model), counts, max_failures, out)
    except BaseException:
        lane.close()
        judge.close()
        raise
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
        (*plan.reference.lines, *plan.lines),
    )
    archive = _transcripts(runner, out) if request.keep_transcripts else None
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
        price=plan.price,
        transcripts=archive[1] if archive else None,
        delivery=request.delivery,
        reference_sha256=plan.reference.sha256,
        as_reference=request.as_reference,
    )
    receipt = build_receipt(runner, ctx)
    write_receipt(receipt, out, beside=archive[0] if archive else None)  # both, or neither
    plan.journal.close(remove=True)
    return RunOutcome(receipt, out, runner, suite)


@dataclass(frozen=True)
class _Plan:
    """What a run settles before its first call, once its lanes exist."""

    reference: Reference
    price: Price | None
    options: RunOptions
    journal: Journal
    lines: tuple[str, ...] = ()
    """The plan as printed before the first call (`driftproof.core.plan_sentences.plan_lines`)."""


def _plan(
    request: RunRequest,
    suite: Suite,
    skill_text: str,
    lanes: tuple[Lane, Lane, str | None],
    counts: Counts,
    max_failures: int,
    out: Path,
) -> _Plan:
    """The reference drawn against, the judge's price, the runner's options and the journal (fingerprinted)."""
    lane, judge, judge_model = lanes
    rule = counts.stopping_rule()
    reference = reference_for(request.reference, suite, lane.provider, judge.provider, judge_model)
    if reference.arms and rule.max_draws < rule.call_min:
        reference = replace(
            reference,
            lines=(
                *reference.lines,
                f"driftproof: reference: with --max-draws {rule.max_draws} no case can be called against it "
                f"(a call needs {rule.call_min} measured draws per arm)",
            ),
        )
    price = price_for(judge_model, request.price_table)
    budget = check_budget(request.budget, request.budget_usd)
    pricing = pricing_for((request.model or lane.default_model(), judge_model), request.price_table, budget)
    models = (request.model or lane.default_model(), judge_model)
    ceilings = (check_max_tokens(request.max_tokens), JUDGE_MAX_TOKENS)
    settings = plan_settings(rule, counts.judge_samples, ceilings, skill_text)
    shown = tuple(
        plan_lines(plan_of(suite.cases, settings, pricing), pricing, models, budget, by_case=request.plan_by_case)
    )
    options = RunOptions(
        judge_model=judge_model,
        model=request.model,
        judge_samples=counts.judge_samples,
        rule=rule,
        concurrency=counts.concurrency,
        capture=request.capture,
        max_consecutive_failures=max_failures,
        reference=reference.arms or None,
        max_tokens=check_max_tokens(request.max_tokens),
        budget=budget,
        pricing=pricing,
    )
    fingerprint = run_fingerprint(
        {
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
            **budget_fingerprint(options),
        }
    )
    return _Plan(reference, price, options, _journal_for(request, out, fingerprint), shown)


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
) -> tuple[Runner, str]:
    """Draw and judge every case; a stopped run keeps its journal only when it holds finished draws."""
    lane, judge = lanes
    stream = progress_stream if progress_stream is not None else sys.stderr
    for line in (*notice_lines(suite), *said):  # what is not run, what the reference does, the plan: before any call
        print(printable(line), file=stream, flush=True)
    label = f"{suite.name} · {lane.provider}/{request.model or lane.default_model() or 'default'} ({lane.surface})"
    progress = make_progress(label, len(suite.cases) * len(ARMS) * counts.draws * (1 + counts.judge_samples), stream)
    runner = Runner(suite, skill_text, lane, judge, options, progress=progress, log_answer=log_answer)
    started = _now()
    finished = False
    try:
        runner.run(journal, resume=request.resume)
        finished = True
        if (needed := budget_needed(runner)) is not None:  # how much budget the refused draws would have needed
            print(needed, file=stream, flush=True)
    except RunStopped as exc:
        kept = runner.finished_draws()
        if kept == 0:
            journal.close(remove=True)
            raise
        raise RunStopped(
            f"{exc}; the {kept} finished draws are kept in {journal.path}: fix the cause, then run again with --resume"
        ) from None
    finally:
        progress.close(runner.tally, finished=finished)
        lane.close()
        judge.close()
    return runner, started


def _transcripts(runner: Runner, out: Path) -> tuple[dict[Path, str], dict[str, str]]:
    """The answers archive (every answer and judge reply, one JSON line per draw) as {path: text}, and its reference."""
    lines = []
    for ci, case in enumerate(runner.suite.cases):
        for arm in ARMS:
            for index in sorted(runner.results[ci][arm]):
                r = runner.results[ci][arm][index]
                entry = {
                    "case": case.id,
                    "arm": arm,
                    "index": index,
                    "answer": r.answer,
                    "judge_replies": r.judge_replies,
                }
                lines.append(json.dumps(entry, ensure_ascii=False, sort_keys=True))
    path = out.with_name(out.stem + ".answers.jsonl")
    text = "\n".join(lines) + "\n"
    return {path: text}, {"path": path.name, "sha256": sha256_text(text)}
