"""The test fakes speak the real formats: the real SDKs against FakeLLMServer, and the fake CLIs' outputs.

If one of these fails after an SDK upgrade, the fakes (not the product) need updating first.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import pytest

from tests.support.fake_cli_harness import FakeCLI
from tests.support.fake_llm_server import (
    ANTHROPIC_MESSAGES,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    FakeLLMServer,
    FakeReply,
    FakeServerError,
    FakeUsage,
    RecordedRequest,
    json_text_reply,
)

HI = [{"role": "user", "content": "hi"}]


def anthropic_client(server: FakeLLMServer, **kwargs: object) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="test-key", **{"max_retries": 0, **kwargs})


def openai_client(server: FakeLLMServer, **kwargs: object) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, api_key="test-key", **{"max_retries": 0, **kwargs})


# -- Anthropic Messages API -----------------------------------------------------------------------------------------


def test_anthropic_message_parses_with_served_model_and_usage(fake_llm_server: FakeLLMServer) -> None:
    usage = FakeUsage(input_tokens=11, output_tokens=9, cache_read_tokens=5, cache_write_tokens=7)
    fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply(text="Hello!", model="claude-haiku-4-5-20251001", usage=usage))
    with anthropic_client(fake_llm_server) as client:
        message = client.messages.create(model="claude-haiku-4-5", max_tokens=16, messages=HI, system="sys")
    assert message.model == "claude-haiku-4-5-20251001"  # the served id, not the requested alias
    assert message.content[0].type == "text" and message.content[0].text == "Hello!"
    assert message.stop_reason == "end_turn"
    u = message.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens) == (11, 9, 5, 7)
    assert u.service_tier == "standard"
    assert message._request_id and message._request_id.startswith("req_")
    (request,) = fake_llm_server.requests
    assert request.headers["authorization"] == "Bearer test-key"  # anthropic 2.x: Bearer, not x-api-key
    assert request.headers["anthropic-version"] == "2026-10-21"
    assert request.body == {"max_tokens": 16, "messages": HI, "model": "claude-haiku-4-5", "system": "sys"}
    assert (request.system_text, request.prompt_text) == ("sys", "hi")


def test_anthropic_default_echo_reports_the_requested_model(fake_llm_server: FakeLLMServer) -> None:
    with anthropic_client(fake_llm_server) as client:
        message = client.messages.create(model="claude-opus-5-5", max_tokens=16, messages=HI)
    assert (message.model, message.content[0].text) == ("claude-opus-5-5", "FAKE-REPLY: hi")


def test_anthropic_sdk_retries_a_scripted_429_then_succeeds(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply.error(429, retry_after=0), FakeReply(text="second"))
    with anthropic_client(fake_llm_server, max_retries=1) as client:
        raw = client.messages.with_raw_response.create(model="claude-haiku-4-5", max_tokens=16, messages=HI)
    assert raw.retries_taken == 1
    assert raw.parse().content[0].text == "second"
    first, second = fake_llm_server.requests
    assert (first.headers["x-stainless-retry-count"], second.headers["x-stainless-retry-count"]) == ("0", "1")


def test_anthropic_temperature_is_a_400_under_api_version_2026_10_21(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.queue(ANTHROPIC_MESSAGES, "never used")
    with anthropic_client(fake_llm_server) as client, pytest.raises(anthropic.BadRequestError) as caught:
        # The SDK has no temperature parameter any more; extra_body is how a caller could still send one.
        client.messages.create(model="m", max_tokens=16, messages=HI, extra_body={"temperature": 0.0})
    assert caught.value.status_code == 400
    assert caught.value.body["error"] == {
        "type": "invalid_request_error",
        "message": "temperature: Extra inputs are not permitted",
    }
    assert fake_llm_server.pending(ANTHROPIC_MESSAGES) == 1  # refused before the script was consulted


def test_anthropic_temperature_is_accepted_under_the_old_api_version(fake_llm_server: FakeLLMServer) -> None:
    with anthropic_client(fake_llm_server, default_headers={"anthropic-version": "2023-06-01"}) as client:
        message = client.messages.create(model="m", max_tokens=16, messages=HI, extra_body={"temperature": 0.0})
    assert message.content[0].text == "FAKE-REPLY: hi"


@pytest.mark.parametrize(
    ("status", "exception", "error_type"),
    [
        (529, anthropic.OverloadedError, "overloaded_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (401, anthropic.AuthenticationError, "authentication_error"),
    ],
)
def test_anthropic_error_bodies_map_to_the_sdk_exceptions(
    fake_llm_server: FakeLLMServer, status: int, exception: type[anthropic.APIStatusError], error_type: str
) -> None:
    fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply.error(status, should_retry=False))
    with anthropic_client(fake_llm_server, max_retries=2) as client, pytest.raises(exception) as caught:
        client.messages.create(model="m", max_tokens=16, messages=HI)
    err = caught.value
    assert (err.status_code, err.type, err.body["type"]) == (status, error_type, "error")
    assert err.request_id == err.body["request_id"]
    assert len(fake_llm_server.requests) == 1  # x-should-retry: false stops the SDK's own retries


def test_anthropic_stream_emits_the_reference_event_sequence(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply(text="streamed", model="claude-opus-5-5-20991231"))
    with anthropic_client(fake_llm_server) as client:
        with client.messages.create(model="claude-opus-5-5", max_tokens=16, messages=HI, stream=True) as stream:
            events = [event.type for event in stream]
        with client.messages.stream(model="claude-opus-5-5", max_tokens=16, messages=HI) as stream:
            final = stream.get_final_message()
    assert events == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]  # the SDK drops the ping
    assert (final.content[0].text, final.usage.output_tokens, final.model) == ("FAKE-REPLY: hi", 9, "claude-opus-5-5")


def test_claude_code_style_query_string_lands_on_messages(fake_llm_server: FakeLLMServer) -> None:
    body = {"model": "claude-opus-5-5", "max_tokens": 8, "messages": HI, "stream": True}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    with httpx2.Client(base_url=fake_llm_server.base_url) as http:
        response = http.post("/v1/messages?beta=true", json=body, headers=headers)
    assert response.headers["content-type"] == "text/event-stream"
    assert response.text.startswith("event: message_start\ndata: ")
    (request,) = fake_llm_server.requests
    assert (request.path, request.query, request.stream) == (ANTHROPIC_MESSAGES, "beta=true", True)


@pytest.mark.parametrize(
    ("headers", "body", "status", "message"),
    [
        ({"anthropic-version": "2023-06-01"}, {"model": "m", "max_tokens": 1, "messages": HI}, 401, "x-api-key"),
        ({"x-api-key": "k"}, {"model": "m", "max_tokens": 1, "messages": HI}, 400, "anthropic-version"),
        ({"x-api-key": "k", "anthropic-version": "2023-06-01"}, {"model": "m", "messages": HI}, 400, "max_tokens"),
    ],
)
def test_requests_the_real_api_refuses_are_refused(
    fake_llm_server: FakeLLMServer, headers: dict[str, str], body: dict[str, object], status: int, message: str
) -> None:
    with httpx2.Client(base_url=fake_llm_server.base_url) as http:
        response = http.post("/v1/messages", json=body, headers=headers)
    assert response.status_code == status
    assert message in response.json()["error"]["message"]


def test_timeouts_and_dropped_connections_surface_as_sdk_errors(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply(delay_s=5), FakeReply.dropped())
    with anthropic_client(fake_llm_server, timeout=anthropic.Timeout(0.3, connect=2.0)) as client:
        with pytest.raises(anthropic.APITimeoutError):
            client.messages.create(model="m", max_tokens=16, messages=HI)
        with pytest.raises(anthropic.APIConnectionError):
            client.messages.create(model="m", max_tokens=16, messages=HI)


def test_anthropic_sdk_rejects_httpx_objects_and_takes_httpx2_ones(fake_llm_server: FakeLLMServer) -> None:
    with pytest.raises(TypeError, match="httpx2"):
        anthropic.Anthropic(base_url=fake_llm_server.base_url, api_key="k", timeout=httpx.Timeout(5.0))
    with anthropic_client(fake_llm_server, timeout=httpx2.Timeout(5.0)) as client:
        assert client.messages.create(model="m", max_tokens=4, messages=HI).model == "m"


# -- OpenAI -----------------------------------------------------------------------------------------------------------


def test_openai_chat_completion_parses_with_usage_details(fake_llm_server: FakeLLMServer) -> None:
    usage = FakeUsage(input_tokens=16, output_tokens=8, cache_read_tokens=8, reasoning_tokens=3)
    fake_llm_server.queue(OPENAI_CHAT, FakeReply(text="2 + 2 equals 4.", model="gpt-4o-mini-2024-07-18", usage=usage))
    with openai_client(fake_llm_server) as client:
        completion = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "2+2"}])
    assert completion.model == "gpt-4o-mini-2024-07-18"
    choice = completion.choices[0]
    assert (choice.message.content, choice.message.refusal, choice.finish_reason) == ("2 + 2 equals 4.", None, "stop")
    u = completion.usage
    assert u is not None and (u.prompt_tokens, u.completion_tokens, u.total_tokens) == (24, 8, 32)
    assert u.prompt_tokens_details is not None and u.prompt_tokens_details.cached_tokens == 8
    assert u.completion_tokens_details is not None and u.completion_tokens_details.reasoning_tokens == 3
    assert completion.system_fingerprint == "fp_fake0000"
    assert completion._request_id and completion._request_id.startswith("req_")
    assert fake_llm_server.requests[0].headers["authorization"] == "Bearer test-key"


def test_openai_sdk_retries_a_scripted_429_and_raises_rate_limit_error(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.queue(OPENAI_CHAT, FakeReply.error(429, retry_after=0), "after retry", FakeReply.error(429))
    with openai_client(fake_llm_server, max_retries=1) as client:
        raw = client.chat.completions.with_raw_response.create(model="gpt-5.5", messages=HI)
        assert (raw.retries_taken, raw.parse().choices[0].message.content) == (1, "after retry")
        with pytest.raises(openai.RateLimitError) as caught:
            client.with_options(max_retries=0).chat.completions.create(model="gpt-5.5", messages=HI)
    err = caught.value
    assert (err.status_code, err.code, err.type) == (429, "rate_limit_exceeded", "requests")
    assert set(err.body) == {"message", "type", "param", "code"}  # the SDK unwraps {"error": {...}}
    assert err.request_id and err.request_id.startswith("req_")


def test_openai_responses_json_and_stream(fake_llm_server: FakeLLMServer) -> None:
    usage = FakeUsage(input_tokens=13, output_tokens=6, cache_read_tokens=8, reasoning_tokens=2)
    fake_llm_server.queue(OPENAI_RESPONSES, FakeReply(text="Hi!", model="gpt-5.5-2026-04-23", usage=usage))
    fake_llm_server.queue(OPENAI_RESPONSES, FakeReply(text="streamed", usage=usage))
    with openai_client(fake_llm_server) as client:
        response = client.responses.create(model="gpt-5.5", input="hello")
        with client.responses.stream(model="gpt-6.2-sol", input="hello") as stream:
            events = [event.type for event in stream]
            final = stream.get_final_response()
    assert (response.model, response.output_text) == ("gpt-5.5-2026-04-23", "Hi!")
    assert response.usage is not None and (response.usage.input_tokens, response.usage.total_tokens) == (21, 27)
    assert response.usage.input_tokens_details.cached_tokens == 8
    assert events[0] == "response.created" and events[-1] == "response.completed"
    assert "response.output_text.delta" in events
    assert (final.output_text, final.model) == ("streamed", "gpt-6.2-sol")


# -- scripting ----------------------------------------------------------------------------------------------------


def test_a_judge_responder_answers_judge_calls_with_json(fake_llm_server: FakeLLMServer) -> None:
    def responder(request: RecordedRequest) -> FakeReply:
        if "Score the answer" in request.all_text:
            return json_text_reply({"score": 0.8, "reason": "covers the rubric"}, model="claude-haiku-4-5-20251001")
        return FakeReply(text="an answer")

    fake_llm_server.responder = responder
    with anthropic_client(fake_llm_server) as client:
        answer = client.messages.create(model="m", max_tokens=16, messages=HI)
        verdict = client.messages.create(model="m", max_tokens=16, system="Score the answer 0-1.", messages=HI)
    assert answer.content[0].text == "an answer"
    assert json.loads(verdict.content[0].text) == {"score": 0.8, "reason": "covers the rubric"}
    assert verdict.model == "claude-haiku-4-5-20251001"


def test_a_raising_responder_fails_the_close() -> None:
    server = FakeLLMServer(responder=lambda request: 1 / 0)  # type: ignore[arg-type,return-value]
    with anthropic_client(server) as client, pytest.raises(anthropic.InternalServerError):
        client.messages.create(model="m", max_tokens=16, messages=HI)
    with pytest.raises(FakeServerError, match="ZeroDivisionError"):
        server.close()


def test_concurrent_calls_with_a_fixed_delay_all_complete(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.delay_s = 0.005
    with anthropic_client(fake_llm_server) as client:

        def call(i: int) -> str:
            message = client.messages.create(model="m", max_tokens=8, messages=[{"role": "user", "content": str(i)}])
            return message.content[0].text

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=16) as pool:
            texts = list(pool.map(call, range(320)))
        elapsed = time.monotonic() - started
    assert texts == [f"FAKE-REPLY: {i}" for i in range(320)]
    assert len(fake_llm_server.requests) == 320
    assert elapsed < 60  # generous: measured ~1 s; 2,000 calls at concurrency 16 take ~6 s, mostly SDK time


# -- fake CLIs ----------------------------------------------------------------------------------------------------


REAL_CLAUDE_SKILLS = [
    *("deep-research", "dataviz", "update-config", "verify", "debug", "code-review", "simplify", "batch"),
    *("fewer-permission-prompts", "doctor", "loop", "claude-api", "workflow-authoring", "run"),
    *("run-skill-generator", "plugin-authoring"),
]
"""``init.skills`` of the real Claude Code 2.1.332 with no setting source (captured from the binary)."""


def jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_fake_cli_versions(fake_cli: FakeCLI, tmp_path: Path) -> None:
    assert fake_cli.run("claude", "--version", cwd=tmp_path).stdout == "2.1.332 (Claude Code)\n"
    assert fake_cli.run("codex", "--version", cwd=tmp_path).stdout == "codex-cli 0.171.0\n"


def test_fake_cli_fixture_puts_the_fakes_first_on_path(fake_cli: FakeCLI, fake_cli_path: Path) -> None:
    assert shutil.which("claude") == str(fake_cli_path / "claude")
    assert shutil.which("codex") == str(fake_cli_path / "codex")


def test_claude_json_success(fake_cli: FakeCLI, tmp_path: Path) -> None:
    fake_cli.use({"result": "the answer", "usage": {"input_tokens": 100, "output_tokens": 20}, "cost_usd": 0.001})
    proc = fake_cli.run("claude", "-p", "say hi", "--output-format", "json", "--model", "haiku", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (0, "")
    result = json.loads(proc.stdout)
    assert proc.stdout.count("\n") == 1
    assert (result["type"], result["subtype"], result["is_error"], result["result"]) == (
        "result",
        "success",
        False,
        "the answer",
    )
    assert list(result["modelUsage"]) == ["claude-haiku-5-5"]  # the resolved requested id
    entry = result["modelUsage"]["claude-haiku-5-5"]
    assert (entry["inputTokens"], entry["outputTokens"], entry["costUSD"]) == (100, 20, 0.001)
    assert result["total_cost_usd"] == 0.001 and result["usage"]["input_tokens"] == 100


def test_claude_stream_json_reports_init_assistant_and_result(fake_cli: FakeCLI, tmp_path: Path) -> None:
    fake_cli.use({"served_model": "claude-opus-5-5-20991231"})
    args = ["-p", "hi", "--output-format", "stream-json", "--verbose", "--tools", "Read,Grep", "--setting-sources", ""]
    args += ["--strict-mcp-config", "--mcp-config", '{"mcpServers":{}}', "--permission-mode", "manual"]
    lines = jsonl(fake_cli.run("claude", *args, cwd=tmp_path).stdout)
    assert [(line["type"], line.get("subtype")) for line in lines] == [
        ("system", "init"),
        ("assistant", None),
        ("result", "success"),
    ]
    init, assistant, result = lines
    assert (init["tools"], init["mcp_servers"], init["permissionMode"]) == (["Grep", "Read"], [], "default")
    assert (init["model"], init["claude_code_version"], init["skills"]) == (
        "claude-opus-5-5",
        "2.1.332",
        REAL_CLAUDE_SKILLS,  # the built-in skills are listed even with --setting-sources ""
    )
    assert assistant["message"]["model"] == "claude-opus-5-5-20991231"  # what the server said
    assert "model_usage_since_last_result" in result


def test_claude_stream_json_without_verbose_fails_like_the_cli(fake_cli: FakeCLI, tmp_path: Path) -> None:
    proc = fake_cli.run("claude", "-p", "hi", "--output-format", "stream-json", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == "Error: When using --print, --output-format=stream-json requires --verbose\n"


def test_claude_json_verbose_prints_the_message_array(fake_cli: FakeCLI, tmp_path: Path) -> None:
    messages = json.loads(
        fake_cli.run("claude", "-p", "hi", "--output-format", "json", "--verbose", cwd=tmp_path).stdout
    )
    assert [m["type"] for m in messages] == ["system", "assistant", "result"]


@pytest.mark.parametrize(
    ("status", "error_type", "text"),
    [
        (401, "authentication_error", "Invalid API key · Fix external API key"),
        (403, "permission_error", "Failed to authenticate. API Error: 403 fake permission_error"),
        (429, "rate_limit_error", "API Error: Request rejected (429) · fake rate_limit_error"),
        (
            529,
            "overloaded_error",
            "API Error: 529 fake overloaded_error. This is a server-side issue, usually temporary — try again in a "
            "moment. If it persists, check your inference gateway (127.0.0.1:9).",
        ),
        (500, "api_error", "API Error: 500 fake api_error. This is a server-side issue, usually temporary"),
        (404, "not_found_error", "There's an issue with the selected model (claude-opus-5-5). It may not exist"),
    ],
)
def test_claude_api_error_is_a_success_subtype_with_is_error(
    fake_cli: FakeCLI, tmp_path: Path, status: int, error_type: str, text: str
) -> None:
    """The sentences Claude Code 2.1.332 wrote against a loopback server answering each status."""
    fake_cli.use({"scenario": "api_error", "api_error_status": status})
    env = {**fake_cli.isolated_env(), "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    proc = fake_cli.run("claude", "-p", "hi", "--output-format", "json", cwd=tmp_path, env=env)
    result = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert (result["subtype"], result["is_error"], result["api_error_status"]) == ("success", True, status)
    assert result["api_error_type"] == error_type and result["result"].startswith(text), result["result"]
    assert (result["modelUsage"], result["total_cost_usd"]) == ({}, 0)


def test_claude_api_error_streams_a_synthetic_assistant_line(fake_cli: FakeCLI, tmp_path: Path) -> None:
    """Claude Code writes the error as an assistant message of its own, ``model: "<synthetic>"``, before the result:
    a reader that takes every assistant line's model as the served one would see ``<synthetic>`` answering."""
    fake_cli.use({"scenario": "api_error", "api_error_status": 401})
    args = ["-p", "hi", "--output-format", "stream-json", "--verbose", "--include-partial-messages"]
    lines = jsonl(fake_cli.run("claude", *args, cwd=tmp_path).stdout)
    assert [line["type"] for line in lines] == ["system", "assistant", "result"]  # no stream_event for it
    synthetic = lines[1]
    assert synthetic["message"]["model"] == "<synthetic>" and synthetic["parent_tool_use_id"] is None
    assert synthetic["message"]["content"] == [{"type": "text", "text": "Invalid API key · Fix external API key"}]
    assert (synthetic["error"], synthetic["is_api_error_message"], synthetic["api_error_status"]) == (
        "authentication_failed",
        True,
        401,
    )
    assert (
        synthetic["message"]["usage"]["output_tokens"] == 0
        and lines[2]["result"] == lines[1]["message"]["content"][0]["text"]
    )


def test_claude_max_turns_has_no_result_key(fake_cli: FakeCLI, tmp_path: Path) -> None:
    fake_cli.use({"scenario": "max_turns"})
    proc = fake_cli.run("claude", "-p", "hi", "--output-format", "json", "--max-turns", "1", cwd=tmp_path)
    result = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert (result["subtype"], result["is_error"], result["num_turns"]) == ("error_max_turns", True, 2)
    assert "result" not in result and result["errors"] == ["Reached maximum number of turns (1)"]
    text = fake_cli.run("claude", "-p", "hi", "--max-turns", "1", cwd=tmp_path)
    assert (text.returncode, text.stdout) == (1, "Error: Reached max turns (1)")


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        (
            {"scenario": "other_model", "answer_model": "claude-sonnet-5-5"},
            {"claude-opus-5-5": (120, 8), "claude-sonnet-5-5": (11, 9)},
        ),
        (
            {"scenario": "other_model", "side_model": "claude-haiku-5-5"},
            {"claude-opus-5-5": (11, 9), "claude-haiku-5-5": (120, 8)},
        ),
    ],
    ids=["another-model-answered", "haiku-side-call"],
)
def test_claude_other_model_shows_in_model_usage(
    fake_cli: FakeCLI, tmp_path: Path, scenario: dict[str, object], expected: dict[str, tuple[int, int]]
) -> None:
    fake_cli.use(scenario)
    args = ["-p", "hi", "--output-format", "stream-json", "--verbose", "--model", "opus"]
    init, assistant, result = jsonl(fake_cli.run("claude", *args, cwd=tmp_path).stdout)
    usage = {model: (e["inputTokens"], e["outputTokens"]) for model, e in result["modelUsage"].items()}
    assert usage == expected
    assert init["model"] == "claude-opus-5-5"
    assert assistant["message"]["model"] == scenario.get("answer_model", "claude-opus-5-5")
    assert result["total_cost_usd"] == pytest.approx(0.00026 + 0.00012)


def test_claude_files_scenario_writes_into_the_cwd(fake_cli: FakeCLI, tmp_path: Path) -> None:
    fake_cli.use({"scenario": "files", "files": {"notes.md": "# Notes\n", "sub/data.bin": {"base64": "AAE="}}})
    result = json.loads(fake_cli.run("claude", "-p", "write notes", "--output-format", "json", cwd=tmp_path).stdout)
    assert result["result"] == "I saved it to notes.md, sub/data.bin"
    assert (tmp_path / "notes.md").read_text() == "# Notes\n"
    assert (tmp_path / "sub" / "data.bin").read_bytes() == b"\x00\x01"
    assert fake_cli.invocations()[-1]["files_written"] == [str(tmp_path / "notes.md"), str(tmp_path / "sub/data.bin")]


def test_timeout_scenario_outlives_the_callers_timeout(fake_cli: FakeCLI, tmp_path: Path) -> None:
    fake_cli.use({"scenario": "timeout", "sleep_s": 30})
    for cli, args in (("claude", ["-p", "hi"]), ("codex", ["exec", "--skip-git-repo-check", "--json", "hi"])):
        with pytest.raises(subprocess.TimeoutExpired):
            fake_cli.run(cli, *args, cwd=tmp_path, timeout=1.5)
    assert [e["exit_code"] for e in fake_cli.invocations()] == [None, None]  # logged before hanging


@pytest.mark.parametrize(
    ("command", "code"),
    [(["claude", "-p", "hi"], 134), (["codex", "exec", "--skip-git-repo-check", "--json", "hi"], 101)],
)
def test_crash_scenario_prints_no_json(fake_cli: FakeCLI, tmp_path: Path, command: list[str], code: int) -> None:
    fake_cli.use({"scenario": "crash"})
    proc = fake_cli.run(*command, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (code, "")
    assert "fake crash" in proc.stderr


def test_sequences_give_each_draw_its_own_answer_even_in_parallel(fake_cli: FakeCLI, tmp_path: Path) -> None:
    fake_cli.use({"sequence": [{"result": f"draw {i}"} for i in range(8)]})
    with ThreadPoolExecutor(max_workers=8) as pool:
        procs = list(pool.map(lambda _: fake_cli.run("claude", "-p", "hi", cwd=tmp_path), range(8)))
    assert sorted(p.stdout for p in procs) == [f"draw {i}\n" for i in range(8)]
    assert sorted(e["scenario_index"] for e in fake_cli.invocations()) == list(range(8))
    after_the_end = fake_cli.run("claude", "-p", "hi", cwd=tmp_path).stdout
    assert after_the_end == "draw 7\n"  # the last item repeats


def test_when_rules_route_judge_prompts(fake_cli: FakeCLI, tmp_path: Path) -> None:
    fake_cli.use(
        {
            "result": "an answer",
            "when": [{"match": "Score the answer", "result_json": {"score": 0.8, "reason": "ok"}}],
            "codex": {"result": "a codex answer"},
        }
    )
    judge = fake_cli.run("claude", "-p", "the answer", "--system-prompt", "Score the answer 0-1.", cwd=tmp_path)
    assert json.loads(judge.stdout) == {"score": 0.8, "reason": "ok"}
    assert fake_cli.run("claude", "-p", "task", cwd=tmp_path).stdout == "an answer\n"
    codex = fake_cli.run("codex", "exec", "--skip-git-repo-check", "task", cwd=tmp_path)
    assert codex.stdout == "a codex answer\n"


def test_the_log_records_isolation_flags_without_secret_values(fake_cli: FakeCLI, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_API_KEY": "sk-SECRET",
    }
    args = ["-p", "hi", "--allowedTools", "Read,WebFetch,WebSearch", "--strict-mcp-config", "--setting-sources", ""]
    fake_cli.run("claude", *args, cwd=tmp_path, env=env)
    raw = fake_cli.log_path.read_text()
    assert "sk-SECRET" not in raw
    (entry,) = fake_cli.invocations()
    assert (entry["argv"], entry["cwd"], entry["stdin"], entry["exit_code"]) == (args, str(tmp_path), "devnull", 0)
    assert entry["env"]["HOME"] == str(home) and entry["env"]["CLAUDE_CONFIG_DIR"] == str(home / ".claude")
    assert entry["secrets_set"]["ANTHROPIC_API_KEY"] is True
    assert entry["options"]["allowedTools"] == ["Read,WebFetch,WebSearch"]
    assert entry["options"]["setting_sources"] == ""


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (
            ["-p", "hi", "--allowedtools", "Read"],
            "error: unknown option '--allowedtools'\n(Did you mean --allowedTools?)\n",
        ),
        (
            ["-p", "--allowedTools", "Read", "hi"],  # the variadic option swallows the prompt
            "Error: Input must be provided either through stdin or as a prompt argument when using --print\n",
        ),
        (["-p", "hi", "--output-format", "xml"], "error: option '--output-format <format>' argument 'xml' is invalid."),
    ],
)
def test_claude_rejects_bad_command_lines_like_commander(
    fake_cli: FakeCLI, tmp_path: Path, args: list[str], stderr: str
) -> None:
    proc = fake_cli.run("claude", *args, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(stderr)


def test_codex_exec_json_success_and_files(fake_cli: FakeCLI, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    fake_cli.use({"scenario": "files", "files": {"notes.md": "hi"}, "usage": {"input_tokens": 42}})
    args = ["exec", "--json", "--skip-git-repo-check", "--ephemeral", "-s", "workspace-write", "-C", str(work)]
    args += ["-m", "gpt-5.5", "-c", 'model_provider="fake"', "--disable", "shell_tool", "-o", "last.txt", "do it"]
    proc = fake_cli.run("codex", *args, cwd=tmp_path)
    events = jsonl(proc.stdout)
    assert proc.returncode == 0
    assert [e["type"] for e in events] == [
        "thread.started",
        "turn.started",
        "item.completed",
        "item.completed",
        "turn.completed",
    ]
    assert events[2]["item"] == {
        "id": "item_0",
        "type": "file_change",
        "changes": [{"path": str(work / "notes.md"), "kind": "add"}],
        "status": "completed",
    }
    assert events[3]["item"] == {"id": "item_1", "type": "agent_message", "text": "I saved it to notes.md"}
    assert events[4]["usage"] == {
        "input_tokens": 42,
        "cached_input_tokens": 8,
        "cache_write_input_tokens": 0,
        "output_tokens": 6,
        "reasoning_output_tokens": 2,
    }
    assert (work / "notes.md").read_text() == "hi"
    assert (tmp_path / "last.txt").read_text() == "I saved it to notes.md"
    (entry,) = fake_cli.invocations()
    assert entry["config"] == {"model_provider": "fake", "features.shell_tool": False}
    assert (entry["workdir"], entry["model"], entry["options"]["sandbox"]) == (str(work), "gpt-5.5", "workspace-write")


@pytest.mark.parametrize(
    ("status", "config", "errors"),
    [
        (429, [], ["exceeded retry limit, last status: 429 Too Many Requests, request id: req_fakeoai1"]),
        (401, [], [*(f"Reconnecting... {n}/5 (unexpected status 401" for n in range(1, 6)), "unexpected status 401"]),
        (
            401,
            ["-c", "model_provider=p", "-c", "model_providers.p.stream_max_retries=2"],
            ["Reconnecting... 1/2 (", "Reconnecting... 2/2 (", "unexpected status 401 Unauthorized: fake error"],
        ),
        (
            503,
            ["-c", "model_provider=p", "-c", "model_providers.p.stream_max_retries=1"],
            ["Reconnecting... 1/1 (unexpected status 503", "unexpected status 503 Service Unavailable"],
        ),
        (500, [], [*(f"Reconnecting... {n}/5 (We\u2019re currently" for n in range(1, 6)), "We\u2019re currently"]),
        (400, [], ['{"error": {"message": "fake error", "type": "invalid_request_error"']),
    ],
    ids=["429-at-once", "401-retried-5-times", "stream_max_retries", "503", "500-high-demand", "400-body"],
)
def test_codex_api_error_retries_then_fails_the_turn(
    fake_cli: FakeCLI, tmp_path: Path, status: int, config: list[str], errors: list[str]
) -> None:
    """As codex-cli 0.171.0 did against a loopback server, the provider's retries at their defaults."""
    fake_cli.use({"scenario": "api_error", "api_error_status": status})
    proc = fake_cli.run("codex", "exec", "--json", "--skip-git-repo-check", *config, "hi", cwd=tmp_path)
    events = jsonl(proc.stdout)
    assert proc.returncode == 1
    assert [e["type"] for e in events] == ["thread.started", "turn.started", *["error"] * len(errors), "turn.failed"]
    said = [e["message"] for e in events[2:-1]]
    assert all(m.startswith(prefix) for m, prefix in zip(said, errors, strict=True)), said
    assert events[-1]["error"]["message"] == said[-1]


def test_codex_refuses_a_codex_home_that_does_not_exist(fake_cli: FakeCLI, tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    env = {**fake_cli.isolated_env(), "CODEX_HOME": str(missing)}
    warning = (
        f'WARNING: proceeding, even though we could not create PATH aliases: CODEX_HOME points to "{missing}", '
        "but that path does not exist\n"
    )
    run = fake_cli.run("codex", "exec", "--json", "--skip-git-repo-check", "hi", cwd=tmp_path, env=env)
    assert (run.returncode, run.stdout) == (1, "")
    assert (
        run.stderr
        == f'{warning}Error finding codex home: CODEX_HOME points to "{missing}", but that path does not exist\n'
    )
    listed = fake_cli.run("codex", "features", "list", cwd=tmp_path, env=env)
    assert (listed.returncode, listed.stdout) == (1, "")
    assert listed.stderr == (
        f"{warning}Error: failed to resolve CODEX_HOME\n\nCaused by:\n"
        f'    CODEX_HOME points to "{missing}", but that path does not exist\n'
    )
    version = fake_cli.run("codex", "--version", cwd=tmp_path, env=env)
    assert (version.returncode, version.stdout, version.stderr) == (0, "codex-cli 0.171.0\n", warning)
    (tmp_path / "file").write_text("")
    env["CODEX_HOME"] = str(tmp_path / "file")
    run = fake_cli.run("codex", "exec", "--skip-git-repo-check", "hi", cwd=tmp_path, env=env)
    assert run.returncode == 1 and run.stderr.endswith("but that path is not a directory\n")
    assert not missing.exists()


def test_codex_warns_when_its_home_is_under_the_temporary_directory(fake_cli: FakeCLI, tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    env = {**fake_cli.isolated_env(), "CODEX_HOME": str(home), "TMPDIR": str(tmp_path)}
    proc = fake_cli.run("codex", "--version", cwd=tmp_path, env=env)
    assert proc.stderr == (
        "WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries "
        f'under temporary dir "{tmp_path}" (codex_home: AbsolutePathBuf("{home}"))\n'
    )
    assert fake_cli.run("codex", "--version", cwd=tmp_path).stderr == ""  # HOME is not under its TMPDIR


def test_codex_exec_writes_the_rollout_the_lane_reads_and_the_system_skills(fake_cli: FakeCLI, tmp_path: Path) -> None:
    from driftproof.lanes.codex_cli import _configured_model

    home = tmp_path / "codex-home"
    home.mkdir()
    env = {**fake_cli.isolated_env(), "CODEX_HOME": str(home)}
    args = ["exec", "--json", "--skip-git-repo-check", "-m", "gpt-5.5", "-c", 'approval_policy="never"', "hi"]
    proc = fake_cli.run("codex", *args, cwd=tmp_path, env=env)
    thread_id = jsonl(proc.stdout)[0]["thread_id"]
    (rollout,) = home.glob("sessions/*/*/*/rollout-*.jsonl")
    assert rollout.name.endswith(f"-{thread_id}.jsonl") and rollout.name[8:27].count("-") == 4  # YYYY-MM-DDTHH-MM-SS
    assert rollout.parent.relative_to(home / "sessions").parts == tuple(rollout.name[8:18].split("-"))
    entries = jsonl(rollout.read_text())
    kinds = [e["type"] for e in entries]
    assert kinds[0] == "session_meta" and "turn_context" in kinds and entries[-1]["payload"]["type"] == "task_complete"
    meta, context = entries[0]["payload"], entries[kinds.index("turn_context")]["payload"]
    assert (meta["id"], meta["cwd"], meta["cli_version"], meta["originator"]) == (
        thread_id,
        str(tmp_path),
        "0.171.0",
        "codex_exec",
    )
    assert (context["model"], context["approval_policy"], context["sandbox_policy"]) == (
        "gpt-5.5",
        "never",
        {"type": "read-only"},
    )
    assert _configured_model(home) == "gpt-5.5"  # the shape the Codex lane reads
    system = home / "skills" / ".system"
    names = sorted(p.parent.name for p in system.glob("*/SKILL.md"))
    assert names == ["create-statusline", "imagegen", "openai-docs", "review-agent", "skill-creator", "skill-installer"]
    assert (system / ".codex-system-skills.marker").is_file()
    entry = fake_cli.invocations()[-1]
    assert (entry["codex_home"], entry["rollout"]) == (str(home), str(rollout))


def test_codex_ephemeral_writes_no_session_but_still_the_system_skills(fake_cli: FakeCLI, tmp_path: Path) -> None:
    proc = fake_cli.run("codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "hi", cwd=tmp_path)
    assert proc.returncode == 0
    codex_home = fake_cli.home / ".codex"  # no CODEX_HOME: $HOME/.codex, made by the run
    assert not (codex_home / "sessions").exists() and (codex_home / "skills" / ".system" / "imagegen").is_dir()
    assert fake_cli.invocations()[-1]["rollout"] is None


def test_codex_failed_turn_still_leaves_its_turn_context(fake_cli: FakeCLI, tmp_path: Path) -> None:
    fake_cli.use({"scenario": "api_error", "api_error_status": 401})
    fake_cli.run("codex", "exec", "--json", "--skip-git-repo-check", "hi", cwd=tmp_path)
    (rollout,) = (fake_cli.home / ".codex").glob("sessions/**/rollout-*.jsonl")
    kinds = [(e["type"], e["payload"].get("type")) for e in jsonl(rollout.read_text())]
    assert ("turn_context", None) in kinds and ("event_msg", "token_count") not in kinds  # no usage: the call failed


def test_codex_reads_devnull_as_additional_input_and_warns_without_code_mode_host(
    fake_cli: FakeCLI, tmp_path: Path
) -> None:
    args = ["exec", "--json", "--skip-git-repo-check", "--disable", "code_mode_host", "hi"]
    proc = fake_cli.run("codex", *args, cwd=tmp_path)
    assert proc.stderr == "Reading additional input from stdin...\n"  # stdin is /dev/null, as a lane runs it
    events = jsonl(proc.stdout)
    assert [e["type"] for e in events] == [
        "thread.started",
        "item.completed",
        "turn.started",
        "item.completed",
        "turn.completed",
    ]
    assert events[1]["item"]["type"] == "error" and "code-mode host is disabled" in events[1]["item"]["message"]
    assert events[3]["item"] == {"id": "item_1", "type": "agent_message", "text": "FAKE-OAI-REPLY"}
    assert fake_cli.invocations()[-1]["stdin"] == "devnull"


@pytest.mark.parametrize(
    ("args", "code", "stderr"),
    [
        (["exec", "--json", "hi"], 1, "Not inside a trusted directory and --skip-git-repo-check was not specified.\n"),
        (["exec", "--skip-git-repo-check", "--full-auto", "hi"], 2, "error: unexpected argument '--full-auto' found\n"),
        (["exec", "--skip-git-repo-check", "-a", "never", "hi"], 2, "error: unexpected argument '-a' found\n"),
        (
            ["exec", "--skip-git-repo-check", "-s", "none", "hi"],
            2,
            "error: invalid value 'none' for '--sandbox <SANDBOX_MODE>'",
        ),
        (
            ["exec", "--skip-git-repo-check", "-c", "model", "hi"],
            1,
            "Error parsing -c overrides: Invalid override (missing '='): model",
        ),
    ],
)
def test_codex_rejects_bad_command_lines_like_clap(
    fake_cli: FakeCLI, tmp_path: Path, args: list[str], code: int, stderr: str
) -> None:
    proc = fake_cli.run("codex", *args, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (code, "")
    assert proc.stderr.startswith(stderr)


def test_codex_top_level_options_go_before_exec_and_git_repos_pass(fake_cli: FakeCLI, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    proc = fake_cli.run("codex", "-a", "never", "exec", "--json", "hi", cwd=tmp_path)
    assert proc.returncode == 0 and jsonl(proc.stdout)[-1]["type"] == "turn.completed"


def test_codex_features_list_is_aligned_columns(fake_cli: FakeCLI, tmp_path: Path) -> None:
    fake_cli.use({"features": [["shell_tool", "stable", True], ["memories", "stable", False]]})
    lines = fake_cli.run("codex", "features", "list", cwd=tmp_path).stdout.splitlines()
    assert lines == [f"{'shell_tool':<40} {'stable':<18} true", f"{'memories':<40} {'stable':<18} false"]
    assert [line.split() for line in lines] == [["shell_tool", "stable", "true"], ["memories", "stable", "false"]]


def test_codex_features_list_defaults_to_the_real_0_171_list(fake_cli: FakeCLI, tmp_path: Path) -> None:
    from driftproof.lanes.codex_cli import code_features, parse_features

    rows = parse_features(fake_cli.run("codex", "features", "list", cwd=tmp_path).stdout)
    assert len(rows) == 224 and ("apply_patch_freeform", "removed", False) in rows
    assert ("responses_websockets", "removed", False) in rows and ("shell_tool", "stable", True) in rows
    # What the real 0.171.0 list makes the text capture turn off (seen on the real CLI's command line).
    assert code_features(rows) == [
        *("apps", "browser_annotation_api", "browser_use", "browser_use_external", "browser_use_full_cdp_access"),
        *("code_mode_host", "code_mode_host_grpc", "code_mode_host_output_truncation", "code_mode_interrupt"),
        *("computer_use", "daemon_auto_start", "hooks", "image_generation", "in_app_browser"),
        *("in_app_local_automation", "plugin_sharing", "plugins", "remote_plugin", "shell_snapshot", "shell_tool"),
        *("skill_mcp_dependency_install", "unified_exec", "unified_exec_tty", "workspace_dependencies"),
    ]


def test_a_stdin_pipe_left_open_is_recorded_not_waited_on(fake_cli: FakeCLI, tmp_path: Path) -> None:
    cmd = ["codex", "exec", "--skip-git-repo-check", "--json", "hi"]
    with subprocess.Popen(
        cmd,
        cwd=tmp_path,
        env=fake_cli.isolated_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.wait(timeout=10) == 0  # stdin is never closed
        assert proc.stderr is not None and b"Reading additional input from stdin..." in proc.stderr.read()
    assert fake_cli.invocations()[0]["stdin"] == "pipe-open"


# -- opt-in: the real CLIs against the fake server -------------------------------------------------------------------

REAL_CLIS = os.environ.get("DRIFTPROOF_REAL_CLI_TESTS") == "1"


@pytest.mark.slow
@pytest.mark.skipif(
    not (REAL_CLIS and shutil.which("claude")), reason="set DRIFTPROOF_REAL_CLI_TESTS=1 with claude on PATH"
)
def test_real_claude_against_the_fake_server(fake_llm_server: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm_server.queue(
        ANTHROPIC_MESSAGES, FakeReply(text="hello from fake server", model="claude-opus-5-5-20991231")
    )
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "ANTHROPIC_BASE_URL": fake_llm_server.base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
    }
    proc = subprocess.run(
        ["claude", "-p", "say hi", "--output-format", "json", "--tools", "", "--setting-sources", ""],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    result = json.loads(proc.stdout)
    assert result["result"] == "hello from fake server" and not result["is_error"]
    assert all(r.stream and r.path == ANTHROPIC_MESSAGES for r in fake_llm_server.requests)


@pytest.mark.slow
@pytest.mark.skipif(
    not (REAL_CLIS and shutil.which("codex")), reason="set DRIFTPROOF_REAL_CLI_TESTS=1 with codex on PATH"
)
def test_real_codex_against_the_fake_server(fake_llm_server: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm_server.responder = lambda request: FakeReply(text="FAKE-OAI-REPLY")
    provider = [
        'model_provider="fake"',
        'model_providers.fake.name="Fake"',
        f'model_providers.fake.base_url="{fake_llm_server.openai_base_url}"',
        'model_providers.fake.env_key="FAKE_KEY"',
        'model_providers.fake.wire_api="responses"',
        "model_providers.fake.supports_websockets=false",
        "model_providers.fake.request_max_retries=0",
        "model_providers.fake.stream_max_retries=0",
    ]
    args = ["codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "-s", "read-only"]
    for override in provider:
        args += ["-c", override]
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / ".codex"), "FAKE_KEY": "k"}
    (tmp_path / ".codex").mkdir()
    proc = subprocess.run(
        [*args, "say hi"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    events = jsonl(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    assert {
        "type": "item.completed",
        "item": {"id": "item_0", "type": "agent_message", "text": "FAKE-OAI-REPLY"},
    } in events
    assert any(r.path == OPENAI_RESPONSES and r.stream for r in fake_llm_server.requests)


def test_servers_close_cleanly_with_idle_keep_alive_connections() -> None:
    server = FakeLLMServer()
    client = anthropic_client(server)
    client.messages.create(model="m", max_tokens=4, messages=HI)  # leaves a pooled keep-alive connection
    server.close()
    client.close()
    assert not [t for t in threading.enumerate() if t.name == "fake-llm-server"]
