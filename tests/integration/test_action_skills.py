"""The Action's ``skills`` input end to end (issue 15, monorepos): two skills, real git, the loopback LLM and
GitHub fakes, the store job's commit step as a non-root user.

1. A PR that touches only ``beta``: ``alpha`` is skipped ("not touched by this change"), ``beta`` is a first run;
   one comment holds the summary table and ``beta``'s section.
2. The store job on the push to ``main`` runs every skill and writes ``.driftproof/<skill>/receipt.json`` and
   badge; the documented commit step, as ``nobody``, commits and pushes them.
3. The same PR pushed again, now touching ``alpha`` with a worse skill: compared against the stored receipt,
   regressed, the one comment updated in place, the outputs aggregated.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from driftproof.action.github import COMMENT_MARKER
from tests.support.action_sim import (
    GOOD,
    PROMPTS,
    REPOSITORY,
    SKILL,
    TOKEN,
    WORSE,
    pr_payload,
    push_payload,
    scores,
)
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_server import FakeLLMServer
from tests.support.runner_user import NOBODY, as_nobody, documented_step, git, needs_setpriv, run_action, trusting

INPUTS = {"github-token": TOKEN, "skills": "skills/*/SKILL.md", "suite": "", "skill": ""}
pytestmark = needs_setpriv


def suite_text() -> str:
    cases = [{"id": cid, "prompt": text, "rubric": "Why, not what."} for cid, text in PROMPTS.items()]
    return yaml.safe_dump({"name": "commit-writer", "skill": "SKILL.md", "threshold": 0.7, "cases": cases})


def seed_repo(shared: Path) -> Path:
    """A bare upstream whose main holds skills/alpha and skills/beta, each with its suite beside it."""
    seed = shared / "seed"
    for name in ("alpha", "beta"):
        (seed / "skills" / name).mkdir(parents=True)
        (seed / "skills" / name / "SKILL.md").write_text(SKILL, encoding="utf-8")
        (seed / "skills" / name / "suite.yaml").write_text(suite_text(), encoding="utf-8")
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "two skills")
    upstream = shared / "upstream.git"
    git(shared, "clone", "-q", "--bare", str(seed), str(upstream))
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(upstream)], check=True)
    return upstream


def checkout(upstream: Path, where: Path, branch: str | None = None, touch: str | None = None) -> Path:
    """``actions/checkout`` (shallow, as it is by default), on a PR branch whose commit edits ``touch``."""
    git(upstream.parent, "clone", "-q", "--depth=1", f"file://{upstream}", str(where))
    if branch:
        git(where, "checkout", "-q", "-b", branch)
    if touch:
        with (where / touch).open("a", encoding="utf-8") as f:
            f.write("\nSay why in one sentence.\n")
        git(where, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", f"edit {touch}")
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(where)], check=True)
    return where


def marked(github: FakeGitHub) -> list[str]:
    """The sticky comments on PR 7, each without its hidden marker line."""
    return [
        str(c["body"]).removeprefix(COMMENT_MARKER + "\n")
        for c in github.comments(7)
        if COMMENT_MARKER in str(c["body"])
    ]


def test_touched_skills_run_one_comment_store_as_the_runner_user_then_a_regression(
    shared: Path, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    root_config = str(trusting(shared / "root-gitconfig"))
    monkeypatch.setenv("DRIFTPROOF_TEST_GITCONFIG", root_config)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", root_config)
    upstream = seed_repo(shared)
    home = shared / "runner-home"
    home.mkdir()
    os.chown(home, NOBODY, NOBODY)
    trusting(home / "gitconfig", NOBODY)
    runner_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
    }

    with FakeGitHub(repository=REPOSITORY, token=TOKEN) as github:
        # 1. a PR that touches beta only: nothing is stored yet, so beta is a first run; alpha does not run
        scores(fake_llm_server, GOOD)
        pr = checkout(upstream, shared / "pr1", "pr", touch="skills/beta/SKILL.md")
        code, outputs, log = run_action(
            shared, pr, github, fake_llm_server, event="pull_request", payload=pr_payload(), inputs=INPUTS
        )
        assert code == 0, log
        assert "driftproof: skips alpha: not touched by this change" in log
        assert "driftproof: runs beta: touched by this change (skills/beta/SKILL.md)" in log
        assert outputs["receipt"] == ".driftproof/beta/receipt.new.json"
        assert outputs["report"] == ".driftproof/skills.report.md"
        assert not (pr / ".driftproof" / "alpha").exists()
        (body,) = marked(github)
        assert body.startswith("**Driftproof · 1 skill run** · 1 not touched by this change")
        assert "| `beta` | " in body and "| first run: no stored receipt |" in body
        assert "Not run, not touched by this change: `alpha`" in body
        assert "## Skill `beta`" in body and "## Skill `alpha`" not in body

        # 2. the store job on the push to main: every skill, then the documented commit step as nobody
        main = checkout(upstream, shared / "main")
        code, outputs, log = run_action(
            shared, main, github, fake_llm_server, event="push", payload=push_payload(), inputs=INPUTS
        )
        assert code == 0, log
        assert outputs["receipt"] == ".driftproof/alpha/receipt.json .driftproof/beta/receipt.json"
        assert outputs["badge"] == ".driftproof/alpha/badge.json .driftproof/beta/badge.json"
        step_env = {**runner_env, "RECEIPTS": outputs["receipt"], "BADGES": outputs["badge"]}
        committed = as_nobody(main, documented_step("Commit the refreshed receipts and badges"), step_env)
        assert committed.returncode == 0, committed.stderr
        for name in ("alpha", "beta"):
            assert '"verification": "TESTED"' in git(upstream, "show", f"main:.driftproof/{name}/receipt.json")
            assert '"schemaVersion": 1' in git(upstream, "show", f"main:.driftproof/{name}/badge.json")

        # 3. the PR pushed again, now editing alpha, whose skill got worse: compared with alpha's stored receipt
        scores(fake_llm_server, WORSE)
        pr = checkout(upstream, shared / "pr2", "pr", touch="skills/alpha/SKILL.md")
        code, outputs, log = run_action(
            shared, pr, github, fake_llm_server, event="pull_request", payload=pr_payload(), inputs=INPUTS
        )
    assert code == 1, log
    assert "driftproof: runs alpha: touched by this change (skills/alpha/SKILL.md)" in log
    assert "driftproof: skips beta: not touched by this change" in log
    assert (outputs["status"], outputs["regressed"], outputs["improved"]) == ("regressed", "1", "0")
    (body,) = marked(github)  # the one comment, updated in place
    assert body.startswith("**Driftproof · 1 skill run** · 1 not touched by this change")
    assert "| `alpha` | regressed" in body and "| 1 regressed · 0 improved |" in body
    assert "## Skill `alpha`" in body and "**Driftproof · regressed** · `subject-line` " in body
    assert "Not run, not touched by this change: `beta`" in body
    assert (pr / ".driftproof" / "skills.report.md").read_text(encoding="utf-8").startswith(body[:60])


def test_a_pr_that_touches_no_skill_reads_skipped_not_passing(
    shared: Path, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing ran, so nothing was measured: ``status`` is ``skipped`` (action.yml's word for a run that measured
    nothing), never a ``passing`` a gate could read as a measured one."""
    root_config = str(trusting(shared / "root-gitconfig"))
    monkeypatch.setenv("DRIFTPROOF_TEST_GITCONFIG", root_config)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", root_config)
    upstream = seed_repo(shared)
    with FakeGitHub(repository=REPOSITORY, token=TOKEN) as github:
        pr = checkout(upstream, shared / "pr", "pr")
        (pr / "README.md").write_text("# skills\n", encoding="utf-8")
        git(pr, "add", "README.md")
        git(pr, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "readme")
        code, outputs, log = run_action(
            shared, pr, github, fake_llm_server, event="pull_request", payload=pr_payload(), inputs=INPUTS
        )
        (body,) = marked(github)
    assert code == 0, log
    assert fake_llm_server.requests == []
    assert (outputs["status"], outputs["regressed"], outputs["improved"], outputs["receipt"]) == (
        "skipped",
        "0",
        "0",
        "",
    )
    assert body.startswith("**Driftproof · no skill run** · 2 not touched by this change")


def test_each_skill_writes_its_own_junit_report(
    shared: Path, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``skills``, input ``junit`` is a pattern as ``receipt-path`` is (`core.skill_set.skill_path`): each
    skill's report goes to its own file (``.driftproof/junit.xml`` → ``.driftproof/<skill>/junit.xml``). Before,
    every skill wrote the one path, so only the last skill's report was left and the others' were dropped."""
    root_config = str(trusting(shared / "root-gitconfig"))
    monkeypatch.setenv("DRIFTPROOF_TEST_GITCONFIG", root_config)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", root_config)
    upstream = seed_repo(shared)
    with FakeGitHub(repository=REPOSITORY, token=TOKEN) as github:
        scores(fake_llm_server, GOOD)
        main = checkout(upstream, shared / "main")
        inputs = {**INPUTS, "junit": ".driftproof/junit.xml"}
        code, _, log = run_action(
            shared, main, github, fake_llm_server, event="push", payload=push_payload(), inputs=inputs
        )
    assert code == 0, log
    assert not (main / ".driftproof" / "junit.xml").exists()
    for name in ("alpha", "beta"):
        report = (main / ".driftproof" / name / "junit.xml").read_text(encoding="utf-8")
        assert report.count("<testcase ") == len(PROMPTS)  # one per case of that skill's suite
        assert f'classname="{name}"' in report
