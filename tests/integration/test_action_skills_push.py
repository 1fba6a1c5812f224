"""The store job's push with the ``skills`` input runs only the skills the push touched (issue 14, pay once per
merge): real git (a shallow checkout, the push's previous commit fetched), the loopback LLM and GitHub fakes.

1. A first push (``before`` all zeros) cannot tell what changed: a warning, and both skills run.
2. A push touching only ``alpha``: alpha runs and its receipt is rewritten; beta is named as not touched, its
   receipt and badge are the bytes main holds; the set report names both.
3. A push touching only a README runs no skill: the outputs name no receipt and take the kept receipts' status.
4. An untouched skill with no stored receipt runs, saying why; a previous commit that cannot be fetched runs
   every skill with the warning.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import httpx
import yaml

from driftproof import action
from driftproof.core.reading import read_receipt
from driftproof.receipts import load_receipt
from tests.support.action_sim import (
    BASE,
    GOOD,
    KEY,
    PROMPTS,
    REPOSITORY,
    SKILL,
    TOKEN,
    action_env,
    git,
    read_outputs,
    scores,
)
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_server import FakeLLMServer

INPUTS = {"github-token": TOKEN, "skills": "skills/*/SKILL.md", "suite": "", "skill": ""}
ZEROS = "0" * 40
UNKNOWN = "cannot tell which skills this change touches"
#: with-skill scored as the baseline: no lift, so the receipts stored first do not pass
FLAT = {case: {"with_skill": BASE, "baseline": BASE} for case in PROMPTS}


def suite_text() -> str:
    cases = [{"id": cid, "prompt": text, "rubric": "Why, not what."} for cid, text in PROMPTS.items()]
    return yaml.safe_dump({"name": "commit-writer", "skill": "SKILL.md", "threshold": 0.7, "cases": cases})


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def seed(tmp: Path) -> tuple[Path, str]:
    """``main`` holding skills/alpha and skills/beta, each with its suite beside it, and a README."""
    upstream = tmp / "upstream"
    for name in ("alpha", "beta"):
        (upstream / "skills" / name).mkdir(parents=True)
        (upstream / "skills" / name / "SKILL.md").write_text(SKILL, encoding="utf-8")
        (upstream / "skills" / name / "suite.yaml").write_text(suite_text(), encoding="utf-8")
    (upstream / "README.md").write_text("# skills\n", encoding="utf-8")
    git(upstream, "init", "-q", "-b", "main")
    return upstream, commit(upstream, "two skills")


def edit(upstream: Path, path: str) -> str:
    with (upstream / path).open("a", encoding="utf-8") as f:
        f.write("\nSay why in one sentence.\n")
    return commit(upstream, f"edit {path}")


def push(
    tmp: Path, upstream: Path, github: FakeGitHub, llm: FakeLLMServer, before: str
) -> tuple[int, dict[str, str], str, Path]:
    """The store job on a push to main: ``actions/checkout`` (shallow) of main's tip, then the Action."""
    step = tmp / f"step-{len(list(tmp.glob('step-*')))}"
    step.mkdir()
    workspace = step / "workspace"
    git(tmp, "clone", "-q", "--depth=1", f"file://{upstream}", str(workspace))
    payload = {
        "ref": "refs/heads/main",
        "before": before,
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
    }
    env = action_env(
        step,
        workspace,
        github.base_url,
        event_name="push",
        payload=payload,
        inputs=INPUTS,
        extra={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": llm.base_url},
    )
    out = io.StringIO()
    with httpx.Client(trust_env=False) as http:
        code = action.run(env, http=http, stdout=out)
    log = out.getvalue()
    assert "Traceback" not in log
    return code, read_outputs(step / "output"), log, workspace


def store(workspace: Path, upstream: Path) -> str:
    """The documented commit step, in short: the run's receipts and badges committed to main."""
    shutil.copytree(workspace / ".driftproof", upstream / ".driftproof", dirs_exist_ok=True)
    return commit(upstream, "driftproof: refresh receipts")


def stored(upstream: Path, path: str) -> bytes:
    return (upstream / path).read_bytes()


def test_a_push_runs_the_skills_it_touched_and_keeps_the_others(isolated: Path, fake_llm_server: FakeLLMServer) -> None:
    upstream, _ = seed(isolated)
    with FakeGitHub(repository=REPOSITORY, token=TOKEN) as github:
        # 1. the first push: no previous commit, so both run and store their receipts
        scores(fake_llm_server, FLAT)
        code, outputs, log, workspace = push(isolated, upstream, github, fake_llm_server, ZEROS)
        assert code == 0, log
        assert (
            "::warning title=Driftproof skills::cannot tell which skills this change touches (the push names no "
            "previous commit: "
            "a new branch or a first push): every skill runs"
        ) in log
        assert outputs["receipt"] == ".driftproof/alpha/receipt.json .driftproof/beta/receipt.json"
        receipts = store(workspace, upstream)
        first = {p: stored(upstream, p) for p in (outputs["receipt"] + " " + outputs["badge"]).split()}

        # 2. a push editing alpha only (its previous commit is not in the shallow checkout: fetched)
        edit(upstream, "skills/alpha/SKILL.md")
        scores(fake_llm_server, GOOD)
        code, outputs, log, workspace = push(isolated, upstream, github, fake_llm_server, receipts)
        assert code == 0, log
        assert UNKNOWN not in log
        assert "driftproof: runs alpha: touched by this change (skills/alpha/SKILL.md)" in log
        assert "driftproof: skips beta: not touched by this change" in log
        assert (outputs["receipt"], outputs["badge"]) == (
            ".driftproof/alpha/receipt.json",
            ".driftproof/alpha/badge.json",
        )
        assert (
            outputs["status"] == "passing"
        )  # alpha's new receipt alone (GOOD: with-skill 0.85-0.90 and 0.75, baseline 0.20-0.30)
        for path in (".driftproof/beta/receipt.json", ".driftproof/beta/badge.json"):
            assert (workspace / path).read_bytes() == first[path]  # kept: the bytes main holds
        assert (workspace / ".driftproof/alpha/receipt.json").read_bytes() != first[".driftproof/alpha/receipt.json"]
        report = (workspace / outputs["report"]).read_text(encoding="utf-8")
        assert report.startswith("**Driftproof · 1 skill run** · 1 not touched by this change")
        assert "| `alpha` | passing |" in report and "Not run, not touched by this change: `beta`" in report
        assert "## Skill `alpha`" in report and "## Skill `beta`" not in report
        readme = store(workspace, upstream)

        # 3. a push editing only the README: no skill runs, nothing is rewritten
        edit(upstream, "README.md")
        code, outputs, log, workspace = push(isolated, upstream, github, fake_llm_server, readme)
    assert code == 0, log
    assert "driftproof: skips alpha: not touched by this change" in log
    assert "driftproof: skips beta: not touched by this change" in log
    assert (outputs["receipt"], outputs["badge"], outputs["regressed"], outputs["improved"]) == ("", "", "0", "0")
    kept = [read_receipt(load_receipt(workspace / f".driftproof/{n}/receipt.json")).status for n in ("alpha", "beta")]
    assert [str(s) for s in kept] == ["passing", "underpowered"]
    assert outputs["status"] == "underpowered"  # the worst kept receipt's: beta was stored flat (no lift)
    report = (workspace / outputs["report"]).read_text(encoding="utf-8")
    assert report.startswith("**Driftproof · no skill run** · 2 not touched by this change")
    assert "Not run, not touched by this change: `alpha`, `beta`" in report


def test_an_untouched_skill_without_a_receipt_runs_and_an_unfetchable_base_runs_every_skill(
    isolated: Path, fake_llm_server: FakeLLMServer
) -> None:
    upstream, first = seed(isolated)
    edit(upstream, "skills/alpha/SKILL.md")
    scores(fake_llm_server, GOOD)
    with FakeGitHub(repository=REPOSITORY, token=TOKEN) as github:
        code, outputs, log, _ = push(isolated, upstream, github, fake_llm_server, first)
        assert code == 0, log
        assert UNKNOWN not in log
        assert "driftproof: runs alpha: touched by this change (skills/alpha/SKILL.md)" in log
        assert (
            "driftproof: runs beta: not touched by this change, but no receipt is stored at "
            ".driftproof/beta/receipt.json" in log
        )
        assert outputs["receipt"] == ".driftproof/alpha/receipt.json .driftproof/beta/receipt.json"

        code, outputs, log, _ = push(isolated, upstream, github, fake_llm_server, "1234567" * 5 + "89abc")
    assert code == 0, log
    assert "::warning title=Driftproof skills::cannot tell which skills this change touches (git fetch failed: " in log
    assert "driftproof: runs beta: every skill runs (which skills the change touches is unknown)" in log
    assert "--changed" not in log  # the Action has no such input
    assert outputs["receipt"] == ".driftproof/alpha/receipt.json .driftproof/beta/receipt.json"


def test_an_untouched_skill_whose_stored_receipt_no_longer_stands_runs(
    isolated: Path, fake_llm_server: FakeLLMServer
) -> None:
    """A store job that failed leaves beta's receipt measured on its old text: a later push that leaves beta alone
    does not keep it (the promotion rule: it does not stand for the run the store job would make today)."""
    upstream, _ = seed(isolated)
    with FakeGitHub(repository=REPOSITORY, token=TOKEN) as github:
        scores(fake_llm_server, FLAT)
        code, outputs, log, workspace = push(isolated, upstream, github, fake_llm_server, ZEROS)
        assert code == 0, log
        store(workspace, upstream)
        old = stored(upstream, ".driftproof/beta/receipt.json")
        failed = edit(upstream, "skills/beta/SKILL.md")  # this push's store job failed: nothing stored
        edit(upstream, "skills/alpha/SKILL.md")
        scores(fake_llm_server, GOOD)
        code, outputs, log, workspace = push(isolated, upstream, github, fake_llm_server, failed)
    assert code == 0, log
    assert "driftproof: runs alpha: touched by this change (skills/alpha/SKILL.md)" in log
    assert (
        "driftproof: runs beta: not touched by this change, but the receipt stored at .driftproof/beta/receipt.json "
        "cannot be kept (it does not stand for this run: "
    ) in log
    assert outputs["receipt"] == ".driftproof/alpha/receipt.json .driftproof/beta/receipt.json"
    assert (workspace / ".driftproof/beta/receipt.json").read_bytes() != old
