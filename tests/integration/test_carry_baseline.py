"""Carrying the standing baseline (issue 14), end to end on the stub lane: a run given ``--reference`` reuses the
baseline arms ``driftproof stale`` says stand, draws the rest, and draws only the difference the stopping rule
asks beyond what it carried; ``--no-carry-baseline`` draws everything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.cli import main
from driftproof.core.seal import seal_receipt
from driftproof.receipts import load_receipt, write_receipt

# 3 to 3 draws per arm, 1 judge sample each: every draw is 2 calls (1 answer + 1 judge sample).
FAST = ["--provider", "stub", "--draws", "3", "--max-draws", "3", "--judge-samples", "1"]


def _suite(tmp_path: Path, prompts: dict[str, str] | None = None) -> Path:
    suite = tmp_path / "suite.yaml"
    prompts = prompts or {}
    cases = [{"id": c, "prompt": prompts.get(c, f"Write {c}."), "rubric": "Good."} for c in "ab"]
    suite.write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    return suite


@pytest.fixture
def main_receipt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The default branch's receipt: 2 cases × 2 arms × 3 draws × 2 calls = 24 calls."""
    (tmp_path / "SKILL.md").write_text("# Skill\nWrite well.\n", encoding="utf-8")
    out = tmp_path / "main.json"
    assert main(["run", str(_suite(tmp_path)), *FAST, "-o", str(out)]) == 0
    capsys.readouterr()
    assert load_receipt(out).run.logical_calls == 24
    return out


def _pr(tmp_path: Path, reference: Path, *extra: str) -> tuple[dict[str, Any], str]:
    out = tmp_path / "pr.json"
    (tmp_path / "SKILL.md").write_text("# Skill\nWrite well, and briefly.\n", encoding="utf-8")  # only the skill
    assert (
        main(["run", str(tmp_path / "suite.yaml"), *FAST, "--reference", str(reference), "-o", str(out), *extra]) == 0
    )
    return json.loads(out.read_text(encoding="utf-8")), str(out)


def test_a_skill_only_pr_carries_every_baseline_arm_and_draws_only_the_with_skill_arms(
    tmp_path: Path, main_receipt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = load_receipt(main_receipt)
    doc, _ = _pr(tmp_path, main_receipt)
    err = capsys.readouterr()
    seal = before.seal.sha256
    # 2 cases × with_skill only × 3 draws × 2 calls = 12 calls (24 without carrying)
    assert doc["run"]["logical_calls"] == 12
    for case, old in zip(doc["cases"], before.cases, strict=True):
        carried = case["baseline"]["draws"]
        assert [d["carried_from"] for d in carried] == [seal] * 3
        # the draws keep their original seal evidence: everything but carried_from is the source's
        assert [{k: v for k, v in d.items() if k != "carried_from"} for d in carried] == [
            {k: v for k, v in d.model_dump(mode="json").items() if k != "carried_from"} for d in old.baseline.draws
        ]
        assert all(d["carried_from"] is None for d in case["with_skill"]["draws"])
    assert (
        f"driftproof: carry: baseline carried from {main_receipt} ({seal[:12]}) for 2 of 2 cases (6 draws)" in err.err
    )
    # 2 cases × 2 arms × 3 draws, less the 2 carried arms' 3 draws, × 2 calls = 12
    assert (
        "plan: 2 cases × 2 arms × 3 draws × (1 answer + 1 judge sample) (carried per case, not drawn: baseline 3)"
        in (err.err)
    )
    assert "done: 12/12 calls" in err.err  # the progress total leaves the carried draws out too
    assert "at least 12, at most 12 calls" in err.err
    assert f"baseline carried from {main_receipt} ({seal[:12]}) for 2 of 2 cases: 6 draws reused, 0 drawn" in err.out


def test_no_carry_baseline_draws_both_arms(
    tmp_path: Path, main_receipt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = _pr(tmp_path, main_receipt, "--no-carry-baseline")
    assert doc["run"]["logical_calls"] == 24
    assert all(d["carried_from"] is None for c in doc["cases"] for d in c["baseline"]["draws"])
    assert "carry" not in capsys.readouterr().err


def test_a_changed_prompt_draws_that_case_baseline_and_carries_the_other(
    tmp_path: Path, main_receipt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _suite(tmp_path, {"b": "Write b, in French."})
    doc, _ = _pr(tmp_path, main_receipt)
    err = capsys.readouterr().err
    seal = load_receipt(main_receipt).seal.sha256
    a, b = doc["cases"]
    assert [d["carried_from"] for d in a["baseline"]["draws"]] == [seal] * 3
    assert [d["carried_from"] for d in b["baseline"]["draws"]] == [None] * 3
    # with_skill 2 × 3 draws + b's baseline 3 draws = 9 draws × 2 calls = 18
    assert doc["run"]["logical_calls"] == 18
    assert "for 1 of 2 cases (3 draws); the rest are drawn" in err
    assert "driftproof: carry: 1 of 2 cases need their baseline drawn (prompt changed:" in err


def test_the_stopping_rule_draws_only_the_difference(
    tmp_path: Path, main_receipt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A carried arm with 2 of the 3 draws the rule asks for: the run draws 1 more, at index 2."""
    doc = load_receipt(main_receipt).model_dump(mode="json", by_alias=True)
    doc["cases"][0]["baseline"]["draws"] = doc["cases"][0]["baseline"]["draws"][:2]
    body = {k: v for k, v in doc.items() if k not in ("seal", "schema_version")}
    thin = write_receipt(seal_receipt(body), tmp_path / "thin.json")
    pr, _ = _pr(tmp_path, thin)
    capsys.readouterr()
    seal = load_receipt(thin).seal.sha256
    draws = pr["cases"][0]["baseline"]["draws"]
    assert [(d["index"], d["carried_from"]) for d in draws] == [(0, seal), (1, seal), (2, None)]
    # with_skill 2 × 3 draws + 1 baseline draw = 7 draws × 2 calls = 14
    assert pr["run"]["logical_calls"] == 14


def test_the_diff_report_says_where_the_baseline_came_from(
    tmp_path: Path, main_receipt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, pr = _pr(tmp_path, main_receipt)
    capsys.readouterr()
    assert main(["diff", str(main_receipt), pr, "--format", "markdown"]) in (0, 1)
    seal = load_receipt(main_receipt).seal.sha256
    assert f"baseline carried from before ({seal[:12]}) for 2 of 2 cases: 6 draws reused, 0 drawn" in (
        capsys.readouterr().out
    )


def test_plan_with_a_reference_counts_per_case_what_the_run_carries(
    tmp_path: Path, main_receipt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 14 (probe #4, #10): `plan --reference` planned both arms drawn, and a run that carried some cases only
    planned none carried. Both now ask what the run carries (`run.carry_of`) and count it per case."""
    _suite(tmp_path, {"b": "Write b, in French."})  # b's prompt changed: b's baseline is drawn, a's carried
    (tmp_path / "SKILL.md").write_text("# Skill\nWrite well, and briefly.\n", encoding="utf-8")
    suite = str(tmp_path / "suite.yaml")
    assert main(["plan", suite, *FAST, "--reference", str(main_receipt)]) == 0
    planned = capsys.readouterr().out.splitlines()
    doc, _ = _pr(tmp_path, main_receipt)
    printed = capsys.readouterr().err.splitlines()
    seal = load_receipt(main_receipt).seal.sha256
    # a: its with-skill arm, 3 draws (its baseline's 3 carried); b: both arms, 3 each: 9 draws × (1 answer + 1 judge
    # sample) = 18 calls, at least and at most (3 to 3 draws); 24 with nothing carried
    head = (
        "plan: 2 cases × 2 arms × 3 draws × (1 answer + 1 judge sample) (carried per case, not drawn: baseline 3 "
        "in 1 of 2 cases): at least 18, at most 18 calls"
    )
    carried = f"driftproof: carry: baseline carried from {main_receipt} ({seal[:12]}) for 1 of 2 cases (3 draws)"
    assert planned[0].startswith(carried) and planned[2] == head
    assert planned[0] in printed and planned[1] in printed and head in printed  # the lines the run prints first
    assert planned[3].startswith("  a: 6 calls") and planned[4].startswith("  b: 12 calls")
    assert doc["run"]["logical_calls"] == 18
    assert main(["plan", suite, *FAST, "--reference", str(main_receipt), "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert [c["carried"] for c in plan["cases"]] == [{"with_skill": 0, "baseline": 3}, {"with_skill": 0, "baseline": 0}]
    assert plan["settings"]["carried"] == {"with_skill": 0, "baseline": None}  # not the same in every case
    assert plan["total"]["calls"] == {"min": 18, "max": 18}
    # --no-carry-baseline plans both arms drawn, and builds no lane to ask
    assert main(["plan", suite, *FAST, "--reference", str(main_receipt), "--no-carry-baseline"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("at least 24, at most 24 calls")


def test_view_says_the_baseline_was_carried_and_the_drawn_count_is_every_baseline_draw_made(
    tmp_path: Path, main_receipt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 14 (probe #14): `view` never said a baseline was carried, and "0 drawn" left out the baseline draws of
    the cases that carried nothing."""
    _suite(tmp_path, {"b": "Write b, in French."})
    _, pr = _pr(tmp_path, main_receipt)
    err = capsys.readouterr().out
    seal = load_receipt(main_receipt).seal.sha256
    # a's 3 baseline draws reused; b's baseline drawn: 3 draws
    assert "for 1 of 2 cases: 3 draws reused, 3 drawn" in err
    assert main(["view", pr]) == 0
    assert f"baseline carried from its reference ({seal[:12]}) for 1 of 2 cases: 3 draws reused, 3 drawn" in (
        capsys.readouterr().out
    )


def test_plan_with_a_reference_and_no_key_says_why_it_builds_the_lanes(
    tmp_path: Path, main_receipt: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    suite = str(tmp_path / "suite.yaml")
    flags = ["--draws", "3", "--max-draws", "3", "--judge-samples", "1", "--reference", str(main_receipt)]
    assert main(["plan", suite, "--model", "claude-sonnet-4-6", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("driftproof: error: --reference: to count the baseline a run would carry, plan builds")
    assert err.rstrip().endswith("or add --no-carry-baseline to plan both arms drawn")
    assert main(["plan", suite, "--model", "claude-sonnet-4-6", *flags, "--no-carry-baseline"]) == 0
