"""Issue 14: both API lanes treat a key the same way. A loopback endpoint needs none (it is sent the placeholder
``not-needed``, and only it); any other endpoint without a key is refused before any call, naming the variable."""

from __future__ import annotations

import pytest

from driftproof.errors import LaneError
from driftproof.lanes.anthropic_api import AnthropicApiLane
from driftproof.lanes.api import ApiLane
from driftproof.lanes.base import GenerationRequest
from driftproof.lanes.endpoints import LOCAL_PLACEHOLDER_KEY
from driftproof.lanes.openai_api import OpenAIApiLane
from tests.support.fake_llm_server import FakeLLMServer

LANES = {
    "anthropic": (AnthropicApiLane, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ""),
    "openai": (OpenAIApiLane, "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1"),
}


pytestmark = pytest.mark.usefixtures("no_ambient_credentials")


def _answer(lane: ApiLane) -> str | None:
    try:
        return lane.generate(GenerationRequest(prompt="hello", max_tokens=16)).error
    finally:
        lane.close()


@pytest.mark.parametrize("provider", LANES)
@pytest.mark.parametrize("how", ["argument", "variable", "os-environ"])
def test_a_loopback_endpoint_without_a_key_is_sent_the_placeholder(
    fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, provider: str, how: str
) -> None:
    cls, _key_var, url_var, suffix = LANES[provider]
    url = fake_llm_server.base_url + suffix
    if how == "argument":
        lane = cls(None, base_url=url, environ={})
    elif how == "variable":
        lane = cls(None, environ={url_var: url})
    else:  # environ=None: the lane reads os.environ, as the SDK would
        monkeypatch.setenv(url_var, url)
        lane = cls(None, environ=None)
    assert _answer(lane) is None
    (request,) = fake_llm_server.requests
    assert request.headers["authorization"] == f"Bearer {LOCAL_PLACEHOLDER_KEY}"


@pytest.mark.parametrize("provider", LANES)
def test_a_loopback_endpoint_with_a_key_is_sent_that_key(fake_llm_server: FakeLLMServer, provider: str) -> None:
    cls, key_var, _url_var, suffix = LANES[provider]
    assert _answer(cls(None, base_url=fake_llm_server.base_url + suffix, environ={key_var: "a-real-key"})) is None
    (request,) = fake_llm_server.requests
    assert request.headers["authorization"] == "Bearer a-real-key"


@pytest.mark.parametrize("provider", LANES)
@pytest.mark.parametrize(
    "url",
    [None, "https://llm.example.com", "http://127.0.0.1.example.com:8080", "http://10.0.0.7:8000"],
    ids=["vendor", "remote", "loopback-lookalike", "private-network"],
)
def test_any_other_endpoint_without_a_key_is_refused(provider: str, url: str | None) -> None:
    cls, key_var, _url_var, _suffix = LANES[provider]
    with pytest.raises(LaneError, match=f"set {key_var}") as caught:
        cls(None, base_url=url, environ={})
    assert "a server on localhost needs none" in str(caught.value)
    assert LOCAL_PLACEHOLDER_KEY not in str(caught.value)
