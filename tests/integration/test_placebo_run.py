"""``--placebo`` end to end on the stub lane: plan, run, view, diff, badge, merge, carry and the refusals.

The suite has two cases whose stub script fixes every draw: with_skill scores 0.80, 0.85, 0.90 (mean 0.85,
sd 0.05), baseline 0.50, 0.55, 0.60 (mean 0.55) and placebo 0.75, 0.80, 0.85 (mean 0.80) in case ``a``, placebo
0.50, 0.55, 0.60 (the baseline's) in case ``b``. Lift vs no skill: (0.30 + 0.30) / 2 = 0.30; lift vs more
context: (0.05 + 0.30) / 2 = 0.175. The stub reads UNVERIFIED, so neither pair gets a verdict, and the lifts stay.
"""

from __future__ import annotations

import json
from math import isclose
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.cli import main
from driftproof.core.economics import estimate_tokens
from driftproof.core.placebo import placebo_text
from driftproof.core.seal import sha256_text

SKILL = "Write the subject in the imperative, under 72 characters, and say why in the body.\n" * 5


def scores(*values: float) -> list[dict[str, Any]]:
    return [{"answer": f"answer {v}", "scores": [v]} for v in values]


def write_suite(where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "SKILL.md").write_text(SKILL, encoding="utf-8")
    cases = [{"id": c, "prompt": f"Task {c}.", "rubric": f"good {c}"} for c in ("a", "b")]
    (where / "suite.yaml").write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    with_skill, baseline = scores(0.80, 0.85, 0.90), scores(0.50, 0.55, 0.60)
    script = {
        "cases": {
            "a": {"with_skill": with_skill, "baseline": baseline, "placebo": scores(0.75, 0.80, 0.85)},
            "b": {"with_skill": with_skill, "baseline": baseline, "placebo": baseline},
        }
    }
    (where / "script.yaml").write_text(yaml.safe_dump(script), encoding="utf-8")
    return where / "suite.yaml"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "s")


def run(suite: Path, out: Path, *extra: str) -> dict[str, Any]:
    script = str(suite.parent / "script.yaml")
    argv = ["run", str(suite), "--provider", "stub", "--script", script, "--draws", "3", "--max-draws", "3"]
    assert main([*argv, "-o", str(out), *extra]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_plan_counts_the_third_arm(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["plan", str(suite), "--provider", "stub", "--draws", "3", "--max-draws", "10", "--format", "json"]
    capsys.readouterr()
    assert main(base) == 0
    two = json.loads(capsys.readouterr().out)
    assert main([*base, "--placebo"]) == 0
    three = json.loads(capsys.readouterr().out)
    # 2 cases × 2 arms × 3…10 draws × (1 answer + 5 samples) = 72…240; a third arm: 2 × 3 × 3…10 × 6 = 108…360
    assert two["total"]["calls"] == {"min": 72, "max": 240}
    assert three["total"]["calls"] == {"min": 108, "max": 360}
    assert three["settings"]["arms"] == ["with_skill", "baseline", "placebo"]
    assert three["total"]["draws"]["placebo"] == {"min": 6, "max": 20}
    assert main(["plan", str(suite), "--provider", "stub", "--placebo"]) == 0
    assert "plan: 2 cases × 3 arms × 3 to 10 draws" in capsys.readouterr().out


def test_a_placebo_run_records_the_text_by_hash_and_reads_both_lifts(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = run(suite, tmp_path / "r.json", "--placebo")
    tokens = estimate_tokens(SKILL)  # 83 chars × 5 = 415 → ceil(415 / 4) = 104
    assert tokens == 104 == doc["skill"]["tokens"]
    assert doc["placebo"] == {
        "sha256": sha256_text(placebo_text(104)),
        "tokens": 104,
        "chars": 416,
        "generator": "placebo-v1",
    }
    assert [len(c["placebo"]["draws"]) for c in doc["cases"]] == [3, 3]  # level with the with-skill arm
    # 2 cases × 3 arms × 3 draws × (1 answer + 5 judge samples) = 108 calls
    assert doc["run"]["logical_calls"] == 108
    assert doc["economics"]["generation"]["placebo"] is not None

    capsys.readouterr()
    assert main(["view", str(tmp_path / "r.json"), "--format", "json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert isclose(view["lift"], 0.30, abs_tol=1e-9)  # (0.85 − 0.55 + 0.85 − 0.55) / 2
    placebo = view["placebo"]
    assert isclose(placebo["lift_vs_more_context"], 0.175, abs_tol=1e-9)  # ((0.85 − 0.80) + (0.85 − 0.55)) / 2
    assert [round(c["lift_vs_more_context"], 9) for c in placebo["cases"]] == [0.05, 0.3]
    assert placebo["status"] == "no_verdict" and {c["verdict"] for c in placebo["cases"]} == {None}

    assert main(["view", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "**Lift vs more context (placebo)**" in out
    assert "| `a` | 0.85 ± 0.05 (3/3) | 0.55 ± 0.05 (3/3) | 0.80 ± 0.05 (3/3) | +0.30 | no verdict | +0.05 |" in out
    assert "| overall | | | | +0.300 | no verdict | +0.175 | no verdict |" in out

    assert main(["badge", str(tmp_path / "r.json")]) == 0
    badge = json.loads(capsys.readouterr().out)
    assert badge["message"] == "no verdict · lift +0.30"  # the headline pair: lift vs no skill
    assert main(["validate", str(tmp_path / "r.json")]) == 0


def test_diff_says_when_only_one_receipt_has_a_placebo_arm(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain, placebo = tmp_path / "plain.json", tmp_path / "placebo.json"
    run(suite, plain)
    run(suite, placebo, "--placebo")
    capsys.readouterr()
    assert main(["diff", str(plain), str(placebo)]) == 0
    out = capsys.readouterr().out
    assert "Only after has a placebo arm (before was run without --placebo)" in out
    assert "**Lift vs more context (placebo) · after**" in out
    assert main(["diff", str(placebo), str(plain), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["placebo"]["note"].startswith("Only before has a placebo arm")
    assert doc["placebo"]["after"] is None and doc["placebo"]["before"]["tokens"] == 104
    # the comparison itself is the with-skill arms', as without --placebo: same scores, no case moved
    assert doc["counts"]["improved"] == doc["counts"]["regressed"] == 0
    assert main(["diff", str(plain), str(plain), "--format", "json"]) == 0
    assert "placebo" not in json.loads(capsys.readouterr().out)  # neither has one: the document as it always was


def test_carried_baseline_keeps_working_with_a_placebo_arm(suite: Path, tmp_path: Path) -> None:
    before = run(suite, tmp_path / "before.json", "--placebo")
    after = run(suite, tmp_path / "after.json", "--placebo", "--reference", str(tmp_path / "before.json"))
    seal = before["seal"]["sha256"]
    for case in after["cases"]:
        assert {d["carried_from"] for d in case["baseline"]["draws"]} == {seal}  # the baseline was carried
        assert [d["carried_from"] for d in case["placebo"]["draws"]] == [None, None, None]  # the placebo drawn
        assert len(case["placebo"]["draws"]) == len(case["with_skill"]["draws"])


def test_merge_requires_every_shard_to_agree_on_the_placebo(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = tmp_path / "1.json", tmp_path / "2.json"
    run(suite, one, "--shard", "1/2", "--placebo")
    run(suite, two, "--shard", "2/2")
    capsys.readouterr()
    assert main(["merge", str(one), str(two), "-o", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{two}: placebo:" in err, err
    run(suite, two, "--shard", "2/2", "--placebo")
    assert main(["merge", str(one), str(two), "-o", str(tmp_path / "m.json")]) == 0
    merged = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert merged["placebo"]["tokens"] == 104 and all(c["placebo"] for c in merged["cases"])


def test_regrade_refuses_a_placebo_receipt_in_one_line(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(suite, tmp_path / "r.json", "--placebo", "--keep-transcripts")
    capsys.readouterr()
    answers = tmp_path / "r.answers.jsonl"
    assert main(["regrade", str(tmp_path / "r.json"), "--answers", str(answers), "--judge-provider", "stub"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "placebo: regrade refused: a receipt drawn with --placebo has a third arm" in err
