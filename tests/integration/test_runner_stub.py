"""Whole runs on the stub lane with scripts: draws, lost draws, invalid samples, journal, resume, quick."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.cli import main
from driftproof.core.models import Usage
from driftproof.errors import RunInterrupted
from driftproof.journal import JOURNAL_VERSION
from driftproof.lanes.base import Generation, GenerationRequest
from driftproof.lanes.stub import StubLane
from driftproof.receipts import load_receipt
from driftproof.run import RunRequest, run_suite

SUITE = {
    "name": "demo",
    "cases": [
        {"id": "a", "prompt": "Write a.", "rubric": "Good a.", "checks": [{"kind": "contains", "value": "feat"}]},
        {"id": "b", "prompt": "Write b.", "rubric": "Good b.", "threshold": 0.5},
    ],
}
SCRIPT = {
    "cases": {
        "a": {
            "with_skill": [
                {"answer": "feat: one", "scores": [0.8, 0.9]},  # samples 0.8,0.9,0.8,0.9,0.8 -> 0.84
                {"answer": "feat: two", "scores": [0.9]},  # -> 0.9
                {"lost": "timeout"},  # lost, never judged
                {"answer": "feat: four", "scores": [0.85, None]},  # 0.85,_,0.85,_,0.85 -> 0.85 (2 invalid kept)
            ],
            "baseline": [{"answer": "a plain answer", "scores": [0.3]}],
        },
        "b": {
            "with_skill": [{"answer": "", "scores": [0.9]}],  # empty answers: lost, "no answer"
            "baseline": [{"answer": "x", "judge_replies": ["no score here"]}],  # no valid sample: lost
        },
    }
}


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text("Use conventional commits.\n" * 10, encoding="utf-8")  # 260 chars
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump({**SUITE, "skill": "SKILL.md"}), encoding="utf-8")
    (tmp_path / "script.yaml").write_text(yaml.safe_dump(SCRIPT), encoding="utf-8")
    return tmp_path


def request(d: Path, **kw: Any) -> RunRequest:
    base = {"suite": d / "suite.yaml", "provider": "stub", "script": d / "script.yaml", "draws": 4, "max_draws": 4}
    return RunRequest(**{**base, **kw})


def test_scripted_run_records_every_draw_by_hand(suite_dir: Path) -> None:
    outcome = run_suite(request(suite_dir))
    r = outcome.receipt
    a_with = r.cases[0].with_skill.draws
    assert [d.status for d in a_with] == ["measured", "measured", "lost", "measured"]
    assert [d.score for d in a_with] == pytest.approx([0.84, 0.9, None, 0.85])
    assert a_with[2].lost_reason == "timeout (scripted)" and a_with[2].judge_samples == []
    samples = a_with[3].judge_samples
    assert [s.valid for s in samples] == [True, False, True, False, True]
    assert samples[1].invalid_reason == "the reply holds no JSON object with a score"
    assert samples[1].score_text_sha256 == hashlib.sha256(b"I cannot grade this.").hexdigest()
    assert [c.passed for c in a_with[0].checks] == [True]
    b_with, b_base = r.cases[1].with_skill.draws, r.cases[1].baseline.draws
    assert {d.lost_reason for d in b_with} == {"no answer"}
    # every draw's five samples were unreadable: the lost reason says so, not only that none was valid
    assert {d.lost_reason for d in b_base} == {
        "no valid judge sample: the reply holds no JSON object with a score (all 5 samples)"
    }
    # verification and counts
    assert r.verification == "UNVERIFIED" and "stub" in (r.verification_reason or "")
    assert r.counts.draws_per_arm_min == 4 and r.counts.judge_samples_per_draw == 5
    # calls: 16 answers; judged draws: a/with 3, a/base 4, b/with 0, b/base 4 = 11 draws x 5 samples = 55
    assert r.run.logical_calls == 16 + 55 and r.run.endpoint_attempts == 0
    assert r.economics.judge_overhead.judged_draws_counted == 0
    assert r.economics.judge_overhead.judged_draws_missing_usage == 11
    assert r.skill is not None and r.skill.chars == 260 and r.skill.tokens == 65
    assert r.run.settings.stopping_rule and r.run.settings.stopping_rule.startswith("settle-v2(min=4,max=4")
    assert outcome.path == suite_dir / ".driftproof" / "receipt.json" and load_receipt(outcome.path) == r
    assert not (suite_dir / ".driftproof" / "receipt.json.journal").exists()


def test_lift_of_the_scripted_run(suite_dir: Path) -> None:
    from driftproof.core.reading import read_receipt

    reading = read_receipt(run_suite(request(suite_dir)).receipt)
    # case a: with mean(0.84, 0.9, 0.85) = 0.863333; baseline 0.3 -> 0.563333; case b has no measured with-arm
    assert reading.lift == pytest.approx((0.84 + 0.9 + 0.85) / 3 - 0.3, abs=1e-12)
    assert reading.lift_per_1k == pytest.approx(reading.lift / 0.065, abs=1e-12)  # 65 tokens
    assert reading.status == "no_verdict"


class Interrupting(StubLane):
    """A stub that is interrupted (as by Ctrl-C) on its n-th answer."""

    def __init__(self, script: dict[str, Any], at: int) -> None:
        super().__init__(script=script)
        self.answers, self.at = 0, at

    def generate(self, req: GenerationRequest) -> Generation:
        if req.purpose == "answer":
            self.answers += 1
            if self.answers == self.at:
                raise KeyboardInterrupt
        return super().generate(req)


def test_interrupt_leaves_a_journal_and_resume_finishes_without_redrawing(
    suite_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import driftproof.run as rs

    script = yaml.safe_load((suite_dir / "script.yaml").read_text())
    real = rs.make_lanes
    lanes: list[StubLane] = []

    def interrupting(req: RunRequest) -> Any:
        _lane, judge, model = real(req)
        lanes.append(Interrupting(script, at=9))
        return lanes[-1], judge, model

    monkeypatch.setattr(rs, "make_lanes", interrupting)
    with pytest.raises(RunInterrupted, match="add --resume"):
        run_suite(request(suite_dir, concurrency=1))
    journal = suite_dir / ".driftproof" / "receipt.json.journal"
    assert journal.exists() and not (suite_dir / ".driftproof" / "receipt.json").exists()
    entries = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    answered = sum(1 for e in entries if e["kind"] == "answer")  # every answer that came back, judged or not
    assert answered == 8 and sum(1 for e in entries if e["kind"] == "draw") >= 1

    class Counting(StubLane):
        calls = 0

        def generate(self, req: GenerationRequest) -> Generation:
            if req.purpose == "answer":
                Counting.calls += 1
            return super().generate(req)

    monkeypatch.setattr(rs, "make_lanes", lambda req: (Counting(script), real(req)[1], real(req)[2]))
    outcome = run_suite(request(suite_dir, concurrency=1, resume=True))
    assert Counting.calls == 16 - answered  # journaled answers are not drawn again
    assert sum(len(c.with_skill.draws) + len(c.baseline.draws) for c in outcome.receipt.cases) == 16
    assert not journal.exists()


def test_resume_refuses_a_journal_of_other_settings(suite_dir: Path) -> None:
    journal = suite_dir / ".driftproof" / "receipt.json.journal"
    journal.parent.mkdir()
    journal.write_text(json.dumps({"journal": JOURNAL_VERSION, "fingerprint": "other"}) + "\n")
    from driftproof.errors import InputError

    with pytest.raises(InputError, match="other settings"):
        run_suite(request(suite_dir, resume=True))


def test_quick_is_a_smoke_run(suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "run",
            str(suite_dir / "suite.yaml"),
            "--provider",
            "stub",
            "--script",
            str(suite_dir / "script.yaml"),
            "--quick",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    receipt = load_receipt(suite_dir / ".driftproof" / "receipt.quick.json")
    assert receipt.run.preset == "quick" and receipt.verification == "UNVERIFIED"
    assert [c.id for c in receipt.cases] == ["a"]
    assert len(receipt.cases[0].with_skill.draws) == 2 and receipt.counts.judge_samples_per_draw == 2
    assert receipt.run.settings.concurrency == 4
    assert "Smoke run, no verdict" in out and "feat: one" in out and "a plain answer" in out
    assert "receipt " in out and "receipt.quick.json" in out


def test_keep_transcripts_archives_every_answer(suite_dir: Path) -> None:
    outcome = run_suite(request(suite_dir, keep_transcripts=True))
    t = outcome.receipt.transcripts
    assert t is not None
    archive = outcome.path.parent / t.path
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == t.sha256
    lines = [json.loads(x) for x in archive.read_text().splitlines()]
    assert len(lines) == 16 and lines[0]["answer"] == "feat: one" and len(lines[0]["judge_replies"]) == 5


class Metered(StubLane):
    """A stub judge that reports usage on every sample but the very first draw's."""

    def generate(self, req: GenerationRequest) -> Generation:
        gen = super().generate(req)
        if req.purpose == "judge" and not (req.case_id == "a" and req.arm == "with_skill" and req.draw_index == 0):
            from dataclasses import replace

            return replace(gen, usage=Usage(input_tokens=100, output_tokens=10))
        return gen


def test_judge_overhead_counts_each_judged_draw_once(suite_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import driftproof.run as rs

    script = yaml.safe_load((suite_dir / "script.yaml").read_text())
    real = rs.make_lanes
    monkeypatch.setattr(rs, "make_lanes", lambda req: (real(req)[0], Metered(script), "claude-haiku-4-5"))
    r = run_suite(request(suite_dir)).receipt
    overhead = r.economics.judge_overhead
    # 11 judged draws; the first has no usage -> 10 counted x 5 samples x (100 in, 10 out)
    assert (overhead.judged_draws_counted, overhead.judged_draws_missing_usage) == (10, 1)
    assert (overhead.usage.input_tokens, overhead.usage.output_tokens) == (5000, 500)
    # bundled claude-haiku-4-5 price: 1 USD/Mtok in, 5 out -> 0.005 + 0.0025
    assert overhead.cost_usd == pytest.approx(0.0075) and overhead.price is not None
    assert r.economics.generation.with_skill.input_tokens is None  # generation usage kept apart


def test_cli_run_prints_where_the_receipt_went(suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = suite_dir / "out" / "r.json"
    code = main(["run", str(suite_dir / "suite.yaml"), "--provider", "stub", "-o", str(out_path), "--draws", "3"])
    out = capsys.readouterr().out
    assert code == 0 and out_path.exists() and f"receipt {out_path}" in out
    assert "status  no verdict" in out  # words, not the JSON token


def test_bad_flags_are_one_line_errors(suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", str(suite_dir / "suite.yaml"), "--provider", "stub", "--draws", "0"])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == "driftproof: error: --draws must be a whole number from 1 to 10000, got 0"
    code = main(["run", str(suite_dir / "missing.yaml"), "--provider", "stub"])
    assert code == 2 and "no such suite file" in capsys.readouterr().err


def test_capture_rules_apply_to_agents_not_to_bare_replies(suite_dir: Path) -> None:
    """A tool-less reply is the answer itself: 'Updated total() ...' is a commit message, not a work report.
    (On a CLI surface the same reply is lost before grading: tests/integration/test_cli_lanes_runs.py.)"""
    script = {
        "cases": {
            "a": {
                "with_skill": [{"answer": "Updated total() to handle empty carts.", "scores": [0.6]}],
                "baseline": [{"answer": "I saved the message to notes.md", "scores": [0.2]}],
            }
        }
    }
    (suite_dir / "script.yaml").write_text(yaml.safe_dump(script), encoding="utf-8")
    r = run_suite(request(suite_dir, draws=2, max_draws=2)).receipt
    draws = r.cases[0].with_skill.draws + r.cases[0].baseline.draws
    assert [d.status for d in draws] == ["measured"] * 4
    assert [d.score for d in draws] == pytest.approx([0.6, 0.6, 0.2, 0.2])
