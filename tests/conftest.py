"""Shared fixtures: the loopback fake LLM server and the fake ``claude`` / ``codex`` executables."""

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
