"""The job summary's short forms of what the view and the comparison report show (issue 15): the judge-anchors
line, the placebo arm's two overall lifts, and the pairwise line; none of them without its feature."""

from __future__ import annotations

from pathlib import Path

import yaml

from driftproof.core.decision import decide
from driftproof.core.reading import read_receipt
from driftproof.render import render_summary
from driftproof.run import RunRequest, run_suite

SKILL = "Use conventional commits.\n"


def summary(tmp_path: Path, **kw: object) -> str:
    (tmp_path / "SKILL.md").write_text(SKILL, encoding="utf-8")
    body = {
        "skill": "SKILL.md",
        "cases": [{"id": "a", "prompt": "Write a.", "rubric": "Good a."}],
        "canaries": [{"id": "good", "case": "a", "answer": "a", "expected": 0.9}],
    }
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    base: dict[str, object] = {"draws": 3, "max_draws": 3, "judge_samples": 2, "concurrency": 1}
    request = RunRequest(suite=tmp_path / "suite.yaml", provider="stub", out=tmp_path / "r.json", **{**base, **kw})
    receipt = run_suite(request).receipt
    reading = read_receipt(receipt)
    return render_summary(receipt, reading, decide(reading, None))


def test_the_summary_shows_the_anchors_the_placebo_lifts_and_the_pairwise_line(tmp_path: Path) -> None:
    text = summary(tmp_path, placebo=True, judge_mode="pairwise")
    lines = text.splitlines()
    # the stub judge scores the anchor as pre-graded: 0.9 twice, |0.9 − 0.9| = 0
    assert (
        "Judge anchors: judge held: the canaries' mean absolute deviation from their expected scores is 0.000 "
        "(tolerance 0.10; mean difference +0.000; 1 canaries × 2 judge samples)"
    ) in lines
    head = lines.index("**Lift vs more context (placebo)**")
    # stub scores: with skill 0.45, 0.475, 0.35 (mean 0.425); baseline 0.275, 0.25, 0.375 (0.3); placebo 0.3,
    # 0.325, 0.4 (0.341667): lift vs no skill 0.425 − 0.3 = +0.125, vs more context 0.425 − 0.341667 = +0.083
    assert lines[head + 2 : head + 6] == [
        "| | lift | status |",
        "|---|---|---|",
        "| vs no skill | +0.125 | no verdict |",
        "| vs more context | +0.083 | no verdict |",
    ]
    # 3 pairs, the stub judge preferring the with-skill answer in both orders
    assert (
        "**Pairwise judge (beside the scores, never in the verdict)**: with-skill preferred in 3 of 3 pairs; "
        "positions disagreed in 0 of 3"
    ) in lines


def test_the_summary_shows_none_of_them_without_their_feature(tmp_path: Path) -> None:
    text = summary(tmp_path, canaries=False)
    assert "Judge anchors" not in text and "placebo" not in text and "Pairwise" not in text
