"""False calls and detection of the merge gate, measured the way the Action makes its comparison.

Each pair is the documented workflow on a simulated 10-case skill (``benchmarks/simulate.py``): the store job's
run of ``main`` (``driftproof run --as-reference``), a pull request's run against it (``driftproof run
--reference``), then ``driftproof diff``. A pair "fails the gate" when the diff reads ``regressed`` (a case
separated downward), which ``fail-on: regressed`` fails. Settings:

- A/A: nothing changed between the two runs (true means uniform over [0.3, 0.8]): generation sd 0.02, 0.1, 0.2;
  a spread-only change (the with-skill sd 0.2 on main, 0.02 on the PR, same mean) and the reverse; a judge that
  scores only 0 or 1; heavy tails (one draw in ten near 0, sd 0.1); unequal arm spreads (with-skill 0.02,
  baseline 0.2). Any ``improved`` or ``regressed`` is a false call.
- Moved: the with-skill mean drops by 2.5 generation sds (0.05 at sd 0.02, 0.25 at 0.1, 0.5 at 0.2; main's
  mean uniform over [0.6, 0.9]), with and without one draw lost to a timeout per case in the PR's with-skill
  arm; the share called ``regressed`` is the detection.

Every row gives the rate with its 95 % Wilson interval, the mean draws per arm of both runs, and the same
figures for "today" (before issue 9: no reference, no R-7, no replacement). A second table is the comparison
inside one receipt (with-skill against baseline, one run, settle-v2). Deterministic for a given ``--seed``.

    .venv/bin/python benchmarks/false_calls.py                   # 2,000 pairs a setting, ~10 minutes, one core
    .venv/bin/python benchmarks/false_calls.py --check 20        # the core engine against the whole tool
    .venv/bin/python benchmarks/false_calls.py --pairs 200       # a quick look
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.simulate import ArmTruth, CaseTruth, Shape, core_case, draw_score, tool_pair
from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.rounds import CaseDraws, arm_draws, next_draws
from driftproof.core.stopping import rule_for
from driftproof.core.words import CaseVerdict

CASES = 10
LIFT = 0.10  # the skill's true lift on every case (baseline = with-skill mean − 0.10)
CALLS = (CaseVerdict.IMPROVED, CaseVerdict.REGRESSED)
ANSWER_TOKENS = 300 + 400 + 300  # prompt + skill (with-skill arm) + answer: a representative answer call
JUDGE_TOKENS = 500 + 300 + 300 + 60  # template + prompt + answer + reply: a representative judge call


@dataclass(frozen=True)
class Setting:
    name: str
    make: Callable[[random.Random], CaseTruth]
    moved: bool = False


def arm(mean: float, sd: float, shape: Shape = "normal") -> ArmTruth:
    return ArmTruth(mean, sd, shape)


def aa(
    sd_with: float, sd_base: float, shape: Shape = "normal", pr_with_sd: float | None = None, lift: float = LIFT
) -> Callable[[random.Random], CaseTruth]:
    def make(rng: random.Random) -> CaseTruth:
        mu = rng.uniform(0.3, 0.8)
        w, b = arm(mu, sd_with, shape), arm(mu - lift, sd_base, shape)
        return CaseTruth(w, b, arm(mu, sd_with if pr_with_sd is None else pr_with_sd, shape), b)

    return make


def dropped(sd: float, drop: float, lose: bool) -> Callable[[random.Random], CaseTruth]:
    def make(rng: random.Random) -> CaseTruth:
        mu = rng.uniform(0.6, 0.9)
        b = arm(mu - LIFT, sd)
        return CaseTruth(arm(mu, sd), b, arm(mu - drop, sd), b, lose_first_pr_with=lose)

    return make


SETTINGS = [
    Setting("A/A, generation sd 0.02", aa(0.02, 0.02)),
    Setting("A/A, generation sd 0.1", aa(0.1, 0.1)),
    Setting("A/A, generation sd 0.2", aa(0.2, 0.2)),
    Setting("A/A, spread-only change (with-skill sd 0.2 → 0.02)", aa(0.2, 0.1, pr_with_sd=0.02)),
    Setting("A/A, spread-only change (with-skill sd 0.02 → 0.2)", aa(0.02, 0.1, pr_with_sd=0.2)),
    Setting("A/A, judge scores only 0 or 1 (sd 0.1)", aa(0.1, 0.1, "binary")),
    Setting("A/A, heavy tails: 10 % of draws near 0 (sd 0.1)", aa(0.1, 0.1, "slips")),
    Setting("A/A, unequal arm spreads (with-skill 0.02, baseline 0.2)", aa(0.02, 0.2)),
    Setting("drop 2.5 sd: 0.05 at sd 0.02", dropped(0.02, 0.05, False), moved=True),
    Setting("drop 2.5 sd: 0.25 at sd 0.1", dropped(0.1, 0.25, False), moved=True),
    Setting("drop 2.5 sd: 0.5 at sd 0.2", dropped(0.2, 0.5, False), moved=True),
    Setting("drop 0.05 at sd 0.02, one lost draw per case", dropped(0.02, 0.05, True), moved=True),
    Setting("drop 0.25 at sd 0.1, one lost draw per case", dropped(0.1, 0.25, True), moved=True),
    Setting("drop 0.5 at sd 0.2, one lost draw per case", dropped(0.2, 0.5, True), moved=True),
    Setting("drop 0.08 at sd 0.02 (4 sd)", dropped(0.02, 0.08, False), moved=True),
    Setting("drop 0.08 at sd 0.02 (4 sd), one lost draw per case", dropped(0.02, 0.08, True), moved=True),
]


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % Wilson score interval of k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    cases: int = 0
    called: int = 0
    regressed: int = 0
    pairs: int = 0
    pairs_failed: int = 0
    draws: dict[tuple[str, str], int] = field(default_factory=dict)

    def add(self, verdicts: Sequence[CaseVerdict], draws: Sequence[dict[tuple[str, str], int]]) -> None:
        self.pairs += 1
        self.pairs_failed += any(v == CaseVerdict.REGRESSED for v in verdicts)
        for v, d in zip(verdicts, draws, strict=True):
            self.cases += 1
            self.called += v in CALLS
            self.regressed += v == CaseVerdict.REGRESSED
            for k, n in d.items():
                self.draws[k] = self.draws.get(k, 0) + n

    def per_arm(self, run: str, arm: str) -> float:
        return self.draws.get((run, arm), 0) / max(1, self.cases)

    def tokens_per_pr(self) -> float:
        """Estimated tokens of the pull request's run, per 10-case PR (answer and judge calls)."""
        w, b = self.per_arm("pr", "with_skill"), self.per_arm("pr", "baseline")
        per_case = w * (ANSWER_TOKENS + 5 * JUDGE_TOKENS) + b * (ANSWER_TOKENS - 400 + 5 * JUDGE_TOKENS)
        return per_case * CASES


def pct(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{100 * k / max(1, n):.2f} % ({100 * lo:.2f}–{100 * hi:.2f})"


def run_setting(setting: Setting, pairs: int, seed: int, today: bool) -> Tally:
    tally = Tally()
    for pair in range(pairs):
        rng = random.Random(f"{seed}:{setting.name}:{pair}")
        cases = [setting.make(rng) for _ in range(CASES)]
        results = [core_case(c, (seed, setting.name, pair, f"c{i}"), today=today) for i, c in enumerate(cases)]
        tally.add([r.verdict for r in results], [dict(r.draws) for r in results])
    return tally


def _one(args: tuple[int, int, int, bool]) -> Tally:
    index, pairs, seed, today = args
    return run_setting(SETTINGS[index], pairs, seed, today)


def action_table(pairs: int, seed: int, jobs: int) -> list[str]:
    head = (
        "| setting | cases | false calls per case (A/A) or called regressed (moved), 95 % Wilson "
        "| 10-case PRs failing `fail-on: regressed` | mean draws per arm, main with/base · PR with/base "
        "| today: per case | today: PRs failing |"
    )
    rows = [head, "|" + "---|" * 7]
    tasks = [(i, pairs, seed, today) for i in range(len(SETTINGS)) for today in (False, True)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(_one, tasks))
    for setting, new, old in zip(SETTINGS, done[0::2], done[1::2], strict=True):
        rate = pct(new.regressed if setting.moved else new.called, new.cases)
        old_rate = pct(old.regressed if setting.moved else old.called, old.cases)
        draws = " · ".join(
            f"{new.per_arm(run, 'with_skill'):.2f}/{new.per_arm(run, 'baseline'):.2f}" for run in ("main", "pr")
        )
        cost = f"{new.tokens_per_pr() / old.tokens_per_pr():.2f}×" if not setting.moved else ""
        rows.append(
            f"| {setting.name} | {new.cases} | {rate} | {pct(new.pairs_failed, new.pairs)} | {draws} "
            f"(PR tokens {cost or 'n/a'} today) | {old_rate} | {pct(old.pairs_failed, old.pairs)} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def within_table(pairs: int, seed: int) -> list[str]:
    """One run, with-skill against baseline (settle-v2 without a reference), as before issue 9."""
    rows = [
        "| generation sd | lift | cases | called (false calls at lift 0) | mean draws per arm |",
        "|---|---|---|---|---|",
    ]
    rule = rule_for(3, 10)
    for sd in (0.02, 0.1, 0.2):
        for lift in (0.0, 0.10, 0.25):
            called = draws = 0
            n = pairs * CASES // (1 if lift == 0 else 2)
            for i in range(n):
                rng = random.Random(f"{seed}:within:{sd}:{lift}:{i}")
                centre = rng.uniform(0.3, 0.8)
                truth = {"with_skill": ArmTruth(centre + lift / 2, sd), "baseline": ArmTruth(centre - lift / 2, sd)}
                made: dict[str, list[tuple[float | None, bool]]] = {"with_skill": [], "baseline": []}
                while not (
                    d := next_draws(rule, CaseDraws(arm_draws(made["with_skill"]), arm_draws(made["baseline"])))
                ).stop:
                    for a, add in (("with_skill", d.add_with), ("baseline", d.add_baseline)):
                        for k in range(len(made[a]), len(made[a]) + add):
                            made[a].append((draw_score(truth[a], ("within", seed, sd, lift, i, a, k), 5), False))
                w, b = (ArmEvidence(tuple(s for s, _ in made[a] if s is not None)) for a in ("with_skill", "baseline"))
                v = compare(w, b).verdict
                called += v == CaseVerdict.IMPROVED if lift else v in CALLS
                draws += len(made["with_skill"]) + len(made["baseline"])
            rows.append(f"| {sd} | {lift} | {n} | {pct(called, n)} | {draws / (2 * n):.2f} |")
    return rows


def check(pairs: int, seed: int) -> None:
    """The core engine against the whole tool: identical draws and verdicts, case by case."""
    wanted = (
        "A/A, generation sd 0.1",
        "spread-only change (with-skill sd 0.2",
        "only 0 or 1",
        "0.25 at sd 0.1, one lost",
    )
    picked = [s for s in SETTINGS if any(w in s.name for w in wanted)]
    with tempfile.TemporaryDirectory() as tmp:
        for setting in picked:
            for pair in range(pairs):
                rng = random.Random(f"{seed}:{setting.name}:{pair}")
                cases = {f"c{i}": setting.make(rng) for i in range(CASES)}
                tool = tool_pair(cases, (seed, setting.name, pair), Path(tmp) / f"{pair}")
                for cid, truth in cases.items():
                    core = core_case(truth, (seed, setting.name, pair, cid))
                    assert (core.verdict, dict(core.draws)) == (tool[cid].verdict, dict(tool[cid].draws)), (
                        setting.name,
                        pair,
                        cid,
                        core,
                        tool[cid],
                    )
            print(
                f"check: {setting.name}: {pairs} pairs × {CASES} cases, the core engine and the tool agree", flush=True
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--check", type=int, default=0, metavar="N", help="run N pairs a setting through the tool too")
    parser.add_argument(
        "--jobs", type=int, default=2, help="processes (settings run in parallel; results do not change)"
    )
    args = parser.parse_args()
    started = time.monotonic()
    if args.check:
        check(args.check, args.seed)
        return
    print(
        f"Seed {args.seed}; {args.pairs} pairs of 10-case runs per setting; "
        "judge noise sd 0.03 on a 0.05 grid, 5 samples.\n"
    )
    print("**The merge gate: main (--as-reference) against a PR (--reference), then diff**\n")
    print("\n".join(action_table(args.pairs, args.seed, args.jobs)))
    print("\n**Inside one receipt: with-skill against baseline (settle-v2, no reference)**\n")
    print("\n".join(within_table(args.pairs // 4, args.seed)))
    print(f"\n({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
