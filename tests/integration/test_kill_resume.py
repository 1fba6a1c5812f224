"""SIGKILL a real ``driftproof run`` five times and resume it each time: the receipt is the uninterrupted run's.

The loopback fake server answers at once, except at one chosen request of each killed process: from there on it
holds every reply, waits until the run has journaled every reply it already had, and the test kills the process
while those calls hang. A call held at a kill never came back, so it is the only call a resumed run may make
again; every answer or judge sample that came back is in the journal and must never be requested twice.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from driftproof.core.models import Receipt
from driftproof.receipts import load_receipt
from driftproof.run import RunRequest, run_suite
from tests.support.fake_llm_script import FakeReply, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import FakeLLMServer

SKILL = "Use conventional commits.\n"
SCORES = {"feat: c0": 0.8, "plain c0": 0.4, "feat: c1": 0.7, "plain c1": 0.5}
KILL_AT = (3, 9, 6, 12, 5)
"""The request of each killed process at which the server starts holding replies: the process is killed then."""
# 2 cases x 2 arms x 3 draws = 12 answers, x 3 judge samples = 36 judge calls: 48 calls uninterrupted


class KillSwitch:
    """The responder: deterministic replies, and from request ``kill_at`` of a process on, replies held."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.armed, self.release = threading.Event(), threading.Event()
        self.kill_at: int | None = None
        self.seen = 0
        self.held: list[str] = []
        """Every request held at a kill, over the whole test: it never came back."""
        self.replied: Counter[str] = Counter()
        self.replied_now = 0

    def start(self, kill_at: int | None) -> None:
        """Before each process: count its requests afresh."""
        with self.lock:
            self.kill_at, self.seen, self.replied_now = kill_at, 0, 0
            self.armed.clear()
            self.release.clear()

    def reached(self) -> int:
        """Requests that reached the responder: replied or held."""
        with self.lock:
            return sum(self.replied.values()) + len(self.held)

    def __call__(self, request: RecordedRequest) -> FakeReply:
        judge = "<<<ANSWER" in request.prompt_text
        purpose = "judge" if judge else "answer"
        with self.lock:
            self.seen += 1
            hold = self.kill_at is not None and self.seen >= self.kill_at
            if hold:
                self.held.append(purpose)
                self.armed.set()
            else:
                self.replied[purpose] += 1
                self.replied_now += 1
        if hold:
            self.release.wait(30)
            return FakeReply.dropped()  # the process that asked is gone
        if judge:
            answer = request.prompt_text.split("<<<ANSWER\n", 1)[1].split("\nANSWER>>>", 1)[0]
            return json_text_reply({"score": SCORES[answer], "reason": "ok"}, model="claude-haiku-4-5")
        case = request.prompt_text.split()[-1].rstrip(".")
        return FakeReply(text=f"feat: {case}" if SKILL.strip() in request.system_text else f"plain {case}")


def journaled_calls(journal: Path) -> list[dict[str, Any]]:
    """The answer and judge-sample entries of the journal: one per call that came back."""
    if not journal.exists():
        return []
    entries = []
    for line in journal.read_bytes().split(b"\n")[1:-1]:  # whole lines: the run may be writing the next one
        entries.append(json.loads(line))
    return [e for e in entries if e.get("kind") in ("answer", "sample")]


def draws_of(receipt: Receipt) -> list[tuple[str, str, list[tuple[int, str, float | None, int]]]]:
    """What must not depend on the kills: per case and arm, each draw's index, status, score and sample count."""
    return [
        (c.id, arm, [(d.index, d.status, d.score, len(d.judge_samples)) for d in getattr(c, arm).draws])
        for c in receipt.cases
        for arm in ("with_skill", "baseline")
    ]


def write_suite(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text(SKILL, encoding="utf-8")
    cases = [{"id": f"c{i}", "prompt": f"Write the commit for c{i}.", "rubric": "feat wins"} for i in range(2)]
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    return suite


def command(suite: Path, out: Path, *more: str) -> list[str]:
    counts = ["--draws", "3", "--max-draws", "3", "--judge-samples", "3", "--concurrency", "3", "--max-retries", "0"]
    return [sys.executable, "-m", "driftproof", "run", str(suite), "-o", str(out), *counts, *more]


def run_and_kill(argv: list[str], env: dict[str, str], switch: KillSwitch, kill_at: int, journal: Path) -> None:
    """Start the run, SIGKILL it once the server holds its request ``kill_at`` and every earlier reply is
    journaled, then let the held replies go (to nobody)."""
    switch.start(kill_at)
    before = len(journaled_calls(journal))
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert switch.armed.wait(20), f"the run never reached request {kill_at}"
        deadline = time.monotonic() + 5
        while len(journaled_calls(journal)) - before < switch.replied_now and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(journaled_calls(journal)) - before == switch.replied_now  # every reply that came back
    finally:
        proc.kill()
        proc.wait(timeout=10)
        switch.release.set()


def test_sigkill_five_times_then_resume_gives_the_uninterrupted_receipt(tmp_path: Path) -> None:
    suite, out, journal = write_suite(tmp_path), tmp_path / "r.json", tmp_path / "r.json.journal"
    switch = KillSwitch()
    with FakeLLMServer(switch) as server:
        env = {**os.environ, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": server.base_url}
        switch.start(None)  # the uninterrupted run, in this process: the same lanes, settings and server
        counts = {"draws": 3, "max_draws": 3, "judge_samples": 3, "concurrency": 3, "max_retries": 0}
        whole = RunRequest(suite, out=tmp_path / "whole.json", environ=env, **counts)  # type: ignore[arg-type]
        run_suite(whole, progress_stream=io.StringIO())
        uninterrupted = len(server.requests)
        server.reset()
        switch.replied.clear()
        for number, kill_at in enumerate(KILL_AT):
            run_and_kill(command(suite, out, *(["--resume"] if number else [])), env, switch, kill_at, journal)
            settle = time.monotonic() + 2  # a request the killed run sent may still reach the responder: held
            while len(server.requests) > switch.reached() and time.monotonic() < settle:
                time.sleep(0.01)
            keys = [(e["case"], e["arm"], e["index"], e.get("sample")) for e in journaled_calls(journal)]
            assert len(keys) == len(set(keys)), "an answer or judge sample that came back was requested again"
        switch.start(None)
        done = subprocess.run(command(suite, out, "--resume"), env=env, capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr

    first, resumed = load_receipt(tmp_path / "whole.json"), load_receipt(out)
    assert not journal.exists() and uninterrupted == 48
    assert draws_of(resumed) == draws_of(first)
    assert [d[0] for _, _, draws in draws_of(resumed) for d in draws] == [0, 1, 2] * 4
    assert (first.run.logical_calls, first.run.endpoint_attempts) == (48, 48)
    assert (resumed.run.logical_calls, resumed.run.endpoint_attempts) == (48, 48)
    # every answer and judge sample that came back was asked for once; only the calls held at a kill, which
    # never came back, were asked for again
    assert switch.replied == Counter({"answer": 12, "judge": 36})
    assert switch.reached() == uninterrupted + len(switch.held)
    print(
        f"\nuninterrupted: {uninterrupted} requests; killed {len(KILL_AT)} times: {switch.reached()} requests, "
        f"{len(switch.held)} of them held at a kill ({Counter(switch.held)})"
    )
