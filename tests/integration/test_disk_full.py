"""A full disk is one line and exit 2, naming the file and the cause; the receipt already there is untouched.

Each test mounts a small tmpfs, puts a receipt there, then fills it to leave a few kilobytes free, so the
run fails at whichever write comes first (the journal's header, a journal line, the receipt itself). Root
only (mounting needs it); skipped with the reason otherwise.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from driftproof.cli import main

SUITE = {
    "skill": "SKILL.md",
    "cases": [{"id": f"case-{i}", "prompt": f"Task {i}: " + "x" * 400, "rubric": "good"} for i in range(3)],
}


@contextlib.contextmanager
def small_disk(tmp_path: Path, size: str = "256k") -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs to fill needs root")
    target = tmp_path / "disk"
    target.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(target)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"root, but cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)


def fill(disk: Path, leave: int) -> None:
    """Fill ``disk`` until fewer than ``leave`` bytes are free."""
    stat = os.statvfs(disk)
    free = stat.f_bavail * stat.f_frsize
    with (disk / "filler").open("wb") as handle, contextlib.suppress(OSError):
        handle.write(b"\0" * max(0, free - leave))


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "SKILL.md").write_text("Be brief.", encoding="utf-8")
    (folder / "suite.yaml").write_text(yaml.safe_dump(SUITE), encoding="utf-8")
    return folder / "suite.yaml"


def one_error_line(capsys: pytest.CaptureFixture[str], code: int) -> str:
    captured = capsys.readouterr()
    assert code == 2, captured
    errors = [line for line in captured.err.splitlines() if line.startswith("driftproof: error: ")]
    assert len(errors) == 1, captured.err
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    return errors[0].removeprefix("driftproof: error: ")


@pytest.mark.parametrize("leave", [0, 4096, 16384, 40960])
def test_run_on_a_full_disk(suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], leave: int) -> None:
    with small_disk(tmp_path) as disk:
        receipt = disk / "receipt.json"
        assert (
            main(["run", str(suite), "--provider", "stub", "--draws", "2", "--max-draws", "2", "-o", str(receipt)]) == 0
        )
        before = receipt.read_bytes()
        capsys.readouterr()
        fill(disk, leave)
        code = main(
            [
                "run",
                str(suite),
                "--provider",
                "stub",
                "--draws",
                "3",
                "--max-draws",
                "3",
                "--keep-transcripts",
                "-o",
                str(receipt),
            ]
        )
        line = one_error_line(capsys, code)
        assert line.startswith(f"{disk}/"), line  # names the file it could not write
        assert "No space left on device" in line
        assert "(free some space" in line  # what to do
        if "could not write to the run's journal" in line:  # mid-run: what was journaled is kept for --resume
            assert line.endswith("(free some space, then run again with --resume)")
        assert receipt.read_bytes() == before  # the receipt already there is untouched
        assert not (disk / "receipt.answers.jsonl").exists()  # no new archive beside the old receipt
        assert [p.name for p in disk.iterdir() if p.name.endswith(".tmp")] == []  # no temp file left


def test_badge_on_a_full_disk(suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    receipt = tmp_path / "receipt.json"
    assert main(["run", str(suite), "--provider", "stub", "--draws", "2", "--max-draws", "2", "-o", str(receipt)]) == 0
    capsys.readouterr()
    with small_disk(tmp_path, "64k") as disk:
        badge = disk / "badge.json"
        badge.write_text('{"schemaVersion": 1, "label": "old", "message": "old"}\n')  # a badge: replaceable
        fill(disk, 0)
        line = one_error_line(capsys, main(["badge", str(receipt), "-o", str(badge)]))
        assert line == (
            f"{badge}: could not write it: No space left on device; the file already there is unchanged "
            "(free some space, or write it elsewhere)"
        )
        assert badge.read_text() == '{"schemaVersion": 1, "label": "old", "message": "old"}\n'
