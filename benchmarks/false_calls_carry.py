"""False calls of the merge gate with the baseline carried (issue 14) against drawn, the way the Action makes them.

Each pair is the documented workflow (``benchmarks/false_calls.py``, ``benchmarks/simulate.py``): the store job's
run of ``main`` (``--as-reference``), a pull request's run against it (``--reference``), then ``driftproof diff``;
once with the PR carrying main's standing baseline arms (``carry-baseline: true``, the default) and once drawing
them (``--no-carry-baseline``). The two variants of a pair share every draw but the PR's baseline arm: main's
draws and the PR's with-skill draws are the same numbers, so the comparison is paired. Settings are the A/A ones
of ``false_calls.py`` (the skill changed, or nothing did, with no real effect: the true means are main's), plus
two where the skill does nothing at all (lift 0), where any call of the PR's own receipt is false.

Columns per variant: the gate's false calls per case (any ``improved`` or ``regressed`` of the diff); 10-case
PRs failing ``fail-on: regressed`` and ``fail-on: underpowered``; the PR receipt's own with-skill-against-baseline
calls that are false (any call at lift 0, ``regressed`` at lift 0.10), and the share of cases where main's own
receipt made the same false call too (the dependence carrying brings: both receipts read the same baseline
draws), each with its 95 % Wilson interval; the PR's mean draws per arm (a carried baseline counts main's draws).
Last, the cases whose gate verdict differs between the variants of the same pair.

    .venv/bin/python benchmarks/false_calls_carry.py                  # 1,000 PRs a setting and variant, ~3 minutes
    .venv/bin/python benchmarks/false_calls_carry.py --check 10       # the core engine against the whole tool
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.false_calls import CALLS, CASES, SETTINGS, Setting, aa, pct
from benchmarks.simulate import CaseResult, core_case, tool_pair
from driftproof.core.words import CaseVerdict

NO_LIFT = [
    Setting("A/A, the skill does nothing (lift 0), sd 0.1", aa(0.1, 0.1, lift=0.0)),
    Setting("A/A, the skill does nothing (lift 0), sd 0.02", aa(0.02, 0.02, lift=0.0)),
]
UNDERPOWERED_FAILS = (CaseVerdict.REGRESSED, CaseVerdict.UNDERPOWERED)
CARRY_SETTINGS = [s for s in SETTINGS if not s.moved] + NO_LIFT


@dataclass
class Side:
    """One variant's tally over a setting's pairs."""

    cases: int = 0
    called: int = 0
    pairs: int = 0
    failed: int = 0
    failed_underpowered: int = 0
    """PRs ``fail-on: underpowered`` fails: a case ``regressed`` or ``underpowered``."""
    lift_false: int = 0
    both_false: int = 0
    """Cases whose false call in the PR's own receipt main's own receipt made too (the same case, same pair)."""
    pr_baseline_draws: int = 0
    pr_with_draws: int = 0

    def add(self, results: list[CaseResult], lift0: bool) -> None:
        self.pairs += 1
        self.failed += any(r.verdict == CaseVerdict.REGRESSED for r in results)
        self.failed_underpowered += any(r.verdict in UNDERPOWERED_FAILS for r in results)
        for r in results:
            self.cases += 1
            self.called += r.verdict in CALLS
            wrong = [v in CALLS if lift0 else v == CaseVerdict.REGRESSED for v in (r.lift, r.main_lift)]
            self.lift_false += wrong[0]
            self.both_false += wrong[0] and r.lift == r.main_lift
            self.pr_baseline_draws += r.draws[("pr", "baseline")]
            self.pr_with_draws += r.draws[("pr", "with_skill")]


def _one(args: tuple[int, int, int]) -> tuple[Side, Side, int]:
    index, pairs, seed = args
    setting = CARRY_SETTINGS[index]
    lift0 = setting in NO_LIFT
    drawn, carried, differ = Side(), Side(), 0
    for pair in range(pairs):
        rng = random.Random(f"{seed}:{setting.name}:{pair}")
        cases = [setting.make(rng) for _ in range(CASES)]
        keys = [(seed, setting.name, pair, f"c{i}") for i in range(CASES)]
        a = [core_case(c, k) for c, k in zip(cases, keys, strict=True)]
        b = [core_case(c, k, carry=True) for c, k in zip(cases, keys, strict=True)]
        drawn.add(a, lift0)
        carried.add(b, lift0)
        differ += sum(x.verdict != y.verdict for x, y in zip(a, b, strict=True))
    return drawn, carried, differ


def carry_table(pairs: int, seed: int, jobs: int) -> list[str]:
    rows = [
        "| setting | variant | cases | gate: false calls per case | PRs failing `fail-on: regressed` "
        "| PRs failing `fail-on: underpowered` "
        "| PR receipt alone: false calls per case | … and main's receipt the same false call "
        "| PR draws per arm, with/base | gate verdicts differing |",
        "|" + "---|" * 10,
    ]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(_one, [(i, pairs, seed) for i in range(len(CARRY_SETTINGS))]))
    for setting, (drawn, carried, differ) in zip(CARRY_SETTINGS, done, strict=True):
        for name, side in (("drawn", drawn), ("carried", carried)):
            rows.append(
                f"| {setting.name} | {name} | {side.cases} | {pct(side.called, side.cases)} "
                f"| {pct(side.failed, side.pairs)} | {pct(side.failed_underpowered, side.pairs)} "
                f"| {pct(side.lift_false, side.cases)} "
                f"| {pct(side.both_false, side.cases)} "
                f"| {side.pr_with_draws / side.cases:.2f}/{side.pr_baseline_draws / side.cases:.2f} "
                f"| {f'{differ} of {side.cases}' if name == 'carried' else ''} |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def check(pairs: int, seed: int) -> None:
    """The carried variant of the core engine against the whole tool (``run_suite`` carrying): identical draws,
    gate verdicts and the PR receipt's own verdicts, case by case."""
    picked = [s for s in CARRY_SETTINGS if "sd 0.1" in s.name and ("generation" in s.name or "nothing" in s.name)]
    with tempfile.TemporaryDirectory() as tmp:
        for setting in picked:
            for pair in range(pairs):
                rng = random.Random(f"{seed}:{setting.name}:{pair}")
                cases = {f"c{i}": setting.make(rng) for i in range(CASES)}
                tool = tool_pair(cases, (seed, setting.name, pair), Path(tmp) / f"{pair}", carry=True)
                for cid, truth in cases.items():
                    core = core_case(truth, (seed, setting.name, pair, cid), carry=True)
                    got = tool[cid]
                    assert core == got, (
                        setting.name,
                        pair,
                        cid,
                        core,
                        got,
                    )
            print(f"check: {setting.name}: {pairs} pairs × {CASES} cases carried, the core engine and the tool agree")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--check", type=int, default=0, metavar="N", help="run N pairs a setting through the tool too")
    parser.add_argument("--jobs", type=int, default=2, help="processes (results do not change)")
    args = parser.parse_args()
    started = time.monotonic()
    if args.check:
        check(args.check, args.seed)
        return
    print(f"Seed {args.seed}; {args.pairs} pairs of 10-case runs per setting and variant (paired).\n")
    print("\n".join(carry_table(args.pairs, args.seed, args.jobs)))
    print(f"\n({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
