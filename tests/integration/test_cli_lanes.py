"""The Claude Code and Codex lanes driven through the fake ``claude`` / ``codex``: every recorded outcome,
isolation read back from the fakes' invocation log, and the capture rules (seed 000, "Which answer is graded")."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from driftproof.core.models import Harness, SideCall, Usage
from driftproof.errors import InputError, LaneError
from driftproof.lanes import claude_cli, codex_cli
from driftproof.lanes.base import GenerationRequest
from driftproof.lanes.claude_cli import ClaudeCliLane
from driftproof.lanes.codex_cli import CodexCliLane
from driftproof.lanes.registry import make_lane
from tests.support.fake_cli_harness import FakeCLI

SKILL = "---\nname: Commit Writer\ndescription: Writes commit messages.\n---\nUse conventional commits.\n"
LEAKS = {"CLAUDE_CODE_USE_BEDROCK": "1", "OPENAI_ORG_ID": "org-user", "MY_PRIVATE_SETTING": "x"}


@pytest.fixture
def env(fake_cli: FakeCLI, tmp_path: Path) -> dict[str, str]:
    """What the user's shell holds: keys, settings that must not leak, and a HOME full of their own config."""
    home = tmp_path / "user-home"
    (home / ".claude" / "skills" / "user-skill").mkdir(parents=True)
    (home / ".claude" / "skills" / "user-skill" / "SKILL.md").write_text("---\nname: user-skill\n---\n")
    (home / ".claude" / "CLAUDE.md").write_text("always answer in French")
    base = {"PATH": os.environ["PATH"], "HOME": str(home), "ANTHROPIC_API_KEY": "sk-ant-test-0001"}
    return fake_cli.env({**base, "OPENAI_API_KEY": "sk-test-0002", **LEAKS})


def claude(env: dict[str, str], **kw: Any) -> ClaudeCliLane:
    return ClaudeCliLane(kw.pop("model", "claude-sonnet-5-5"), environ=env, timeout_s=kw.pop("timeout_s", 20), **kw)


def codex(env: dict[str, str], **kw: Any) -> CodexCliLane:
    return CodexCliLane(kw.pop("model", "gpt-6.2-sol"), environ=env, timeout_s=kw.pop("timeout_s", 20), **kw)


def ask(system: str | None = SKILL, prompt: str = "Write a commit message for the cart fix.") -> GenerationRequest:
    return GenerationRequest(prompt=prompt, system=system, case_id="c1", arm="with_skill" if system else "baseline")


def flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


# -- Claude Code ---------------------------------------------------------------------------------------------


def test_claude_success_reports_identity_usage_and_overhead(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use({"result": "fix(cart): return 0 for an empty cart", "usage": {"input_tokens": 120}, "cost_usd": 0.002})
    lane = claude(env)
    g = lane.generate(ask())
    assert lane.harness() == Harness(name="claude-code", version="2.1.332")
    # the lane applies the capture rules itself (an agent with tools): a plain answer passes them unchanged
    assert (g.text, g.error, g.attempts, g.assessed) == ("fix(cart): return 0 for an empty cart", None, 1, True)
    assert g.lost_reason is None and g.captured_files is None  # text capture lists no files
    assert (g.reported_model, g.served_model, g.side_calls) == ("claude-sonnet-5-5", "claude-sonnet-5-5", None)
    assert g.model_source == "reported"  # the init line names the model Claude Code resolved
    assert g.usage == Usage(
        input_tokens=120, output_tokens=9, cache_read_tokens=0, cache_write_tokens=0, cost_usd=0.002
    )
    overhead = g.extra["harness_overhead"]
    # prompt 41 chars + skill 91 chars = 132 -> ceil(132 / 4) = 33 estimated; 120 reported -> 87 overhead
    assert (overhead["prompt_tokens_estimate"], overhead["overhead_tokens_estimate"]) == (33, 87)
    assert overhead["total_cost_usd"] == 0.002


def test_claude_text_capture_flags_and_isolation(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    lane = claude(env)
    lane.generate(ask())
    lane.generate(ask(system=None))
    with_skill, baseline = fake_cli.invocations()[-2:]
    argv = with_skill["argv"]
    assert (flag(argv, "--tools"), flag(argv, "--allowedTools")) == ("Read,WebFetch,WebSearch",) * 2
    assert with_skill["init"]["tools"] == ["Read", "WebFetch", "WebSearch"]
    assert with_skill["init"]["mcp_servers"] == [] and with_skill["options"]["strict_mcp_config"] is True
    assert flag(argv, "--mcp-config") == '{"mcpServers":{}}' and flag(argv, "--setting-sources") == ""
    skills = with_skill["init"]["skills"]
    assert "user-skill" not in skills and skills[0] == "deep-research"  # only the built-ins: the user's stay home
    assert "--permission-mode" not in argv and "--no-session-persistence" in argv
    assert flag(argv, "--append-system-prompt") == SKILL and "--append-system-prompt" not in baseline["argv"]
    assert argv[-2:] == ["--", "Write a commit message for the cart fix."]
    assert_isolated(with_skill, baseline, config="CLAUDE_CONFIG_DIR", config_name=".claude")
    assert with_skill["secrets_set"]["ANTHROPIC_API_KEY"] and not with_skill["secrets_set"]["OPENAI_API_KEY"]
    assert with_skill["env"]["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert lane.sampling()["tools"] == ["Read", "WebFetch", "WebSearch"]


def assert_isolated(first: dict[str, Any], second: dict[str, Any], *, config: str, config_name: str) -> None:
    """Fresh cwd per draw, removed afterwards; HOME and the config dir inside the draw's own directory."""
    assert first["cwd"] != second["cwd"] and not Path(first["cwd"]).exists()
    for entry in (first, second):
        root = Path(entry["cwd"]).parent
        assert entry["env"]["HOME"] == str(root / "home") and entry["env"][config] == str(root / "home" / config_name)
        assert entry["env"]["TMPDIR"] == str(root / "tmp") and entry["stdin"] == "devnull"
        assert not set(LEAKS) & set(entry["env_names"])


def test_claude_files_capture_adds_file_tools_confined_to_the_directory(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use({"files": {"notes/answer.md": "# Commit\nfix(cart): guard empty carts\n"}})
    g = claude(env, capture="files").generate(ask())
    argv = fake_cli.invocations()[-1]["argv"]
    assert flag(argv, "--tools") == "Read,WebFetch,WebSearch,Write,Edit,NotebookEdit"
    assert (
        flag(argv, "--allowedTools") == "Read,WebFetch,WebSearch" and flag(argv, "--permission-mode") == "acceptEdits"
    )
    assert g.assessed and g.lost_reason is None and g.captured_files is not None
    assert [(f.path, f.size, f.included) for f in g.captured_files] == [("notes/answer.md", 38, True)]
    assert g.text.startswith("I saved it to notes/answer.md") and "fix(cart): guard empty carts" in g.text


@pytest.mark.parametrize(
    ("scenario", "reason"),
    [
        ({"scenario": "api_error", "api_error_status": 529}, "API error 529 overloaded_error: API Error: 529 fake"),
        (
            {"scenario": "api_error", "api_error_status": 401},
            "API error 401 authentication_error: Invalid API key · Fix external API key",
        ),
        ({"scenario": "max_turns"}, "claude stopped at its turn limit: Reached maximum number of turns (1)"),
        ({"scenario": "crash"}, "claude exited with status 134: Error: fake crash at <anonymous>"),
        ({"scenario": "crash", "signal": "SIGABRT"}, "claude was killed by SIGABRT: Error: fake crash"),
    ],
)
def test_claude_failures_are_lost_draws_with_a_reason(
    fake_cli: FakeCLI, env: dict[str, str], scenario: dict[str, Any], reason: str
) -> None:
    fake_cli.use(scenario)
    g = claude(env).generate(ask())
    assert g.text == "" and g.error is not None and g.error.startswith(reason), g.error
    assert not g.timed_out and g.attempts == 1


def test_claude_timeout_kills_the_process_group(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use({"scenario": "timeout"})
    started = time.monotonic()
    g = claude(env, timeout_s=1).generate(ask())
    assert g.timed_out and g.error == "timed out after 1s: the claude process group was killed"
    assert time.monotonic() - started < 10
    pid = fake_cli.invocations()[-1]["pid"]
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)  # nothing left in the draw's process group


def test_claude_timeout_while_retrying_names_the_last_api_error(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    # Claude Code retries a 529 itself: 7 api_retry lines, then it goes on retrying past the lane's timeout
    fake_cli.use({"scenario": "api_error", "api_error_status": 529, "api_retries": 7, "retrying_s": 60})
    g = claude(env, timeout_s=2).generate(ask())
    assert g.timed_out and g.text == ""
    assert g.error == (
        "timed out after 2s while Claude Code was retrying API error 529 server_error (attempt 7 of 10); "
        "the claude process group was killed"
    )


def test_claude_close_ends_a_running_draw(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use({"scenario": "timeout"})
    lane = claude(env, timeout_s=600)
    out: list[Any] = []
    worker = threading.Thread(target=lambda: out.append(lane.generate(ask())))
    worker.start()
    deadline = time.monotonic() + 10
    while fake_cli.invocations()[-1].get("scenario") != "timeout" and time.monotonic() < deadline:
        time.sleep(0.05)
    lane.close()
    worker.join(timeout=10)
    assert out and out[0].error.startswith("claude was killed by SIGKILL")


def test_claude_another_model_answering_stops_the_run(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use({"scenario": "other_model", "answer_model": "claude-haiku-5-5"})
    with pytest.raises(LaneError, match="another model gave the answer: Claude Code resolved claude-sonnet-5-5 but"):
        claude(env).generate(ask())
    fake_cli.use({"model": "claude-opus-5-5"})  # the CLI resolved a model other than the full id asked for
    with pytest.raises(LaneError, match="claude-sonnet-5-5 was asked for but Claude Code resolved claude-opus-5-5"):
        claude(env).generate(ask())


def test_claude_side_call_recorded_beside_the_answer(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use(
        {"scenario": "other_model", "side_model": "claude-haiku-5-5", "served_model": "claude-sonnet-5-5-20991231"}
    )
    g = claude(env).generate(ask())
    assert g.text == "FAKE-REPLY" and g.usage is not None and g.usage.input_tokens == 11
    haiku = Usage(input_tokens=120, output_tokens=8, cache_read_tokens=0, cache_write_tokens=0, cost_usd=0.00012)
    assert g.side_calls == (SideCall(model="claude-haiku-5-5", usage=haiku),)
    assert claude_cli.same_model("claude-sonnet-5-5-20991231", "claude-sonnet-5-5")


def test_claude_discover_installs_the_skill_and_records_firing(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    lane = claude(env, delivery="discover")
    with_skill, baseline = lane.generate(ask()), lane.generate(ask(system=None))
    first, second = fake_cli.invocations()[-2:]
    assert first["init"]["skills"][0] == "Commit Writer"  # listed by its frontmatter name, before the built-ins
    assert Path(first["env"]["CLAUDE_CONFIG_DIR"], "skills", "commit-writer", "SKILL.md").parent.name == "commit-writer"
    assert second["init"]["skills"] == first["init"]["skills"][1:]
    assert flag(first["argv"], "--setting-sources") == "user" and "--append-system-prompt" not in first["argv"]
    assert flag(first["argv"], "--tools") == "Read,WebFetch,WebSearch,Skill"
    assert (with_skill.skill_fired, baseline.skill_fired) == (False, None)  # the fake never calls the Skill tool
    # As observed from Claude Code 2.1.332: the Skill tool called with the installed skill's name.
    line = {"message": {"content": [{"type": "tool_use", "name": "Skill", "input": {"skill": "commit-writer"}}]}}
    assert claude_cli._fired([line], "commit-writer") and not claude_cli._fired([line], "other")
    named = {"message": {"content": [{"type": "tool_use", "name": "Skill", "input": {"skill": "Commit Writer"}}]}}
    assert claude_cli._fired([named], "commit-writer")


# -- Codex ---------------------------------------------------------------------------------------------------


def test_codex_success_normalises_usage_and_marks_the_model_configured(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    lane = codex(env)
    g = lane.generate(ask())
    assert lane.harness() == Harness(name="codex", version="0.171.0")
    assert (g.text, g.error, g.reported_model, g.served_model) == ("FAKE-OAI-REPLY", None, "gpt-6.2-sol", None)
    # 21 input tokens of which 8 cached -> 13 uncached; output 6 already holds the 2 reasoning tokens
    assert g.usage == Usage(input_tokens=13, output_tokens=6, cache_read_tokens=8, cache_write_tokens=0)
    assert g.model_source == "configured" and g.extra["harness_overhead"]["input_tokens_reported"] == 21


def test_codex_text_capture_flags_and_isolation(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    features = [["shell_tool", "stable", True], ["unified_exec", "stable", True], ["js_repl", "removed", True]]
    features += [["memories", "stable", False], ["view_image", "stable", True], ["code_mode_host", "stable", True]]
    fake_cli.use({"features": features})
    lane = codex(env)
    lane.generate(ask())
    lane.generate(ask(system=None))
    first, second = fake_cli.invocations()[-2:]
    assert first["options"]["sandbox"] == "read-only" and first["workdir"] == first["cwd"]
    assert first["config"]["features.shell_tool"] is False and first["config"]["features.code_mode_host"] is False
    assert sorted(first["merged_options"]["disable"]) == ["code_mode_host", "shell_tool", "unified_exec"]
    assert first["config"]["mcp_servers"] == {} and first["config"]["approval_policy"] == "never"
    assert first["config"]["developer_instructions"] == SKILL and "developer_instructions" not in second["config"]
    options = first["options"]
    assert options["skip_git_repo_check"] and options["ignore_user_config"] and options["ignore_rules"]
    assert first["positionals"] == ["Write a commit message for the cart fix."]
    assert_isolated(first, second, config="CODEX_HOME", config_name=".codex")
    assert first["secrets_set"]["CODEX_API_KEY"] and not first["secrets_set"]["ANTHROPIC_API_KEY"]
    assert lane.sampling()["disabled_features"] == ["code_mode_host", "shell_tool", "unified_exec"]


def test_codex_files_capture_runs_workspace_write_with_features_as_they_are(
    fake_cli: FakeCLI, env: dict[str, str]
) -> None:
    fake_cli.use({"files": {"CHANGES.md": "fix: guard empty carts\n"}, "result": ""})
    g = codex(env, capture="files").generate(ask())
    entry = fake_cli.invocations()[-1]
    assert entry["options"]["sandbox"] == "workspace-write" and entry["merged_options"]["disable"] == []
    assert g.lost_reason is None and g.text.startswith("----- files left in the working directory: 1 -----")
    assert "fix: guard empty carts" in g.text  # an empty reply is graded on the file


def test_codex_base_url_defines_its_own_provider(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    lane = codex(env, base_url="http://127.0.0.1:9/v1")
    lane.generate(ask())
    config = fake_cli.invocations()[-1]["config"]
    assert config["model_provider"] == "driftproof" and config["model_providers.driftproof.base_url"].endswith("/v1")
    assert (
        config["model_providers.driftproof.supports_websockets"] is False and lane.base_url() == "http://127.0.0.1:9/v1"
    )


@pytest.mark.parametrize(
    ("scenario", "reason"),
    [
        ({"scenario": "api_error"}, "API error 429: exceeded retry limit, last status: 429 Too Many Requests"),
        ({"scenario": "api_error", "api_error_status": 401}, "API error 401: unexpected status 401 Unauthorized"),
        ({"scenario": "crash"}, "codex exited with status 101: thread 'main' panicked at exec/src/lib.rs:1:1:"),
    ],
)
def test_codex_failures_are_lost_draws_with_a_reason(
    fake_cli: FakeCLI, env: dict[str, str], scenario: dict[str, Any], reason: str
) -> None:
    fake_cli.use(scenario)
    g = codex(env).generate(ask())
    assert g.text == "" and g.error is not None and g.error.startswith(reason), g.error


def test_codex_timeout_kills_the_process_group(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use({"scenario": "timeout"})
    g = codex(env, timeout_s=1).generate(ask())
    assert g.timed_out and g.error == "timed out after 1s: the codex process group was killed"
    with pytest.raises(ProcessLookupError):
        os.killpg(fake_cli.invocations()[-1]["pid"], 0)


def test_codex_timeout_while_reconnecting_names_the_last_api_error(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    # 5 "Reconnecting... n/5" errors after a 503, then Codex is still at it when the lane's timeout fires
    fake_cli.use({"scenario": "api_error", "api_error_status": 503, "retrying_s": 60})
    g = codex(env, timeout_s=2).generate(ask())
    assert g.timed_out and g.text == ""
    assert g.error == (
        "timed out after 2s while Codex was reconnecting after API error 503 (attempt 5 of 5); "
        "the codex process group was killed"
    )


def test_cli_lanes_default_to_a_timeout_longer_than_their_own_retries(env: dict[str, str]) -> None:
    # Claude Code's own backoff: 0.5 s doubling, capped at 32 s, 10 retries = 159.5 s, up to 25 % jitter on top
    own_retries_s = sum(min(0.5 * 2**n, 32.0) for n in range(10)) * 1.25
    assert own_retries_s == pytest.approx(199.375)
    for lane_class, model in ((ClaudeCliLane, "claude-sonnet-5-5"), (CodexCliLane, "gpt-6.2-sol")):
        lane = lane_class(model, environ=env)
        assert lane._timeout_s == lane_class.DEFAULT_TIMEOUT_S == 600.0 > own_retries_s
        lane.close()
    assert make_lane("anthropic", "cli", None, environ=env)._timeout_s == 600.0  # type: ignore[attr-defined]
    assert make_lane("anthropic", "api", None, environ=env)._timeout_s == 120.0  # type: ignore[attr-defined]


def test_codex_discover_fires_when_a_tool_opens_the_skill(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    opened = {"type": "command_execution", "command": "cat r0/commit-writer/SKILL.md", "exit_code": 0}
    fake_cli.use({"items": [opened]})
    lane = codex(env, delivery="discover")
    g = lane.generate(ask())
    entry = fake_cli.invocations()[-1]
    assert "developer_instructions" not in entry["config"] and g.skill_fired is True
    assert lane.sampling()["skill_via"] == "CODEX_HOME/skills"
    assert codex_cli._fired([{"type": "reasoning", "text": "commit-writer/SKILL.md"}], "commit-writer") is False


# -- capture rules and refusals --------------------------------------------------------------------------------


def test_files_capture_reply_pointing_at_an_unshown_file_is_lost(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use({"result": "**Created:** notes/summary.md", "files": {"picture.png": {"base64": "AAEC"}}})
    g = claude(env, capture="files").generate(ask())
    assert g.lost_reason == "points at a file the grader was not shown: notes/summary.md"
    assert g.captured_files is not None and [(f.path, f.reason) for f in g.captured_files] == [
        ("picture.png", "binary")
    ]


def test_files_capture_empty_reply_and_nothing_shown_is_lost_listing_its_files(
    fake_cli: FakeCLI, env: dict[str, str]
) -> None:
    fake_cli.use({"result": "", "files": {"out.bin": {"base64": "AAEC"}}})
    g = codex(env, capture="files").generate(ask())
    assert g.lost_reason == "no answer: reply empty and no file could be shown (out.bin: binary)"
    assert g.captured_files is not None and len(g.captured_files) == 1


def test_files_capture_unreadable_directory_is_lost(
    fake_cli: FakeCLI, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import driftproof.lanes.capture

    def refuse(path: Path) -> list[os.DirEntry[str]]:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(driftproof.lanes.capture, "_list_dir", refuse)
    g = claude(env, capture="files").generate(ask())
    assert g.lost_reason == "working directory could not be read: unreadable: permission denied"


def test_failed_draw_in_files_capture_still_lists_its_files(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use({"scenario": "max_turns"})
    g = claude(env, capture="files").generate(ask())
    assert g.error is not None and g.captured_files == () and g.assessed


def test_missing_binary_and_missing_key_cannot_run(env: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(LaneError, match=r"needs the `claude` command, which is not on PATH: .*npm install -g @anthro"):
        claude({**env, "PATH": str(tmp_path)})
    with pytest.raises(LaneError, match="needs the `/nowhere/codex` command, which is not an executable file"):
        codex(env, binary="/nowhere/codex")
    with pytest.raises(LaneError, match="set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN"):
        claude({k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"})
    with pytest.raises(InputError, match="unknown delivery 'osmosis'"):
        claude(env, delivery="osmosis")
