"""``--judge-mode pairwise`` end to end: the stub lane (an unbiased and a position-biased judge), and the anthropic
SDK against the loopback server, with the logical calls and endpoint attempts counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from driftproof.cli import main
from driftproof.core.reading import read_receipt
from driftproof.receipts import load_receipt
from driftproof.run import RunRequest, run_suite
from tests.support.fake_llm_script import FakeReply, FakeUsage, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, FakeLLMServer
from tests.support.suites import SKILL, two_case_suite

JUDGE = "claude-haiku-4-5"
KEY = "sk-ant-" + "test-0123456789abcdefghijklmnop"  # fake, split so secret scanners skip it


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return two_case_suite(tmp_path)


def stub_run(suite: Path, out: Path, *extra: str) -> int:
    return main(["run", str(suite), "--provider", "stub", "--draws", "3", "--max-draws", "3", "-o", str(out), *extra])


def test_stub_pairwise_run_prefers_the_skill_in_both_orders(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert stub_run(suite, tmp_path / "abs.json") == 0
    assert stub_run(suite, tmp_path / "pw.json", "--judge-mode", "pairwise") == 0
    printed = capsys.readouterr()
    assert "driftproof: pairwise: judging 6 draw pairs side by side, positions swapped (12 judge calls)" in printed.err
    assert "pairwise with-skill preferred in 6 of 6 pairs; positions disagreed in 0 of 6\n" in printed.out
    plain, paired = load_receipt(tmp_path / "abs.json"), load_receipt(tmp_path / "pw.json")
    # 2 cases × 2 arms × 3 draws × (1 answer + 5 samples) = 72 calls; pairwise adds 2 × 3 pairs × 2 cases = 12
    assert (plain.run.logical_calls, paired.run.logical_calls) == (72, 84)
    assert paired.judge is not None and paired.judge.pairwise is not None
    assert paired.judge.pairwise.template_version == "pairwise-v1"
    assert paired.pairwise_summary is not None
    assert (paired.pairwise_summary.complete, paired.pairwise_summary.with_skill_preferred) == (6, 6)
    assert paired.pairwise_summary.position_bias_rate == 0.0
    assert paired.economics.judge_overhead.pairwise_calls == 12
    first = paired.cases[0].pairwise
    assert first is not None and [(r.draw_index, r.first, r.second, r.agree) for r in first] == [
        (i, "with_skill", "with_skill", True) for i in range(3)
    ]
    assert [c.with_skill_position for c in first[0].calls] == ["A", "B"]
    assert first[0].calls[1].choice == "B" and first[0].calls[0].reported_ids == ["stub-judge"]
    # the same draws and scores: pairwise changes no figure the verdict reads
    a, b = read_receipt(plain), read_receipt(paired)
    assert (a.status, a.lift, [c.verdict for c in a.cases]) == (b.status, b.lift, [c.verdict for c in b.cases])
    assert plain.cases[0].pairwise is None and plain.pairwise_summary is None


def test_a_position_biased_stub_judge_shows_in_every_reader(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "script.yaml"
    # case a: draw 0 prefers with-skill twice, draws 1 and 2 pick A both times (the verdict follows the position);
    # case b: the judge always picks A: every pair disagrees
    script.write_text(
        yaml.safe_dump({"pairwise_choice": "A", "cases": {"a": {"pairwise": [["A", "B"], ["A", "A"], ["A", "A"]]}}}),
        encoding="utf-8",
    )
    out = tmp_path / "pw.json"
    assert stub_run(suite, out, "--judge-mode", "pairwise", "--script", str(script)) == 0
    r = load_receipt(out)
    assert r.cases[0].pairwise_summary is not None and r.cases[1].pairwise_summary is not None
    # case a: 1 of 3 preferred with-skill, 2 of 3 disagreed; case b: 0 of 3, 3 of 3; overall 1 of 6, 5 of 6
    assert (r.cases[0].pairwise_summary.with_skill_preferred, r.cases[0].pairwise_summary.disagreed) == (1, 2)
    assert (r.cases[1].pairwise_summary.with_skill_preferred, r.cases[1].pairwise_summary.disagreed) == (0, 3)
    assert r.pairwise_summary is not None and r.pairwise_summary.position_bias_rate == 5 / 6
    capsys.readouterr()
    assert main(["view", str(out)]) == 0
    view = capsys.readouterr().out
    assert "with-skill preferred in 1 of 6 pairs; positions disagreed in 5 of 6 (position bias)" in view
    assert "- `a`: with-skill preferred in 1 of 3 pairs; positions disagreed in 2 of 3 (position bias)" in view
    assert main(["view", str(out), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["pairwise"]["disagreed"], doc["pairwise"]["cases"][1]["id"]) == (5, "b")
    assert main(["diff", str(out), str(out), "--format", "json"]) == 0
    both = json.loads(capsys.readouterr().out)["pairwise"]
    assert both["before"]["line"] == both["after"]["line"] == doc["pairwise"]["line"]


def test_a_bad_pairwise_script_entry_is_one_line(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump({"cases": {"a": {"pairwise": [["A", "left"]]}}}), encoding="utf-8")
    assert stub_run(suite, tmp_path / "x.json", "--judge-mode", "pairwise", "--script", str(script)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"driftproof: error: {script}: cases.a.pairwise[0]: two choices, each A, B, tie or null, found a list"
    ]
    assert not (tmp_path / "x.json").exists()


def test_plan_counts_the_pairwise_calls(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["plan", str(suite), "--provider", "stub", "--draws", "3", "--max-draws", "3", "--format", "json"]
    assert main(flags) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*flags, "--judge-mode", "pairwise"]) == 0
    paired = json.loads(capsys.readouterr().out)
    calls = [(doc["total"]["calls"]["min"], doc["total"]["calls"]["max"]) for doc in (plain, paired)]
    assert calls == [(72, 72), (84, 84)]  # 2 cases × 3 pairs × 2 calls = 12 more


def responder(req: RecordedRequest) -> FakeReply:
    """Answers 'feat: …' with the skill, plain without; the judge scores them 0.9 and 0.4, and side by side prefers
    the feat answer wherever it is shown. The first pairwise request gets a 429 (retried once)."""
    prompt = req.prompt_text
    if "<<<ANSWER_A" in prompt:
        a = prompt.split("<<<ANSWER_A\n", 1)[1].split("\nANSWER_A>>>", 1)[0]
        return json_text_reply(
            {"better": "A" if a.startswith("feat:") else "B", "reason": "feat wins"},
            model=f"{JUDGE}-20251001",
            usage=FakeUsage(input_tokens=300, output_tokens=15),
        )
    if "<<<ANSWER" in prompt:
        answer = prompt.split("<<<ANSWER\n", 1)[1].split("\nANSWER>>>", 1)[0]
        return json_text_reply(
            {"score": 0.9 if answer.startswith("feat:") else 0.4, "reason": "graded"},
            model=f"{JUDGE}-20251001",
            usage=FakeUsage(input_tokens=200, output_tokens=20),
        )
    text = "feat: add the retry header" if SKILL in req.system_text else "Retry header support"
    return FakeReply(text=text, usage=FakeUsage(input_tokens=40, output_tokens=10))


def test_anthropic_pairwise_run_against_the_loopback_server(suite: Path, tmp_path: Path) -> None:
    with FakeLLMServer(responder) as server:
        server.queue(ANTHROPIC_MESSAGES)  # nothing queued: the responder answers everything
        pairwise_429 = {"sent": False}

        def first_pairwise_429(req: RecordedRequest) -> FakeReply:
            if "<<<ANSWER_A" in req.prompt_text and not pairwise_429["sent"]:
                pairwise_429["sent"] = True
                return FakeReply.error(429, retry_after=0)
            return responder(req)

        server.responder = first_pairwise_429
        request = RunRequest(
            suite=suite,
            provider="anthropic",
            model="claude-sonnet-4-5",
            judge_model=JUDGE,
            draws=3,
            max_draws=3,
            judge_samples=2,
            concurrency=1,
            max_retries=2,
            out=tmp_path / "r.json",
            judge_mode="pairwise",
            environ={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url},
        )
        outcome = run_suite(request)
        requests = server.requests_to(ANTHROPIC_MESSAGES)
    r = outcome.receipt
    # answers: 2 cases × 2 arms × 3 = 12; judge samples: 12 × 2 = 24; pairwise: 2 cases × 3 pairs × 2 = 12
    # logical calls 12 + 24 + 12 = 48; endpoint attempts 48 + 1 retried 429 = 49, the requests the server saw
    assert (r.run.logical_calls, r.run.endpoint_attempts, len(requests)) == (48, 49, 49)
    assert sum("<<<ANSWER_A" in q.prompt_text for q in requests) == 13
    assert r.pairwise_summary is not None
    assert (r.pairwise_summary.complete, r.pairwise_summary.with_skill_preferred, r.pairwise_summary.disagreed) == (
        6,
        6,
        0,
    )
    overhead = r.economics.judge_overhead
    # judge usage: 24 samples × 200 in + 12 pairwise × 300 in = 8,400; out 24 × 20 + 12 × 15 = 660
    assert overhead.pairwise_calls == 12
    assert overhead.pairwise_usage is not None and overhead.pairwise_usage.input_tokens == 3_600
    assert (overhead.usage.input_tokens, overhead.usage.output_tokens) == (8_400, 660)
    call = r.cases[0].pairwise[0].calls[0]  # type: ignore[index]
    assert (call.reported_ids, call.serving_id, call.invalid_reason) == (
        [f"{JUDGE}-20251001"],
        f"{JUDGE}-20251001",
        None,
    )
    assert r.verification == "TESTED"
