"""Where the command-line lanes put each draw's folders, and why one Codex draw cannot write into another's.

The draws of a run live in one private folder under the user's cache directory, not in ``/tmp``, and Codex's
workspace-write sandbox runs without ``/tmp`` and ``$TMPDIR`` (``docs/cli-lanes.md``, "Isolation"). The whole-run
check that four concurrent draws never see one another's files is in ``test_cli_lanes_runs.py``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest

from driftproof.lanes.base import GenerationRequest
from driftproof.lanes.claude_cli import ClaudeCliLane
from driftproof.lanes.codex_cli import CodexCliLane
from tests.support.fake_cli_harness import FakeCLI


@pytest.fixture
def env(fake_cli: FakeCLI, tmp_path: Path) -> dict[str, str]:
    """A user's shell with both keys and a HOME of its own (under ``tmp_path``)."""
    base = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "user-home")}
    return fake_cli.env({**base, "ANTHROPIC_API_KEY": "sk-ant-test-0001", "OPENAI_API_KEY": "sk-test-0002"})


def claude(env: dict[str, str], **kw: Any) -> ClaudeCliLane:
    return ClaudeCliLane("claude-sonnet-5-5", environ=env, timeout_s=20, **kw)


def codex(env: dict[str, str], **kw: Any) -> CodexCliLane:
    return CodexCliLane("gpt-6.2-sol", environ=env, timeout_s=20, **kw)


def ask() -> GenerationRequest:
    return GenerationRequest(prompt="Write a commit message for the cart fix.", case_id="c1", arm="baseline")


def test_codex_files_capture_keeps_tmp_out_of_the_sandbox(fake_cli: FakeCLI, env: dict[str, str]) -> None:
    fake_cli.use({"write_outside": {"siblings": 0, "wait_s": 0}})
    lane = codex(env, capture="files")
    lane.generate(ask())
    entry = fake_cli.invocations()[-1]
    config, tmpdir = entry["config"], entry["env"]["TMPDIR"]
    assert config["sandbox_workspace_write.exclude_slash_tmp"] is True
    assert config["sandbox_workspace_write.exclude_tmpdir_env_var"] is True
    assert config["sandbox_workspace_write.writable_roots"] == [tmpdir]  # the draw's own TMPDIR stays writable
    assert [w["written"] for w in entry["outside_writes"]] == [False]  # the write into /tmp was refused
    lane = codex(env)
    lane.generate(ask())
    assert "sandbox_workspace_write.exclude_slash_tmp" not in fake_cli.invocations()[-1]["config"]  # read-only


def test_draws_live_in_a_private_folder_under_the_cache_dir(
    fake_cli: FakeCLI, env: dict[str, str], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    home_cache = Path(env["HOME"], ".cache")
    relative = {**env, "XDG_CACHE_HOME": "relative/cache"}  # ignored, as the XDG spec says: ~/.cache instead
    cases = ((env, home_cache), ({**env, "XDG_CACHE_HOME": str(cache)}, cache), (relative, home_cache))
    for environ, expected in cases:
        lane = codex(environ, capture="files")
        lane.generate(ask())
        cwd = Path(fake_cli.invocations()[-1]["cwd"])
        run_root = cwd.parents[1]  # <cache>/driftproof/draws/<run>/<draw>/work
        assert run_root.parent == expected / "driftproof" / "draws" and cwd.name == "work"
        assert stat.S_IMODE(run_root.stat().st_mode) == 0o700 and not cwd.parent.exists()  # the draw's removed
        lane.close()
        assert not run_root.exists()  # and the run's folder once the lane closes


@pytest.mark.parametrize("blocker", ["a file where the folder goes", "a git work tree around it"])
def test_draws_fall_back_to_the_temp_dir(
    fake_cli: FakeCLI, env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocker: str
) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    cache = tmp_path / "cache"
    if blocker.startswith("a file"):
        cache.write_text("not a folder")
    elif blocker.startswith("a git"):
        (tmp_path / ".git").mkdir()
    lane = claude({**env, "XDG_CACHE_HOME": str(cache / "inner")})
    lane.generate(ask())
    run_root = Path(fake_cli.invocations()[-1]["cwd"]).parents[1]
    assert run_root.parent == temp and run_root.name.startswith("driftproof-run-")
    assert stat.S_IMODE(run_root.stat().st_mode) == 0o700
    lane.close()
    assert not run_root.exists()
