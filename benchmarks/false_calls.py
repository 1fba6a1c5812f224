"""False calls and detection of the stopping rule, simulated through the project's own verdict code.

Each case is a pair of arms. Every draw of an arm gets a quality = the arm's true mean + generation noise
(normal, sd ``--noise``); the judge scores it ``--samples`` times (default 5), each sample = quality + judge
noise (normal, sd 0.03) rounded to the 0.05 grid and clipped to [0, 1]; the draw's score is the mean of its
samples. After each round the stopping rule (``driftproof.core.stopping.more_draws``) says how many more draws
each arm gets; the verdict is ``driftproof.core.compare.compare(with_skill, baseline)`` on what was drawn.

- A/A: both arms share one true mean, uniform over [0.3, 0.8]. A false call is ``improved`` or ``regressed``.
- Lift L (0.10, 0.25): the case centre c is uniform over [0.3, 0.8]; with_skill has true mean c + L/2 and
  baseline c − L/2. Detection is the share called ``improved``; "wrong way" counts ``regressed``.
- Unequal spreads: equal true means, a different generation noise sd per arm (outside the issue's target; a
  skill that changes consistency but not the mean).

Both rules, the default and the naive "always 3 draws per arm", see the same random draws case by case: the naive
rule reads the first three draws of each arm. ``--sweep`` adds a trade-off table over alternative parameters.
Target (issue): false calls ≤ 0.5 % per case at every noise level. Run from the repo root:
``.venv/bin/python benchmarks/false_calls.py [--sweep]`` (well under a minute, one core). Prints figures;
asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.stopping import DEFAULT_RULE, StoppingRule, more_draws
from driftproof.core.words import CaseVerdict

JUDGE_SD = 0.03
GRID = 0.05
NOISES = (0.02, 0.1, 0.2)
LIFTS = (0.10, 0.25)
UNEQUAL = ((0.02, 0.1), (0.02, 0.2), (0.1, 0.2))
CALLS = (CaseVerdict.IMPROVED, CaseVerdict.REGRESSED)


def generation_noise(rng: random.Random, sd: float, shape: str) -> float:
    """One draw's generation noise, mean 0 and sd ``sd``: ``normal``; ``t4`` (Student t, 4 df: heavy tails);
    ``slips`` (skewed: one draw in ten slips 3 sd below the rest)."""
    if shape == "normal":
        return rng.gauss(0.0, sd)
    if shape == "t4":  # Student t with 4 df has variance 2
        return rng.gauss(0.0, sd) / math.sqrt(rng.gammavariate(2.0, 2.0) / 4.0) / math.sqrt(2.0)
    if shape == "slips":  # 0.9·N(0, a²) + 0.1·N(−3sd, a²), centred; a² = sd² − 0.1·0.9·(3sd)²
        slip = -3.0 * sd if rng.random() < 0.1 else 0.0
        return slip + 0.3 * sd + rng.gauss(0.0, math.sqrt(0.19) * sd)
    raise ValueError(shape)


def judged_score(rng: random.Random, quality: float, samples: int) -> float:
    """One draw's score: the mean of ``samples`` judge samples on the 0.05 grid, each clipped to [0, 1]."""
    total = 0.0
    for _ in range(samples):
        total += min(1.0, max(0.0, round(rng.gauss(quality, JUDGE_SD) / GRID) * GRID))
    return total / samples


class Arm:
    """An arm's stream of draw scores, seeded by a key: the k-th draw is the same whichever rule asks for it."""

    def __init__(self, key: str, mean: float, noise: float, samples: int, shape: str) -> None:
        self.rng = random.Random(key)
        self.mean, self.noise, self.samples, self.shape = mean, noise, samples, shape
        self.scores: list[float] = []

    def take(self, n: int) -> list[float]:
        while len(self.scores) < n:
            quality = self.mean + generation_noise(self.rng, self.noise, self.shape)
            self.scores.append(judged_score(self.rng, quality, self.samples))
        return self.scores[:n]


def run_case(rule: StoppingRule | None, w: Arm, b: Arm) -> tuple[CaseVerdict, int, int]:
    """Draw under ``rule`` (``None``: always three draws) and return the verdict and the draws per arm."""
    n_w = n_b = 3
    if rule is not None:
        n_w = n_b = 0
        while True:
            d = more_draws(rule, w.take(n_w), b.take(n_b))
            if d.stop:
                break
            n_w, n_b = n_w + d.add_with, n_b + d.add_baseline
    verdict = compare(ArmEvidence(tuple(w.take(n_w))), ArmEvidence(tuple(b.take(n_b)))).verdict
    return verdict, n_w, n_b


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval for k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    """Verdicts and draws over the pairs of one scenario."""

    pairs: int = 0
    improved: int = 0
    regressed: int = 0
    draws: int = 0
    draws_max: int = 0
    underpowered: int = 0

    def add(self, verdict: CaseVerdict, n_w: int, n_b: int) -> None:
        self.pairs += 1
        self.underpowered += verdict == CaseVerdict.UNDERPOWERED
        self.improved += verdict == CaseVerdict.IMPROVED
        self.regressed += verdict == CaseVerdict.REGRESSED
        self.draws += n_w + n_b
        self.draws_max = max(self.draws_max, n_w, n_b)

    @property
    def calls(self) -> int:
        return self.improved + self.regressed

    @property
    def per_arm(self) -> float:
        return self.draws / (2 * self.pairs)


@dataclass
class Setting:
    """One generation-noise level: the A/A tally and one tally per lift."""

    noise: float
    aa: Tally = field(default_factory=Tally)
    lifts: dict[float, Tally] = field(default_factory=dict)


def scenario(rule: StoppingRule | None, args: argparse.Namespace, name: str, means: tuple[float, float],
             noises: tuple[float, float], pairs: int) -> Tally:  # fmt: skip
    """``pairs`` cases with true means centre + ``means`` and generation noise sds ``noises`` (with, baseline)."""
    tally = Tally()
    for i in range(pairs):
        key = f"{args.seed}/{name}/{i}"
        centre = random.Random(key).uniform(0.3, 0.8)
        w = Arm(key + "/w", centre + means[0], noises[0], args.samples, args.shape)
        b = Arm(key + "/b", centre + means[1], noises[1], args.samples, args.shape)
        tally.add(*run_case(rule, w, b))
    return tally


def simulate(rule: StoppingRule | None, args: argparse.Namespace) -> list[Setting]:
    settings = []
    for noise in args.noise:
        s = Setting(noise, aa=scenario(rule, args, f"{noise}/aa", (0.0, 0.0), (noise, noise), args.pairs))
        for lift in args.lifts:
            s.lifts[lift] = scenario(
                rule, args, f"{noise}/lift{lift}", (lift / 2, -lift / 2), (noise, noise), args.lift_pairs
            )
        settings.append(s)
    return settings


def pct(k: int, n: int, digits: int = 2) -> str:
    return f"{100 * k / n:.{digits}f} %"


def main_table(title: str, settings: list[Setting], lifts: Sequence[float]) -> str:
    heads = "".join(f" lift {lift:.2f}: called improved (draws/arm) |" for lift in lifts)
    out = [
        f"**{title}**",
        "",
        "| gen. noise sd | A/A pairs | false calls | rate | 95 % Wilson | mean draws/arm | max draws/arm "
        "| A/A underpowered |" + heads + " lifts: called regressed (count) |",
        "|---|---|---|---|---|---|---|---|" + "---|" * (len(lifts) + 1),
    ]
    for s in settings:
        lo, hi = wilson(s.aa.calls, s.aa.pairs)
        cells = [
            f"{s.noise:g}",
            f"{s.aa.pairs}",
            f"{s.aa.calls}",
            pct(s.aa.calls, s.aa.pairs),
            f"{100 * lo:.2f}–{100 * hi:.2f} %",
            f"{s.aa.per_arm:.2f}",
            f"{s.aa.draws_max}",
            pct(s.aa.underpowered, s.aa.pairs, 1),
        ]
        cells += [f"{pct(t.improved, t.pairs, 1)} ({t.per_arm:.2f})" for t in s.lifts.values()]
        cells.append(" / ".join(str(t.regressed) for t in s.lifts.values()))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def unequal_table(rules: list[tuple[str, StoppingRule | None]], args: argparse.Namespace) -> str:
    out = [
        "**Equal means, unequal spreads (gen. noise sd with vs baseline; not part of the issue's target)**",
        "",
        "| rule | sd with | sd baseline | pairs | false calls | rate | 95 % Wilson | mean draws/arm |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, rule in rules:
        for sd_w, sd_b in UNEQUAL:
            t = scenario(rule, args, f"unequal{sd_w}-{sd_b}", (0.0, 0.0), (sd_w, sd_b), args.pairs)
            lo, hi = wilson(t.calls, t.pairs)
            out.append(
                f"| {name} | {sd_w:g} | {sd_b:g} | {t.pairs} | {t.calls} | {pct(t.calls, t.pairs)} | "
                f"{100 * lo:.2f}–{100 * hi:.2f} % | {t.per_arm:.2f} |"
            )
    return "\n".join(out)


def sweep_table(base: StoppingRule, args: argparse.Namespace) -> str:
    variants = [
        base,
        replace(base, max_draws=8),
        replace(base, max_draws=12),
        replace(base, alpha_separate=0.1),
        replace(base, alpha_separate=0.025),
        replace(base, alpha_overlap=0.05),
        replace(base, alpha_overlap=0.2),
        replace(base, step=2),
        replace(base, resolve=not base.resolve),
    ]
    heads = "".join(f" noise {n:g}: lift {lift:.2f} |" for n in args.noise for lift in args.lifts)
    out = [
        "**Trade-off: the default against alternative parameters** (per noise level: A/A false-call rate, A/A "
        "draws/arm, A/A share underpowered; lifts: called improved, with draws/arm)",
        "",
        "| rule | false calls | A/A draws/arm | A/A underpowered |" + heads,
        "|---|---|---|---|" + "---|" * (len(args.noise) * len(args.lifts)),
    ]
    for rule in variants:
        settings = simulate(rule, args)
        fcs = " / ".join(pct(s.aa.calls, s.aa.pairs) for s in settings)
        draws = " / ".join(f"{s.aa.per_arm:.2f}" for s in settings)
        under = " / ".join(pct(s.aa.underpowered, s.aa.pairs, 0) for s in settings)
        cells = [f"{pct(t.improved, t.pairs, 0)} ({t.per_arm:.1f})" for s in settings for t in s.lifts.values()]
        out.append(f"| `{rule.describe()}` | {fcs} | {draws} | {under} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="False calls and detection of the stopping rule (simulation).")
    p.add_argument("--pairs", type=int, default=4000, help="A/A pairs per noise level (default 4000)")
    p.add_argument("--lift-pairs", type=int, default=2000, help="pairs per noise level and lift (default 2000)")
    p.add_argument("--seed", type=int, default=20240611)
    p.add_argument("--samples", type=int, default=5, help="judge samples per draw (default 5)")
    p.add_argument("--noise", type=float, nargs="+", default=list(NOISES), help="generation noise sds")
    p.add_argument("--lifts", type=float, nargs="*", default=list(LIFTS))
    p.add_argument("--shape", choices=("normal", "t4", "slips"), default="normal", help="generation noise shape")
    p.add_argument("--min-draws", type=int, default=DEFAULT_RULE.min_draws)
    p.add_argument("--max-draws", type=int, default=DEFAULT_RULE.max_draws)
    p.add_argument("--step", type=int, default=DEFAULT_RULE.step)
    p.add_argument("--alpha-separate", type=float, default=DEFAULT_RULE.alpha_separate)
    p.add_argument("--alpha-overlap", type=float, default=DEFAULT_RULE.alpha_overlap)
    p.add_argument("--no-resolve", action="store_true", help="turn the rule's R-4 resolve step off")
    p.add_argument("--no-naive", action="store_true", help="skip the naive always-3-draws table")
    p.add_argument("--sweep", action="store_true", help="add the trade-off table over alternative parameters")
    args = p.parse_args(argv)
    rule = replace(
        DEFAULT_RULE,
        min_draws=args.min_draws,
        max_draws=args.max_draws,
        step=args.step,
        alpha_separate=args.alpha_separate,
        alpha_overlap=args.alpha_overlap,
        resolve=DEFAULT_RULE.resolve and not args.no_resolve,
    )
    t0 = time.perf_counter()
    print(
        f"Generation noise {args.shape}; judge noise sd {JUDGE_SD} on a {GRID} grid, clipped to [0, 1]; "
        f"{args.samples} judge samples per draw; true means over [0.3, 0.8]; seed {args.seed}; "
        f"{args.pairs} A/A pairs and {args.lift_pairs} pairs per lift per noise level."
    )
    print()
    title = f"Stopping rule `{rule.describe()}`" + (" (the default)" if rule == DEFAULT_RULE else "")
    print(main_table(title, simulate(rule, args), args.lifts))
    print()
    rules: list[tuple[str, StoppingRule | None]] = [("default" if rule == DEFAULT_RULE else "this rule", rule)]
    if not args.no_naive:
        print(main_table("Naive rule: always 3 draws per arm", simulate(None, args), args.lifts))
        print()
        rules.append(("naive", None))
    print(unequal_table(rules, args))
    print()
    if args.sweep:
        print(sweep_table(rule, args))
        print()
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
