"""Judge-anchor canaries under judge noise (issue 15): how often the tolerance cries wolf, and what it catches.

The canary rule (``core.canaries``: judge drifted when the mean absolute deviation of the canary means from their
expected scores is above ``DEFAULTS.canary_tolerance``, 0.10; two receipts disagree when either drifted or their
canary means differ by more than 0.10 on average) is run, through ``read_anchors`` and ``anchors_disagree``
themselves, on simulated judges: every judge sample scores ``clip(expected + shift + N(0, sd), 0, 1)``, with the
default set's four expected scores (1.0, 0.5, 0.5, 0.0) and 5 judge samples each, as a run with
``--default-canaries`` and the default ``--judge-samples`` judges them. A "squeeze" judge pulls every score halfway
towards 0.5 before the noise. Each row is ``--trials`` receipts (or receipt pairs), seed fixed; figures are rates
with 95 % Wilson intervals. Run: ``.venv/bin/python benchmarks/canary_noise.py [--trials 20000]``. Prints a
table; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from false_calls import wilson  # noqa: E402

from driftproof.core.canaries import AnchorSpec, anchors_disagree, canary_score, read_anchors  # noqa: E402
from driftproof.core.models import Canaries  # noqa: E402

EXPECTED = (1.0, 0.5, 0.5, 0.0)
SPECS = [AnchorSpec(f"c{i}", None, e, f"{i:064x}", "1" * 64) for i, e in enumerate(EXPECTED)]


def judged(rng: random.Random, sd: float, shift: float = 0.0, squeeze: bool = False, samples: int = 5) -> Canaries:
    """One receipt's canaries, judged ``samples`` times each by a judge of noise ``sd``, moved by ``shift`` (or
    squeezed)."""
    scored = []
    for spec in SPECS:
        centre = (spec.expected + 0.5) / 2 if squeeze else spec.expected + shift
        scores = [min(1.0, max(0.0, rng.gauss(centre, sd))) for _ in range(samples)]
        scored.append(canary_score(spec, scores))
    return read_anchors("default", SPECS, scored, samples)


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.2f} % ({100 * lo:.2f}–{100 * hi:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--samples", type=int, default=5, help="judge samples per canary (--judge-samples)")
    args = parser.parse_args()
    rng, n, k = random.Random(args.seed), args.trials, args.samples
    print(f"default set (expected {', '.join(map(str, EXPECTED))}), {k} judge samples, {n} trials per row")
    print("| judge | sd | one receipt reads judge drifted | two receipts' anchors disagree (no verdict) |")
    print("|---|---|---|---|")
    judges = [("unchanged", 0.0, False), ("shifted +0.10", 0.10, False), ("shifted +0.15", 0.15, False)]
    judges += [("shifted −0.20", -0.20, False), ("squeezed halfway to 0.5", 0.0, True)]
    for name, shift, squeeze in judges:
        for sd in (0.05, 0.10, 0.15, 0.20):
            drifted = sum(bool(judged(rng, sd, shift, squeeze, k).judge_drifted) for _ in range(n))
            # the pair: the stored receipt judged by the unchanged judge, today's by this one
            apart = sum(
                anchors_disagree(judged(rng, sd, samples=k), judged(rng, sd, shift, squeeze, k)) is not None
                for _ in range(n)
            )
            print(f"| {name} | {sd:.2f} | {rate(drifted, n)} | {rate(apart, n)} |")


if __name__ == "__main__":
    main()
