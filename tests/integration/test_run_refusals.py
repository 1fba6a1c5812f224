"""Every user mistake on ``driftproof run`` is one line and exit 2, before any model call, nothing written (issue 8)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from driftproof.cli import main

SUITE = {"skill": "SKILL.md", "cases": [{"id": "a", "prompt": "Task a.", "rubric": "good"}]}


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text("Be brief.", encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(SUITE), encoding="utf-8")
    return tmp_path / "suite.yaml"


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI, expect exit 2 and exactly one line on stderr; return that line."""
    code = main(list(argv))
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code == 2, captured
    assert len(lines) == 1 and lines[0].startswith("driftproof: error: "), lines
    assert "plan:" not in captured.err and "progress:" not in captured.err  # refused before the first call
    return lines[0].removeprefix("driftproof: error: ")


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--surface", "cli"], "the stub lane has no 'cli' surface"),
        (["--surface", "api"], "the stub lane has no 'api' surface"),
        (["--capture", "files"], "the stub lane cannot run 'files' capture"),
        (["--base-url", "http://127.0.0.1:9"], "the stub lane calls no endpoint"),
        (["--timeout", "nan"], "--timeout must be a number of seconds above 0"),
        (["--timeout", "-5"], "--timeout must be a number of seconds above 0"),
        (["--timeout", "inf"], "--timeout must be a number of seconds above 0"),
        (["--max-retries", "-1"], "--max-retries must be a whole number from 0 to 100"),
        (["--max-consecutive-failures", "-1"], "--max-consecutive-failures must be a whole number from 0"),
        (["--quick", "--draws", "5"], "--quick fixes --draws 2, --judge-samples 2, --concurrency 4"),
        (["--quick", "--judge-samples", "3", "--concurrency", "2"], "drop --judge-samples and --concurrency"),
        (["--resume"], "--resume: there is no journal at"),
        (["--draws", "4", "--max-draws", "3"], "--max-draws (3) must be at least --draws (4)"),
    ],
)
def test_stub_flags_it_cannot_apply_are_refused(
    suite: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    before = files_under(suite.parent)
    line = refused(capsys, "run", str(suite), "--provider", "stub", *extra)
    assert needle in line
    assert files_under(suite.parent) == before  # no receipt, no journal, no .driftproof/ directory


def test_an_output_path_that_is_a_directory(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = suite.parent / "receipts"
    target.mkdir()
    line = refused(capsys, "run", str(suite), "--provider", "stub", "-o", str(target))
    assert line == f"-o: {target} is a directory; name a file such as {target / 'receipt.json'}"
    assert list(target.iterdir()) == []


def test_an_output_path_under_a_file(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = suite.parent / "notes.txt"
    blocker.write_text("a file, not a folder")
    target = blocker / "sub" / "receipt.json"
    line = refused(capsys, "run", str(suite), "--provider", "stub", "-o", str(target))
    assert line == f"-o: {target}: {blocker} is a file, not a directory, so the receipt cannot go there"


@contextlib.contextmanager
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory this process cannot write in: a read-only tmpfs as root, a 0555 directory otherwise."""
    target = tmp_path / "ro"
    target.mkdir()
    if os.geteuid() != 0:
        target.chmod(0o555)
        try:
            yield target
        finally:
            target.chmod(0o755)
        return
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(target)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"root, but cannot mount a read-only tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)


def test_an_output_directory_that_cannot_be_written(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with read_only_dir(tmp_path) as ro:
        line = refused(capsys, "run", str(suite), "--provider", "stub", "-o", str(ro / "receipt.json"))
    assert line.startswith(f"-o: {ro / 'receipt.json'}: cannot write in {ro} (")
    assert "Read-only file system" in line or "Permission denied" in line


def test_a_normal_stub_run_prints_the_plan_before_its_calls(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", str(suite), "--provider", "stub", "--draws", "3", "--max-draws", "4"])
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    # 1 case x 2 arms x 3..4 draws x (1 answer + 5 judge samples): 36 to 48 calls
    assert (
        err[0] == "plan: 1 case × 2 arms × 3 to 4 draws × (1 answer + 5 judge samples): at least 36, at most 48 calls"
    )
    assert err[-1].startswith("done: ")


def test_progress_in_a_log_is_a_line_per_tenth_of_the_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 10-case stub run in a log (not a terminal): a line at each tenth of the calls planned so far."""
    (tmp_path / "SKILL.md").write_text("Be brief.", encoding="utf-8")
    cases = [{"id": f"c{i}", "prompt": f"Task {i}.", "rubric": "good"} for i in range(10)]
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    assert main(["run", str(tmp_path / "suite.yaml"), "--provider", "stub"]) == 0
    err = capsys.readouterr().err.splitlines()
    progress = [line for line in err if line.startswith("progress: ")]
    # the first round plans 10 cases x 2 arms x 3 draws x 6 calls = 360: a line every 36 calls at first;
    # the plan can grow to 10 x 2 x 10 x 6 = 1200, so at most 1200 / 36 + 1 lines, never one per call
    done = int(err[-1].split()[1].split("/")[0])
    assert err[-1].startswith("done: ") and 360 <= done <= 1200
    assert 9 <= len(progress) <= done // 36 + 1
    assert all(" calls · " in line and "/" in line.split()[1] for line in progress)
