"""A real Ctrl-C: SIGINT to a running ``driftproof run`` leaves a journal and no receipt; --resume finishes it. A
cancelled CI job's SIGTERM does the same, and says so (issue 14, probe #12: it ended the run without a word)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from driftproof.receipts import load_receipt
from tests.support.fake_llm_script import FakeReply, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import FakeLLMServer


def responder(req: RecordedRequest) -> FakeReply:
    if "<<<ANSWER" in req.prompt_text:
        return json_text_reply({"score": 0.8, "reason": "ok"}, model="claude-haiku-4-5")
    return FakeReply(text="fix(cart): return 0 for an empty cart")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_sigint_then_resume(tmp_path: Path, sig: signal.Signals) -> None:
    suite = tmp_path / "suite.yaml"
    cases = [{"id": f"c{i}", "prompt": f"Task {i}.", "rubric": "good"} for i in range(3)]
    (tmp_path / "SKILL.md").write_text("Use conventional commits.\n", encoding="utf-8")
    suite.write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    out = tmp_path / "receipt.json"
    journal = tmp_path / "receipt.json.journal"
    with FakeLLMServer(responder, delay_s=0.05) as server:
        env = {**os.environ, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": server.base_url}
        argv = [
            sys.executable,
            "-m",
            "driftproof",
            "run",
            str(suite),
            "-o",
            str(out),
            "--draws",
            "3",
            "--max-draws",
            "3",
            "--judge-samples",
            "2",
            "--concurrency",
            "1",
        ]
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # wait for two finished draws in the journal
            if journal.exists() and journal.read_text().count('"kind": "draw"') >= 2:
                break
            time.sleep(0.05)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        last = err.strip().splitlines()[-1]
        assert last.startswith("driftproof: error: interrupted: ") and f"are kept in {journal}" in last
        assert last.endswith("add --resume to finish the run") and "Traceback" not in err
        assert "done:" not in err  # an interrupted run does not say it is done (issue 8)
        assert not out.exists()
        entries = [json.loads(x) for x in journal.read_text().splitlines()[1:] if x.strip()]
        assert 2 <= sum(1 for e in entries if e["kind"] == "draw") < 18
        answered = sum(1 for e in entries if e["kind"] == "answer")
        answers_before = len([q for q in server.requests if "<<<ANSWER" not in q.prompt_text])
        done = subprocess.run([*argv, "--resume"], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        answers_after = len([q for q in server.requests if "<<<ANSWER" not in q.prompt_text])
    receipt = load_receipt(out)
    drawn = sum(len(c.with_skill.draws) + len(c.baseline.draws) for c in receipt.cases)
    assert drawn == 18 and not journal.exists()
    # the resumed run asked only for the answers the journal did not hold (finished draws or not)
    assert answers_after - answers_before == 18 - answered
    assert receipt.verification == "TESTED"
