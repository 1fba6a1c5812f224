"""Runner overhead: 2,016 calls at concurrency 16 against a loopback server with a fixed delay.

Reports wall time against the ideal ``calls x delay / concurrency`` (issue 14's target: within 1.25x at
0.05 s and concurrency 16 on two cores) and the runner process's own CPU per call, through the real
``anthropic`` and ``openai`` SDK lanes and on the stub lane (the runner alone, no SDK, no HTTP). The
server runs in a separate process so its CPU is not counted (it still takes its share of the two cores).
The lane's SDK is imported before each run is timed, and that import (once per process, about 2 s of CPU for
``anthropic``) is reported in its own column and in the last ratio, not in the CPU per call.
Run: ``.venv/bin/python benchmarks/runner_overhead.py [--delay 0.05] [--cases 56] [--lanes anthropic,openai]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SERVER = r"""
import sys, time, json
sys.path.insert(0, sys.argv[1])
from tests.support.fake_llm_server import FakeLLMServer
from tests.support.fake_llm_script import FakeReply, json_text_reply

def responder(req):
    if "<<<ANSWER" in req.prompt_text:
        return json_text_reply({"score": 0.8, "reason": "fine"})
    return FakeReply(text="feat: an answer")

with FakeLLMServer(responder, delay_s=float(sys.argv[2])) as server:
    server._requests = type("Forget", (list,), {"append": lambda self, item: None})()  # flat server memory
    print(server.base_url, flush=True)
    sys.stdin.read()
"""


class Measured(NamedTuple):
    wall_s: float
    cpu_s: float
    calls: int


SDK_OF = {"stub": (), "anthropic": ("anthropic",), "openai": ("openai",)}
"""The modules a lane's run imports the first time: its SDK (the driftproof modules are imported before any)."""


def import_sdk(provider: str) -> Measured:
    """Import the lane's SDK, timed: a fixed cost of the first run in a process, not of its calls."""
    import importlib

    cpu0, wall0 = time.process_time(), time.perf_counter()
    for name in SDK_OF[provider]:
        importlib.import_module(name)
    return Measured(time.perf_counter() - wall0, time.process_time() - cpu0, 0)


def run(provider: str, suite: Path, concurrency: int, env: dict[str, str], delay: float = 0.0) -> Measured:
    import driftproof.run as rs
    from driftproof.run import RunRequest, run_suite

    real = rs.make_lanes
    if provider == "stub" and delay:  # the runner alone: a stub lane that waits like the server does
        from driftproof.lanes.base import Generation, GenerationRequest
        from driftproof.lanes.stub import StubLane

        class Sleeping(StubLane):
            def generate(self, request: GenerationRequest) -> Generation:
                time.sleep(delay)
                return super().generate(request)

        rs.make_lanes = lambda req: (Sleeping(), Sleeping(), real(req)[2])  # type: ignore[assignment]

    request = RunRequest(
        suite=suite,
        provider=provider,  # type: ignore[arg-type]
        judge_provider=provider,  # type: ignore[arg-type]
        judge_model=None if provider in ("stub", "anthropic") else "gpt-judge",
        draws=3,
        max_draws=3,
        judge_samples=5,
        concurrency=concurrency,
        out=suite.parent / f"{provider}.json",
        environ=env,
    )
    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        with open(os.devnull, "w") as sink:
            outcome = run_suite(request, progress_stream=sink)
    finally:
        rs.make_lanes = real  # type: ignore[assignment]
    return Measured(time.perf_counter() - wall0, time.process_time() - cpu0, outcome.receipt.run.logical_calls or 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=0.05, help="server delay per call, seconds")
    parser.add_argument("--cases", type=int, default=56, help="cases; each makes 2 x 3 x (1 + 5) = 36 calls")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--lanes", default="stub,anthropic,openai", help="comma-separated: stub, anthropic, openai")
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(ROOT), str(args.delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    base_url = server.stdout.readline().strip()
    wanted = set(args.lanes.split(","))
    import driftproof.lanes.anthropic_api
    import driftproof.lanes.openai_api
    import driftproof.run  # noqa: F401  (the runner's own modules, imported before any run is timed)

    try:
        with tempfile.TemporaryDirectory() as tmp:
            suite = Path(tmp) / "suite.yaml"
            (Path(tmp) / "SKILL.md").write_text("# Skill\n\nWrite conventional commits.\n", encoding="utf-8")
            cases = [{"id": f"c{i}", "prompt": f"task {i}", "rubric": "good"} for i in range(args.cases)]
            suite.write_text(yaml.safe_dump({"name": "bench", "skill": "SKILL.md", "cases": cases}), encoding="utf-8")
            env = {  # loopback servers need no key: none is given
                "ANTHROPIC_BASE_URL": base_url,
                "OPENAI_BASE_URL": f"{base_url}/v1",
                "PATH": os.environ.get("PATH", ""),
            }
            print(
                f"{args.cases} cases, 3 draws per arm, 5 judge samples, "
                f"concurrency {args.concurrency}, {os.cpu_count()} cores"
            )
            print(
                "| lane | calls | SDK import s (CPU) | wall s | ideal s | wall / ideal | runner CPU ms per call "
                "| wall / ideal, import counted |"
            )
            print("|---|---|---|---|---|---|---|---|")
            lanes = [
                ("stub, no delay (runner CPU alone)", "stub", 0.0),
                (f"stub waiting {args.delay} s per call (runner scheduling)", "stub", args.delay),
                (f"anthropic SDK, server delay {args.delay} s", "anthropic", args.delay),
                (f"openai SDK, server delay {args.delay} s", "openai", args.delay),
            ]
            for label, provider, delay in lanes:
                if provider not in wanted:
                    continue
                imported = import_sdk(provider)
                m = run(provider, suite, args.concurrency, env, delay)
                ideal = m.calls * delay / args.concurrency
                ratio = f"{m.wall_s / ideal:.3f}" if ideal else "–"
                whole = f"{(m.wall_s + imported.wall_s) / ideal:.3f}" if ideal else "–"
                print(
                    f"| {label} | {m.calls} | {imported.cpu_s:.2f} | {m.wall_s:.2f} | {ideal:.2f} | {ratio} "
                    f"| {m.cpu_s / m.calls * 1000:.2f} | {whole} |"
                )
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
