"""`make_lane`: provider x surface to a lane, importing only the lane asked for; bad names are an InputError."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.errors import InputError, LaneError
from driftproof.lanes.anthropic_api import AnthropicApiLane
from driftproof.lanes.base import RetryPolicy
from driftproof.lanes.openai_api import OpenAIApiLane
from driftproof.lanes.registry import make_lane

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-registry-test-0000", "OPENAI_API_KEY": "sk-proj-registry-test-0000"}


@pytest.mark.parametrize(("provider", "lane_class"), [("anthropic", AnthropicApiLane), ("openai", OpenAIApiLane)])
def test_api_lanes(provider: str, lane_class: type) -> None:
    lane = make_lane(provider, "api", "some-model", timeout_s=5.0, max_retries=1, environ=KEYS, capture="text")
    try:
        assert isinstance(lane, lane_class)
        assert (lane.provider, lane.surface) == (provider, "api")
        assert lane._policy == RetryPolicy(max_retries=1)  # type: ignore[attr-defined]
        assert lane._timeout_s == 5.0  # type: ignore[attr-defined]
    finally:
        lane.close()


def test_api_lane_takes_max_tokens_and_base_url() -> None:
    lane = make_lane("openai", "api", None, base_url="http://localhost:11434/v1", environ={}, max_tokens=64)
    try:
        assert (lane.base_url(), lane.sampling()) == ("http://localhost:11434/v1", {"max_completion_tokens": 64})
    finally:
        lane.close()


def test_stub_lane() -> None:
    lane = make_lane("stub", "none", "stub-model", capture="text")
    assert (lane.provider, lane.surface) == ("stub", "none")


@pytest.mark.parametrize(
    ("provider", "surface", "message"),
    [
        ("mistral", "api", "unknown provider 'mistral': expected one of anthropic, openai, stub"),
        ("anthropic", "web", "unknown surface 'web': expected one of api, cli, none"),
        ("anthropic", "none", "provider 'anthropic' needs surface 'api' or 'cli', got 'none'"),
        ("stub", "cli", "the stub lane has no 'cli' surface: use surface 'none'"),
    ],
)
def test_unknown_names_are_input_errors(provider: str, surface: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        make_lane(provider, surface, None, environ=KEYS)
    assert str(caught.value) == message


def test_files_capture_needs_the_cli_surface() -> None:
    with pytest.raises(InputError, match="capture 'files' needs the cli surface"):
        make_lane("anthropic", "api", None, environ=KEYS, capture="files")


@pytest.mark.parametrize(("setting", "value"), [("max_retries", -1), ("timeout_s", 0.0)])
def test_bad_retry_and_timeout_settings(setting: str, value: float) -> None:
    with pytest.raises(InputError):
        make_lane("anthropic", "api", None, environ=KEYS, **{setting: value})


def test_a_missing_key_is_a_lane_error() -> None:
    with pytest.raises(LaneError, match="OPENAI_API_KEY"):
        make_lane("openai", "api", None, environ={})


@pytest.mark.parametrize(("provider", "binary"), [("anthropic", "claude"), ("openai", "codex")])
def test_a_cli_lane_without_its_binary_is_a_lane_error_naming_the_install(
    provider: str, binary: str, tmp_path: Path
) -> None:
    env = {**KEYS, "PATH": str(tmp_path)}  # an empty PATH: the CLI is not installed
    with pytest.raises(LaneError, match=f"{binary}.*npm install"):
        make_lane(provider, "cli", None, environ=env)
