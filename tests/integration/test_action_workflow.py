"""The documented workflow's two jobs, end to end, with the steps after the Action as a non-root user (issue 8).

1. A PR check on a repository whose ``main`` stores no receipt yet: a first run, the gate passes.
2. The merge: the store job on the push to ``main`` runs the Action (root, as in its container), then the
   documented "Commit the refreshed receipt and badge" step runs as another uid (``nobody``, as the runner's
   user is) and must read, add, commit and push what the Action wrote.
3. A second PR that regresses, compared against the receipt the store job pushed: exit 1, ``regressed`` set.

The Action runs as root over a checkout owned by another user, exactly the situation in which 0600 files
made the store step fail with "Permission denied", so every PR stayed a first run and the gate never fired.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from driftproof.core.models import SCHEMA_VERSION
from tests.support.action_sim import (
    GOOD,
    RECEIPT,
    REPOSITORY,
    SKILL,
    TOKEN,
    WORSE,
    pr_payload,
    push_payload,
    scores,
    suite_yaml,
)
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_server import FakeLLMServer
from tests.support.runner_user import NOBODY, as_nobody, documented_step, git, needs_setpriv, run_action, trusting

INPUTS = {"github-token": TOKEN}
pytestmark = needs_setpriv


def runner_user_env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "runner",
        "GIT_AUTHOR_EMAIL": "runner@example.test",
        "GIT_COMMITTER_NAME": "runner",
        "GIT_COMMITTER_EMAIL": "runner@example.test",
        "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
    }


def checkout(upstream: Path, where: Path, branch: str | None = None) -> Path:
    """``actions/checkout``: a clone owned by the runner's user, as on a hosted runner."""
    git(upstream.parent, "clone", "-q", f"file://{upstream}", str(where))
    if branch:
        git(where, "checkout", "-q", "-b", branch)
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(where)], check=True)
    return where


def test_pr_check_store_job_as_the_runner_user_then_a_regressing_pr(
    shared: Path, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    root_config = str(trusting(shared / "root-gitconfig"))
    monkeypatch.setenv("DRIFTPROOF_TEST_GITCONFIG", root_config)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", root_config)  # the Action's own git calls read the process env
    upstream = shared / "upstream.git"
    seed = shared / "seed"
    (seed / "evals").mkdir(parents=True)
    git(seed, "init", "-q", "-b", "main")
    (seed / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (seed / "evals" / "suite.yaml").write_text(suite_yaml(), encoding="utf-8")
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "skill and suite")
    git(shared, "clone", "-q", "--bare", str(seed), str(upstream))
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(upstream)], check=True)
    home = shared / "runner-home"
    home.mkdir()
    os.chown(home, NOBODY, NOBODY)
    trusting(home / "gitconfig", NOBODY)

    with FakeGitHub(repository=REPOSITORY, token=TOKEN) as github:
        # 1. the first PR: nothing stored on main, so nothing to compare; the gate passes
        scores(fake_llm_server, GOOD)
        first = checkout(upstream, shared / "pr1", "pr")
        code, outputs, log = run_action(
            shared, first, github, fake_llm_server, event="pull_request", payload=pr_payload(), inputs=INPUTS
        )
        assert code == 0, log
        assert "No receipt is stored on main yet" in log

        # 2. the merge: the store job on the push to main, then its commit step as the runner's user
        main = checkout(upstream, shared / "main")
        code, outputs, log = run_action(
            shared, main, github, fake_llm_server, event="push", payload=push_payload(), inputs=INPUTS
        )
        assert code == 0, log
        assert outputs["receipt"] == RECEIPT
        for name in ("receipt", "report", "badge"):  # the next step reads what the Action wrote as root
            done = as_nobody(main, f'cat "{outputs[name]}" > /dev/null', runner_user_env(home))
            assert done.returncode == 0, done.stderr
        step_env = {**runner_user_env(home), "RECEIPT": outputs["receipt"], "BADGE": outputs["badge"]}
        committed = as_nobody(main, documented_step("Commit the refreshed receipt and badge"), step_env)
        assert committed.returncode == 0, committed.stderr
        stored = git(upstream, "show", f"main:{RECEIPT}")
        assert '"verification": "TESTED"' in stored

        # 3. a second PR that regresses, against the receipt the store job pushed
        scores(fake_llm_server, WORSE)
        second = checkout(upstream, shared / "pr2", "pr")
        code, outputs, log = run_action(
            shared, second, github, fake_llm_server, event="pull_request", payload=pr_payload(), inputs=INPUTS
        )
    assert code == 1, log
    assert (outputs["status"], outputs["regressed"]) == ("regressed", "1")
    assert "No receipt is stored" not in log
    report = (second / outputs["report"]).read_text(encoding="utf-8")
    assert report.startswith("**Driftproof · regressed** · `subject-line` ")
    assert yaml.safe_load(stored)["schema_version"] == SCHEMA_VERSION
    # the store job drew main's receipt to the reference rule: 12 draws in every arm
    assert yaml.safe_load(stored)["run"]["settings"]["as_reference"] is True
    assert yaml.safe_load(stored)["counts"]["draws_per_arm_min"] >= 12
