"""Scale of load + validate + diff: two receipts of 1,000 cases x 10 draws x 5 judge samples.

Target (issue 2): under 2 s and under 300 MB for load + validate (schema of its version, seal, models)
+ diff of both receipts. The receipts are built first; the measurement runs in a fresh child process so
its peak RSS counts only the load and the diff. Run: ``.venv/bin/python benchmarks/diff_scale.py``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CASES, DRAWS, SAMPLES = 1000, 10, 5

MEASURE = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from driftproof.core.diff import diff
from driftproof.receipts import load_receipt
t1 = time.perf_counter()
before, after = load_receipt(sys.argv[1]), load_receipt(sys.argv[2])
t2 = time.perf_counter()
result = diff(before, after)
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "diff": t3 - t2, "status": str(result.status),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def build(seed: int) -> str:
    from driftproof.receipts import receipt_json
    from tests.support.builders import arm, receipt

    rng = random.Random(seed)

    def grid(x: float) -> float:
        return min(1.0, max(0.0, round(x / 0.05) * 0.05))

    cases = {}
    for i in range(CASES):
        centre = rng.uniform(0.3, 0.8)
        with_skill = [grid(rng.gauss(centre, 0.1)) for _ in range(DRAWS)]
        baseline = [grid(rng.gauss(centre - 0.1, 0.1)) for _ in range(DRAWS)]
        cases[f"case-{i:04d}"] = (arm(with_skill, samples=SAMPLES), arm(baseline, samples=SAMPLES))
    return receipt_json(receipt(cases))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for seed in (1, 2):
            path = Path(tmp) / f"r{seed}.json"
            path.write_text(build(seed), encoding="utf-8")
            paths.append(path)
        sizes = [p.stat().st_size / 1e6 for p in paths]
        runs = []
        for _ in range(3):
            done = subprocess.run(
                [sys.executable, "-c", MEASURE, *map(str, paths)], capture_output=True, text=True, check=True, cwd=ROOT
            )
            runs.append(json.loads(done.stdout))
    best = min(runs, key=lambda r: r["load"] + r["diff"])
    print(f"receipts: {CASES} cases x {DRAWS} draws x {SAMPLES} judge samples, {sizes[0]:.1f} MB + {sizes[1]:.1f} MB")
    print(f"load + validate (schema, seal, models), both: {best['load']:.2f} s")
    print(f"diff: {best['diff']:.2f} s")
    print(f"load + validate + diff: {best['load'] + best['diff']:.2f} s (best of 3; target < 2 s)")
    print(f"peak RSS of the measuring process: {max(r['rss_mb'] for r in runs):.0f} MB (target < 300 MB)")
    print(f"diff status: {best['status']}; imports took {best['import']:.2f} s (not counted)")
    stamp = time.strftime("%Y-%m-%d")
    print(f"measured {stamp} on this machine; all runs: " + ", ".join(f"{r['load'] + r['diff']:.2f} s" for r in runs))


if __name__ == "__main__":
    main()
