"""Part 2: SIGKILL and SIGINT at random moments, then ``--resume``, against an uninterrupted run.

The same three-case run (anthropic lane through the proxy, 3 draws, 2 judge samples, one call at a time) is
made once uninterrupted: its receipt and the answer responses it received are the reference. Then a chain:
each process is interrupted when the proxy sees its k-th request (k drawn from the seed over the whole run),
at once or a few milliseconds later, by SIGKILL (ten times) or SIGINT (twice), in a seeded order; the next
process runs with ``--resume`` (a fresh run when there is no journal). A process that finishes before its
interruption ends a chain: its receipt is compared, and a fresh chain takes the interruptions left. The last
process runs to the end.

Measured: every receipt a chain ends with against the reference, count by count and score by score; a file at
the receipt path after an interruption that does not validate (corrupted); SIGINT's exit (130, one line, no
traceback); and finished answers redrawn: answer responses delivered to a live client beyond the reference's.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import signal
import subprocess
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.reliability.common import (
    PartResult,
    base_env,
    driftproof_argv,
    kill_group,
    out_of_time,
    repro_cmd,
    temp_dir,
    write_suite,
)
from benchmarks.reliability.fakes import ScoredModel, case_of
from benchmarks.reliability.proxy import Exchange, FaultProxy
from tests.support.fake_llm_server import FakeLLMServer

CASES = ("c0", "c1", "c2")
CALLS = len(CASES) * 2 * 3 * (1 + 2)
KILLS, INTERRUPTS = 10, 2
MARGIN = 2
"""An answer counts as finished once the process sent this many more requests before its interruption fired:
time enough to record it (an answer that arrived just before the signal may be lost through no fault)."""
KEY = "rel-resume-key-0001"


def _args(suite: Path, out: Path, url: str) -> list[str]:
    return [
        "run", str(suite), "-o", str(out), "--base-url", url, "--judge-base-url", url,
        "--draws", "3", "--max-draws", "3", "--judge-samples", "2", "--concurrency", "1", "--max-retries", "1",
    ]  # fmt: skip


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@dataclass(frozen=True)
class Interruption:
    sig: signal.Signals
    at: int
    """The process's k-th request (from 1) triggers it."""
    delay_s: float

    def describe(self) -> str:
        when = "as it arrives" if self.delay_s == 0 else f"{self.delay_s * 1000:.0f} ms after it arrives"
        return f"{self.sig.name} at request {self.at} ({when})"


def plan(seed: int) -> list[Interruption]:
    rng = random.Random(f"{seed}/resume")
    sigs = [signal.SIGKILL] * KILLS + [signal.SIGINT] * INTERRUPTS
    rng.shuffle(sigs)
    return [Interruption(s, rng.randint(1, CALLS), rng.choice([0.0, rng.uniform(0.001, 0.03)])) for s in sigs]


class Trigger:
    """Counts one process's requests at the proxy and fires its interruption."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.interruption: Interruption | None = None
        self.seen = 0
        self.fired = False
        self.fired_at: dict[int, int] = {}
        """pid -> the request whose arrival fired its interruption."""
        self._lock = threading.Lock()

    def arm(self, proc: subprocess.Popen[str], interruption: Interruption | None) -> None:
        with self._lock:
            self.proc, self.interruption, self.seen, self.fired = proc, interruption, 0, False

    def disarm(self) -> None:
        """No more signals for this process (``fired`` keeps what happened)."""
        with self._lock:
            self.interruption = None

    def alive(self) -> bool:
        return self.proc is not None and _alive(self.proc.pid)

    def finished(self, exchange: Exchange) -> bool:
        """Delivered whole to a live process, `MARGIN` requests or more before its interruption fired."""
        fired_at = self.fired_at.get(exchange.client or -1)
        return exchange.delivered and (fired_at is None or exchange.seq <= fired_at - MARGIN)

    def __call__(self, exchange: Exchange) -> None:
        with self._lock:
            exchange.client = self.proc.pid if self.proc is not None else None
            self.seen += 1
            exchange.seq = self.seen
            it, proc = self.interruption, self.proc
            if it is None or proc is None or self.fired or self.seen != it.at:
                return
            self.fired = True
            self.fired_at[proc.pid] = self.seen
        send = _sender(proc, it.sig)
        if it.delay_s == 0:
            send()
        else:
            threading.Timer(it.delay_s, send).start()


def _sender(proc: subprocess.Popen[str], sig: signal.Signals) -> Callable[[], None]:
    def send() -> None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)

    return send


def summary(path: Path) -> dict[str, Any]:
    """Every count and score of a receipt that an interruption must not change (times and ids left out)."""
    from driftproof.core.reading import read_receipt
    from driftproof.receipts import load_receipt

    doc = json.loads(path.read_text(encoding="utf-8"))
    reading = read_receipt(load_receipt(path))
    facts: dict[str, Any] = {
        "status": str(reading.status),
        "lift": reading.lift,
        "run.logical_calls": doc["run"]["logical_calls"],
        "run.endpoint_attempts": doc["run"]["endpoint_attempts"],
        "counts": doc.get("counts"),
        "economics": doc.get("economics"),
    }
    for case, read in zip(doc["cases"], reading.cases, strict=True):
        facts[f"{case['id']}.verdict"] = str(read.verdict)
        for arm in ("with_skill", "baseline"):
            draws = case[arm]["draws"]
            facts[f"{case['id']}.{arm}"] = {
                "drawn": len(draws),
                "scores": sorted(d["score"] for d in draws if d["score"] is not None),
                "lost": sorted(str(d["lost_reason"]) for d in draws if d["status"] == "lost"),
                "samples": sorted(len(d["judge_samples"]) for d in draws),
                "usage": case[arm].get("usage"),
            }
    return facts


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    return [
        f"{k}: {_short(b.get(k))} instead of {_short(a.get(k))}"
        for k in sorted(a.keys() | b.keys())
        if a.get(k) != b.get(k)
    ]


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 160 else text[:159] + "…"


def _corrupted(out: Path) -> str | None:
    from driftproof.errors import DriftproofError
    from driftproof.receipts import load_receipt

    if not out.exists():
        return None
    try:
        load_receipt(out)
    except DriftproofError as exc:
        return str(exc)
    return None


def measure(seed: int) -> PartResult:
    result = PartResult("2 kill and resume")
    interruptions = plan(seed)
    with temp_dir("resume") as tmp, FakeLLMServer(ScoredModel()) as server:
        trigger = Trigger()
        with FaultProxy(server, alive=trigger.alive, on_request=trigger) as proxy:
            suite = write_suite(tmp, CASES)
            env = base_env(tmp, {"ANTHROPIC_API_KEY": KEY})
            ref_out = tmp / "reference" / "receipt.json"
            args = _args(suite, ref_out, proxy.base_url)
            code = _run(args, env, trigger, None, tmp)
            reference_answers = _answers(proxy.exchanges, trigger)
            if code != 0 or not ref_out.exists():
                result.fail("uninterrupted run", f"exit {code}; nothing to compare against", repro_cmd(args))
                result.runs = "1"
                return result
            reference = summary(ref_out)
            ends = [len(proxy.exchanges)]
            out = tmp / "chain" / "receipt.json"
            args = _args(suite, out, proxy.base_url)
            processes = _chain(result, args, env, trigger, interruptions, out, reference, tmp, proxy, ends)
            exchanges = proxy.exchanges
    chains = len(ends) - 1
    result.redrawn = sum(
        _redrawn(_answers(exchanges[a:b], trigger), reference_answers) for a, b in itertools.pairwise(ends)
    )
    result.faults = len(interruptions)
    result.lost = 0
    result.runs = f"{processes + 1} processes, {chains} chain{'s' if chains != 1 else ''}"
    return result


def _answers(exchanges: list[Exchange], trigger: Trigger) -> Counter[tuple[str, bool]]:
    """Finished answers (see `Trigger.finished`) by case and arm (with the skill: the request has a system prompt)."""
    found: Counter[tuple[str, bool]] = Counter()
    for e in exchanges:
        if e.kind == "answer" and trigger.finished(e):
            body = json.loads(e.body)
            found[(case_of(json.dumps(body.get("messages"))), "system" in body)] += 1
    return found


def _redrawn(chain: Counter[tuple[str, bool]], reference: Counter[tuple[str, bool]]) -> int:
    """Answers a chain finished beyond the uninterrupted run's, arm by arm (answers of one arm are alike)."""
    return sum(max(0, n - reference[slot]) for slot, n in chain.items())


def _run(args: list[str], env: dict[str, str], trigger: Trigger, it: Interruption | None, tmp: Path) -> int | None:
    with (tmp / "stderr.log").open("w") as err:
        proc = subprocess.Popen(
            driftproof_argv(*args), env=env, stdout=subprocess.DEVNULL, stderr=err, text=True, start_new_session=True
        )
        trigger.arm(proc, it)
        try:
            return proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            return None
        finally:
            trigger.disarm()


def _chain(
    result: PartResult,
    args: list[str],
    env: dict[str, str],
    trigger: Trigger,
    interruptions: list[Interruption],
    out: Path,
    reference: dict[str, Any],
    tmp: Path,
    proxy: FaultProxy,
    ends: list[int],
) -> int:
    """Run the interruptions then a last run to the end; return the processes run. Each chain's end is
    appended to ``ends`` (how many exchanges the proxy had seen by then)."""
    processes = 0
    journal = out.with_name(out.name + ".journal")
    history: list[str] = []
    mismatches: dict[str, Mismatch] = {}
    pending: list[Interruption | None] = [*interruptions, None]
    for _ in range(3 * len(pending)):  # each round either uses an interruption or ends a chain before one
        if not pending:
            break
        if out_of_time(30):
            result.fail("time budget", f"{len(pending)} interruptions not made: the budget was spent")
            break
        it = pending[0]
        resume = journal.exists()
        run_args = [*args, "--resume"] if resume else args
        code = _run(run_args, env, trigger, it, tmp)
        processes += 1
        err = (tmp / "stderr.log").read_text(encoding="utf-8", errors="replace")
        step = f"{'--resume' if resume else 'fresh'}: {it.describe() if it else 'to the end'}"
        history.append(step)
        result.details.append(f"{step}: exit {code}{' (interrupted)' if trigger.fired else ''}")
        label = " → ".join(history[-4:])
        fired = trigger.fired
        _check_process(result, label, it if fired else None, code, err, out, run_args)
        finished = code == 0 or (out.exists() and not journal.exists() and _corrupted(out) is None)
        if finished:  # a kill that lands once the receipt is written and the journal gone finds the run done
            ends.append(len(proxy.exchanges))
            _compare(result, mismatches, label, out, reference, run_args)
            out.unlink(missing_ok=True)
            history.clear()
            if it is None or fired:
                pending.pop(0)
        elif code is None:
            result.fail(label, "the process did not end within 90 s", repro_cmd(run_args))
            pending.pop(0)
        elif fired:
            pending.pop(0)
        else:
            result.fail(label, f"exit {code} before its interruption: {err.strip()[-300:]}", repro_cmd(run_args))
            pending.pop(0)
    result.corrupted = result.corrupted or 0
    _report_mismatches(result, mismatches, len(ends) - 1)
    return processes


def _check_process(
    result: PartResult, label: str, it: Interruption | None, code: int | None, err: str, out: Path, args: list[str]
) -> None:
    """No traceback, a receipt path holding nothing or a valid receipt, and SIGINT's exit 130 with its hint."""
    if "Traceback (most recent call last)" in err:
        result.fail(label, f"exit {code} with a traceback: {err.strip().splitlines()[-1]}", repro_cmd(args))
    if why := _corrupted(out):
        result.corrupted = (result.corrupted or 0) + 1
        result.fail(label, f"the file at the receipt path does not validate: {why}", repro_cmd(args))
    if it is not None and it.sig == signal.SIGINT:
        if code not in (0, 130):
            result.fail(label, f"SIGINT ended with exit {code}, not 130", repro_cmd(args))
        elif code == 130 and "--resume" not in err:
            result.fail(label, "SIGINT's exit 130 does not say to add --resume", repro_cmd(args))


@dataclass
class Mismatch:
    """Chains whose receipt differed from the uninterrupted one in the same fields."""

    label: str
    example: list[str]
    args: list[str]
    chains: int = 1


def _compare(
    result: PartResult, mismatches: dict[str, Mismatch], label: str, out: Path, ref: dict[str, Any], args: list[str]
) -> None:
    if not out.exists():
        result.fail(label, "exit 0 but no receipt at the receipt path", repro_cmd(args))
        return
    diffs = differences(ref, summary(out))
    if diffs:
        fields = ", ".join(d.split(":", 1)[0] for d in diffs)
        if fields in mismatches:
            mismatches[fields].chains += 1
        else:
            mismatches[fields] = Mismatch(label, diffs, args)


def _report_mismatches(result: PartResult, mismatches: dict[str, Mismatch], chains: int) -> None:
    for fields, m in mismatches.items():
        result.fail(
            f"{m.chains} of {chains} chains, e.g. {m.label}",
            f"the resumed receipt differs from the uninterrupted one in {fields}: {'; '.join(m.example)}",
            repro_cmd(m.args),
        )
