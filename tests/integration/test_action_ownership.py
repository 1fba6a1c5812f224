"""What the Action leaves in the checkout belongs to the checkout's owner (the runner's user), not to root.

The container runs as root over a checkout owned by the runner's user. A later step, as that user, must be able to
change, delete and add files where the Action wrote: a ``git pull --rebase`` retry of the commit step, a step that
writes beside the receipt, a self-hosted runner's checkout clean-up.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.action_sim import GOOD, REPOSITORY, SKILL, TOKEN, pr_payload, push_payload, scores, suite_yaml
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_server import FakeLLMServer
from tests.support.runner_user import NOBODY, as_nobody, git, needs_setpriv, run_action, trusting

pytestmark = needs_setpriv


def seed_repo(shared: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository holding the skill and its suite (one commit on main), with git trusting the checkouts as root."""
    root_config = str(trusting(shared / "root-gitconfig"))
    monkeypatch.setenv("DRIFTPROOF_TEST_GITCONFIG", root_config)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", root_config)
    seed = shared / "seed"
    (seed / "evals").mkdir(parents=True)
    git(seed, "init", "-q", "-b", "main")
    (seed / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (seed / "evals" / "suite.yaml").write_text(suite_yaml(), encoding="utf-8")
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "skill and suite")
    return seed


def test_the_files_and_folders_a_store_job_writes_belong_to_the_checkouts_owner(
    shared: Path, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = seed_repo(shared, monkeypatch)
    main = shared / "main"
    git(shared, "clone", "-q", f"file://{seed}", str(main))
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(main)], check=True)  # actions/checkout's owner
    scores(fake_llm_server, GOOD)
    inputs = {"github-token": TOKEN, "junit": "reports/junit.xml"}
    with FakeGitHub(repository=REPOSITORY, token=TOKEN) as github:
        code, outputs, log = run_action(
            shared, main, github, fake_llm_server, event="push", payload=push_payload(), inputs=inputs
        )
    assert code == 0, log

    written = [".driftproof", "reports", "reports/junit.xml", *(outputs[n] for n in ("receipt", "report", "badge"))]
    owners = {path: (os.stat(main / path).st_uid, os.stat(main / path).st_gid) for path in written}
    assert owners == dict.fromkeys(written, (NOBODY, NOBODY))
    assert os.stat(main / "SKILL.md").st_uid == NOBODY  # what the Action did not write is as it was
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(shared)}
    script = "echo x >> .driftproof/badge.json; rm .driftproof/receipt.report.md; touch .driftproof/new reports/new"
    done = as_nobody(main, script, env)
    assert done.returncode == 0, done.stderr


def test_what_the_actions_git_fetch_leaves_in_git_belongs_to_the_checkouts_owner(
    shared: Path, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Action fetches the default branch as root (to read the stored receipt): FETCH_HEAD, the fetched
    objects' folders and the remote ref would be root's, so the runner's ``git fetch``, ``git pull --rebase`` or a
    ``git add`` whose object falls in such a folder would fail."""
    seed = seed_repo(shared, monkeypatch)
    pr = shared / "pr"
    git(shared, "clone", "-q", f"file://{seed}", str(pr))
    git(pr, "checkout", "-q", "-b", "pr")
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(pr)], check=True)  # actions/checkout's owner
    (seed / "NOTES.md").write_text("main moved on after the checkout\n", encoding="utf-8")  # objects to fetch
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "main moves on")
    scores(fake_llm_server, GOOD)
    with FakeGitHub(repository=REPOSITORY, token=TOKEN) as github:
        code, _, log = run_action(
            shared, pr, github, fake_llm_server, event="pull_request", payload=pr_payload(), inputs={}
        )
    assert code == 0, log

    root_owned = subprocess.run(["find", ".git", "-uid", "0"], cwd=pr, capture_output=True, text=True, check=True)
    assert root_owned.stdout == ""  # FETCH_HEAD, objects/xx, refs/remotes/origin/main: all the runner's
    home = shared / "runner-home"
    home.mkdir()
    os.chown(home, NOBODY, NOBODY)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(trusting(home / "gitconfig", NOBODY)),
    }
    script = (
        "git fetch -q origin main\n"
        "echo x74 > added.txt\n"
        "git add -- added.txt .driftproof\n"
        "git -c user.name=r -c user.email=r@r commit -q -m 'after the Action'"
    )
    done = as_nobody(pr, script, env)
    assert done.returncode == 0, done.stderr
