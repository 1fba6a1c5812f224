"""Scale of reading large receipts: ``driftproof diff A B`` and ``driftproof view A`` as a user runs them.

Issue 14's target: at 1,000 cases x 10 draws x 5 judge samples, ``diff`` (and ``view``) take at most twice
the bare ``json.loads`` of the files they read, and under 300 MB; linear in the number of cases up to 5,000.
A receipt as Driftproof writes it (indented) is 74 MB at 1,000 cases and 368 MB at 5,000, within the 512 MiB
a receipt file may hold (``bounded.RECEIPT``). Each command runs as a fresh subprocess (interpreter start-up, imports,
load + schema + seal + models, the diff and the rendering all counted); its wall time and peak RSS
(``os.wait4``, one child at a time) are taken. The bare parse is timed in its own subprocess too
(``json.loads`` of each file's bytes).
CPU seconds (the child's user + system time) are printed beside wall seconds: on a shared machine the wall
figure moves with the load, the CPU figure far less. The children run from compiled bytecode, as an installed
Driftproof does (pip compiles it on install): ``PYTHONDONTWRITEBYTECODE`` is dropped from their environment and
their bytecode kept under the run's temporary directory (``PYTHONPYCACHEPREFIX``), written by one warm-up run of
each command that is not counted; without it every run would compile Driftproof's sources again (0.1 s).
Run: ``.venv/bin/python benchmarks/diff_scale.py [CASES ...]`` (default 1000 3000 5000); ``DRIFTPROOF_TREE=DIR``
times the commands of another source tree instead of this one; ``DRIFTPROOF_BEFORE=DIR`` times another tree's
too (an older commit's, for a before figure), each run of it beside each run of this one, so both see the same
load; ``DIFF_SCALE_RUNS`` sets how many runs of each (3). Prints figures; asserts nothing.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DRAWS, SAMPLES = 10, 5
RUNS = int(os.environ.get("DIFF_SCALE_RUNS", "3"))

PARSE = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
for name in sys.argv[1:]:
    with open(name, "rb") as f:
        json.loads(f.read())
print(time.perf_counter() - t0, time.process_time() - c0)
"""


def build(cases: int, seed: int) -> str:
    """A sealed receipt of ``cases`` cases, each arm ``DRAWS`` draws of ``SAMPLES`` judge samples."""
    from driftproof.receipts import receipt_json
    from tests.support.builders import arm, receipt

    rng = random.Random(seed)

    def grid(x: float) -> float:
        return min(1.0, max(0.0, round(x / 0.05) * 0.05))

    table = {}
    for i in range(cases):
        centre = rng.uniform(0.3, 0.8)
        with_skill = [grid(rng.gauss(centre, 0.1)) for _ in range(DRAWS)]
        baseline = [grid(rng.gauss(centre - 0.1, 0.1)) for _ in range(DRAWS)]
        table[f"case-{i:05d}"] = (arm(with_skill, samples=SAMPLES), arm(baseline, samples=SAMPLES))
    return receipt_json(receipt(table))


class Run(NamedTuple):
    """One child's wall seconds, CPU seconds (user + system) and peak RSS in MB."""

    wall: float
    cpu: float
    rss: float


def trees() -> list[tuple[str, str]]:
    """The source trees timed, by label: this one (or ``DRIFTPROOF_TREE``), after ``DRIFTPROOF_BEFORE`` if set."""
    now = [("now", os.environ.get("DRIFTPROOF_TREE", str(ROOT)))]
    before = os.environ.get("DRIFTPROOF_BEFORE")
    return ([("before", before)] if before else []) + now


def child(argv: list[str], tree: str, pycache: Path) -> Run:
    """One fresh subprocess, its output discarded; ``wait4`` gives the resource usage of that child alone."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=tree, PYTHONPYCACHEPREFIX=str(pycache))
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.execve(argv[0], argv, env)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed with status {status}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def parse_seconds(paths: list[Path]) -> Run:
    """Wall and CPU seconds of the bare ``json.loads`` of ``paths`` (reading the bytes included), in a fresh child."""
    done = subprocess.run([sys.executable, "-c", PARSE, *map(str, paths)], capture_output=True, text=True, check=True)
    wall, cpu = done.stdout.split()
    return Run(float(wall), float(cpu), 0.0)


def best(runs: list[Run]) -> Run:
    """The least wall and CPU seconds of ``runs`` and their largest peak RSS."""
    return Run(min(r.wall for r in runs), min(r.cpu for r in runs), max(r.rss for r in runs))


def measure(cases: int, tmp: Path) -> dict[Any, Any]:
    """Each command of each tree and the bare parses, ``RUNS`` times, taken in turn (so a change in the load
    falls on every figure alike), after one uncounted warm-up of each command that writes its bytecode."""
    paths = []
    for seed in (1, 2):
        path = tmp / f"r{cases}-{seed}.json"
        path.write_text(build(cases, seed), encoding="utf-8")
        paths.append(path)
        (tmp / f"warm-{seed}.json").write_text(build(3, seed), encoding="utf-8")
    exe = str(Path(sys.executable).parent / "driftproof")
    commands = {"diff": ["diff", str(paths[0]), str(paths[1])], "view": ["view", str(paths[0])]}
    warm = {
        "diff": ["diff", str(tmp / "warm-1.json"), str(tmp / "warm-2.json")],
        "view": ["view", str(tmp / "warm-1.json")],
    }
    for label, tree in trees():
        for argv in warm.values():
            child([exe, *argv], tree, tmp / f"pycache-{label}")
    runs: dict[tuple[str, str], list[Run]] = {}
    for _ in range(RUNS):
        runs.setdefault(("parse", "diff"), []).append(parse_seconds(paths))
        runs.setdefault(("parse", "view"), []).append(parse_seconds(paths[:1]))
        for command, argv in commands.items():
            for label, tree in trees():
                runs.setdefault((label, command), []).append(child([exe, *argv], tree, tmp / f"pycache-{label}"))
    return {"cases": cases, "mb": paths[0].stat().st_size / 1e6, **{key: best(r) for key, r in runs.items()}}


def line(command: str, cases: int, mb: float, run: Run, parse: Run) -> str:
    return (
        f"{command:<13} {cases:>5}  {mb:>6.1f}  {parse.wall:>5.2f} s / {parse.cpu:>5.2f} s"
        f"  {run.wall:>5.2f} s / {run.cpu:>5.2f} s  {run.wall / parse.wall:>4.2f}x / {run.cpu / parse.cpu:>4.2f}x"
        f"  {run.rss:>5.0f} MB"
    )


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 3000, 5000]
    print(f"receipts: N cases x {DRAWS} draws x {SAMPLES} judge samples; best of {RUNS} runs, largest peak RSS")
    print("the bare parse is json.loads of the files the command reads (both for diff, one for view)")
    print("cmd           cases  MB/file  parse wall / CPU     command wall / CPU   ratio wall / CPU  peak RSS")
    labelled = len(trees()) > 1
    with tempfile.TemporaryDirectory() as name:
        for cases in sizes:
            m = measure(cases, Path(name))
            for command in ("diff", "view"):
                for label, _ in trees():
                    shown = f"{command} ({label})" if labelled else command
                    print(line(shown, cases, m["mb"], m[(label, command)], m[("parse", command)]), flush=True)
    print("target at 1,000 cases: ratio <= 2x and RSS < 300 MB, for diff and view; linear in the cases")
    python, load = sys.version.split()[0], os.getloadavg()[0]
    print(f"measured {time.strftime('%Y-%m-%d')}: Python {python}, {os.cpu_count()} CPUs, load average {load:.1f}")


if __name__ == "__main__":
    main()
