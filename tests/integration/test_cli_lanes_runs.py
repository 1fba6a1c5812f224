"""Whole runs on the two command-line lanes, the fake ``claude`` / ``codex`` first on PATH and the stub judge."""

from __future__ import annotations

import gc
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.cli import main
from driftproof.core.models import Harness
from driftproof.errors import InputError, LaneError, RunStopped
from driftproof.receipts import load_receipt
from driftproof.run import RunRequest, run_suite
from tests.support.fake_cli_harness import FakeCLI

SKILL = "---\nname: commit-writer\ndescription: Writes commit messages.\n---\nUse conventional commits, say why.\n"
SUITE = {
    "name": "cli",
    "skill": "SKILL.md",
    "cases": [{"id": "cart", "prompt": "Commit the cart fix.", "rubric": "ok"}],
}


@pytest.fixture
def suite_dir(tmp_path: Path, fake_cli: FakeCLI, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-case suite and its skill; the fakes are on PATH (``fake_cli``) and both keys are set."""
    (tmp_path / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(SUITE), encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0001")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0002")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the draws' folders, not the developer's cache
    return tmp_path


def request(d: Path, **kw: Any) -> RunRequest:
    base: dict[str, Any] = {
        "suite": d / "suite.yaml",
        "out": d / "receipt.json",
        "provider": "anthropic",
        "surface": "cli",
        "model": "claude-sonnet-5-5",
        "judge_provider": "stub",
        "draws": 2,
        "max_draws": 2,
        "judge_samples": 2,
        "concurrency": 4,
        "timeout_s": 30,
    }
    return RunRequest(**{**base, **kw})


def test_whole_run_on_claude_code(suite_dir: Path, fake_cli: FakeCLI) -> None:
    side = [{"model": "claude-haiku-5-5", "input_tokens": 50, "output_tokens": 2, "cost_usd": 0.0001}]
    fake_cli.use(
        {
            "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 1000},
            "cost_usd": 0.003,
            "side_calls": side,
            "when": [{"match": "Use conventional commits", "result": "fix(cart): return 0 for an empty cart"}],
            "result": "Cart total: return zero when the cart is empty instead of dividing by its length.",
        }
    )
    outcome = run_suite(request(suite_dir))
    receipt = load_receipt(outcome.path)
    run = receipt.run
    assert run.harness == Harness(name="claude-code", version="2.1.332") and run.capture == "text"
    assert (run.lane.provider, run.lane.surface, run.lane.models_reported) == (
        "anthropic",
        "cli",
        ["claude-sonnet-5-5"],
    )
    assert run.settings.delivery == "system_prompt" and run.sampling["tools"] == ["Read", "WebFetch", "WebSearch"]
    assert run.logical_calls == 4 + 4 * 2 and run.endpoint_attempts == 4  # 4 draws, 1 attempt each; the stub judge: 0
    case = receipt.cases[0]
    draws = case.with_skill.draws + case.baseline.draws
    assert all(d.status == "measured" and d.served_model == "claude-sonnet-5-5" for d in draws)
    assert {d.model_source for d in draws} == {"reported"}  # Claude Code's init line names the model
    assert all(d.side_calls and d.side_calls[0].model == "claude-haiku-5-5" for d in draws)
    arm = receipt.economics.generation.with_skill  # 2 draws x (100 in, 20 out, 1000 cache read, $0.003)
    assert (arm.input_tokens, arm.output_tokens, arm.cache_read_tokens) == (200, 40, 2000)
    assert arm.cost_usd == pytest.approx(0.006, abs=1e-12)
    prompts = [e["prompt"] for e in fake_cli.invocations() if "prompt" in e]
    assert prompts == ["Commit the cart fix."] * 4  # one invocation per draw; the judge went to the stub
    overhead = case.baseline.draws[0].harness_overhead  # disclosed per draw: 100 + 1000 reported in
    assert overhead is not None and overhead.input_tokens_reported == 1100
    assert overhead.total_cost_usd == pytest.approx(0.003 + 0.0001)  # the answer plus the side call
    assert overhead.overhead_tokens_estimate == 1100 - overhead.prompt_tokens_estimate
    assert run.settings.max_retries is None  # a CLI retries its own calls; the runner makes one attempt


def test_whole_run_on_codex_with_files_capture(suite_dir: Path, fake_cli: FakeCLI) -> None:
    fake_cli.use({"result": "", "files": {"COMMIT_MSG.txt": "fix(cart): return 0 for an empty cart\n"}})
    receipt = run_suite(request(suite_dir, provider="openai", model="gpt-6.2-sol", capture="files")).receipt
    assert receipt.run.harness == Harness(name="codex", version="0.171.0") and receipt.run.capture == "files"
    assert receipt.run.lane.models_reported == ["gpt-6.2-sol"] and receipt.run.sampling["sandbox"] == "workspace-write"
    draw = receipt.cases[0].with_skill.draws[0]
    assert draw.status == "measured" and draw.captured_files is not None
    assert [(f.path, f.size, f.included) for f in draw.captured_files] == [("COMMIT_MSG.txt", 38, True)]
    assert draw.usage is not None and draw.usage.cache_read_tokens == 8
    assert draw.model_source == "configured"  # codex exec names no model: the one it was configured with


def test_codex_files_capture_draws_cannot_write_into_each_other(
    suite_dir: Path, fake_cli: FakeCLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = suite_dir / "temp"  # where the draws' folders would go if they had no private root (kept private here)
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    # all 4 draws (2 per arm) run at once; each waits for the other 3 folders, tries to write a file into each of
    # them and into /tmp, then stays 1.5 s so that the others' writes land before its own folder is read back
    answer = {"COMMIT_MSG.txt": "fix(cart): return 0 for an empty cart\n"}
    fake_cli.use({"result": "", "files": answer, "write_outside": {"siblings": 3, "wait_s": 10}, "delay_s": 1.5})
    req = request(suite_dir, provider="openai", model="gpt-6.2-sol", capture="files", concurrency=4)
    case = run_suite(req).receipt.cases[0]
    draws = case.with_skill.draws + case.baseline.draws
    assert [[f.path for f in d.captured_files or []] for d in draws] == [["COMMIT_MSG.txt"]] * 4
    runs = [e for e in fake_cli.invocations() if "outside_writes" in e]
    assert len(runs) == 4
    for entry in runs:
        assert Path(entry["cwd"]).parents[2] == suite_dir / "cache" / "driftproof" / "draws"
        config = entry["config"]
        assert config["sandbox_workspace_write.exclude_slash_tmp"] is True
        assert config["sandbox_workspace_write.exclude_tmpdir_env_var"] is True
        targets = [w["path"] for w in entry["outside_writes"]]
        assert len(targets) == 4 and targets[-1].startswith("/tmp/")  # 3 other draws' folders, then /tmp
        assert not any(w["written"] for w in entry["outside_writes"])


def test_reply_pointing_at_an_unshown_file_is_lost_before_grading(suite_dir: Path, fake_cli: FakeCLI) -> None:
    fake_cli.use({"result": "I saved the commit message to notes/commit.md."})
    receipt = run_suite(request(suite_dir)).receipt
    draws = receipt.cases[0].with_skill.draws
    assert {d.lost_reason for d in draws} == {"points at a file the grader was not shown: notes/commit.md"}
    assert all(d.judge_samples == [] and d.score is None for d in draws)


def test_failed_draws_are_lost_and_the_run_finishes(suite_dir: Path, fake_cli: FakeCLI) -> None:
    fake_cli.use({"sequence": [{"scenario": "api_error", "api_error_status": 529}, {"scenario": "crash"}]})
    receipt = run_suite(request(suite_dir)).receipt
    case = receipt.cases[0]
    reasons = sorted(d.lost_reason or "" for arm in (case.with_skill, case.baseline) for d in arm.draws)
    # a lost draw keeps where its model id came from: the init line named it before the 529; a crash named none
    draws = case.with_skill.draws + case.baseline.draws
    sources = {(d.lost_reason or "")[:13]: d.model_source for d in draws}
    assert sources == {"API error 529": "reported", "claude exited": None}
    assert reasons[0].startswith("API error 529 overloaded_error: API Error: 529")
    assert (
        all(r.startswith("claude exited with status 134: Error: fake crash") for r in reasons[1:]) and len(reasons) == 4
    )


def test_another_model_answering_stops_the_run(suite_dir: Path, fake_cli: FakeCLI) -> None:
    fake_cli.use({"scenario": "other_model", "answer_model": "claude-haiku-5-5"})
    with pytest.raises(LaneError, match="another model gave the answer"):
        run_suite(request(suite_dir))
    assert not (suite_dir / "receipt.json").exists()
    gc.collect()  # nothing left open: the runner closed its journal and pool on the way out


def test_discover_delivery_through_the_command_line(
    suite_dir: Path, fake_cli: FakeCLI, capsys: pytest.CaptureFixture[str]
) -> None:
    out = suite_dir / "discover.json"
    argv = ["run", str(suite_dir / "suite.yaml"), "--provider", "anthropic", "--surface", "cli", "--delivery"]
    argv += ["discover", "--judge-provider", "stub", "--draws", "2", "--max-draws", "2", "--judge-samples", "1"]
    assert main([*argv, "-o", str(out)]) == 0, capsys.readouterr().err
    receipt = load_receipt(out)
    assert receipt.run.settings.delivery == "discover" and receipt.run.sampling["setting_sources"] == "user"
    assert [d.skill_fired for d in receipt.cases[0].with_skill.draws] == [False, False]
    assert [d.skill_fired for d in receipt.cases[0].baseline.draws] == [None, None]
    skills = [e["init"]["skills"] for e in fake_cli.invocations() if "init" in e]
    assert sorted(s[0] == "commit-writer" for s in skills) == [False, False, True, True]  # with-skill draws only


def test_discover_delivery_needs_the_cli_surface(suite_dir: Path) -> None:
    with pytest.raises(InputError, match=r"--delivery discover installs the skill .*: add --surface cli"):
        run_suite(request(suite_dir, surface="api", delivery="discover"))


def test_an_api_401_the_cli_reports_stops_the_run_at_the_first_draw(suite_dir: Path, fake_cli: FakeCLI) -> None:
    # Claude Code ends on the provider's 401: the key is wrong, every draw would meet it (issue 8)
    fake_cli.use({"scenario": "api_error", "api_error_status": 401, "api_error_type": "authentication_error"})
    with pytest.raises(RunStopped, match="HTTP API error 401 authentication_error") as caught:
        run_suite(request(suite_dir, concurrency=1))
    assert "ANTHROPIC_API_KEY" in str(caught.value) and not (suite_dir / "receipt.json").exists()
    assert len(fake_cli.invocations()) == 2  # the --version probe and one draw


def test_a_timeout_while_the_cli_retried_the_provider_is_replaced(suite_dir: Path, fake_cli: FakeCLI) -> None:
    """The first with-skill draw times out while Claude Code is still retrying a 529: the provider failed the
    call, so the draw is drawn again and marked replaced; R-6 leaves it out (issue 9)."""
    slow = {"scenario": "api_error", "api_error_status": 529, "api_retries": 2, "retrying_s": 30}
    fake_cli.use({"when": [{"match": "conventional commits", "sequence": [slow, {"result": "feat: fix the cart"}]}]})
    receipt = run_suite(request(suite_dir, concurrency=1, timeout_s=1.5, draws=2, max_draws=3)).receipt
    with_skill = receipt.cases[0].with_skill.draws
    assert [d.status for d in with_skill] == ["lost", "measured", "measured"]
    assert with_skill[0].replaced is True and "while Claude Code was retrying API error 529" in (
        with_skill[0].lost_reason or ""
    )


def test_a_cli_lane_run_without_model_says_the_cli_chose_it_and_how_to_pin_it(
    suite_dir: Path, fake_cli: FakeCLI, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    fake_cli.use({"result": "fix(cart): return 0 for an empty cart"})
    out = suite_dir / "r.json"
    flags = ["--provider", "anthropic", "--surface", "cli", "--judge-provider", "stub", "--judge-samples", "1"]
    assert main(["run", str(suite_dir / "suite.yaml"), *flags, "--draws", "2", "--max-draws", "2", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    lane = load_receipt(out).run.lane
    assert lane.model_requested is None and lane.models_reported == ["claude-opus-5-5"]  # the fake CLI's default
    assert printed.splitlines()[0] == (
        "cli · anthropic/claude-opus-5-5, the CLI's default (cli) · judge stub/stub-judge · 1 case"
    )  # it printed anthropic/None (cli)
    assert "(stub judge: no model judged)" in printed  # the CLI answered: only the judge was the stub
    assert main(["stale", str(out), "--format", "json"]) == 1  # never stands: the CLI's default may move
    doc = json.loads(capsys.readouterr().out)
    assert doc["cases"][0]["baseline"]["reasons"] == [
        "answering model: none asked for; the CLI chose its default (it reported claude-opus-5-5), which may "
        "differ today (never read as current): give --model (the Action's model input) to pin it, so stale and "
        "baseline carrying can work"
    ]
    assert doc["unknown"] == ["run.lane.model_requested"]
