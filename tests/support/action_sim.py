"""A simulated GitHub Actions job for the Action's end-to-end tests.

- `make_repos`: an "upstream" git repository whose ``main`` holds a skill, a two-case suite and (unless
  it is a first run) a stored receipt, and a workspace cloned from it on a PR branch.
- `ScoredResponder`: answers the fake LLM server's Messages calls. An answer names its case, arm and
  draw; the judge call (which carries the answer between ``<<<ANSWER`` and ``ANSWER>>>``) gets back the
  score the scenario fixes for that case, arm and draw. Only the with-skill call has a ``system``.
- `action_env`: the container environment: every input at its action.yml default, then the test's
  inputs, the event payload, ``GITHUB_OUTPUT``/``GITHUB_STEP_SUMMARY`` files and the API URL.
- `read_outputs`: parse ``GITHUB_OUTPUT`` the way the runner does (``name=value`` and heredocs).
- `run_job`: one ``driftproof.action.run`` over that environment, checked for tracebacks and leaked secrets.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from driftproof import action
from tests.support.ambient import AMBIENT_CREDENTIALS
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_script import FakeReply, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import FakeLLMServer

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY = "acme/skills"
KEY = (
    "sk-ant-" + "api03-E2E-test-key-0000000000000000001"
)  # a fake key, key-shaped for the redaction checks; split so secret scanners skip it
TOKEN = "ghs_E2Etoken000000000000000000000001"
RECEIPT = ".driftproof/receipt.json"
SKILL = "# Commit messages\n\nWrite Conventional Commits: a typed subject under 72 characters, then why.\n"
PROMPTS = {
    "subject-line": "Write a commit message for: return 0 for an empty cart instead of dividing by zero.",
    "why-not-what": "Summarise as a commit message: honour retry-after on a 429 because the provider bans hammering.",
}
_ANSWER = re.compile(r"^<<<ANSWER\n(.*?)\nANSWER>>>$", re.M | re.S)
_TAG = re.compile(r"\[case=(\S+) arm=(\S+) draw=(\d+)\]")

Scores = Mapping[str, Mapping[str, Sequence[float]]]
"""case id -> arm -> the score of draw k is ``scores[k % len(scores)]``."""


AMBIENT = (*AMBIENT_CREDENTIALS, "GITHUB_TOKEN")
"""The variables of the machine running the tests that an Action job must not see."""


def isolate(setenv: Any, delenv: Any, home: Path) -> None:
    """No ambient key, endpoint or git config; commits get a fixed identity (``monkeypatch.setenv``/``delenv``)."""
    for name in AMBIENT:
        delenv(name, raising=False)
    setenv("HOME", str(home))
    setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        setenv(key, "Test")
    for key in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        setenv(key, "test@example.test")


def suite_yaml(case_ids: Sequence[str] | None = None) -> str:
    """A native suite over SKILL.md; the two cases of `PROMPTS` unless ids are given (stub prompts)."""
    ids = list(case_ids) if case_ids is not None else list(PROMPTS)
    cases = [
        {"id": cid, "prompt": PROMPTS.get(cid, f"Write a commit message for change {cid}."), "rubric": "Why, not what."}
        for cid in ids
    ]
    return yaml.safe_dump({"name": "commit-writer", "skill": "../SKILL.md", "threshold": 0.7, "cases": cases})


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=os.environ)
    return done.stdout


@dataclass(frozen=True)
class Repos:
    upstream: Path
    workspace: Path


def make_repos(tmp: Path, stored: bytes | None, *, case_ids: Sequence[str] | None = None) -> Repos:
    """``main`` with the skill, the suite and ``stored`` at RECEIPT; a workspace on branch ``pr``."""
    upstream = tmp / "upstream"
    (upstream / "evals").mkdir(parents=True)
    git(upstream, "init", "-q", "-b", "main")
    (upstream / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (upstream / "evals" / "suite.yaml").write_text(suite_yaml(case_ids), encoding="utf-8")
    if stored is not None:
        (upstream / ".driftproof").mkdir()
        (upstream / RECEIPT).write_bytes(stored)
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "skill, suite and stored receipt")
    workspace = tmp / "workspace"
    git(tmp, "clone", "-q", "--depth=1", f"file://{upstream}", str(workspace))
    git(workspace, "checkout", "-q", "-b", "pr")
    return Repos(upstream, workspace)


@dataclass
class ScoredResponder:
    """The fake LLM's answers and judge scores for one scenario (thread-safe: the runner is concurrent)."""

    scores: Scores
    answers: list[str] = field(default_factory=list)
    _counters: dict[tuple[str, str], int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: RecordedRequest) -> FakeReply:
        prompt = request.prompt_text
        block = _ANSWER.search(prompt)
        if block is not None:  # a judge call: the answer sits on its own lines between the markers
            tag = _TAG.search(block.group(1))
            if tag is None:
                return json_text_reply({"score": 0.0, "reason": "no tag"})
            case, arm, draw = tag.group(1), tag.group(2), int(tag.group(3))
            scores = self.scores[case][arm]
            return json_text_reply({"score": scores[draw % len(scores)], "reason": "as scripted"})
        case = next(cid for cid, text in PROMPTS.items() if text in prompt)
        arm = "with_skill" if request.system_text else "baseline"
        with self._lock:
            draw = self._counters.get((case, arm), 0)
            self._counters[(case, arm)] = draw + 1
        text = f"fix(cart): handle the empty cart\n\nThe old code divided by zero. [case={case} arm={arm} draw={draw}]"
        self.answers.append(text)
        return FakeReply(text=text)


def action_defaults() -> dict[str, str]:
    """Every input's action.yml default, as the runner sets ``INPUT_<NAME>`` (hyphens kept)."""
    spec = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return {
        f"INPUT_{name.upper()}": str(item.get("default", ""))
        for name, item in spec["inputs"].items()
        if "${{" not in str(item.get("default", ""))
    }


def pr_payload(*, fork: bool = False, number: int = 7) -> dict[str, Any]:
    head_repo = "contributor/skills" if fork else REPOSITORY
    return {
        "action": "synchronize",
        "number": number,
        "pull_request": {
            "number": number,
            "user": {"login": "contributor"},
            "head": {"ref": "pr", "sha": "a" * 40, "repo": {"full_name": head_repo, "fork": fork}},
            "base": {"ref": "main", "sha": "b" * 40, "repo": {"full_name": REPOSITORY}},
        },
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
    }


def push_payload() -> dict[str, Any]:
    return {"ref": "refs/heads/main", "repository": {"full_name": REPOSITORY, "default_branch": "main"}}


def action_env(
    tmp: Path,
    workspace: Path,
    api_url: str,
    *,
    event_name: str = "pull_request",
    payload: Mapping[str, Any] | None = None,
    inputs: Mapping[str, str] | None = None,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The container environment of one step."""
    event = tmp / "event.json"
    event.write_text(json.dumps(payload if payload is not None else pr_payload()), encoding="utf-8")
    for name in ("output", "summary"):
        (tmp / name).touch()
    env = {
        **action_defaults(),
        "INPUT_SUITE": "evals/suite.yaml",
        "INPUT_SKILL": "SKILL.md",
        "INPUT_DRAWS": "3",
        "INPUT_JUDGE-SAMPLES": "2",
        "INPUT_CONCURRENCY": "4",
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.test",
        "GITHUB_REF": "refs/pull/7/merge" if event_name == "pull_request" else "refs/heads/main",
        "GITHUB_SHA": "c" * 40,
        "GITHUB_OUTPUT": str(tmp / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary"),
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in (inputs or {}).items()})
    env.update(extra or {})
    return env


def read_outputs(path: Path) -> dict[str, str]:
    """``GITHUB_OUTPUT`` as the runner reads it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    outputs: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
            i += 1
        else:
            i += 1
    return outputs


@dataclass
class Job:
    """One finished step: exit code, log, outputs, summary and the files it wrote."""

    code: int
    log: str
    outputs: dict[str, str]
    summary: str
    workspace: Path

    def file(self, output: str) -> str:
        return (self.workspace / self.outputs[output]).read_text(encoding="utf-8")


def run_job(tmp: Path, repos: Repos, github: FakeGitHub, llm: FakeLLMServer | None, **kwargs: object) -> Job:
    extra = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": llm.base_url} if llm else {}
    extra.update(kwargs.pop("extra", {}))  # type: ignore[call-overload]
    inputs = {"github-token": TOKEN, **kwargs.pop("inputs", {})}  # type: ignore[dict-item]
    env = action_env(tmp, repos.workspace, github.base_url, inputs=inputs, extra=extra, **kwargs)  # type: ignore[arg-type]
    out = io.StringIO()
    with httpx.Client(trust_env=False) as http:
        code = action.run(env, http=http, stdout=out)
    outputs = read_outputs(tmp / "output")
    job = Job(code, out.getvalue(), outputs, (tmp / "summary").read_text(encoding="utf-8"), repos.workspace)
    assert "Traceback" not in job.log
    written = [p.read_text(encoding="utf-8") for p in (repos.workspace / ".driftproof").glob("*")]
    for leaked in (KEY, TOKEN):
        visible = [line for line in job.log.splitlines() if not line.startswith("::add-mask::")]
        assert leaked not in "\n".join(visible)
        assert leaked not in job.summary and leaked not in json.dumps(job.outputs)
        assert all(leaked not in json.dumps(r.body) for r in github.writes())
        assert all(leaked not in text for text in written)  # receipt, report, badge
    assert all(logging.getLogger(name).level == logging.WARNING for name in action.QUIET_LOGGERS)
    return job


#: Scripted judge scores of the documented workflow's runs: the baseline both arms' PRs share, a PR that keeps
#: the skill's lift (``GOOD``) and one whose subject-line case falls to 0.55 ± 0.05 against the stored 0.85 ±
#: 0.024 (12 draws of 0.85, 0.85, 0.90): apart, Δ −0.317 (``WORSE``).
BASE = [0.20, 0.25, 0.30]
GOOD = {
    "subject-line": {"with_skill": [0.85, 0.85, 0.90], "baseline": BASE},
    "why-not-what": {"with_skill": [0.75], "baseline": BASE},
}
WORSE = {
    "subject-line": {"with_skill": [0.50, 0.55, 0.60], "baseline": BASE},
    "why-not-what": {"with_skill": [0.75], "baseline": BASE},
}


def scores(server: FakeLLMServer, table: Mapping[str, Mapping[str, Sequence[float]]]) -> None:
    """Make ``server`` judge by ``table`` from now on (`ScoredResponder`)."""
    server.responder = ScoredResponder(table)  # type: ignore[arg-type]
