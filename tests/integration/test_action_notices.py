"""What the Action's notices and errors name: the inputs the user wrote and where it looked, never a CLI flag.

A "first run" says which receipt-path it looked for on which branch and how the answer came (git, or the contents
API after git failed), so a misconfigured path or a failing fetch can be told from a real first run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.integration.test_action_e2e import IMPROVEMENT, scripted
from tests.support.action_sim import make_repos, run_job
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_server import FakeLLMServer

pytestmark = pytest.mark.usefixtures("isolated")  # an Action job's environment (tests/conftest.py)


def first_run_notice(log: str) -> str:
    [line] = [x for x in log.splitlines() if x.startswith("::notice title=Driftproof first run::")]
    return line.removeprefix("::notice title=Driftproof first run::")


def test_a_first_run_names_the_receipt_path_and_the_branch_git_read(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    scripted(fake_llm_server, IMPROVEMENT)
    job = run_job(tmp_path, make_repos(tmp_path, None), github, fake_llm_server, inputs={"receipt-path": "x/r.json"})
    assert first_run_notice(job.log) == (
        "No receipt is stored on main yet: this is the first run; nothing to compare against. Looked for "
        "receipt-path x/r.json on origin/main: git found no such file there. If the job that stores the receipt "
        "writes it elsewhere, give both jobs the same receipt-path."
    )


def test_a_first_run_the_api_answered_says_git_failed(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """git cannot fetch (the upstream is gone, as a private remote without credentials), the contents API 404s."""
    repos = make_repos(tmp_path, None)
    shutil.rmtree(repos.upstream)
    scripted(fake_llm_server, IMPROVEMENT)
    job = run_job(tmp_path, repos, github, fake_llm_server)
    said = first_run_notice(job.log)
    assert said.startswith(
        "No receipt is stored on main yet: this is the first run; nothing to compare against. Looked for "
        "receipt-path .driftproof/receipt.json on origin/main: git could not read it (git fetch failed: "
    )
    assert said.endswith(
        "), and the contents API (GET /repos/acme/skills/contents/.driftproof/receipt.json?ref=main) answered "
        "404 Not Found. If the job that stores the receipt writes it elsewhere, give both jobs the same receipt-path."
    )
    assert (job.code, job.outputs["status"]) == (0, "passing")  # a first run still passes, now said plainly
