"""Simulated skills for ``false_calls.py``: a score model, and two engines that run the documented workflow on it.

The score model. A draw's quality is its arm's true mean plus generation noise (normal, or heavy-tailed:
one draw in ten slips to near 0); the judge scores it ``samples`` times, each sample the quality plus judge
noise (normal, sd 0.03) rounded to the 0.05 grid and clipped to [0, 1], or, for a binary judge, 1 with
probability the quality and 0 otherwise. Every number is a pure function of (seed, pair, run, case, arm, draw,
sample), so both engines see the same scores whatever order the calls run in.

The engines run the Action's question: the store job's run of the default branch (``driftproof run
--as-reference``), the pull request's run against it (``driftproof run --reference``), then ``driftproof diff``.

- ``tool``: exactly that, through ``driftproof.run.run_suite`` with a `SimLane` for the answers and the
  judge (the runner, its journal, judge parsing, receipt assembly, the seal, files on disk), then ``diff`` of
  the two receipts as loaded back. Slow: about a second per pair.
- ``core``: the same decisions, fast: the stopping rule the runner calls (``core.rounds.next_draws``) round by
  round, then the verdict ``diff`` applies per case (``core.between.compare_between``). ``--check`` runs pairs
  through both and requires identical draws and verdicts, case by case.

"Today" is the workflow before issue 9: both runs drawn by ``settle-v1``'s within-receipt rule alone, judged
by R-1 … R-6 without R-7.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from driftproof.core.bands import mean
from driftproof.core.between import compare_between
from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.models import Case
from driftproof.core.rounds import CaseDraws, arm_draws, next_draws
from driftproof.core.stopping import StoppingRule, more_draws, reference_rule, rule_for
from driftproof.core.words import CaseVerdict
from driftproof.lanes.base import AttemptFailure, FailureKind, Generation, GenerationRequest, Lane

JUDGE_SD = 0.03
GRID = 0.05
Shape = Literal["normal", "slips", "binary"]
RUNS = ("main", "pr")
ARMS = ("with_skill", "baseline")


@dataclass(frozen=True)
class ArmTruth:
    """The true distribution of one arm of one case in one run."""

    mean: float
    sd: float
    shape: Shape = "normal"


@dataclass(frozen=True)
class CaseTruth:
    """A case's four arms: with-skill and baseline, on main and on the pull request."""

    main_with: ArmTruth
    main_base: ArmTruth
    pr_with: ArmTruth
    pr_base: ArmTruth
    lose_first_pr_with: bool = False
    """The pull request's first with-skill draw is lost to a failed call (a timeout)."""

    def arm(self, run: str, arm: str) -> ArmTruth:
        return {
            ("main", "with_skill"): self.main_with,
            ("main", "baseline"): self.main_base,
            ("pr", "with_skill"): self.pr_with,
            ("pr", "baseline"): self.pr_base,
        }[(run, arm)]


def _seed(*key: object) -> int:
    return int.from_bytes(hashlib.blake2b(repr(key).encode(), digest_size=8).digest(), "big")


def _stream(truth: ArmTruth, key: tuple[object, ...], samples: int) -> list[float]:
    """A draw's judge samples, from one stream seeded by the draw's key: its quality first, then each sample."""
    rng = random.Random(_seed(*key))
    if truth.shape == "slips" and rng.random() < 0.1:
        q = rng.uniform(0.0, 0.05)
    else:
        q = truth.mean + rng.gauss(0.0, truth.sd)
    if truth.shape == "binary":
        p = min(1.0, max(0.0, q))
        return [1.0 if rng.random() < p else 0.0 for _ in range(samples)]
    return [min(1.0, max(0.0, round(rng.gauss(q, JUDGE_SD) / GRID) * GRID)) for _ in range(samples)]


def sample_score(truth: ArmTruth, key: tuple[object, ...], sample: int, samples: int = 5) -> float:
    """Judge sample ``sample`` of the draw ``key``: on the 0.05 grid, or 0/1 for a binary judge."""
    return _stream(truth, key, samples)[sample]


def draw_score(truth: ArmTruth, key: tuple[object, ...], samples: int) -> float:
    """A draw's score: the mean of its judge samples (every sample is valid here), as ``measured_draw`` takes it."""
    return mean(_stream(truth, key, samples))


def is_lost(case: CaseTruth, run: str, arm: str, index: int) -> bool:
    return case.lose_first_pr_with and run == "pr" and arm == "with_skill" and index == 0


# --- the core engine ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseResult:
    """One case of one pair: the diff's verdict and the draws each arm made."""

    verdict: CaseVerdict
    draws: Mapping[tuple[str, str], int]
    """(run, arm) -> draws made (measured, lost and replaced); a carried arm counts its carried draws too."""
    lift: CaseVerdict = CaseVerdict.INCONCLUSIVE
    """The pull request's receipt read alone: its with-skill arm against its baseline arm (R-1 … R-6)."""
    main_lift: CaseVerdict = CaseVerdict.INCONCLUSIVE
    """Main's receipt read alone, the same way."""


def _draw_arms(
    rule: StoppingRule,
    case: CaseTruth,
    key: tuple[object, ...],
    run: str,
    samples: int,
    reference: ArmEvidence | None,
    today: bool,
    carried: Sequence[tuple[float | None, bool]] = (),
) -> dict[str, list[tuple[float | None, bool]]]:
    """One run of one case, round by round as the runner draws it: arm -> [(score or None, failed call)].

    ``carried``: the baseline draws carried from the reference, fixed draws the rule reads first; it draws only
    what it wants beyond them (indices continue after them, as the runner numbers them)."""
    made: dict[str, list[tuple[float | None, bool]]] = {"with_skill": [], "baseline": list(carried)}
    while True:
        w, b = (arm_draws(made[a]) for a in ("with_skill", "baseline"))
        if today:  # before issue 9: the within-receipt rule alone, lost draws only counted
            decision = more_draws(
                rule, w.scores, b.scores, lost_with=w.made - len(w.scores), lost_baseline=b.made - len(b.scores)
            )
        else:
            decision = next_draws(rule, CaseDraws(w, b, reference))
        if decision.stop:
            return made
        for arm, add in (("with_skill", decision.add_with), ("baseline", decision.add_baseline)):
            for index in range(len(made[arm]), len(made[arm]) + add):
                if is_lost(case, run, arm, index):
                    made[arm].append((None, True))
                else:
                    made[arm].append((draw_score(case.arm(run, arm), (*key, run, arm, index), samples), False))


def _evidence(draws: Sequence[tuple[float | None, bool]], today: bool) -> ArmEvidence:
    arm = arm_draws(draws)
    if today:  # no replacement: every lost draw stays lost
        return ArmEvidence(arm.scores, arm.lost + arm.replaced)
    return arm.evidence()


def core_case(
    case: CaseTruth, key: tuple[object, ...], *, samples: int = 5, today: bool = False, carry: bool = False
) -> CaseResult:
    """The Action's question for one case on the fast engine; ``carry``: the PR carries main's baseline arm
    (the Action's default since issue 14, ``carry-baseline: true``), else draws it (``--no-carry-baseline``)."""
    main_rule = rule_for(3, 10) if today else reference_rule(3, 10)
    main = _draw_arms(main_rule, case, key, "main", samples, None, today)
    reference = None if today else _evidence(main["with_skill"], today)
    carried = main["baseline"] if carry else ()
    pr = _draw_arms(rule_for(3, 10), case, key, "pr", samples, reference, today, carried)
    new, ref = _evidence(pr["with_skill"], today), _evidence(main["with_skill"], today)
    verdict = compare(new, ref).verdict if today else compare_between(new, ref).verdict
    draws = {(run, arm): len(made[arm]) for run, made in (("main", main), ("pr", pr)) for arm in made}
    lift = compare(new, _evidence(pr["baseline"], today)).verdict
    return CaseResult(verdict, draws, lift, compare(ref, _evidence(main["baseline"], today)).verdict)


# --- the tool engine ---------------------------------------------------------------------------------------


def _named(model: str) -> dict[str, Any]:
    """A reply that names its model, as an API reply does (an anonymous judge reply keeps a receipt from TESTED,
    and an untested reference is not drawn against)."""
    return {"reported_model": model, "model_source": "reported", "served_model": model, "reported_ids": (model,)}


class SimLane(Lane):
    """Answers and judge replies from the score model: the answer names its draw, the judge scores that draw."""

    provider = "anthropic"
    surface = "api"

    def __init__(self, cases: Mapping[str, CaseTruth], key: tuple[object, ...], run: str, samples: int) -> None:
        self._cases, self._key, self._run, self._samples = cases, key, run, samples

    def generate(self, request: GenerationRequest) -> Generation:
        case = self._cases[request.case_id]
        if request.purpose == "answer" and is_lost(case, self._run, request.arm, request.draw_index):
            failure = AttemptFailure(
                retryable=True, reason="timed out after 120s", timed_out=True, kind=FailureKind.TIMEOUT
            )
            return Generation(text="", error="timed out after 120s", timed_out=True, failure=failure)
        if request.purpose == "answer":
            return Generation(text=f"draw {request.draw_index}", **_named("sim-model"))
        key = (*self._key, request.case_id, self._run, request.arm, request.draw_index)
        score = sample_score(case.arm(self._run, request.arm), key, request.sample_index, self._samples)
        return Generation(text=json.dumps({"score": score, "reason": "simulated"}), **_named("claude-haiku-4-5"))

    def default_model(self) -> str:
        return "sim-model"


def tool_pair(
    cases: Mapping[str, CaseTruth], key: tuple[object, ...], workdir: Path, samples: int = 5, carry: bool = False
) -> dict[str, CaseResult]:
    """The Action's question for one pair through ``run_suite`` and ``diff``, with `SimLane` answering."""
    import yaml

    from driftproof import run as rs
    from driftproof.core.diff import diff
    from driftproof.receipts import load_receipt

    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "SKILL.md").write_text("Simulated skill.\n", encoding="utf-8")
    suite = {"skill": "SKILL.md", "cases": [{"id": cid, "prompt": f"Task {cid}.", "rubric": "good"} for cid in cases]}
    (workdir / "suite.yaml").write_text(yaml.safe_dump(suite), encoding="utf-8")
    real = rs.make_lanes
    out = {}
    try:
        for run in RUNS:
            lanes = (SimLane(cases, (*key, run), run, samples), SimLane(cases, key, run, samples), "claude-haiku-4-5")
            rs.make_lanes = lambda _req, lanes=lanes: lanes  # type: ignore[assignment]
            request = rs.RunRequest(
                suite=workdir / "suite.yaml",
                out=workdir / f"{run}.json",
                judge_samples=samples,
                as_reference=run == "main",
                reference=workdir / "main.json" if run == "pr" else None,
                carry_baseline=carry,
                environ={},
            )
            rs.run_suite(request, progress_stream=_Null())
            out[run] = load_receipt(workdir / f"{run}.json")
    finally:
        rs.make_lanes = real  # type: ignore[assignment]
    result = diff(out["main"], out["pr"])
    by_id = {run: {x.id: x for x in out[run].cases} for run in RUNS}
    return {
        c.id: CaseResult(
            c.comparison.verdict,
            {(run, arm): len(getattr(by_id[run][c.id], arm).draws) for run in RUNS for arm in ARMS},
            *(_own_verdict(by_id[r][c.id]) for r in ("pr", "main")),
        )
        for c in result.cases
    }


def _own_verdict(case: Case) -> CaseVerdict:
    """A case of a receipt read alone: its with-skill arm against its baseline arm."""
    from driftproof.core.reading import evidence

    return compare(evidence(case.with_skill), evidence(case.baseline)).verdict


class _Null:
    def write(self, _text: str) -> int:
        return 0

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False
