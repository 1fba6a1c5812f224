"""A run that cannot reach its model is an error, not a green check (issue 8).

A wrong key, a missing model or a refused request stops the run at the first call; a dead endpoint stops it
after ``--max-consecutive-failures`` failed calls in a row. Either way: exit 2, one line that names the
provider, the endpoint host, the HTTP status and the provider's error type (never the key), no receipt
written, an existing receipt left as it was. And the other side of it: judge calls that time out are missing
samples, not a reason to void the receipt's verification.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest
import yaml

from driftproof.cli import main
from driftproof.core.reading import read_receipt
from driftproof.errors import RunStopped
from driftproof.run import RunRequest, run_suite
from tests.support.fake_llm_script import FakeReply, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import FakeLLMServer

KEY = "sk-ant-" + "stoptest-0123456789abcdefghij"  # fake, key-shaped; split so secret scanners skip it
OPENAI_KEY = "sk-" + "proj-stoptest-0123456789abcdefghijklmnopq"
JUDGE = "claude-haiku-4-5"
OLD = b'{"schema_version": "0.17", "seal": {"sha256": "an earlier good receipt"}}\n'


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text("Write Conventional Commits.", encoding="utf-8")
    cases = [{"id": cid, "prompt": f"Task {cid}.", "rubric": "feat wins"} for cid in ("a", "b")]
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "receipt.json").write_bytes(OLD)
    return tmp_path / "suite.yaml"


def request(suite: Path, server_env: dict[str, str], **kw: object) -> RunRequest:
    base: dict[str, object] = {
        "suite": suite,
        "out": suite.parent / "out" / "receipt.json",
        "judge_model": JUDGE,
        "draws": 3,
        "max_draws": 3,
        "judge_samples": 2,
        "concurrency": 1,
        "max_retries": 0,
        "environ": server_env,
    }
    return RunRequest(**{**base, **kw})  # type: ignore[arg-type]


def env(server: FakeLLMServer) -> dict[str, str]:
    return {
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": server.base_url,
        "OPENAI_API_KEY": OPENAI_KEY,
        "OPENAI_BASE_URL": server.openai_base_url,
    }


def nothing_written(suite: Path) -> None:
    out = suite.parent / "out"
    assert (out / "receipt.json").read_bytes() == OLD  # the earlier receipt is untouched
    assert sorted(p.name for p in out.iterdir()) == ["receipt.json"]  # no journal, no temp file


def test_a_wrong_key_stops_the_run_at_the_first_call(suite: Path) -> None:
    refuse = FakeReply.error(401, error_type="authentication_error", message="invalid x-api-key")
    with FakeLLMServer(lambda _req: refuse) as server, pytest.raises(RunStopped) as caught:
        run_suite(request(suite, env(server)))
    message = str(caught.value)
    host = server.base_url.split("://", 1)[1].rstrip("/")
    assert message.startswith(f"the answering model (anthropic api at {host}) refused the call: HTTP 401 ")
    assert "refused the call: HTTP 401 authentication_error: invalid x-api-key; check the key in" in message
    assert "ANTHROPIC_API_KEY" in message and "no receipt" in message
    assert KEY not in message and KEY[:12] not in message
    assert len(server.requests) == 1  # one call, not every call of the run
    nothing_written(suite)


def test_a_missing_model_on_the_openai_lane_stops_it(suite: Path) -> None:
    missing = FakeReply.error(404, error_type="invalid_request_error", code="model_not_found", message="no such model")
    with FakeLLMServer(lambda _req: missing) as server, pytest.raises(RunStopped, match="HTTP 404") as caught:
        run_suite(request(suite, env(server), provider="openai", model="gpt-nope"))
    assert "model_not_found" in str(caught.value) and "check the model name" in str(caught.value)
    assert len(server.requests) == 1
    nothing_written(suite)


def test_a_judge_that_refuses_its_key_names_the_judge(suite: Path) -> None:
    def answers_then_refuses(req: RecordedRequest) -> FakeReply:
        if "<<<ANSWER" in req.prompt_text:
            return FakeReply.error(403, error_type="permission_error", message="not allowed")
        return FakeReply(text="feat: an answer")

    with FakeLLMServer(answers_then_refuses) as server, pytest.raises(RunStopped) as caught:
        run_suite(request(suite, env(server)))
    assert str(caught.value).startswith("the judge (anthropic api at ")
    assert "HTTP 403 permission_error" in str(caught.value)
    nothing_written(suite)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_dead_endpoint_stops_after_the_consecutive_failure_limit(suite: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"  # nothing listens: every call is refused
    environ = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": url}
    with pytest.raises(RunStopped) as caught:
        run_suite(request(suite, environ, max_consecutive_failures=4))
    message = str(caught.value)
    assert message.startswith("4 calls in a row failed; the last, to the answering model (anthropic api at 127.0.0.1:")
    assert "connection error" in message and "--max-consecutive-failures" in message
    nothing_written(suite)


def test_the_cli_prints_one_line_and_exits_2(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refuse = FakeReply.error(401, error_type="authentication_error", message="invalid x-api-key")
    with FakeLLMServer(lambda _req: refuse) as server:
        mp = pytest.MonkeyPatch()
        for name, value in env(server).items():
            mp.setenv(name, value)
        try:
            code = main(["run", str(suite), "-o", str(suite.parent / "out" / "receipt.json"), "--max-retries", "0"])
        finally:
            mp.undo()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("driftproof: error: the answering model (anthropic api at 127.0.0.1:")
    assert not any("Traceback" in line for line in err)
    nothing_written(suite)


def test_judge_timeouts_are_missing_samples_and_the_receipt_stays_tested(tmp_path: Path) -> None:
    """7 of 30 judge calls time out: every draw keeps a valid sample, so the receipt reads TESTED.

    One case, 3 draws per arm, 5 judge samples: 6 draws x 5 = 30 judge calls, one at a time, in the order
    the answers finished. Judge calls number 1, 5, 9, 13, 17, 21 and 25 wait past the 0.5 s timeout (no
    retries), so draws 1..6 lose 2, 1, 1, 1, 1 and 1 of their 5 samples and keep 3 or 4 valid ones."""
    (tmp_path / "SKILL.md").write_text("Write Conventional Commits.", encoding="utf-8")
    body = {"skill": "SKILL.md", "cases": [{"id": "a", "prompt": "Task a.", "rubric": "feat wins"}]}
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    lock, judged = threading.Lock(), [0]
    scores = {"feat: one": 0.85, "feat: two": 0.9, "feat: three": 0.95, "plain one": 0.4, "plain two": 0.45}
    answers = iter(["feat: one", "feat: two", "feat: three", "plain one", "plain two", "plain three"])

    def responder(req: RecordedRequest) -> FakeReply:
        if "<<<ANSWER" not in req.prompt_text:
            return FakeReply(text=next(answers))
        with lock:
            judged[0] += 1
            number = judged[0]
        answer = req.prompt_text.split("<<<ANSWER\n", 1)[1].split("\nANSWER>>>", 1)[0]
        reply = json_text_reply({"score": scores.get(answer, 0.5), "reason": "ok"}, model=f"{JUDGE}-20251001")
        if number in (1, 5, 9, 13, 17, 21, 25):
            return FakeReply(text=reply.text, model=reply.model, delay_s=2.0)
        return reply

    with FakeLLMServer(responder) as server:
        outcome = run_suite(
            request(tmp_path / "suite.yaml", env(server), out=tmp_path / "r.json", judge_samples=5, timeout_s=0.5)
        )
    r = outcome.receipt
    assert r.verification == "TESTED", r.verification_reason
    samples = [s for arm in (r.cases[0].with_skill, r.cases[0].baseline) for d in arm.draws for s in d.judge_samples]
    assert len(samples) == 30 and sum(1 for s in samples if s.returned is False) == 7
    assert all(s.valid for s in samples if s.returned)
    # each draw's score is the mean of its valid samples, and all of a draw's samples agree:
    # with 0.85 / 0.9 / 0.95 (mean 0.9, sd 0.05), baseline 0.4 / 0.45 / 0.5 (mean 0.45, sd 0.05):
    # bands [0.85, 0.95] and [0.40, 0.50] are apart, Δ = 0.45 ≥ 0.05
    assert [d.score for d in r.cases[0].with_skill.draws] == pytest.approx([0.85, 0.9, 0.95])
    assert [d.score for d in r.cases[0].baseline.draws] == pytest.approx([0.4, 0.45, 0.5])
    assert [c.verdict for c in read_receipt(r).cases] == ["improved"]
