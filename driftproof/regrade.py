"""``driftproof regrade``: grade a run's kept answers again, drawing none, and write a receipt of its own.

The order is the promise: every refusal that needs no call (the receipt, its archive within its bounds, the
tasks, the grader's recorded settings) comes before the first judge call, and every refusal that needs the
grader's replies (anonymous replies, another dated model) comes before anything is written. A refusal writes
nothing. The rules are `driftproof.core.regrade`; this module reads, calls and writes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from driftproof._version import __version__
from driftproof.answers import judge_sample
from driftproof.assemble import judge_setting
from driftproof.bounded import Limits, decode, read_file
from driftproof.core import economics
from driftproof.core import regrade as rules
from driftproof.core.batch_prices import list_price
from driftproof.core.build import arm_of, measured_draw
from driftproof.core.defaults import DEFAULTS, EVIDENCE
from driftproof.core.models import (
    Arm,
    CarriedDraw,
    Case,
    Draw,
    Judge,
    JudgeSample,
    Receipt,
    Regrade,
    RegradeCalls,
    Tool,
)
from driftproof.core.placebo_sentences import PLACEBO_NOT_REGRADED
from driftproof.core.seal import seal_receipt, sha256_text
from driftproof.core.verification import verify
from driftproof.core.words import ArmName, DrawStatus, Provider, Surface
from driftproof.errors import InputError
from driftproof.judge import judge_ids, judge_request, rubric_hash, sample_identity
from driftproof.lanes.base import FATAL, Generation, Lane
from driftproof.receipts import load_receipt, write_receipt
from driftproof.run import check_count
from driftproof.runner import ARMS, JUDGE_MAX_TOKENS
from driftproof.stop_lines import stopped
from driftproof.suite import Suite, SuiteCase, load_suite
from driftproof.targets import ANSWERS, RECEIPT_OUT, Input, Output, check_outputs, receipt_inputs
from driftproof.transcripts import archive_beside

ARCHIVE = Limits(max_bytes=EVIDENCE.archive_bytes, max_depth=8)
ENTRY_KEYS = frozenset({"case", "arm", "index", "answer", "judge_replies"})
Key = tuple[str, str, int]


@dataclass(frozen=True)
class RegradeRequest:
    """What ``driftproof regrade`` was asked: the receipt, its answers, the revised tasks, the grader's flags."""

    receipt: Path
    answers: Path
    suite: Path | None = None
    """The revised tasks (a rubric regrade); ``None``: the original's own suite (a plain judge regrade)."""
    out: Path | None = None
    judge_provider: str | None = None
    judge_model: str | None = None
    judge_base_url: str | None = None
    timeout_s: float | None = None
    max_retries: int = DEFAULTS.max_retries
    concurrency: int | None = None
    script: Path | None = None
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


@dataclass(frozen=True)
class RegradeOutcome:
    """A written regrade receipt."""

    receipt: Receipt
    path: Path


def _refuse(source: object, field_name: str, reasons: Sequence[str]) -> InputError:
    return InputError(f"{source}: {field_name}: regrade refused: {'; '.join(reasons)}")


# -- the answers archive ---------------------------------------------------------------------------------------
def read_archive(path: Path, receipt: Receipt) -> tuple[dict[Key, str | None], str]:
    """The kept answers by (case, arm, index), and the archive's sha256: bounded, then held to the receipt.

    The byte bound is checked before reading, the receipt's sealed digest and the line bound before parsing,
    and every string's bound before it is kept. A diagnostic names the line and the field, never the content.
    """
    raw = read_file(path, ARCHIVE, InputError, "an answers", "an answers archive")
    digest = hashlib.sha256(raw).hexdigest()
    recorded = receipt.transcripts.sha256 if receipt.transcripts else None
    if digest != recorded:
        raise InputError(
            f"{path}: sha256: {digest} is not the archive the receipt sealed ({recorded}): these are not its answers"
        )
    lines = raw.count(b"\n")
    if lines > EVIDENCE.archive_lines:
        raise InputError(f"{path}: lines: {lines:,}; an answers archive holds at most {EVIDENCE.archive_lines:,}")
    kept: dict[Key, str | None] = {}
    for number, line in enumerate(decode(raw, str(path), InputError).splitlines(), start=1):
        key, answer = _entry(line, f"{path}: line {number}")
        if key in kept:
            raise InputError(f"{path}: line {number}: case {key[0]!r} {key[1]} draw {key[2]}: archived twice")
        kept[key] = answer
    return kept, digest


def _entry(line: str, where: str) -> tuple[Key, str | None]:
    """One archive line: its key and answer, each field's type and bound checked."""
    try:
        entry = json.loads(line)
    except ValueError:
        raise InputError(f"{where}: not a JSON object") from None
    if not isinstance(entry, dict) or set(entry) != ENTRY_KEYS:
        keys = sorted(entry) if isinstance(entry, dict) else []
        raise InputError(f"{where}: keys: {', '.join(keys[:8]) or 'none'}; expected {', '.join(sorted(ENTRY_KEYS))}")
    case, arm, index, answer, replies = (entry[k] for k in ("case", "arm", "index", "answer", "judge_replies"))
    if not isinstance(case, str) or not case or len(case) > EVIDENCE.id_chars:
        raise InputError(f"{where}: case: not a case id of 1 to {EVIDENCE.id_chars} characters")
    if arm not in ARMS:
        raise InputError(f"{where}: arm: not with_skill or baseline")
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise InputError(f"{where}: index: not a draw index (a whole number from 0)")
    if answer is not None and (not isinstance(answer, str) or len(answer) > EVIDENCE.answer_chars):
        raise InputError(f"{where}: answer: not text of at most {EVIDENCE.answer_chars:,} characters")
    if not isinstance(replies, list) or len(replies) > EVIDENCE.replies_per_answer:
        raise InputError(f"{where}: judge_replies: not a list of at most {EVIDENCE.replies_per_answer} replies")
    if not all(isinstance(r, str) and len(r) <= EVIDENCE.reply_chars for r in replies):
        raise InputError(f"{where}: judge_replies: a reply is not text of at most {EVIDENCE.reply_chars:,} characters")
    return (case, arm, index), answer


def _match(kept: Mapping[Key, str | None], receipt: Receipt, path: Path) -> None:
    """Every archived answer is a draw of the receipt, and a graded one is the answer its seal names."""
    draws = {(c.id, arm, d.index): d for c in receipt.cases for arm in ARMS for d in getattr(c, arm).draws}
    for key, answer in kept.items():
        draw = draws.get(key)
        if draw is None:
            raise InputError(f"{path}: case {key[0]!r} {key[1]} draw {key[2]}: not a draw of the receipt")
        if draw.answer_sha256 is not None and (answer is None or sha256_text(answer) != draw.answer_sha256):
            raise InputError(
                f"{path}: case {key[0]!r} {key[1]} draw {key[2]}: answer: not the answer the receipt graded"
            )


# -- the tasks and the grader ------------------------------------------------------------------------------------
def _tasks(request: RegradeRequest, receipt: Receipt) -> Suite:
    """The revised suite, or the original's own suite unchanged since the run; its cases the original's."""
    if request.suite is not None:
        suite = load_suite(request.suite)
    else:
        if receipt.suite.path is None:
            raise _refuse(request.receipt, "suite.path", ["not recorded; give the tasks with --suite"])
        suite = load_suite(Path(receipt.suite.path))
        if suite.sha256 != receipt.suite.sha256:
            reason = f"{receipt.suite.path} changed since the run; give it as --suite for a rubric regrade"
            raise _refuse(request.receipt, "suite.sha256", [reason])
    shard = receipt.run.shard
    if shard is not None:  # a shard's own cases, of the suite it was split from
        reasons = rules.split_refusals(shard, [c.id for c in suite.cases])
        if reasons:
            raise _refuse(request.suite or receipt.suite.path, "cases", reasons)
        own = set(shard.case_ids)
        suite = replace(suite, cases=tuple(c for c in suite.cases if c.id in own))
    reasons = rules.case_refusals(receipt.cases, [(c.id, sha256_text(c.prompt)) for c in suite.cases])
    if reasons:
        raise _refuse(request.suite or receipt.suite.path, "cases", reasons)
    return suite


def _grader(request: RegradeRequest, receipt: Receipt) -> tuple[Lane, str | None]:
    """The judge lane the original's judge names, unless a flag says otherwise (then it must still match)."""
    from driftproof.lanes.registry import make_lane
    from driftproof.lanes.stub import load_script

    assert receipt.judge is not None  # receipt_refusals came first
    provider = request.judge_provider or receipt.judge.provider
    model = request.judge_model or receipt.judge.model_requested
    base_url = request.judge_base_url or receipt.judge.base_url
    common: dict[str, Any] = {"timeout_s": request.timeout_s, "max_retries": request.max_retries}
    if provider == Provider.STUB:
        script = load_script(request.script) if request.script else None
        return make_lane(Provider.STUB, Surface.NONE, None, base_url=base_url, script=script, **common), model
    if request.script is not None:
        raise InputError("--script drives the stub judge only")
    lane = make_lane(
        provider, Surface.API, model, base_url=base_url, environ=request.environ, max_tokens=JUDGE_MAX_TOKENS, **common
    )
    return lane, model


# -- grading ------------------------------------------------------------------------------------------------------
@dataclass
class _Tally:
    judge_calls: int = 0
    endpoint_attempts: int = 0


def _grade_all(
    judge: Lane, model: str | None, work: Sequence[tuple[SuiteCase, str, Draw, str]], samples: int, workers: int
) -> tuple[list[list[tuple[JudgeSample, str]]], _Tally]:
    """Every kept answer judged ``samples`` times; stops at a failure every later call would meet too."""
    tally = _Tally()
    results: list[list[tuple[JudgeSample, str]]] = [[] for _ in work]

    def call(i: int, j: int) -> Generation:
        case, arm, draw, answer = work[i]
        request = judge_request(
            case, answer, model=model, max_tokens=JUDGE_MAX_TOKENS, arm=arm, draw_index=draw.index, sample_index=j
        )
        return judge.generate(request)  # the run's judge call exactly, one sample per request

    jobs = [(i, j) for i in range(len(work)) for j in range(samples)]
    in_a_row = 0
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for (i, _j), gen in zip(jobs, pool.map(lambda job: call(*job), jobs), strict=True):
            tally.judge_calls += 1
            tally.endpoint_attempts += gen.attempts
            in_a_row = in_a_row + 1 if gen.error is not None else 0
            if gen.error is not None and (
                (gen.failure is not None and gen.failure.kind in FATAL) or in_a_row >= DEFAULTS.max_consecutive_failures
            ):
                pool.shutdown(wait=True, cancel_futures=True)
                raise stopped(judge, "judge", gen.failure, gen.error, in_a_row)
            record = judge_sample(work[i][0], gen)
            results[i].append((record.sample, record.reply))
    return results, tally


Work = list[tuple[SuiteCase, str, Draw, str]]


def _sort_draws(
    original: Receipt, kept: Mapping[Key, str | None], tasks: Mapping[str, SuiteCase]
) -> tuple[Work, dict[Key, CarriedDraw]]:
    """The draws to grade (a kept answer of a measured draw) and the draws to carry, each named with why."""
    work: Work = []
    carried: dict[Key, CarriedDraw] = {}
    for case in original.cases:
        for arm in ARMS:
            for draw in getattr(case, arm).draws:
                key = (case.id, arm, draw.index)
                answer = kept.get(key)
                if draw.status == DrawStatus.LOST or answer is None:
                    why = f"lost in the original: {draw.lost_reason}" if draw.status == DrawStatus.LOST else MISSING
                    if draw.status != DrawStatus.LOST and draw.carried_from and answer is None:
                        why = f"carried into the original from {draw.carried_from[:12]}: {MISSING}"
                    carried[key] = CarriedDraw(case=case.id, arm=ArmName(arm), index=draw.index, reason=why)
                else:
                    work.append((tasks[case.id], arm, draw, answer))
    return work, carried


def _regraded_draw(draw: Draw, samples: Sequence[JudgeSample]) -> Draw:
    """The original draw with fresh samples: its answer, usage and checks kept (checks are never run again)."""
    kept = draw.model_dump(exclude={"index", "status", "lost_reason", "score", "judge_samples", "replaced"})
    return measured_draw(draw.index, samples, **{k: getattr(draw, k) for k in kept})


def _carried(draw: Draw, reason: str) -> Draw:
    """A draw copied without grading: lost stays lost; a measured one whose answer is missing reads lost."""
    if draw.status == DrawStatus.LOST:
        return draw
    return draw.model_copy(
        update={"status": DrawStatus.LOST, "score": None, "lost_reason": reason, "judge_samples": []}
    )


MISSING = "its answer is missing from the answers archive: carried from the original, not graded"


def regrade(request: RegradeRequest, log: Callable[[str], None] = print) -> RegradeOutcome:
    """Refuse, or grade the kept answers again and write the regrade's receipt (and its own answers archive)."""
    if request.concurrency is not None:  # refused as run refuses it, before anything is read
        check_count("concurrency", request.concurrency)
    original = load_receipt(request.receipt)
    reasons = rules.receipt_refusals(original)
    if reasons:
        raise _refuse(request.receipt, "receipt", reasons)
    if original.placebo is not None:
        raise _refuse(request.receipt, "placebo", [PLACEBO_NOT_REGRADED])
    out = request.out or request.receipt.with_name(request.receipt.stem + ".regrade.json")
    check_outputs(*_outputs(request, original, out))  # before the archive is read and any judge call
    kept, digest = read_archive(request.answers, original)
    _match(kept, original, request.answers)
    suite = _tasks(request, original)
    samples = original.run.settings.judge_samples or original.counts.judge_samples_per_draw
    if not samples:
        raise _refuse(request.receipt, "run.settings.judge_samples", ["not recorded: how many samples to ask for"])
    judge, model = _grader(request, original)
    try:
        assert original.judge is not None
        refusals = rules.grader_refusals(original.judge, judge_setting(judge, model))
        if refusals:
            raise _refuse(request.receipt, "judge", refusals)
        work, carried = _sort_draws(original, kept, {c.id: c for c in suite.cases})
        log(f"regrade: {len(work)} kept answers to grade, {samples} judge samples each; {len(carried)} carried")
        workers = request.concurrency or original.run.settings.concurrency or DEFAULTS.concurrency
        graded, tally = _grade_all(judge, model, work, samples, workers)
        today = judge_setting(judge, model, [i for g in graded for s, _ in g for i in judge_ids(s)])
    finally:
        judge.close()
    late = rules.grader_refusals(original.judge, today)  # the settings as they were sent (sampling after the calls)
    returned = [s for g in graded for s, _ in g if s.returned is not False]
    anonymous = [s for s in returned if not judge_ids(s)]
    if late or anonymous:
        raise _refuse(request.receipt, "judge", late or ["a judge reply today is anonymous (it reported no model)"])
    answered = rules.answered_as(original.judge, today.models_reported)
    if answered is not None:
        raise _refuse(request.receipt, "judge", [answered])
    receipt, archive = _receipt(original, request, suite, digest, work, graded, carried, tally, today, out)
    write_receipt(receipt, out, beside=archive)
    return RegradeOutcome(receipt, out)


REGRADED = replace(RECEIPT_OUT, noun="the regrade's receipt")


def _outputs(request: RegradeRequest, original: Receipt, out: Path) -> tuple[list[Output], list[Input]]:
    """The regrade's receipt and its own answers archive beside it, and every file it reads or relies on: the
    original, the kept answers, the tasks, the script, and what the original records (`driftproof.targets`)."""
    reads = [
        Input(request.receipt, "the original receipt"),
        Input(request.answers, "the answers archive given by --answers"),
    ]
    if request.suite is not None:
        reads.append(Input(request.suite, "the revised suite (--suite)"))
    if request.script is not None:
        reads.append(Input(request.script, "the stub script (--script)"))
    reads += receipt_inputs(request.receipt, original, "the original receipt", "the original receipt")
    return [Output(out, "-o", REGRADED), Output(archive_beside(out), "-o", ANSWERS)], reads


def _receipt(
    original: Receipt,
    request: RegradeRequest,
    suite: Suite,
    digest: str,
    work: Work,
    graded: Sequence[Sequence[tuple[JudgeSample, str]]],
    carried: Mapping[Key, CarriedDraw],
    tally: _Tally,
    today: Judge,
    out: Path,
) -> tuple[Receipt, dict[Path, str]]:
    """The regrade's own receipt: the original's run and answers, today's grading, and what it read and did."""
    by_id = {c.id: c for c in suite.cases}
    draws: dict[tuple[str, str], list[Draw]] = {}
    lines = []
    for (case, arm, draw, answer), samples in zip(work, graded, strict=True):
        draws.setdefault((case.id, arm), []).append(_regraded_draw(draw, [s for s, _ in samples]))
        entry = {
            "case": case.id,
            "arm": arm,
            "index": draw.index,
            "answer": answer,
            "judge_replies": [r for _, r in samples],
        }
        lines.append(json.dumps(entry, ensure_ascii=False, sort_keys=True))
    for c in original.cases:
        for arm in ARMS:
            for d in getattr(c, arm).draws:
                if (c.id, arm, d.index) in carried:
                    draws.setdefault((c.id, arm), []).append(_carried(d, carried[(c.id, arm, d.index)].reason))
    for per in draws.values():
        per.sort(key=lambda d: d.index)
    cases = [_case(case, by_id[case.id], draws) for case in original.cases]
    assert original.judge is not None
    problems = [sample_identity(today.model_requested, s) for g in graded for s, _ in g if s.returned is not False]
    first = next((p for p in problems if p is not None), None)
    level = rules.level(
        original,
        verify(original.run.preset, original.run.lane.provider, today.provider, [p is None for p in problems], first),
    )
    judged = [[s.usage for s, _ in g if s.usage is not None] for g in graded]
    # a regrade's calls are never batched: a --batch original's halved price is the list price again
    price = list_price(original.economics.judge_overhead.price)
    overhead = economics.judge_overhead(today.model_requested, price, judged)
    text = "\n".join(lines) + "\n"
    archive_path = archive_beside(out)
    suite_record = original.suite.model_copy(
        update={
            "path": str(request.suite) if request.suite else original.suite.path,
            "sha256": suite.sha256,
            "format": suite.format,
            "name": suite.name,
        }
    )
    body = {
        **original.model_dump(exclude={"seal", "regrade", "transcripts", "cases", "judge", "economics", "suite"}),
        "tool": Tool(name="driftproof", version=__version__),
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "verification": level[0],
        "verification_reason": level[1],
        "suite": suite_record,
        "judge": today,
        "cases": cases,
        "economics": original.economics.model_copy(update={"judge_overhead": overhead}),
        "transcripts": {"path": archive_path.name, "sha256": sha256_text(text)},
        "regrade": Regrade(
            kind="rubric" if request.suite is not None else "judge",
            original_sha256=original.seal.sha256,
            original_tool=original.tool,
            answers_sha256=digest,
            suite_sha256=suite.sha256,
            original_judge=original.judge,
            graded=len(work),
            carried=list(carried.values()),
            calls=RegradeCalls(judge_calls=tally.judge_calls, endpoint_attempts=tally.endpoint_attempts),
        ),
    }
    return seal_receipt(body), {archive_path: text}


def _case(original: Case, revised: SuiteCase, draws: Mapping[tuple[str, str], list[Draw]]) -> Case:
    """The original case graded against the revised task: its rubric hash, mode and threshold are the task's."""
    notices = list(original.notices)
    ran = next((sorted(c.name for c in d.checks) for d in original.with_skill.draws if d.checks), [])
    if sorted(c.label for c in revised.checks) != ran:
        notices.append(rules.CHECKS_NOT_RUN_AGAIN)
    return original.model_copy(
        update={
            "rubric_sha256": rubric_hash(revised),
            "mode": revised.mode,
            "criteria": list(revised.criteria) if revised.criteria else None,
            "threshold": revised.threshold,
            "notices": notices,
            "with_skill": _arm(original.with_skill, draws.get((original.id, "with_skill"), [])),
            "baseline": _arm(original.baseline, draws.get((original.id, "baseline"), [])),
        }
    )


def _arm(original: Arm, draws: list[Draw]) -> Arm:
    return arm_of(draws) if draws else original
