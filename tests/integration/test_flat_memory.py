"""Issue 14: memory stays flat in the number of draws. A finished draw's answer and judge replies go to the journal
and the answers archive, not into `Runner.results`; the archive is still in index order, whatever order calls
came back in."""

from __future__ import annotations

import io
import json
from pathlib import Path

import yaml

from driftproof.core.seal import sha256_text
from driftproof.run import RunRequest, run_suite


def _suite(tmp_path: Path, cases: int) -> Path:
    (tmp_path / "SKILL.md").write_text("# Skill\n\nWrite conventional commits.\n", encoding="utf-8")
    rows = [{"id": f"c{i}", "prompt": f"task {i}", "rubric": "good"} for i in range(cases)]
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"name": "mem", "skill": "SKILL.md", "cases": rows}), encoding="utf-8")
    return suite


def test_a_full_run_keeps_no_answer_text_in_memory_and_archives_every_draw_in_index_order(tmp_path: Path) -> None:
    request = RunRequest(
        suite=_suite(tmp_path, 3), provider="stub", draws=3, max_draws=3, judge_samples=2, concurrency=8,
        keep_transcripts=True, out=tmp_path / "r.json",
    )  # fmt: skip
    outcome = run_suite(request, progress_stream=io.StringIO())
    results = [r for case in outcome.runner.results for arm in case.values() for r in arm.values()]
    assert len(results) == 3 * 2 * 3  # 3 cases x 2 arms x 3 draws = 18
    assert all(r.answer is None and r.judge_replies == [] for r in results)
    archive = tmp_path / "r.answers.jsonl"
    text = archive.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines()]
    order = [(line["case"], line["arm"], line["index"]) for line in lines]
    assert order == [(f"c{c}", arm, i) for c in range(3) for arm in ("with_skill", "baseline") for i in range(3)]
    assert lines[0]["answer"] == "Stub answer to c0, with the skill, draw 1."
    assert all(len(line["judge_replies"]) == 2 for line in lines)
    assert outcome.receipt.transcripts is not None
    assert outcome.receipt.transcripts.sha256 == sha256_text(text)


def test_the_quick_preset_keeps_its_answers_to_show_them(tmp_path: Path) -> None:
    request = RunRequest(suite=_suite(tmp_path, 2), provider="stub", quick=True, out=tmp_path / "q.json")
    outcome = run_suite(request, progress_stream=io.StringIO())
    results = outcome.runner.results[0]["with_skill"]
    assert [r.answer for _, r in sorted(results.items())] == [
        "Stub answer to c0, with the skill, draw 1.",
        "Stub answer to c0, with the skill, draw 2.",
    ]
