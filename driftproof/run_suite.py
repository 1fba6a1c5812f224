"""``driftproof run``: load the suite and skill, pick the lanes, draw, judge, seal, write.

Shared by the CLI and the Action. Everything a user can get wrong is an ``InputError`` before any call.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from driftproof.assemble import RunContext, build_receipt
from driftproof.atomic import write_text
from driftproof.core.models import Receipt
from driftproof.core.stopping import DEFAULT_RULE, rule_for
from driftproof.defaults import DEFAULT_JUDGE_MODEL, judge_provider_for
from driftproof.errors import InputError
from driftproof.journal import Journal, run_fingerprint
from driftproof.lanes.base import Lane
from driftproof.prices import price_for
from driftproof.progress import make_progress
from driftproof.receipts import write_receipt
from driftproof.runner import ARMS, Runner, RunOptions
from driftproof.suite import Suite, load_suite, notice_lines, read_skill

QUICK = {"draws": 2, "judge_samples": 2, "concurrency": 4}
DELIVERIES = ("system_prompt", "discover")


@dataclass(frozen=True)
class RunRequest:
    """The settings of one run, from flags or Action inputs."""

    suite: Path
    skill: Path | None = None
    out: Path | None = None
    provider: str = "anthropic"
    surface: str = "api"
    model: str | None = None
    judge_provider: str | None = None
    judge_model: str | None = None
    base_url: str | None = None
    judge_base_url: str | None = None
    draws: int = DEFAULT_RULE.min_draws
    max_draws: int | None = None
    judge_samples: int = 5
    concurrency: int = 8
    timeout_s: float = 120.0
    max_retries: int = 4
    script: Path | None = None
    quick: bool = False
    resume: bool = False
    keep_transcripts: bool = False
    price_table: Path | None = None
    capture: str = "text"
    delivery: str = "system_prompt"
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


@dataclass(frozen=True)
class RunOutcome:
    """A finished run."""

    receipt: Receipt
    path: Path
    runner: Runner
    suite: Suite


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _positive(name: str, value: int) -> None:
    if value < 1:
        raise InputError(f"--{name} must be a positive integer, got {value}")


def _skill(request: RunRequest, suite: Suite) -> tuple[Path, str]:
    return read_skill(request.skill, suite)


def make_lanes(request: RunRequest) -> tuple[Lane, Lane, str | None]:
    """The answering lane, the judge lane and the requested judge model."""
    from driftproof.lanes.stub import StubLane, check_script, load_script

    script = load_script(request.script) if request.script else None
    if script is not None and request.script is not None:
        check_script(script, load_suite(request.suite), request.script)
    if request.script and request.provider != "stub":
        raise InputError("--script drives the stub lane only: add --provider stub")
    judge_provider = judge_provider_for(request.provider, request.judge_provider)
    if request.delivery not in DELIVERIES:
        raise InputError(f"unknown delivery {request.delivery!r}: expected one of {', '.join(DELIVERIES)}")
    if request.delivery == "discover" and (request.provider == "stub" or request.surface != "cli"):
        raise InputError("--delivery discover installs the skill where an agent looks for it: add --surface cli")
    if request.provider == "stub":
        lane: Lane = StubLane(script, model=request.model)
    else:
        from driftproof.lanes.registry import make_lane

        cli_only = {"delivery": request.delivery} if request.surface == "cli" else {}
        lane = make_lane(
            request.provider,
            request.surface,
            request.model,
            base_url=request.base_url,
            timeout_s=request.timeout_s,
            max_retries=request.max_retries,
            environ=request.environ,
            capture=request.capture,
            **cli_only,
        )
    if judge_provider == "stub":
        return lane, StubLane(script), request.judge_model or "stub-judge"
    from driftproof.lanes.registry import make_lane

    judge_model = request.judge_model or (DEFAULT_JUDGE_MODEL if judge_provider == "anthropic" else None)
    if judge_model is None:
        raise InputError(f"--judge-model is required with --judge-provider {judge_provider}")
    judge = make_lane(
        judge_provider,
        "api",
        judge_model,
        base_url=request.judge_base_url,
        timeout_s=request.timeout_s,
        max_retries=request.max_retries,
        environ=request.environ,
    )
    return lane, judge, judge_model


def default_out(suite_path: Path, quick: bool) -> Path:
    """Beside the suite, under ``.driftproof/``."""
    return suite_path.parent / ".driftproof" / ("receipt.quick.json" if quick else "receipt.json")


def run_suite(
    request: RunRequest,
    *,
    progress_stream: Any = None,
    log_answer: Callable[[str, str, int, str], None] | None = None,
) -> RunOutcome:
    """Run a suite end to end and write its receipt atomically."""
    suite = load_suite(request.suite)
    draws, samples, concurrency = request.draws, request.judge_samples, request.concurrency
    preset = None
    if request.quick:
        suite = Suite(suite.path, suite.format, suite.name, suite.sha256, suite.skill, suite.cases[:1], suite.notices)
        draws, samples, concurrency, preset = QUICK["draws"], QUICK["judge_samples"], QUICK["concurrency"], "quick"
    for name, value in (("draws", draws), ("judge-samples", samples), ("concurrency", concurrency)):
        _positive(name, value)
    max_draws = draws if request.quick else request.max_draws
    if max_draws is not None and max_draws < draws:
        raise InputError(f"--max-draws ({max_draws}) must be at least --draws ({draws})")
    rule = rule_for(draws, max_draws)
    skill_path, skill_text = _skill(request, suite)
    lane, judge, judge_model = make_lanes(request)
    price = price_for(judge_model, request.price_table)  # a bad price table is refused before any call
    options = RunOptions(
        judge_model=judge_model,
        model=request.model,
        judge_samples=samples,
        rule=rule,
        concurrency=concurrency,
        capture=request.capture,
    )
    out = request.out or default_out(request.suite, request.quick)
    fingerprint = run_fingerprint(
        {
            "suite": suite.sha256,
            "cases": [c.id for c in suite.cases],
            "skill": skill_text,
            "lane": [lane.provider, lane.surface, request.model, request.base_url],
            "judge": [judge.provider, judge_model, request.judge_base_url],
            "rule": rule.describe(),
            "samples": samples,
            "capture": request.capture,
            **({"delivery": request.delivery} if request.delivery != "system_prompt" else {}),
            "preset": preset,
            "script": str(request.script) if request.script else None,
        }
    )
    journal = Journal(out.with_name(out.name + ".journal"), fingerprint)
    label = f"{suite.name} · {lane.provider}/{request.model or lane.default_model() or 'default'} ({lane.surface})"
    estimate = len(suite.cases) * len(ARMS) * draws * (1 + samples)
    for line in notice_lines(suite):
        print(line, file=sys.stderr)
    progress = make_progress(label, estimate, progress_stream)
    runner = Runner(suite, skill_text, lane, judge, options, progress=progress, log_answer=log_answer)
    started = _now()
    try:
        runner.run(journal, resume=request.resume)
    finally:
        progress.close(runner.tally)
        lane.close()
        judge.close()
    transcripts = _write_transcripts(runner, out) if request.keep_transcripts else None
    ctx = RunContext(
        suite_path=str(request.suite),
        skill_path=str(skill_path) if skill_path else None,
        skill_text=skill_text,
        lane=lane,
        judge=judge,
        options=options,
        judge_model=judge_model,
        preset=preset,
        started_at=started,
        finished_at=_now(),
        timeout_s=request.timeout_s if lane.provider != "stub" else None,
        max_retries=request.max_retries if lane.surface == "api" else None,  # a CLI retries its own calls
        price=price,
        transcripts=transcripts,
        delivery=request.delivery,
    )
    receipt = build_receipt(runner, ctx)
    write_receipt(receipt, out)
    journal.close(remove=True)
    return RunOutcome(receipt, out, runner, suite)


def _write_transcripts(runner: Runner, out: Path) -> dict[str, str]:
    """The answers archive: every answer and every judge reply, one JSON line per draw."""
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
    write_text(path, text)
    return {"path": path.name, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
