"""``driftproof merge`` of shard receipts with judge-anchor canaries and pairwise judging (issue 14 × issue 15).

The suite has two cases; ranked by sha256 of their ids, c (2e7d…) then a (ca97…), so ``--shard 1/2`` runs c and
``--shard 2/2`` runs a. Each shard judges the same two canaries, ``good`` (expected 0.9) and ``own`` (expected
1.0), 2 judge samples each; a stub script per shard fixes the scores.
"""

from __future__ import annotations

from math import isclose
from pathlib import Path

import pytest
import yaml

from driftproof.cli import main
from driftproof.core.shards import merge_refusal
from driftproof.receipts import load_receipt

CANARIES = [
    {"id": "good", "prompt": "Say hello.", "rubric": "Says hello.", "answer": "hello", "expected": 0.9},
    {"id": "own", "prompt": "Say hi.", "rubric": "Says hi.", "answer": "hi", "expected": 1.0},
]
FAST = ["--provider", "stub", "--draws", "3", "--max-draws", "3", "--judge-samples", "2"]


def write(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text("Be brief.", encoding="utf-8")
    cases = [{"id": c, "prompt": f"Task {c}.", "rubric": f"good {c}"} for c in ("a", "c")]
    body = {"skill": "SKILL.md", "cases": cases, "canaries": CANARIES}
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    return tmp_path / "suite.yaml"


def script(tmp_path: Path, name: str, anchors: dict[str, list[float]]) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"canaries": {k: {"scores": v} for k, v in anchors.items()}}), encoding="utf-8")
    return path


def shard(suite: Path, out: Path, index: int, *extra: str) -> None:
    assert main(["run", str(suite), *FAST, "--shard", f"{index}/2", "-o", str(out), *extra]) == 0


def test_merge_pools_the_shards_canary_scores_and_sums_their_cost_and_the_pairwise_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = write(tmp_path)
    one, two, merged = tmp_path / "s1.json", tmp_path / "s2.json", tmp_path / "merged.json"
    # shard 1: good 0.9, 0.8 (mean 0.85, |−0.05|); own unscripted, as pre-graded: 1.0, 1.0 → MAD 0.025, held
    shard(suite, one, 1, "--judge-mode", "pairwise", "--script", str(script(tmp_path, "1.yaml", {"good": [0.9, 0.8]})))
    # shard 2: good 0.6, 0.7 (mean 0.65, |−0.25|); own 0.8, 0.8 (|−0.2|) → MAD 0.225, drifted
    anchors = {"good": [0.6, 0.7], "own": [0.8]}
    shard(suite, two, 2, "--judge-mode", "pairwise", "--script", str(script(tmp_path, "2.yaml", anchors)))
    first, second = load_receipt(one), load_receipt(two)
    assert first.canaries is not None and first.canaries.judge_drifted is False
    assert second.canaries is not None and second.canaries.judge_drifted is True
    assert main(["merge", str(two), str(one), "-o", str(merged)]) == 0
    capsys.readouterr()
    receipt = load_receipt(merged)
    pooled = receipt.canaries
    assert pooled is not None and pooled.set_sha256 == first.canaries.set_sha256
    assert [(c.id, c.scores) for c in pooled.canaries] == [
        ("good", [0.9, 0.8, 0.6, 0.7]),
        ("own", [1.0, 1.0, 0.8, 0.8]),
    ]
    # good: mean 3.0 / 4 = 0.75, |0.75 − 0.9| = 0.15; own: 3.6 / 4 = 0.9, |0.9 − 1.0| = 0.1
    assert isclose(pooled.canaries[0].mean or 0, 0.75, abs_tol=1e-12)
    assert isclose(pooled.canaries[1].mean or 0, 0.9, abs_tol=1e-12)
    # MAD (0.15 + 0.1) / 2 = 0.125 > 0.10: drifted; signed (−0.15 − 0.1) / 2 = −0.125
    assert isclose(pooled.mean_abs_deviation or 0, 0.125, abs_tol=1e-12)
    assert isclose(pooled.mean_difference or 0, -0.125, abs_tol=1e-12)
    assert pooled.judge_drifted is True and pooled.scored == 2
    assert pooled.judge_samples == 4  # 2 shards × 2 judge samples per canary
    assert pooled.sentence == (
        "judge drifted: the canaries' mean absolute deviation from their expected scores is 0.125 (tolerance 0.10; "
        "mean difference -0.125; 2 canaries × 4 judge samples)"
    )
    overhead = receipt.economics.judge_overhead
    assert overhead.canaries is not None and overhead.canaries.judge_calls == 8  # 2 × (2 canaries × 2 samples)
    assert overhead.canaries.cost_usd == 0.0  # the stub judge's price
    # each shard: 1 case × 3 pairs × 2 calls = 6
    assert (first.economics.judge_overhead.pairwise_calls, overhead.pairwise_calls) == (6, 12)
    summary = receipt.pairwise_summary
    assert summary is not None and (summary.pairs, summary.complete) == (6, 6)
    assert summary.with_skill_preferred == sum(
        r.pairwise_summary.with_skill_preferred for r in (first, second) if r.pairwise_summary is not None
    )


def refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        (["--no-canaries"], "canaries.source"),
        (["--judge-samples", "3"], "run.settings.judge_samples"),  # SAME refuses the setting before the canaries
    ],
)
def test_merge_refuses_shards_whose_canaries_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], field: str
) -> None:
    suite = write(tmp_path)
    shard(suite, tmp_path / "s1.json", 1)
    shard(suite, tmp_path / "s2.json", 2, *extra)
    out = tmp_path / "m.json"
    err = refusal(capsys, "merge", str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "-o", str(out))
    assert err.startswith(f"driftproof: error: {tmp_path / 's2.json'}: {field}: "), err
    assert not out.exists()


def test_merge_refuses_shards_that_judged_another_canary_set(tmp_path: Path) -> None:
    suite = write(tmp_path)
    shard(suite, tmp_path / "s1.json", 1)
    shard(suite, tmp_path / "s2.json", 2)
    first, second = load_receipt(tmp_path / "s1.json"), load_receipt(tmp_path / "s2.json")
    assert first.canaries is not None and second.canaries is not None
    assert merge_refusal([("s1.json", first), ("s2.json", second)]) is None
    other = second.model_copy(update={"canaries": second.canaries.model_copy(update={"set_sha256": "f" * 64})})
    why = merge_refusal([("s1.json", first), ("s2.json", other)])
    assert why is not None and why.startswith("s2.json: canaries.set_sha256: "), why
