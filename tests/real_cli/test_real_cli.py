"""The real ``claude`` and ``codex`` from the npm registry, pointed at the loopback `FakeLLMServer`.

Opt-in: ``make test-cli-real`` installs both CLIs into a temporary prefix, puts them first on PATH and sets
``DRIFTPROOF_REAL_CLI_TESTS=1``; otherwise this module is skipped at collection. No request leaves the
machine: Claude Code gets ``ANTHROPIC_BASE_URL``, Codex a provider of its own on the same server.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("DRIFTPROOF_REAL_CLI_TESTS") != "1":
    pytest.skip("real CLIs: run `make test-cli-real` (sets DRIFTPROOF_REAL_CLI_TESTS=1)", allow_module_level=True)

import yaml

from driftproof.core.models import Harness
from driftproof.errors import LaneError
from driftproof.lanes.base import GenerationRequest
from driftproof.lanes.claude_cli import ClaudeCliLane
from driftproof.lanes.codex_cli import CodexCliLane
from driftproof.run import RunRequest, run_suite
from tests.support.fake_llm_script import FakeReply, FakeUsage, RecordedRequest
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, OPENAI_RESPONSES, FakeLLMServer
from tests.support.fake_llm_wire import sse

SKILL = "---\nname: commit-writer\ndescription: Writes commit messages.\n---\nMARKER-SKILL: conventional commits.\n"
WITH, WITHOUT = "fix(cart): return 0 for an empty cart", "Cart: return zero when the cart is empty."
PROMPT = "Write a commit message for the cart fix."
USAGE = FakeUsage(input_tokens=100, cache_read_tokens=40, output_tokens=20, reasoning_tokens=5)


def version(command: str) -> str:
    path = shutil.which(command)
    assert path, f"{command} is not on PATH: run `make test-cli-real`"
    return subprocess.run([path, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def answer(request: RecordedRequest) -> FakeReply:
    """The skill's marker in the system text (system prompt or developer message) changes the answer."""
    return FakeReply(text=WITH if "MARKER-SKILL" in request.system_text else WITHOUT, usage=USAGE)


def tool_use(model: str, name: str, args: dict[str, Any]) -> FakeReply:
    """A streamed Anthropic reply that calls one tool (what a model does before Claude Code runs the tool)."""
    start = {"id": "msg_tool", "type": "message", "role": "assistant", "model": model, "content": []}
    start |= {"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}
    block = {"type": "tool_use", "id": "toolu_01", "name": name, "input": {}}
    delta = {"type": "input_json_delta", "partial_json": json.dumps(args)}
    events = [
        ("message_start", {"type": "message_start", "message": start}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 7}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return FakeReply(raw_body=sse(events), headers={"content-type": "text/event-stream"})


def after_tool(name: str, args: dict[str, Any], then: str) -> Any:
    """A responder: call the tool first, then answer ``then`` once the tool's result comes back."""

    def respond(request: RecordedRequest) -> FakeReply:
        last = (request.body.get("messages") or [{}])[-1]
        if "tool_result" in json.dumps(last):
            return FakeReply(text=then, usage=USAGE)
        return tool_use(str(request.model), name, args)

    return respond


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(answer) as fake:
        yield fake


@pytest.fixture
def claude_env(server: FakeLLMServer) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "ANTHROPIC_API_KEY": "sk-ant-loopback-0001",
        "ANTHROPIC_BASE_URL": server.base_url,
    }


@pytest.fixture
def codex_env(server: FakeLLMServer) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "CODEX_API_KEY": "sk-loopback-0002", "OPENAI_BASE_URL": server.openai_base_url}


def ask(system: str | None = SKILL) -> GenerationRequest:
    return GenerationRequest(prompt=PROMPT, system=system, case_id="cart", arm="with_skill" if system else "baseline")


def tool_names(request: RecordedRequest) -> set[str]:
    """Every tool the request offers, nested ones (Codex's code-mode ``exec`` description) included."""
    text = json.dumps(request.body.get("tools", [])) + json.dumps(request.body.get("input", []))
    return set(re.findall(r'"name": "([A-Za-z_]+)"', text)) | set(re.findall(r"### `([a-z_]+)`", text))


# -- Claude Code ------------------------------------------------------------------------------------------------


def test_claude_text_capture_on_the_real_cli(server: FakeLLMServer, claude_env: dict[str, str]) -> None:
    lane = ClaudeCliLane("claude-sonnet-5-5", environ=claude_env, timeout_s=120)
    with_skill, baseline = lane.generate(ask()), lane.generate(ask(system=None))
    assert lane.harness() == Harness(name="claude-code", version=version("claude").split()[0])
    assert (with_skill.text, baseline.text, with_skill.error) == (WITH, WITHOUT, None)
    assert with_skill.reported_model == with_skill.served_model == "claude-sonnet-5-5"
    assert with_skill.usage is not None and (with_skill.usage.input_tokens, with_skill.usage.output_tokens) == (100, 20)
    assert with_skill.usage.cache_read_tokens == 40 and (with_skill.usage.cost_usd or 0) > 0
    requests = server.requests_to(ANTHROPIC_MESSAGES)
    assert len(requests) == 2 and "MARKER-SKILL" not in requests[1].system_text
    offered = tool_names(requests[0])
    assert {"Read", "WebFetch", "WebSearch"} <= offered and not offered & {"Bash", "Write", "Edit", "Task", "Skill"}


def test_claude_files_capture_writes_inside_its_directory(server: FakeLLMServer, claude_env: dict[str, str]) -> None:
    server.responder = after_tool("Write", {"file_path": "notes/commit.md", "content": WITH + "\n"}, then="")
    g = ClaudeCliLane("claude-sonnet-5-5", environ=claude_env, timeout_s=120, capture="files").generate(ask())
    assert g.lost_reason is None and g.error is None, (g.lost_reason, g.error)
    assert g.captured_files is not None and [(f.path, f.included) for f in g.captured_files] == [
        ("notes/commit.md", True)
    ]
    assert WITH in g.text  # an empty reply is graded on the file it wrote


def test_claude_failures_are_lost_draws(server: FakeLLMServer, claude_env: dict[str, str]) -> None:
    lane = ClaudeCliLane("claude-sonnet-5-5", environ=claude_env, timeout_s=120, max_turns=1)
    server.responder = lambda r: FakeReply.error(529, should_retry=False)
    assert (lane.generate(ask()).error or "").startswith("API error 529 overloaded_error")
    server.responder = after_tool("Read", {"file_path": "/etc/hostname"}, then="never reached")
    assert lane.generate(ask()).error == "claude stopped at its turn limit: Reached maximum number of turns (1)"


def test_claude_another_model_answering_stops(server: FakeLLMServer, claude_env: dict[str, str]) -> None:
    server.responder = lambda r: FakeReply(text=WITH, model="claude-haiku-5-5")
    with pytest.raises(LaneError, match="resolved claude-sonnet-5-5 but claude-haiku-5-5 answered"):
        ClaudeCliLane("claude-sonnet-5-5", environ=claude_env, timeout_s=120).generate(ask())


def test_claude_discover_fires_through_the_skill_tool(server: FakeLLMServer, claude_env: dict[str, str]) -> None:
    server.responder = after_tool("Skill", {"skill": "commit-writer"}, then=WITH)
    lane = ClaudeCliLane("claude-sonnet-5-5", environ=claude_env, timeout_s=120, delivery="discover")
    g = lane.generate(ask())
    assert (g.text, g.skill_fired) == (WITH, True)
    first = server.requests_to(ANTHROPIC_MESSAGES)[0]
    assert "commit-writer" in json.dumps(first.body) and "MARKER-SKILL" not in first.system_text


# -- Codex -------------------------------------------------------------------------------------------------------


def test_codex_text_capture_on_the_real_cli(server: FakeLLMServer, codex_env: dict[str, str]) -> None:
    lane = CodexCliLane("gpt-6.2-sol", environ=codex_env, timeout_s=120)
    with_skill, baseline = lane.generate(ask()), lane.generate(ask(system=None))
    assert lane.harness() == Harness(name="codex", version=version("codex").split()[-1])
    assert (with_skill.text, baseline.text, with_skill.error) == (WITH, WITHOUT, None)
    assert (with_skill.reported_model, with_skill.served_model) == ("gpt-6.2-sol", None)
    assert with_skill.usage is not None and (with_skill.usage.input_tokens, with_skill.usage.cache_read_tokens) == (
        100,
        40,
    )
    assert with_skill.usage.output_tokens == 20
    requests = server.requests_to(OPENAI_RESPONSES)
    assert len(requests) == 2 and "MARKER-SKILL" not in requests[1].system_text
    assert not tool_names(requests[0]) & {"exec_command", "write_stdin", "shell"}
    assert '"sandbox_mode":"read-only"' in requests[0].headers.get("x-codex-turn-metadata", "")


def test_codex_api_error_is_a_lost_draw(server: FakeLLMServer, codex_env: dict[str, str]) -> None:
    server.responder = lambda r: FakeReply.error(429, should_retry=False)
    g = CodexCliLane("gpt-6.2-sol", environ=codex_env, timeout_s=120).generate(ask())
    assert (g.error or "").startswith("API error 429:"), g.error


def test_codex_discover_lists_the_installed_skill(server: FakeLLMServer, codex_env: dict[str, str]) -> None:
    g = CodexCliLane("gpt-6.2-sol", environ=codex_env, timeout_s=120, delivery="discover").generate(ask())
    assert g.text == WITHOUT and g.skill_fired is False  # listed for the agent, not in its prompt
    assert "commit-writer: Writes commit messages." in server.requests_to(OPENAI_RESPONSES)[0].system_text


# -- one small suite through each lane, end to end ---------------------------------------------------------------


@pytest.mark.parametrize(("provider", "model"), [("anthropic", "claude-sonnet-5-5"), ("openai", "gpt-6.2-sol")])
def test_whole_run_through_each_lane(
    server: FakeLLMServer,
    tmp_path: Path,
    provider: str,
    model: str,
    claude_env: dict[str, str],
    codex_env: dict[str, str],
) -> None:
    (tmp_path / "SKILL.md").write_text(SKILL, encoding="utf-8")
    suite = {
        "name": "real",
        "skill": "SKILL.md",
        "cases": [{"id": "cart", "prompt": PROMPT, "rubric": "A fix commit."}],
    }
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite), encoding="utf-8")
    environ = claude_env if provider == "anthropic" else codex_env
    common = {"judge_provider": "stub", "draws": 2, "max_draws": 2, "judge_samples": 2, "concurrency": 2}
    receipt = run_suite(
        RunRequest(
            suite=tmp_path / "suite.yaml",
            out=tmp_path / "receipt.json",
            provider=provider,
            surface="cli",
            model=model,
            timeout_s=180,
            environ=environ,
            **common,  # type: ignore[arg-type]
        )
    ).receipt
    command = "claude" if provider == "anthropic" else "codex"
    assert receipt.run.harness is not None and receipt.run.harness.version in version(command)
    assert receipt.run.capture == "text" and receipt.run.lane.models_reported == [model]
    draws = receipt.cases[0].with_skill.draws + receipt.cases[0].baseline.draws
    assert [d.status for d in draws] == ["measured"] * 4, [d.lost_reason for d in draws]
    assert receipt.economics.generation.with_skill.input_tokens == 200
