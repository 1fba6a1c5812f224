"""Scale of load + validate + diff: two receipts of 1,000 cases x 10 draws x 5 judge samples.

Target (issue 2): under 2 s and under 300 MB peak for load + validate + diff of both receipts.
Run: ``.venv/bin/python benchmarks/diff_scale.py``. Prints figures; asserts nothing.
"""

from __future__ import annotations

import random
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from driftproof.core.diff import diff
from driftproof.receipts import load_receipt, receipt_json
from tests.builders import arm, receipt

CASES, DRAWS, SAMPLES = 1000, 10, 5


def build(seed: int) -> str:
    rng = random.Random(seed)
    cases = {}
    for i in range(CASES):
        centre = rng.uniform(0.3, 0.8)
        scores = [[min(1.0, max(0.0, round(rng.gauss(centre, 0.1) / 0.05) * 0.05)) for _ in range(DRAWS)]]
        base = [min(1.0, max(0.0, round(rng.gauss(centre - 0.1, 0.1) / 0.05) * 0.05)) for _ in range(DRAWS)]
        cases[f"case-{i:04d}"] = (arm(scores[0], samples=SAMPLES), arm(base, samples=SAMPLES))
    return receipt_json(receipt(cases))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        paths = []
        for seed in (1, 2):
            p = Path(tmp) / f"r{seed}.json"
            p.write_text(build(seed), encoding="utf-8")
            paths.append(p)
        build_s = time.perf_counter() - t0
        sizes = [p.stat().st_size / 1e6 for p in paths]
        tracemalloc.start()
        t1 = time.perf_counter()
        before, after = (load_receipt(p) for p in paths)
        t2 = time.perf_counter()
        result = diff(before, after)
        t3 = time.perf_counter()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"receipts: {CASES} cases x {DRAWS} draws x {SAMPLES} judge samples, {sizes[0]:.1f} MB + {sizes[1]:.1f} MB")
    print(f"build (not timed against the target): {build_s:.2f} s")
    print(f"load + validate (schema + seal + model), both: {t2 - t1:.2f} s")
    print(f"diff: {t3 - t2:.2f} s")
    print(f"load + validate + diff: {t3 - t1:.2f} s  (target < 2 s)")
    print(f"peak traced Python memory during load + diff: {peak / 1e6:.0f} MB  (target < 300 MB)")
    print(f"process max RSS (includes building): {rss:.0f} MB")
    print(f"diff status: {result.status}, counts: {result.counts}")


if __name__ == "__main__":
    main()
