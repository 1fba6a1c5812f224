"""Issue 14: memory stays flat in the number of draws. A finished draw's answer and judge replies go to the journal
and the answers archive, not into `Runner.results`; the archive is still in index order, whatever order calls
came back in."""

from __future__ import annotations

import io
import json
import threading
from collections import Counter
from pathlib import Path

import pytest
import yaml

import driftproof.run as rs
from driftproof import runner
from driftproof.core.seal import sha256_text
from driftproof.lanes.base import Generation, GenerationRequest
from driftproof.lanes.stub import StubLane
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


class _UnderWay(StubLane):
    """The stub lane, counting the draws under way: answers given whose judge samples are not all given yet."""

    def __init__(self, samples: int) -> None:
        super().__init__()
        self.samples, self.judged, self.most = samples, Counter[tuple[str, str, int]](), 0
        self.lock = threading.Lock()

    def generate(self, request: GenerationRequest) -> Generation:
        key = (request.case_id, request.arm, request.draw_index)
        with self.lock:
            if request.purpose == "judge":
                self.judged[key] += request.samples
            else:
                self.judged[key] += 0
            under_way = sum(n < self.samples for n in self.judged.values())
            self.most = max(self.most, under_way)
        return super().generate(request)


def _bounded_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bound: int) -> tuple[bytes, int]:
    monkeypatch.setattr(runner, "DRAWS_IN_FLIGHT", bound, raising=False)
    monkeypatch.setattr(rs, "_now", lambda: "2025-01-01T00:00:00Z")  # the clock lines alike, so the bytes compare
    lane = _UnderWay(samples=2)
    real = rs.make_lanes
    monkeypatch.setattr(rs, "make_lanes", lambda req: (lane, lane, real(req)[2]))
    out = tmp_path / f"r{bound}.json"
    request = RunRequest(
        suite=_suite(tmp_path, 5), provider="stub", draws=3, max_draws=3, judge_samples=2, concurrency=1, out=out,
    )  # fmt: skip
    run_suite(request, progress_stream=io.StringIO())
    return out.read_bytes(), lane.most


def test_no_more_draws_are_under_way_than_the_bound_and_the_receipt_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 5 cases x 2 arms x 3 draws = 30 draws. One worker (concurrency 1: the bound is max(4, 4 x 1) = 4): without
    # the bound the pool's queue held all 30 answers before the first judge call, so all 30 were under way at once.
    bounded, most = _bounded_run(tmp_path, monkeypatch, 4)
    assert most == 4
    unbounded, most = _bounded_run(tmp_path, monkeypatch, 1000)
    assert most == 30
    assert bounded == unbounded  # the receipt is the same, byte for byte: results are stored by index


def test_a_runs_draws_and_judge_samples_share_one_set_of_field_names(tmp_path: Path) -> None:
    request = RunRequest(
        suite=_suite(tmp_path, 2), provider="stub", draws=3, max_draws=3, judge_samples=2, out=tmp_path / "r.json"
    )
    outcome = run_suite(request, progress_stream=io.StringIO())
    draws = [r.draw for case in outcome.runner.results for arm in case.values() for r in arm.values()]
    samples = [s for d in draws for s in d.judge_samples]
    assert (len(draws), len(samples)) == (12, 24)  # 2 cases x 2 arms x 3 draws; x 2 samples each
    # one set object per class (728 bytes a judge sample, 2,264 a draw, held once instead of 36 times) ...
    assert len({id(d.__pydantic_fields_set__) for d in draws}) == 1
    assert len({id(s.__pydantic_fields_set__) for s in samples}) == 1
    # ... with the same names as each model was given, so the receipt's draws read as before
    assert "answer_sha256" in draws[0].model_fields_set and "score_text_sha256" in samples[0].model_fields_set
    assert outcome.receipt.cases[0].with_skill.draws[0] is outcome.runner.results[0]["with_skill"][0].draw
