"""Scale of reading large receipts: ``driftproof diff A B`` and ``driftproof view A`` as a user runs them.

Issue 14's target: at 1,000 cases x 10 draws x 5 judge samples, ``diff`` (and ``view``) take at most twice
the bare ``json.loads`` of the files they read, and under 300 MB; linear in the number of cases up to 5,000.
Each command runs as a fresh subprocess (interpreter start-up, imports, load + schema + seal + models,
the diff and the rendering all counted); its wall time and peak RSS (``os.wait4``, one child at a
time) are taken. The bare parse is timed in its own subprocess too (``json.loads`` of each file's bytes).
Run: ``.venv/bin/python benchmarks/diff_scale.py [CASES ...]`` (default 1000 5000). Prints figures;
asserts nothing.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DRAWS, SAMPLES, RUNS = 10, 5, 3

PARSE = r"""
import json, sys, time
t0 = time.perf_counter()
for name in sys.argv[1:]:
    with open(name, "rb") as f:
        json.loads(f.read())
print(time.perf_counter() - t0)
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


def child(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one fresh subprocess, its output discarded; ``wait4`` gives the
    resource usage of that child alone."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
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
    return wall, usage.ru_maxrss / 1024


def parse_seconds(paths: list[Path]) -> float:
    done = subprocess.run([sys.executable, "-c", PARSE, *map(str, paths)], capture_output=True, text=True, check=True)
    return float(done.stdout)


def measure(cases: int, tmp: Path) -> dict[str, Any]:
    paths = []
    for seed in (1, 2):
        path = tmp / f"r{cases}-{seed}.json"
        path.write_text(build(cases, seed), encoding="utf-8")
        paths.append(path)
    exe = str(Path(sys.executable).parent / "driftproof")
    diffs = [child([exe, "diff", str(paths[0]), str(paths[1])]) for _ in range(RUNS)]
    views = [child([exe, "view", str(paths[0])]) for _ in range(RUNS)]
    parse_both = min(parse_seconds(paths) for _ in range(RUNS))
    parse_one = min(parse_seconds(paths[:1]) for _ in range(RUNS))
    return {
        "cases": cases,
        "mb": [p.stat().st_size / 1e6 for p in paths],
        "diff": min(w for w, _ in diffs),
        "diff_rss": max(r for _, r in diffs),
        "view": min(w for w, _ in views),
        "view_rss": max(r for _, r in views),
        "parse_both": parse_both,
        "parse_one": parse_one,
    }


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 5000]
    print(f"receipts: N cases x {DRAWS} draws x {SAMPLES} judge samples; best wall of {RUNS}, largest peak RSS")
    print("cases  MB/file  json.loads(both)  diff     ratio  RSS      json.loads(one)  view     ratio  RSS")
    with tempfile.TemporaryDirectory() as name:
        for cases in sizes:
            m = measure(cases, Path(name))
            print(
                f"{m['cases']:>5}  {m['mb'][0]:>7.1f}  {m['parse_both']:>14.2f} s  {m['diff']:>5.2f} s"
                f"  {m['diff'] / m['parse_both']:>4.2f}x  {m['diff_rss']:>4.0f} MB"
                f"  {m['parse_one']:>13.2f} s  {m['view']:>5.2f} s  {m['view'] / m['parse_one']:>4.2f}x"
                f"  {m['view_rss']:>4.0f} MB",
                flush=True,
            )
    print("target at 1,000 cases: ratio <= 2x and RSS < 300 MB, for diff and view; linear to 5,000")
    python, load = sys.version.split()[0], os.getloadavg()[0]
    print(f"measured {time.strftime('%Y-%m-%d')}: Python {python}, {os.cpu_count()} CPUs, load average {load:.1f}")


if __name__ == "__main__":
    main()
