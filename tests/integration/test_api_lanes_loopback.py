"""Both API lanes through the real ``anthropic`` and ``openai`` SDKs against the loopback `FakeLLMServer`.

What a lane sends (the recorded request body) and what it makes of every reply: text, reported model,
usage, serving id, retries counted per attempt, failures as a `Generation` with ``error`` and never a key.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from driftproof.core.models import Usage
from driftproof.errors import LaneError
from driftproof.lanes.anthropic_api import AnthropicApiLane
from driftproof.lanes.base import Generation, GenerationRequest, Lane, RetryPolicy
from driftproof.lanes.openai_api import LOCAL_PLACEHOLDER_KEY, OpenAIApiLane
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, OPENAI_CHAT, FakeLLMServer, FakeReply, FakeUsage

ANTHROPIC_KEY = (
    "sk-ant-" + "api03-LOOPBACK-test-key-000000000001"
)  # a fake key, key-shaped for the redaction checks; split so secret scanners skip it
OPENAI_KEY = "sk-proj-LOOPBACK-test-key-000000000002"
FAST = RetryPolicy(max_retries=2, base_delay_s=0.001, max_delay_s=0.01)
SKILL = "# Commit messages\nWrite Conventional Commits."
PROMPT = "Write a commit message for: fix the off-by-one in the pager."
SERVING_ID = re.compile(r"^req_fake[0-9a-f]{16}$")


@dataclass(frozen=True)
class Kit:
    """One lane under test: its route on the fake server, its variables and how to build it."""

    provider: str
    route: str
    key_var: str
    url_var: str
    key: str
    model: str

    def url(self, server: FakeLLMServer) -> str:
        return server.base_url if self.provider == "anthropic" else server.openai_base_url

    def lane_class(self) -> type[AnthropicApiLane] | type[OpenAIApiLane]:
        return AnthropicApiLane if self.provider == "anthropic" else OpenAIApiLane


ANTHROPIC = Kit(
    "anthropic", ANTHROPIC_MESSAGES, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ANTHROPIC_KEY, "claude-haiku-4-5"
)
OPENAI = Kit("openai", OPENAI_CHAT, "OPENAI_API_KEY", "OPENAI_BASE_URL", OPENAI_KEY, "gpt-5.5")
KITS = [pytest.param(ANTHROPIC, id="anthropic"), pytest.param(OPENAI, id="openai")]

MakeLane = Callable[..., Lane]


pytestmark = pytest.mark.usefixtures("no_ambient_credentials")


@pytest.fixture
def make_lane(fake_llm_server: FakeLLMServer) -> Iterator[Callable[..., Lane]]:
    """Build a lane pointed at the fake server (key via ``environ``); every lane is closed afterwards."""
    made: list[Lane] = []

    def make(kit: Kit, model: str | None = None, **kwargs: Any) -> Lane:
        kwargs.setdefault("base_url", kit.url(fake_llm_server))
        kwargs.setdefault("environ", {kit.key_var: kit.key})
        kwargs.setdefault("policy", FAST)
        lane = kit.lane_class()(model if model is not None else kit.model, **kwargs)
        made.append(lane)
        return lane

    yield make
    for lane in made:
        lane.close()


def ask(lane: Lane, system: str | None = SKILL, **kwargs: Any) -> Generation:
    return lane.generate(GenerationRequest(prompt=PROMPT, system=system, **kwargs))


def no_key_anywhere(generation: Generation, *keys: str) -> None:
    text = repr(generation) + json.dumps(dict(generation.extra), default=str)
    for key in keys:
        assert key not in text
    assert "sk-ant-" not in text and "sk-proj-" not in text


# -- a successful reply ---------------------------------------------------------------------------------------------


def test_anthropic_reply_keeps_the_dated_model_usage_and_request_id(
    fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    usage = FakeUsage(input_tokens=11, output_tokens=9, cache_read_tokens=5, cache_write_tokens=7)
    reply = FakeReply(text="fix(pager): off-by-one", model="claude-haiku-4-5-20251001", usage=usage)
    fake_llm_server.queue(ANTHROPIC_MESSAGES, reply)
    g = ask(make_lane(ANTHROPIC))
    assert g.text == "fix(pager): off-by-one"
    assert g.reported_model == "claude-haiku-4-5-20251001"  # the served id, verbatim; the request said claude-haiku-4-5
    assert g.model_source == "reported" and g.reported_ids == ("claude-haiku-4-5-20251001",)
    assert g.usage == Usage(input_tokens=11, output_tokens=9, cache_read_tokens=5, cache_write_tokens=7)
    assert g.request_id is not None and SERVING_ID.match(g.request_id)
    assert (g.attempts, g.error, g.timed_out, g.served_model) == (1, None, False, None)
    assert g.extra["stop_reason"] == "end_turn"


def test_openai_reply_maps_usage_and_keeps_the_fingerprint_apart(
    fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    # prompt_tokens = 11 uncached + 5 cached = 16; the lane reports the uncached 11 as input.
    usage = FakeUsage(input_tokens=11, output_tokens=9, cache_read_tokens=5)
    reply = FakeReply(text="fix(pager): off-by-one", model="gpt-5.5-2026-04-23", usage=usage, system_fingerprint="fp_9")
    fake_llm_server.queue(OPENAI_CHAT, reply)
    g = ask(make_lane(OPENAI))
    assert (g.text, g.reported_model, g.model_source) == ("fix(pager): off-by-one", "gpt-5.5-2026-04-23", "reported")
    assert g.reported_ids == ("gpt-5.5-2026-04-23",)
    assert g.usage == Usage(input_tokens=11, output_tokens=9, cache_read_tokens=5, cache_write_tokens=None)
    assert g.request_id is not None and SERVING_ID.match(g.request_id)
    assert g.served_model is None  # system_fingerprint is a backend build, not a model
    assert (g.extra["system_fingerprint"], g.extra["finish_reason"]) == ("fp_9", "stop")
    assert (g.attempts, g.error) == (1, None)


# -- what is sent -----------------------------------------------------------------------------------------------


def test_anthropic_sends_the_skill_as_system_and_no_sampling_parameters(
    fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    lane = make_lane(ANTHROPIC)
    with_skill, baseline = ask(lane, SKILL), ask(lane, None)
    assert with_skill.error is None and baseline.error is None
    first, second = fake_llm_server.requests_to(ANTHROPIC_MESSAGES)
    user = [{"role": "user", "content": PROMPT}]
    # the skill is one system block marked for the prompt cache, so later with-skill requests read it cached
    system = [{"type": "text", "text": SKILL, "cache_control": {"type": "ephemeral"}}]
    assert first.body == {"model": "claude-haiku-4-5", "max_tokens": 2048, "messages": user, "system": system}
    assert second.body == {"model": "claude-haiku-4-5", "max_tokens": 2048, "messages": user}  # baseline: no system
    for request in (first, second):
        assert not {"temperature", "top_p", "top_k"} & set(request.body)
        assert request.headers["anthropic-version"] == "2026-10-21"
        assert request.headers["authorization"] == f"Bearer {ANTHROPIC_KEY}"
        assert request.headers["x-stainless-retry-count"] == "0"  # the SDK's own retries are off
    assert lane.sampling() == {"max_tokens": 2048, "anthropic_version": "2026-10-21"}


def test_openai_sends_the_skill_as_a_system_message_and_only_max_completion_tokens(
    fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    lane = make_lane(OPENAI, max_tokens=512)
    with_skill, baseline = ask(lane, SKILL), ask(lane, None)
    assert with_skill.error is None and baseline.error is None
    first, second = fake_llm_server.requests_to(OPENAI_CHAT)
    system, user = {"role": "system", "content": SKILL}, {"role": "user", "content": PROMPT}
    assert first.body == {"model": "gpt-5.5", "messages": [system, user], "max_completion_tokens": 512}
    assert second.body == {"model": "gpt-5.5", "messages": [user], "max_completion_tokens": 512}
    assert (first.system_text, second.system_text) == (SKILL, "")
    assert lane.sampling() == {"max_completion_tokens": 512}


@pytest.mark.parametrize("kit", KITS)
def test_sampling_reports_the_token_limits_actually_sent(
    kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    name = "max_tokens" if kit is ANTHROPIC else "max_completion_tokens"
    lane = make_lane(kit, max_tokens=1500)
    assert lane.sampling()[name] == 1500  # before any call: the lane's ceiling
    ask(lane, max_tokens=1024)  # the judge's smaller budget reaches the wire
    assert lane.sampling()[name] == 1024
    ask(lane, max_tokens=4096)  # a request never goes above the lane's ceiling
    assert lane.sampling()[name] == [1024, 1500]
    assert [r.body[name] for r in fake_llm_server.requests_to(kit.route)] == [1024, 1500]


@pytest.mark.parametrize("kit", KITS)
def test_the_request_model_wins_and_none_means_the_lane_default(
    kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    ask(make_lane(kit), model="override-model")
    default_lane = make_lane(kit, model="")  # "" and None both fall back to the lane default
    ask(default_lane)
    first, second = fake_llm_server.requests_to(kit.route)
    assert (first.model, second.model) == ("override-model", default_lane.default_model())


# -- empty answers ---------------------------------------------------------------------------------------------------


def test_anthropic_refusal_is_an_empty_answer(fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply(text="I can't help with that.", stop_reason="refusal"))
    g = ask(make_lane(ANTHROPIC))
    assert (g.text, g.error, g.extra["stop_reason"]) == ("", None, "refusal")


def test_openai_refusal_is_an_empty_answer(fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    body = {
        "id": "chatcmpl-refusal",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-5.5",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "refusal": "I can't help with that."},
                "finish_reason": "stop",
            }
        ],
    }
    fake_llm_server.queue(OPENAI_CHAT, FakeReply(raw_body=json.dumps(body).encode()))
    g = ask(make_lane(OPENAI))
    assert (g.text, g.error, g.usage, g.extra["refusal"]) == ("", None, None, True)  # no usage reported: None


# -- retries ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kit", KITS)
def test_a_429_with_retry_after_then_200_is_one_generation_of_two_attempts(
    kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    fake_llm_server.queue(kit.route, FakeReply.error(429, retry_after=0), FakeReply(text="second"))
    g = ask(make_lane(kit))
    assert (g.text, g.attempts, g.error) == ("second", 2, None)
    assert len(fake_llm_server.requests_to(kit.route)) == 2


@pytest.mark.parametrize("kit", KITS)
@pytest.mark.parametrize("status", [529, 500, 503, 408, 409])
def test_overloaded_and_server_errors_are_retried(
    kit: Kit, status: int, fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    fake_llm_server.queue(kit.route, FakeReply.error(status), FakeReply(text="recovered"))
    g = ask(make_lane(kit))
    assert (g.text, g.attempts, g.error) == ("recovered", 2, None)


@pytest.mark.parametrize("kit", KITS)
def test_retries_run_out_with_the_last_reason(kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    fake_llm_server.queue(kit.route, *[FakeReply.error(529, retry_after=0)] * 3)
    g = ask(make_lane(kit))  # FAST: max_retries=2, so 3 attempts
    assert (g.text, g.attempts, g.timed_out) == ("", 3, False)
    assert g.error is not None and g.error.startswith("529 ") and g.error.endswith("after 3 attempts")
    if kit is ANTHROPIC:
        assert g.error == "529 overloaded_error: Overloaded after 3 attempts"


@pytest.mark.parametrize("kit", KITS)
@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422])
def test_client_errors_are_not_retried(
    kit: Kit, status: int, fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    fake_llm_server.queue(kit.route, FakeReply.error(status, message="nope"), FakeReply(text="never"))
    g = ask(make_lane(kit))
    assert (g.text, g.attempts) == ("", 1)
    assert g.error is not None and g.error.startswith(f"{status} ") and g.error.endswith(": nope")
    assert len(fake_llm_server.requests_to(kit.route)) == 1


def test_anthropic_400_reason_names_status_and_type(fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply.error(400, message="messages: roles must alternate"))
    g = ask(make_lane(ANTHROPIC))
    assert (g.attempts, g.error) == (1, "400 invalid_request_error: messages: roles must alternate")


def test_anthropic_429_spend_limit_is_not_retried(fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    body = {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "You have reached your specified API usage limits.",
            "details": {"error_code": "enforced_spend_limit_reached"},
        },
        "request_id": "req_spend",
    }
    fake_llm_server.queue(
        ANTHROPIC_MESSAGES,
        FakeReply(status=429, raw_body=json.dumps(body).encode(), headers={"retry-after": "0"}),
        FakeReply(text="never"),
    )
    g = ask(make_lane(ANTHROPIC))
    assert (g.attempts, g.error) == (1, "429 rate_limit_error: You have reached your specified API usage limits.")


def test_openai_429_insufficient_quota_is_not_retried(fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    quota = FakeReply.error(429, message="You exceeded your current quota.", code="insufficient_quota", retry_after=0)
    fake_llm_server.queue(OPENAI_CHAT, quota, FakeReply(text="never"))
    g = ask(make_lane(OPENAI))
    assert (g.attempts, g.error) == (1, "429 requests (insufficient_quota): You exceeded your current quota.")


@pytest.mark.parametrize("kit", KITS)
def test_x_should_retry_false_stops_a_retry(kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    fake_llm_server.queue(kit.route, FakeReply.error(500, should_retry=False), FakeReply(text="never"))
    assert ask(make_lane(kit)).attempts == 1


@pytest.mark.parametrize("kit", KITS)
def test_a_timeout_is_retried_then_reported_as_timed_out(
    kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    policy = RetryPolicy(max_retries=1, base_delay_s=0.001)
    fake_llm_server.queue(kit.route, *[FakeReply(text="too late", delay_s=5.0)] * 2)
    g = ask(make_lane(kit, timeout_s=0.2, policy=policy))
    assert (g.text, g.timed_out, g.attempts) == ("", True, policy.max_retries + 1)
    assert g.error == "timed out after 0.2s after 2 attempts"


@pytest.mark.parametrize("kit", KITS)
def test_a_dropped_connection_is_retried(kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    fake_llm_server.queue(kit.route, FakeReply.dropped(), FakeReply(text="back"))
    g = ask(make_lane(kit))
    assert (g.text, g.attempts, g.error) == ("back", 2, None)


@pytest.mark.parametrize("kit", KITS)
def test_an_unreachable_endpoint_is_a_connection_error(kit: Kit, make_lane: MakeLane) -> None:
    with FakeLLMServer() as gone:
        url = kit.url(gone)
    g = ask(make_lane(kit, base_url=url, policy=RetryPolicy(max_retries=1, base_delay_s=0.001)))
    assert (g.attempts, g.timed_out) == (2, False)
    assert g.error is not None and g.error.startswith("connection error: ")


# -- keys ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kit", KITS)
def test_the_key_never_appears_in_a_generation(kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    echo = f"invalid key {kit.key}; header was Authorization: Bearer {kit.key}"
    fake_llm_server.queue(
        kit.route,
        "ok",
        FakeReply.error(401, message=echo),
        FakeReply.error(429, retry_after=0, message=echo),
        FakeReply.error(429, retry_after=0, message=echo),
        FakeReply.error(429, retry_after=0, message=echo),
        FakeReply(text="late", delay_s=5.0),
    )
    lane = make_lane(kit)
    generations = [ask(lane), ask(lane), ask(lane), ask(make_lane(kit, timeout_s=0.2, policy=RetryPolicy(0)))]
    assert [g.attempts for g in generations] == [1, 1, 3, 1]
    assert generations[1].error is not None and "[REDACTED]" in generations[1].error
    for g in generations:
        no_key_anywhere(g, kit.key)
    assert kit.key not in repr(lane.sampling()) + repr(lane.base_url())


# -- endpoint and credentials ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kit", KITS)
def test_base_url_is_honoured_and_reported(kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane) -> None:
    lane = make_lane(kit)
    assert ask(lane).error is None
    assert lane.base_url() == kit.url(fake_llm_server)
    assert make_lane(kit, base_url=None).base_url() is None  # the vendor default is not reported


@pytest.mark.parametrize("kit", KITS)
def test_the_base_url_variable_is_honoured(
    kit: Kit, fake_llm_server: FakeLLMServer, make_lane: MakeLane, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(kit.url_var, kit.url(fake_llm_server))
    monkeypatch.setenv(kit.key_var, kit.key)
    lane = make_lane(kit, base_url=None, environ=None)
    g = ask(lane)
    assert (g.text, g.error) == (f"FAKE-REPLY: {PROMPT}", None)
    assert lane.base_url() == kit.url(fake_llm_server)
    assert fake_llm_server.requests[0].headers["authorization"] == f"Bearer {kit.key}"


def test_anthropic_auth_token_is_sent_as_bearer(
    fake_llm_server: FakeLLMServer, make_lane: MakeLane, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "oauth-token-for-tests")
    assert ask(make_lane(ANTHROPIC, environ=None)).error is None
    environ = {"ANTHROPIC_AUTH_TOKEN": "oauth-token-from-environ"}
    assert ask(make_lane(ANTHROPIC, environ=environ)).error is None
    first, second = fake_llm_server.requests
    assert first.headers["authorization"] == "Bearer oauth-token-for-tests"
    assert second.headers["authorization"] == "Bearer oauth-token-from-environ"


@pytest.mark.parametrize("environ", [{}, None, {"ANTHROPIC_API_KEY": "  "}], ids=["empty", "os-environ", "blank"])
def test_anthropic_without_a_key_refuses_to_start(environ: dict[str, str] | None) -> None:
    with pytest.raises(LaneError, match="set ANTHROPIC_API_KEY") as caught:
        AnthropicApiLane(None, environ=environ)
    assert "ANTHROPIC_AUTH_TOKEN" in str(caught.value)


@pytest.mark.parametrize(
    "environ",
    [{}, {"OPENAI_BASE_URL": "https://llm.example.com/v1"}],
    ids=["vendor", "remote-compatible"],
)
def test_openai_without_a_key_refuses_a_remote_endpoint(environ: dict[str, str]) -> None:
    with pytest.raises(LaneError, match="set OPENAI_API_KEY"):
        OpenAIApiLane(None, environ=environ)


def test_openai_without_a_key_sends_a_placeholder_to_a_loopback_server(
    fake_llm_server: FakeLLMServer, make_lane: MakeLane
) -> None:
    lane = make_lane(OPENAI, environ={})
    assert ask(lane).error is None
    assert fake_llm_server.requests[0].headers["authorization"] == f"Bearer {LOCAL_PLACEHOLDER_KEY}"


def test_lanes_name_themselves() -> None:
    anthropic_lane = AnthropicApiLane(None, environ={"ANTHROPIC_API_KEY": ANTHROPIC_KEY})
    openai_lane = OpenAIApiLane(None, environ={"OPENAI_API_KEY": OPENAI_KEY})
    try:
        assert (anthropic_lane.provider, anthropic_lane.surface) == ("anthropic", "api")
        assert (openai_lane.provider, openai_lane.surface) == ("openai", "api")
        assert anthropic_lane.default_model().startswith("claude-")
        assert openai_lane.default_model().startswith("gpt-")
        assert anthropic_lane.harness() is None and openai_lane.harness() is None
    finally:
        anthropic_lane.close()
        openai_lane.close()


@pytest.mark.parametrize("kit", KITS)
def test_a_missing_sdk_names_its_pip_install(kit: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, kit.provider, None)  # what an uninstalled package looks like to import
    with pytest.raises(LaneError) as caught:
        kit.lane_class()(None, environ={kit.key_var: kit.key})
    assert str(caught.value) == f"the {kit.provider} lane needs the {kit.provider} package: pip install {kit.provider}"
