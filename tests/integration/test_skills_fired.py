"""Which skill fired, per draw, with neighbour skills installed (``--delivery discover``; issue 15, monorepos).

The fake ``claude`` calls the Skill tool for each name of its ``skill_calls`` that is installed, as Claude Code
2.1.332 prints it; the fake ``codex`` opens a SKILL.md through an ``items`` command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.core.diff import diff
from driftproof.core.export import view_json
from driftproof.core.reading import read_receipt
from driftproof.lanes.base import GenerationRequest
from driftproof.lanes.claude_cli import ClaudeCliLane
from driftproof.lanes.codex_cli import CodexCliLane
from driftproof.receipts import load_receipt
from driftproof.render import render_diff, render_view
from driftproof.run import RunRequest, run_suite
from tests.support.fake_cli_harness import FakeCLI

SKILL = "---\nname: commit-writer\ndescription: Writes commit messages.\n---\nUse conventional commits.\n"
SIBLING = "---\nname: pr-writer\ndescription: Writes pull request text.\n---\nSummarise the change.\n"


@pytest.fixture
def suite_dir(tmp_path: Path, fake_cli: FakeCLI, monkeypatch: pytest.MonkeyPatch) -> Path:
    """skills/commit-writer (under test, with its suite) and skills/pr-writer, declared as its neighbour."""
    mine, sibling = tmp_path / "skills" / "commit-writer", tmp_path / "skills" / "pr-writer"
    mine.mkdir(parents=True)
    sibling.mkdir(parents=True)
    (mine / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (sibling / "SKILL.md").write_text(SIBLING, encoding="utf-8")
    suite = {
        "name": "commit-writer",
        "skill": "SKILL.md",
        "neighbours": ["../pr-writer/SKILL.md"],
        "cases": [{"id": "cart", "prompt": "Commit the cart fix.", "rubric": "ok"}],
    }
    (mine / "suite.yaml").write_text(yaml.safe_dump(suite), encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0001")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0002")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return mine


def request(d: Path, out: str, **kw: Any) -> RunRequest:
    base: dict[str, Any] = {
        "suite": d / "suite.yaml",
        "out": d / out,
        "provider": "anthropic",
        "surface": "cli",
        "model": "claude-sonnet-5-5",
        "judge_provider": "stub",
        "delivery": "discover",
        "draws": 2,
        "max_draws": 2,
        "judge_samples": 1,
        "concurrency": 2,
        "timeout_s": 30,
    }
    return RunRequest(**{**base, **kw})


def test_neighbours_are_installed_in_both_arms_and_each_draw_says_which_fired(
    suite_dir: Path, fake_cli: FakeCLI, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_cli.use({"skill_calls": ["commit-writer", "pr-writer"]})
    receipt = run_suite(request(suite_dir, "r.json")).receipt
    case = receipt.cases[0]
    # with skill: both installed, both called; baseline: only the neighbour is installed, so only it can fire
    assert [d.skills_fired for d in case.with_skill.draws] == [["commit-writer", "pr-writer"]] * 2
    assert [d.skills_fired for d in case.baseline.draws] == [["pr-writer"]] * 2
    assert [d.skill_fired for d in case.with_skill.draws] == [True, True]
    assert receipt.skill is not None and receipt.skill.installed_as == "commit-writer"
    installed = sorted(tuple(e["init"]["skills"][:2]) for e in fake_cli.invocations() if "init" in e)
    assert installed == [("commit-writer", "pr-writer")] * 2 + [("pr-writer", "deep-research")] * 2
    # the neighbour is installed, so the "not installed" notice is gone from the receipt and the terminal
    assert receipt.suite.notices == [] and "neighbour skill, is not installed" not in capsys.readouterr().err
    view = render_view(receipt, read_receipt(receipt))
    assert "### Which skill fired" in view
    assert "| `cart` | `commit-writer` 2/2 · `pr-writer` 2/2 | `pr-writer` 2/2 |" in view
    arms = view_json(read_receipt(receipt))["cases"][0]
    assert arms["with_skill"]["skills_fired"] == [
        {"name": "commit-writer", "fired": 2, "of": 2},
        {"name": "pr-writer", "fired": 2, "of": 2},
    ]
    assert arms["baseline"]["skills_fired"] == [{"name": "pr-writer", "fired": 2, "of": 2}]


def test_a_sibling_stealing_activations_shows_in_the_comparison(suite_dir: Path, fake_cli: FakeCLI) -> None:
    fake_cli.use({"skill_calls": ["commit-writer"]})
    before = run_suite(request(suite_dir, "main.json")).receipt
    fake_cli.use({"skill_calls": ["pr-writer"]})  # the PR's sibling description now wins every draw
    after = run_suite(request(suite_dir, "pr.json")).receipt
    assert [d.skills_fired for d in after.cases[0].with_skill.draws] == [["pr-writer"]] * 2
    assert [d.skill_fired for d in after.cases[0].with_skill.draws] == [False, False]
    report = render_diff(before, after, diff(before, after), before_label="main", after_label="this PR")
    # commit-writer: 2/2 on main, 0 of 2 on the PR (absent: shown as a dash); pr-writer: none on main, 2/2 now
    assert "| `cart` | `commit-writer` | 2/2 | – |" in report
    assert "| `cart` | `pr-writer` | – | 2/2 |" in report
    assert (
        "- `cart`: `pr-writer` fired in 2/2 with-skill draws (was –) while `commit-writer` fell to – (was 2/2): "
        "a neighbour took its activations"
    ) in report
    assert load_receipt(suite_dir / "pr.json").cases[0].with_skill.draws[0].skills_fired == ["pr-writer"]


def test_without_discover_nothing_is_installed_and_the_notice_stays(suite_dir: Path, fake_cli: FakeCLI) -> None:
    fake_cli.use({"skill_calls": ["commit-writer", "pr-writer"]})
    receipt = run_suite(request(suite_dir, "r.json", delivery="system_prompt")).receipt
    assert all(d.skills_fired is None for d in receipt.cases[0].with_skill.draws + receipt.cases[0].baseline.draws)
    assert receipt.suite.notices == [
        f"neighbours: {suite_dir / '../pr-writer/SKILL.md'}, a neighbour skill, is not installed "
        "(only --delivery discover installs it)"
    ]
    assert "Which skill fired" not in render_view(receipt, read_receipt(receipt))


def test_codex_reads_which_installed_skill_a_command_opened(suite_dir: Path, fake_cli: FakeCLI) -> None:
    opened = {"type": "command_execution", "command": "cat ~/.codex/skills/pr-writer/SKILL.md", "exit_code": 0}
    fake_cli.use({"items": [opened]})
    env = {"OPENAI_API_KEY": "sk-test-0002", **fake_cli.env()}
    lane = CodexCliLane("gpt-6.2-sol", delivery="discover", environ=env)
    lane.install_neighbours([SIBLING])
    try:
        mine = lane.generate(GenerationRequest(prompt="Commit it.", system=SKILL))
        bare = lane.generate(GenerationRequest(prompt="Commit it."))
    finally:
        lane.close()
    assert (mine.skills_fired, mine.skill_fired) == (("pr-writer",), False)
    assert (bare.skills_fired, bare.skill_fired) == (("pr-writer",), None)


def test_claude_a_skill_not_installed_never_fires(fake_cli: FakeCLI) -> None:
    fake_cli.use({"skill_calls": ["pr-writer"]})  # asked for, but nothing installs it in this lane
    env = {"ANTHROPIC_API_KEY": "sk-ant-test-0001", **fake_cli.env()}
    lane = ClaudeCliLane("claude-sonnet-5-5", delivery="discover", environ=env)
    try:
        g = lane.generate(GenerationRequest(prompt="Commit it.", system=SKILL))
    finally:
        lane.close()
    assert (g.skills_fired, g.skill_fired) == ((), False)
