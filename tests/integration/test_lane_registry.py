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
        ("stub", "cli", "the stub lane has no 'cli' surface: it calls no endpoint; drop --surface"),
        ("stub", "api", "the stub lane has no 'api' surface: it calls no endpoint; drop --surface"),
    ],
)
def test_unknown_names_are_input_errors(provider: str, surface: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        make_lane(provider, surface, None, environ=KEYS)
    assert str(caught.value) == message


def test_files_capture_needs_the_cli_surface() -> None:
    with pytest.raises(InputError, match="capture 'files' needs the cli surface"):
        make_lane("anthropic", "api", None, environ=KEYS, capture="files")


BAD_SETTINGS = [
    ("max_retries", -1),
    ("max_retries", 101),
    ("max_retries", True),
    ("timeout_s", 0.0),
    ("timeout_s", -5.0),
    ("timeout_s", float("nan")),
    ("timeout_s", float("inf")),
    ("timeout_s", 86_401.0),
]


@pytest.mark.parametrize(("provider", "surface"), [("anthropic", "api"), ("openai", "api"), ("stub", "none")])
@pytest.mark.parametrize(("setting", "value"), BAD_SETTINGS)
def test_bad_retry_and_timeout_settings_on_every_lane(provider: str, surface: str, setting: str, value: float) -> None:
    # issue 8: the stub accepted 0, -5, nan and inf; nan on a real lane passed and crashed when the receipt was written
    with pytest.raises(InputError, match=r"--timeout|--max-retries"):
        make_lane(provider, surface, None, environ=KEYS, **{setting: value})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"capture": "files"}, "the stub lane cannot run 'files' capture"),
        ({"base_url": "http://127.0.0.1:9/v1"}, "the stub lane calls no endpoint, so it cannot use a base URL"),
    ],
)
def test_the_stub_refuses_settings_it_could_not_apply(kwargs: dict[str, str], message: str) -> None:
    # issue 8: --provider stub --capture files exited 0 and recorded a setting the run never applied
    with pytest.raises(InputError, match=message):
        make_lane("stub", "none", None, **kwargs)


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
