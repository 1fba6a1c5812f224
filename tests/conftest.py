"""Shared fixtures: the loopback fake LLM server, the fake ``claude`` / ``codex`` executables, and no ambient
credentials."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_cli_harness import FAKE_CLI_DIR, LOG_ENV, SCENARIO_ENV, FakeCLI
from tests.support.fake_llm_server import FakeLLMServer


@pytest.fixture
def fake_llm_server() -> Iterator[FakeLLMServer]:
    """A started `FakeLLMServer` (echo responder, empty queues), closed after the test."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def fake_cli_path() -> Path:
    """The directory holding the fake ``claude`` and ``codex``; prepend it to PATH with ``monkeypatch``."""
    return FAKE_CLI_DIR


@pytest.fixture
def fake_cli(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> FakeCLI:
    """The fakes first on PATH for this test, with a scenario file and an invocation log of their own."""
    harness = FakeCLI(tmp_path_factory.mktemp("fake-cli"))
    for name, value in harness.env().items():
        if name in ("PATH", SCENARIO_ENV, LOG_ENV):
            monkeypatch.setenv(name, value)
    return harness


AMBIENT_CREDENTIALS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_ORGANIZATION_ID",
    "ANTHROPIC_IDENTITY_TOKEN",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
)
"""What the SDKs read from the environment of the machine running the tests: a key, an endpoint, a profile."""


@pytest.fixture
def no_ambient_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No key, endpoint or credentials profile from the machine running the tests (the anthropic SDK looks for
    profiles under ``~/.config/anthropic``, so ``HOME`` is an empty folder)."""
    for name in AMBIENT_CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
