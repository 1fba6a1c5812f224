"""What the API lanes spend no CPU on, and that reading a reply that way reads the same: both real SDKs, loopback.

- A plain reply (every field the lane reads has its plain JSON type) is read from its JSON, not built into the
  SDK's models first; any other reply still is, so what a `Generation` holds never changes. Hypothesis
  compares the two readings over generated bodies, and every reply the fake server and the cassettes hold is plain.
- The OpenAI lane posts its body through the SDK client's ``post``, past ``chat.completions.create``'s
  parameter transform: the request on the wire is the one ``create`` sends.
- The Anthropic lane's client builds no call span when OpenTelemetry has no tracer provider to record it
  (the SDK would build each span and drop it); under a provider, or one the environment names, it still does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.models import Usage
from driftproof.lanes import anthropic_api, openai_api
from driftproof.lanes.anthropic_api import AnthropicApiLane
from driftproof.lanes.base import Generation, GenerationRequest, RetryPolicy
from driftproof.lanes.openai_api import OpenAIApiLane
from tests.support.api_cassettes import CASSETTE_DIR
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, OPENAI_CHAT, FakeLLMServer, FakeReply, FakeUsage
from tests.support.fake_llm_wire import anthropic_message, openai_chat_completion

KEY = "loopback-key-0123456789"
USAGE = FakeUsage(input_tokens=21, output_tokens=14, cache_read_tokens=8, cache_write_tokens=3)
FAST = RetryPolicy(max_retries=2, base_delay_s=0.001, max_delay_s=0.01)


pytestmark = pytest.mark.usefixtures("no_ambient_credentials")


@pytest.fixture
def anthropic_lane(fake_llm_server: FakeLLMServer) -> Iterator[AnthropicApiLane]:
    lane = AnthropicApiLane("m", base_url=fake_llm_server.base_url, environ={"ANTHROPIC_API_KEY": KEY})
    yield lane
    lane.close()


@pytest.fixture
def openai_lane(fake_llm_server: FakeLLMServer) -> Iterator[OpenAIApiLane]:
    lane = OpenAIApiLane("m", base_url=fake_llm_server.openai_base_url, environ={"OPENAI_API_KEY": KEY})
    yield lane
    lane.close()


def refuse(*_: object, **__: object) -> Any:
    raise AssertionError("not called for a plain reply")


# -- the anthropic lane builds no call span that nothing records -----------------------------------------------------


class RecordingSpan:
    """The least of an OpenTelemetry span that records: its name, and whether it ended."""

    def __init__(self, name: str) -> None:
        self.name, self.ended = name, False

    def is_recording(self) -> bool:
        return True

    def end(self, end_time: int | None = None) -> None:
        self.ended = True

    def get_span_context(self) -> Any:
        from opentelemetry import trace

        return trace.INVALID_SPAN_CONTEXT

    def __getattr__(self, name: str) -> Callable[..., None]:  # set_attribute, set_status, record_exception, …
        return lambda *args, **kwargs: None


def recording_provider(spans: list[RecordingSpan]) -> Any:
    """A tracer provider whose tracers keep every span they start in ``spans``."""
    from opentelemetry import trace

    class Tracer(trace.NoOpTracer):
        def start_span(self, name: str, *args: Any, **kwargs: Any) -> Any:
            spans.append(RecordingSpan(name))
            return spans[-1]

    class Provider(trace.NoOpTracerProvider):
        def get_tracer(self, *args: Any, **kwargs: Any) -> Any:
            return Tracer()

    return Provider()


def count_span_starts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The span names the SDK's client starts (its module-level `start_api_call_span`), recorded as it is called."""
    import anthropic._base_client

    started: list[str] = []
    real = anthropic._base_client.start_api_call_span

    def counted(tracer: Any, base_url: Any, options: Any, *args: Any, **kwargs: Any) -> Any:
        started.append(str(options.span_name))
        return real(tracer, base_url, options, *args, **kwargs)

    monkeypatch.setattr(anthropic._base_client, "start_api_call_span", counted)
    return started


def test_without_a_tracer_provider_the_anthropic_lane_builds_no_call_span(
    fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opentelemetry import trace

    monkeypatch.delenv("OTEL_PYTHON_TRACER_PROVIDER", raising=False)
    monkeypatch.delenv("ANTHROPIC_OPEN_TELEMETRY", raising=False)
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)  # OpenTelemetry's default: no-op
    started = count_span_starts(monkeypatch)
    lane = AnthropicApiLane("m", base_url=fake_llm_server.base_url, environ={"ANTHROPIC_API_KEY": KEY})
    try:
        fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply(text="an answer"))
        g = lane.generate(GenerationRequest(prompt="hi"))
    finally:
        lane.close()
    assert (g.error, g.text) == (None, "an answer")
    assert started == []  # the SDK's default (`open_telemetry` not given) started ["anthropic.messages.create"]


def test_under_a_tracer_provider_the_anthropic_lane_still_records_its_call_spans(
    fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opentelemetry import trace

    spans: list[RecordingSpan] = []
    monkeypatch.delenv("ANTHROPIC_OPEN_TELEMETRY", raising=False)
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", recording_provider(spans))  # as set_tracer_provider leaves it
    lane = AnthropicApiLane("m", base_url=fake_llm_server.base_url, environ={"ANTHROPIC_API_KEY": KEY})
    try:
        fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply(text="one"), FakeReply(text="two"))
        texts = [lane.generate(GenerationRequest(prompt="hi")).text for _ in range(2)]
    finally:
        lane.close()
    assert texts == ["one", "two"]
    assert [(s.name, s.ended) for s in spans] == [("anthropic.messages.create", True)] * 2


def test_a_provider_the_environment_names_keeps_the_sdks_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_PYTHON_TRACER_PROVIDER", "some_provider")  # loaded by OpenTelemetry when first asked
    assert anthropic_api.spans_can_record() is True
    monkeypatch.delenv("OTEL_PYTHON_TRACER_PROVIDER")
    assert anthropic_api.spans_can_record() is False


# -- the anthropic lane reads a plain reply without the SDK's models ------------------------------------------------


def test_a_plain_anthropic_reply_is_read_without_the_sdks_models(
    anthropic_lane: AnthropicApiLane, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anthropic._response

    monkeypatch.setattr(anthropic._response.APIResponse, "parse", refuse)
    fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply(text="fix(pager): off-by-one", model="m-1", usage=USAGE))
    g = anthropic_lane.generate(GenerationRequest(prompt="hi"))
    assert (g.error, g.text, g.reported_model, g.reported_ids) == (None, "fix(pager): off-by-one", "m-1", ("m-1",))
    assert g.usage == Usage(input_tokens=21, output_tokens=14, cache_read_tokens=8, cache_write_tokens=3)
    assert g.request_id is not None and g.request_id.startswith("req_fake")
    assert g.extra["stop_reason"] == "end_turn" and str(g.extra["message_id"]).startswith("msg_")


def test_an_anthropic_reply_with_another_kind_of_block_is_read_by_the_sdk(
    anthropic_lane: AnthropicApiLane, fake_llm_server: FakeLLMServer
) -> None:
    body = anthropic_message(msg_id="msg_1", model="m-1", text="the answer", stop_reason=None, usage=USAGE)
    body["content"].insert(0, {"type": "thinking", "thinking": "hmm", "signature": "sig"})
    fake_llm_server.queue(ANTHROPIC_MESSAGES, FakeReply(raw_body=json.dumps(body).encode()))
    g = anthropic_lane.generate(GenerationRequest(prompt="hi"))
    # the thinking block is no text: only the text block is the answer
    assert (g.error, g.text, g.extra["message_id"]) == (None, "the answer", "msg_1")
    assert anthropic_api.plain_generation(body, None) is None  # not plain: the SDK's models read it


@pytest.mark.parametrize(("content_type", "error"), [("application/json", "not JSON"), ("text/html", "no reply")])
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_body_that_is_not_json_is_named_by_its_content_type(
    provider: str, content_type: str, error: str, fake_llm_server: FakeLLMServer
) -> None:
    """As the SDK reads it: a body labelled JSON that does not parse is not JSON; any other body is its text."""
    lane = (
        AnthropicApiLane("m", base_url=fake_llm_server.base_url, environ={"ANTHROPIC_API_KEY": KEY}, policy=FAST)
        if provider == "anthropic"
        else OpenAIApiLane("m", base_url=fake_llm_server.openai_base_url, environ={"OPENAI_API_KEY": KEY}, policy=FAST)
    )
    reply = FakeReply(raw_body=b"<html>upstream gone</html>", content_type=content_type)
    fake_llm_server.queue(ANTHROPIC_MESSAGES if provider == "anthropic" else OPENAI_CHAT, *[reply] * 3)
    try:
        g = lane.generate(GenerationRequest(prompt="hi"))
    finally:
        lane.close()
    assert g.error == f"200 with {'a body that is not JSON' if error == 'not JSON' else 'no reply in the body'}: " + (
        "<html>upstream gone</html> after 3 attempts"
    )


# -- the openai lane posts past the parameter transform and reads a plain reply itself ------------------------------


def test_the_openai_lane_runs_neither_the_parameter_transform_nor_the_reply_models(
    openai_lane: OpenAIApiLane, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import openai.resources.chat.completions.completions as completions
    from openai.types.chat import ChatCompletion

    monkeypatch.setattr(completions, "maybe_transform", refuse)
    monkeypatch.setattr(ChatCompletion, "construct", refuse)
    fake_llm_server.queue(OPENAI_CHAT, FakeReply(text="fix(pager): off-by-one", model="gpt-1", usage=USAGE))
    g = openai_lane.generate(GenerationRequest(prompt="hi", system="skill"))
    assert (g.error, g.text, g.reported_model) == (None, "fix(pager): off-by-one", "gpt-1")
    # prompt_tokens 32 = 21 + 8 cached + 3 written; Chat Completions reports only the cached 8: input 32 - 8 = 24
    assert g.usage == Usage(input_tokens=24, output_tokens=14, cache_read_tokens=8)
    assert g.extra["finish_reason"] == "stop" and g.extra["system_fingerprint"] == "fp_fake0000"
    assert g.request_id is not None and g.request_id.startswith("req_fake")


@pytest.mark.parametrize(
    "request_",
    [
        GenerationRequest(prompt="hi"),
        GenerationRequest(prompt="a prompt\nwith «text» of every kind: {}", system="# Skill\nbe terse"),
        GenerationRequest(prompt="judge this", max_tokens=512, samples=3),
    ],
    ids=["bare", "with a skill", "three choices"],
)
def test_the_openai_lane_sends_what_create_sends(
    request_: GenerationRequest, openai_lane: OpenAIApiLane, fake_llm_server: FakeLLMServer
) -> None:
    openai_lane.generate(request_)
    body = openai_lane.chat_body(request_, openai_lane.sent_max_tokens(request_))
    openai_lane.client.chat.completions.create(**body)
    by_lane, by_create = fake_llm_server.requests
    assert (by_lane.method, by_lane.path, by_lane.query) == (by_create.method, by_create.path, by_create.query)
    assert by_lane.raw_body == by_create.raw_body  # byte for byte: same keys, same order, same spelling
    assert dict(by_lane.headers) == dict(by_create.headers)


# -- the plain reading is the SDK's -----------------------------------------------------------------------------------

count = st.integers(0, 2**31)
text = st.text(max_size=12)
odd = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 9),
    st.sampled_from([8.0, 8.5, "8", "x", "text", "thinking", "tool_use", "weird", ""]),
    st.just([]),
    st.just({}),
    st.just({"type": "thinking", "thinking": "hmm", "text": "hmm"}),
    st.just({"type": "weird", "text": "odd"}),
    st.just({"text": "untyped"}),
)
"""What a field of a reply may hold instead of its plain value: other JSON types, numbers an SDK converts, other kinds
of content block."""


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value, its root first."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from paths(item, (*prefix, key))


def changed(plain: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A plain body with one to three places changed: given an odd value, dropped, or with an odd item added."""

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        body = json.loads(json.dumps(draw(plain)))  # fresh values only: the changes are made in place
        for _ in range(draw(st.integers(1, 3))):
            places = list(paths(body))[1:]
            if not places:
                break
            path = draw(st.sampled_from(places))
            parent = body
            for key in path[:-1]:
                parent = parent[key]
            how, value = draw(st.sampled_from(["odd", "drop", "add"])), json.loads(json.dumps(draw(odd)))
            if how == "add" and isinstance(parent[path[-1]], list):
                parent[path[-1]].insert(draw(st.integers(0, len(parent[path[-1]]))), value)
            elif how == "drop" and isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent[path[-1]] = value
        return body

    return build()


def fields(required: dict[str, st.SearchStrategy[Any]], **optional: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries(required, optional=optional)


def outcome(read: Callable[[], Generation | None]) -> Generation | str | None:
    """A reading's `Generation`, or the exception it raised (which the lane turns into a failed attempt), named."""
    try:
        return read()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


anthropic_usage = fields(
    {"input_tokens": count, "output_tokens": count},
    cache_read_input_tokens=st.none() | count,
    cache_creation_input_tokens=st.none() | count,
    service_tier=text,
)
anthropic_plain = fields(
    {
        "id": text,
        "model": text,
        "content": st.lists(fields({"type": st.just("text"), "text": text}, citations=st.none()), max_size=3),
        "stop_reason": st.none() | st.sampled_from(["end_turn", "max_tokens", "refusal", "pause_turn", "new"]),
    },
    usage=st.none() | anthropic_usage,
    type=st.just("message"),
    stop_sequence=st.none(),
)


def by_the_sdk_anthropic(body: Any) -> Generation | str | None:
    """What the lane made of a reply before: the SDK's model of it (as ``parse`` builds it), then `generation_of`."""
    from anthropic._models import construct_type
    from anthropic.types import Message

    message = construct_type(type_=Message, value=body)
    if not isinstance(message, Message) or not isinstance(message.content, list):
        return "no reply"
    return outcome(lambda: anthropic_api.generation_of(message, "req_1"))


@settings(max_examples=300, deadline=None)
@given(anthropic_plain)
def test_a_plain_anthropic_body_is_read_as_the_sdk_reads_it(body: dict[str, Any]) -> None:
    plain = outcome(lambda: anthropic_api.plain_generation(body, "req_1"))
    assert isinstance(plain, Generation)
    assert plain == by_the_sdk_anthropic(body)


@settings(max_examples=1000, deadline=None)
@given(changed(anthropic_plain))
def test_an_anthropic_body_read_plainly_is_always_read_as_the_sdk_reads_it(body: Any) -> None:
    plain = outcome(lambda: anthropic_api.plain_generation(body, "req_1"))
    assert plain is None or plain == by_the_sdk_anthropic(body)


openai_details = fields({}, cached_tokens=st.none() | count, cache_write_tokens=st.none() | count, audio_tokens=count)
openai_plain = fields(
    {
        "choices": st.lists(
            fields(
                {"message": fields({}, content=st.none() | text, refusal=st.none() | text, role=st.just("assistant"))},
                index=st.integers(0, 5),
                finish_reason=st.none() | text,
                logprobs=st.none(),
            ),
            max_size=4,
        )
    },
    id=st.none() | text,
    model=st.none() | text,
    system_fingerprint=st.none() | text,
    usage=st.none()
    | fields(
        {},
        prompt_tokens=count,
        completion_tokens=count,
        total_tokens=count,
        prompt_tokens_details=st.none() | openai_details,
    ),
    object=st.just("chat.completion"),
    created=count,
)


def by_the_sdk_openai(body: Any, asked: int) -> Generation | str | None:
    from openai._models import construct_type
    from openai.types.chat import ChatCompletion

    completion = construct_type(type_=ChatCompletion, value=body)
    return outcome(lambda: openai_api.generation_of(completion, "req_1", asked))


@settings(max_examples=300, deadline=None)
@given(openai_plain, st.integers(1, 4))
def test_a_plain_openai_body_is_read_as_the_sdk_reads_it(body: dict[str, Any], asked: int) -> None:
    assert openai_api.is_plain_completion(body)
    plain = outcome(lambda: openai_api.generation_of(body, "req_1", asked))
    assert isinstance(plain, Generation)
    assert plain == by_the_sdk_openai(body, asked)


@settings(max_examples=1000, deadline=None)
@given(changed(openai_plain), st.integers(1, 4))
def test_an_openai_body_read_plainly_is_always_read_as_the_sdk_reads_it(body: Any, asked: int) -> None:
    if openai_api.is_plain_completion(body):
        assert outcome(lambda: openai_api.generation_of(body, "req_1", asked)) == by_the_sdk_openai(body, asked)


ODD_VALUES = [None, True, 0, -1, 8.0, 8.5, "8", "", "weird", [], {}, {"type": "thinking", "thinking": "t"}]
"""Every odd value `test_one_change_to_a_full_reply_is_read_as_the_sdk_reads_it` puts in each place in turn."""


def one_change_each(body: dict[str, Any]) -> Iterator[Any]:
    """``body`` with one place changed, every way: each odd value there, dropped (a key), an odd item added (a list)."""
    for path in list(paths(body))[1:]:
        for how in ("odd", "drop", "add"):
            for value in ODD_VALUES if how != "drop" else [None]:
                changed = json.loads(json.dumps(body))
                parent = changed
                for key in path[:-1]:
                    parent = parent[key]
                if how == "add" and isinstance(parent[path[-1]], list):
                    parent[path[-1]].append(value)
                elif how == "drop" and isinstance(parent, dict):
                    del parent[path[-1]]
                elif how == "odd":
                    parent[path[-1]] = value
                else:
                    continue
                yield changed


FULL_ANTHROPIC = anthropic_message(msg_id="msg_1", model="m-1", text="fix", stop_reason=None, usage=USAGE)
FULL_ANTHROPIC["content"].append({"type": "text", "text": " it", "citations": None})
FULL_OPENAI = openai_chat_completion(
    completion_id="c", created=0, model="m", text="a", finish_reason=None, usage=USAGE, system_fingerprint="fp"
)
FULL_OPENAI["choices"].insert(0, {"index": 1, "message": {"content": "b", "refusal": None}, "finish_reason": "stop"})
FULL_OPENAI["usage"]["prompt_tokens_details"]["cache_write_tokens"] = 3


def test_one_change_to_a_full_reply_is_read_as_the_sdk_reads_it() -> None:
    """Each field of a reply holding all of them, changed every way one at a time: read plainly only as the SDK does."""
    checked = plainly = 0
    for body in one_change_each(FULL_ANTHROPIC):
        plain = outcome(lambda b=body: anthropic_api.plain_generation(b, "req_1"))
        assert plain is None or plain == by_the_sdk_anthropic(body), body
        checked, plainly = checked + 1, plainly + (plain is not None)
    for body in one_change_each(FULL_OPENAI):
        for asked in (1, 2):
            if openai_api.is_plain_completion(body):
                read = outcome(lambda b=body, n=asked: openai_api.generation_of(b, "req_1", n))
                assert read == by_the_sdk_openai(body, asked), body
                plainly += 1
            checked += 1
    assert plainly > 0 and checked > plainly  # some changes keep a reply plain, most do not


def test_every_reply_the_fake_server_and_the_cassettes_hold_is_plain() -> None:
    """The readings above are not a path taken only by odd replies: the common one is plain."""
    messages = [anthropic_message(msg_id="msg_1", model="m", text="t", stop_reason=None, usage=USAGE)]
    completions = [
        openai_chat_completion(
            completion_id="c", created=0, model="m", text="t", finish_reason=None, usage=USAGE, system_fingerprint="fp"
        )
    ]
    for path in sorted(CASSETTE_DIR.glob("*.yaml")):
        for interaction in yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"]:
            if interaction["response"]["status"]["code"] == 200:
                body = json.loads(interaction["response"]["body"]["string"])
                (messages if path.name.startswith("anthropic") else completions).append(body)
    assert len(messages) == 4 and len(completions) == 4  # the fake server's own, then 3 recorded of each lane
    assert all(anthropic_api.plain_generation(m, None) is not None for m in messages)
    assert all(openai_api.is_plain_completion(c) for c in completions)
