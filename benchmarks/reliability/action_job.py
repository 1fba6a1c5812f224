"""One simulated GitHub Actions job on a pull request, in process, with everything it wrote collected.

The pieces are the test suite's (`tests/support/action_sim.py`): an upstream repository whose ``main`` holds
the skill, a suite and (optionally) a stored receipt, a workspace cloned from it on a PR branch, the
container environment, the GitHub REST fake and the fake LLM server. Unlike ``action_sim.run_job`` it
asserts nothing: it returns what the job produced, for a part to measure.
"""

from __future__ import annotations

import contextlib
import io
import os
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from benchmarks.reliability.common import SKILL, one_line
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_script import Responder
from tests.support.fake_llm_server import FakeLLMServer

CREDENTIAL_NAMES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CODEX_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "GITHUB_TOKEN",
)


@contextlib.contextmanager
def isolated_environ(home: Path) -> Iterator[None]:
    """For an in-process job: no ambient credential or endpoint, a throwaway git identity and global config.

    ``os.environ`` is restored exactly afterwards (the values taken out are never read).
    """
    saved = os.environ.copy()
    try:
        for name in CREDENTIAL_NAMES:
            os.environ.pop(name, None)
        os.environ.update(
            {
                "HOME": str(home),
                "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_AUTHOR_NAME": "Test",
                "GIT_COMMITTER_NAME": "Test",
                "GIT_AUTHOR_EMAIL": "test@example.test",
                "GIT_COMMITTER_EMAIL": "test@example.test",
            }
        )
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@dataclass
class Job:
    """What one job produced."""

    code: int | str
    """The exit code, or the exception that escaped ``action.run``."""
    log: str
    summary: str
    report: str
    outputs: str
    receipt: str
    badge: str
    comment_bodies: list[str] = field(default_factory=list)
    request_bodies: list[str] = field(default_factory=list)
    """Every request body the Action sent to the GitHub REST fake, as JSON text."""


@dataclass(frozen=True)
class JobSpec:
    suite_text: str
    stored: bytes | None
    responder: Responder
    token: str
    extra_env: Mapping[str, str]
    inputs: Mapping[str, str] = field(default_factory=dict)
    github_setup: Callable[[FakeGitHub], None] | None = None


def run_job(tmp: Path, spec: JobSpec) -> Job:
    """Make the repositories under ``tmp`` and run the Action once on a pull request."""
    from tests.support.action_sim import RECEIPT

    with isolated_environ(tmp):
        workspace = _repos(tmp, spec.suite_text, spec.stored, RECEIPT)
        with FakeGitHub(token=spec.token) as github, FakeLLMServer(spec.responder) as llm:
            if spec.github_setup is not None:
                spec.github_setup(github)
            code, log = _run(tmp, workspace, github, llm, spec)
            writes = github.writes()
            bodies = [str(r.body.get("body")) for r in writes if isinstance(r.body, dict)]
            requests = [repr(r.body) for r in github.requests]
    return _collect(tmp, workspace, code, log, bodies, requests)


def _repos(tmp: Path, suite_text: str, stored: bytes | None, receipt_path: str) -> Path:
    from tests.support.action_sim import git

    upstream, workspace = tmp / "upstream", tmp / "workspace"
    (upstream / "evals").mkdir(parents=True)
    git(upstream, "init", "-q", "-b", "main")
    (upstream / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (upstream / "evals" / "suite.yaml").write_text(suite_text, encoding="utf-8")
    if stored is not None:
        (upstream / ".driftproof").mkdir()
        (upstream / receipt_path).write_bytes(stored)
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "skill, suite and stored receipt")
    git(tmp, "clone", "-q", "--depth=1", f"file://{upstream}", str(workspace))
    git(workspace, "checkout", "-q", "-b", "pr")
    return workspace


def _run(tmp: Path, workspace: Path, github: FakeGitHub, llm: FakeLLMServer, spec: JobSpec) -> tuple[int | str, str]:
    from driftproof import action
    from tests.support.action_sim import action_env

    env = action_env(
        tmp,
        workspace,
        github.base_url,
        inputs={"github-token": spec.token, **spec.inputs},
        extra={"ANTHROPIC_BASE_URL": llm.base_url, **spec.extra_env},
    )
    out = io.StringIO()
    with httpx.Client(trust_env=False) as http:
        try:
            code: int | str = action.run(env, http=http, stdout=out)
        except (Exception, SystemExit) as exc:
            code = f"{type(exc).__name__}: {one_line(traceback.format_exc(), 300)}"
    return code, out.getvalue()


def _collect(tmp: Path, workspace: Path, code: int | str, log: str, bodies: list[str], requests: list[str]) -> Job:
    from tests.support.action_sim import read_outputs

    outputs_text = (tmp / "output").read_text(encoding="utf-8") if (tmp / "output").exists() else ""
    outputs = read_outputs(tmp / "output") if outputs_text else {}

    def written(name: str) -> str:
        relative = outputs.get(name)
        path = workspace / relative if relative else None
        return path.read_text(encoding="utf-8", errors="replace") if path and path.is_file() else ""

    summary = (tmp / "summary").read_text(encoding="utf-8") if (tmp / "summary").exists() else ""
    return Job(
        code,
        log,
        summary,
        written("report"),
        outputs_text,
        written("receipt"),
        written("badge"),
        bodies,
        requests,
    )
