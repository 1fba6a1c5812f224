"""Part 1: transport faults on both API lanes, through the real SDKs, against the fake server and the proxy.

One ``driftproof run`` per fault kind and provider (``--provider anthropic`` and ``--provider openai``, the
judge on the same provider, both ``--base-url`` at the proxy), two cases, 3 draws per arm, 2 judge samples,
one call at a time, ``--timeout 1 --max-retries 1``. Each run gets one kind of fault, three times:

- once on a single answer attempt (the retry should absorb it),
- on every attempt of one answer call (the draw is lost),
- on every attempt of both judge calls of one draw (the draw is lost).

The two outage kinds instead take the proxy down once: for 0.3 s (a retry should absorb it), or for good
(``--max-consecutive-failures 3``: the run must stop with one clear line, exit 2). Every lost draw's
``lost_reason`` must name its fault (a keyword of the kind); an attempt that outlived ``--timeout`` and was
not cut is a failure; any traceback, or any ending but exit 0 (exit 2 for the outage for good), is one too.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchmarks.reliability.common import (
    PartResult,
    Proc,
    base_env,
    one_line,
    out_of_time,
    repro_cmd,
    run_cli,
    temp_dir,
    write_suite,
)
from benchmarks.reliability.fakes import ScoredModel, request_model
from benchmarks.reliability.proxy import Exchange, Fault, FaultProxy
from tests.support.fake_llm_script import FakeReply
from tests.support.fake_llm_server import FakeLLMServer

PROVIDERS = ("anthropic", "openai")
JUDGE_MODEL = {"anthropic": "claude-haiku-4-5", "openai": "gpt-judge-1"}
TIMEOUT_S = 1.0
MAX_RETRIES = 1
ATTEMPTS = MAX_RETRIES + 1
JUDGE_SAMPLES = 2
DRAWS = 3
CASES = ("c0", "c1")
KEY = "rel-transport-key-0001"


def _no_content(exchange: Exchange) -> FakeReply:
    model = request_model(exchange.body)
    if exchange.path.endswith("/chat/completions"):
        body = {"id": "chatcmpl-x", "object": "chat.completion", "created": 0, "model": model, "choices": []}
    else:
        body = {
            "id": "msg_x",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 0},
        }
    return FakeReply(raw_body=json.dumps(body).encode())


@dataclass(frozen=True)
class Kind:
    """A kind of fault: the fault for one request, and the words a lost reason must hold to name it."""

    name: str
    fault: Callable[[Exchange], Fault] | None
    keywords: tuple[str, ...]
    outage_s: float | None = None


def _reply(name: str, make: Callable[[Exchange], FakeReply]) -> Callable[[Exchange], Fault]:
    return lambda exchange: Fault(name, reply=make(exchange))


def _status(status: int, **kw: float) -> Callable[[Exchange], FakeReply]:
    return lambda _exchange: FakeReply.error(status, **kw)  # type: ignore[arg-type]


CONNECTION = ("connection", "disconnect", "reset", "closed", "refused")
KINDS = (
    Kind("none (control)", None, ()),
    Kind("429 retry-after 0", _reply("429 retry-after 0", _status(429, retry_after=0)), ("429", "rate limit")),
    Kind("429 no retry-after", _reply("429", _status(429)), ("429", "rate limit")),
    Kind("529 overloaded", _reply("529", _status(529)), ("529", "overloaded")),
    Kind("500", _reply("500", _status(500)), ("500",)),
    Kind("502", _reply("502", _status(502)), ("502",)),
    Kind("503", _reply("503", _status(503)), ("503",)),
    Kind("disconnect before reply", _reply("disconnect", lambda _e: FakeReply.dropped()), CONNECTION),
    Kind("reset mid-body", lambda _e: Fault("reset mid-body", reset_mid_body=True), CONNECTION),
    Kind(
        "stall past --timeout", _reply("stall", lambda _e: FakeReply(delay_s=TIMEOUT_S + 0.6)), ("timeout", "timed out")
    ),
    Kind(
        "trickling body past --timeout", lambda _e: Fault("trickle", trickle_s=3 * TIMEOUT_S), ("timeout", "timed out")
    ),
    Kind("invalid JSON", _reply("invalid JSON", lambda _e: FakeReply(raw_body=b'{"id": "x", "content": [')), ("json",)),
    Kind("200, no choices/content", _reply("no content", _no_content), ("no answer", "no content", "empty", "choices")),
    Kind("dies, back in 0.3 s", None, CONNECTION, outage_s=0.3),
    Kind("dies for good", None, CONNECTION, outage_s=math.inf),
)


@dataclass
class Schedule:
    """Which requests of one run get the fault: by kind and by arrival order within the kind."""

    kind: Kind
    answer_once: int
    answer_from: int
    judge_from: int
    outage_at: int
    injected: int = 0

    @classmethod
    def draw(cls, kind: Kind, rng: random.Random) -> Schedule:
        answers = len(CASES) * 2 * DRAWS
        once = rng.randrange(0, answers // 2)
        return cls(
            kind,
            answer_once=once,
            answer_from=rng.randrange(once + 2, answers),  # request numbers count attempts: after the retry
            judge_from=JUDGE_SAMPLES * rng.randrange(0, answers - 2),  # the first sample of a draw
            outage_at=rng.randrange(4, answers),
        )

    def __call__(self, exchange: Exchange) -> Fault | None:
        kind = self.kind
        if kind.outage_s is not None:
            if exchange.index == self.outage_at:
                self.injected += 1
                return Fault(kind.name, down_s=kind.outage_s)
            return None
        if kind.fault is None:
            return None
        n = exchange.nth
        hit = (exchange.kind == "answer" and (n == self.answer_once or 0 <= n - self.answer_from < ATTEMPTS)) or (
            exchange.kind == "judge" and 0 <= n - self.judge_from < ATTEMPTS * JUDGE_SAMPLES
        )
        if not hit:
            return None
        self.injected += 1
        return kind.fault(exchange)


def _args(suite: Path, out: Path, provider: str, url: str, kind: Kind) -> list[str]:
    args = [
        "run", str(suite), "-o", str(out), "--provider", provider, "--base-url", url,
        "--judge-provider", provider, "--judge-model", JUDGE_MODEL[provider], "--judge-base-url", url,
        "--draws", str(DRAWS), "--max-draws", str(DRAWS), "--judge-samples", str(JUDGE_SAMPLES),
        "--concurrency", "1", "--timeout", f"{TIMEOUT_S:g}", "--max-retries", str(MAX_RETRIES),
    ]  # fmt: skip
    if kind.outage_s == math.inf:
        args += ["--max-consecutive-failures", "3"]
    return args


@dataclass
class RunOutcome:
    kind: Kind
    provider: str
    proc: Proc
    args: list[str]
    injected: int
    lost: list[str]
    slow: list[Exchange]


def one_run(kind: Kind, provider: str, seed: int) -> RunOutcome:
    schedule = Schedule.draw(kind, random.Random(f"{seed}/{kind.name}/{provider}"))
    with temp_dir("transport") as tmp, FakeLLMServer(ScoredModel()) as server, FaultProxy(server, schedule) as proxy:
        suite = write_suite(tmp, CASES)
        out = tmp / "receipt.json"
        url = proxy.base_url if provider == "anthropic" else proxy.openai_base_url
        args = _args(suite, out, provider, url, kind)
        env = base_env(tmp, {"ANTHROPIC_API_KEY": KEY, "OPENAI_API_KEY": KEY})
        proc = run_cli(args, env, timeout=120)
        lost = _lost_reasons(out)
        slow = [e for e in proxy.exchanges if e.fault == "trickle" and e.delivered and e.seconds > 1.5 * TIMEOUT_S]
        return RunOutcome(kind, provider, proc, args, schedule.injected, lost, slow)


def _lost_reasons(out: Path) -> list[str]:
    if not out.exists():
        return []
    doc = json.loads(out.read_text(encoding="utf-8"))
    return [
        str(d.get("lost_reason"))
        for case in doc.get("cases", [])
        for arm in ("with_skill", "baseline")
        for d in case[arm]["draws"]
        if d.get("status") == "lost"
    ]


def named(reason: str, keywords: tuple[str, ...]) -> bool:
    """Whether a lost reason (or an error line) names the fault: it holds one of the kind's words.

    >>> named("502 api_error: Bad Gateway after 2 attempts", ("502",)), named("no valid judge sample", ("500",))
    (True, False)
    """
    text = reason.lower()
    return any(word in text for word in keywords)


def _run_in_time(kind: Kind, provider: str, seed: int) -> RunOutcome | None:
    return None if out_of_time(60) else one_run(kind, provider, seed)


def measure(seed: int, workers: int = 2) -> PartResult:
    result = PartResult("1 transport faults")
    jobs = [(kind, provider) for kind in KINDS for provider in PROVIDERS]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        ran = list(pool.map(lambda job: _run_in_time(job[0], job[1], seed), jobs))
    outcomes = [o for o in ran if o is not None]
    if len(outcomes) < len(jobs):
        result.fail("time budget", f"{len(jobs) - len(outcomes)} of {len(jobs)} runs not made: the budget was spent")
    result.faults = sum(o.injected for o in outcomes)
    result.lost = sum(len(o.lost) for o in outcomes)
    unnamed: dict[str, list[RunOutcome]] = {}
    for o in outcomes:
        for reason in o.lost:
            if not named(reason, o.kind.keywords):
                unnamed.setdefault(one_line(reason, 160), []).append(o)
    for reason, runs in unnamed.items():
        kinds = ", ".join(dict.fromkeys(o.kind.name for o in runs))
        providers = " and ".join(dict.fromkeys(o.provider for o in runs))
        result.fail(
            f"{providers} · {kinds}",
            f"{len(runs)} lost draws read {reason!r}, which does not name the fault",
            _repro(runs[0]),
        )
    result.lost_unnamed = sum(len(runs) for runs in unnamed.values())
    _endings(result, outcomes)
    _slow(result, outcomes)
    for o in outcomes:
        unnamed_here = sum(1 for reason in o.lost if not named(reason, o.kind.keywords))
        result.details.append(
            f"{o.provider} · {o.kind.name}: exit {o.proc.code}, {o.injected} faults, {len(o.lost)} lost "
            f"({unnamed_here} unnamed), {len(o.slow)} attempts past --timeout, {o.proc.seconds:.1f} s"
        )
    clear = sum(o.proc.clear_error() for o in outcomes)
    tracebacks = sum(o.proc.traceback for o in outcomes)
    result.runs = f"{len(outcomes)} ({clear} clear exit 2, {tracebacks} tracebacks)"
    return result


def _repro(o: RunOutcome) -> str:
    return f"{repro_cmd(o.args)}  # the fake answers with: {o.kind.name}"


def _endings(result: PartResult, outcomes: list[RunOutcome]) -> None:
    """Exit 0, except exit 2 with one clear line naming the cause when the server died for good."""
    for o in outcomes:
        label = f"{o.provider} · {o.kind.name}"
        if o.kind.outage_s == math.inf:
            if not o.proc.clear_error():
                result.fail(label, f"expected exit 2 with one clear error line; got {o.proc.ending()}", _repro(o))
            elif not named(o.proc.error_lines()[0], o.kind.keywords):
                result.fail(label, f"the stop line does not name the cause: {o.proc.error_lines()[0]!r}", _repro(o))
        elif o.proc.code != 0:
            result.fail(label, f"expected exit 0; got {o.proc.ending()}", _repro(o))


def _slow(result: PartResult, outcomes: list[RunOutcome]) -> None:
    """Attempts whose body trickled in past --timeout and were not cut."""
    for o in outcomes:
        if o.slow:
            longest = max(e.seconds for e in o.slow)
            kinds = " and ".join(sorted({e.kind for e in o.slow}))
            result.fail(
                f"{o.provider} · {o.kind.name}",
                f"{len(o.slow)} {kinds} attempts took up to {longest:.1f} s, past --timeout {TIMEOUT_S:g} s, and were "
                "not cut: the timeout bounds each read, not the attempt",
                _repro(o),
            )
