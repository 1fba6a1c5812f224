"""Shared fixtures: the loopback fake LLM server, the fake ``claude`` / ``codex`` executables, and no ambient
credentials."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.action_sim import TOKEN, isolate
from tests.support.ambient import AMBIENT_CREDENTIALS
from tests.support.fake_cli_harness import FAKE_CLI_DIR, LOG_ENV, SCENARIO_ENV, FakeCLI
from tests.support.fake_github import FakeGitHub
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


@pytest.fixture
def no_ambient_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No key, endpoint or credentials profile from the machine running the tests (the anthropic SDK looks for
    profiles under ``~/.config/anthropic``, so ``HOME`` is an empty folder)."""
    for name in AMBIENT_CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))


@pytest.fixture
def shared() -> Iterator[Path]:
    """A directory another uid can reach (pytest's tmp_path sits under a 0700 directory of root's): the
    runner user's steps (`tests.support.runner_user`) work in it."""
    path = Path(tempfile.mkdtemp(prefix="driftproof-runner-user-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An Action job's environment (`tests.support.action_sim.isolate`): no ambient key, endpoint or git config,
    commits with a fixed identity; ``tmp_path`` is its home."""
    isolate(monkeypatch.setenv, monkeypatch.delenv, tmp_path)
    return tmp_path


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    """The fake GitHub REST API, taking the simulated job's token."""
    with FakeGitHub(token=TOKEN) as fake:
        yield fake
