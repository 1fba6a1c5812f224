"""``driftproof validate A B C`` checks every file, reports each, and checks a kept answers archive (issue 8)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from driftproof.cli import main
from driftproof.receipts import write_receipt
from driftproof.run import RunRequest, run_suite
from tests.support.builders import receipt

UP = ([0.5, 0.6, 0.7], [0.2, 0.3, 0.4])


def test_every_file_is_checked_and_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good_a, good_b, bad = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "bad.json"
    write_receipt(receipt({"x": UP}), good_a)
    write_receipt(receipt({"y": UP}), good_b)
    bad.write_text("{oops", encoding="utf-8")
    code = main(["validate", str(good_a), str(bad), str(good_b), str(tmp_path / "gone.json")])
    out, err = capsys.readouterr()
    assert code == 2  # one invalid file is enough
    assert [line.split(":")[0] for line in out.splitlines()] == [str(good_a), str(good_b)]  # both valid, reported
    errors = err.splitlines()
    assert len(errors) == 2 and all(line.startswith("driftproof: error: ") for line in errors)
    assert str(bad) in errors[0] and "not valid JSON" in errors[0] and str(tmp_path / "gone.json") in errors[1]


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    """A stub run with --keep-transcripts: the receipt seals the archive's sha256."""
    (tmp_path / "SKILL.md").write_text("Be brief.", encoding="utf-8")
    suite = {"skill": "SKILL.md", "cases": [{"id": "a", "prompt": "Task a.", "rubric": "good"}]}
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite), encoding="utf-8")
    out = tmp_path / "r.json"
    run_suite(RunRequest(suite=tmp_path / "suite.yaml", provider="stub", out=out, keep_transcripts=True))
    return out


def test_an_intact_archive_validates(kept: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(kept)]) == 0
    assert "answers archive r.answers.jsonl matches" in capsys.readouterr().out


def test_an_edited_archive_is_invalid(kept: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = kept.with_name("r.answers.jsonl")
    archive.write_text(archive.read_text(encoding="utf-8").replace("Stub answer", "Edited answer"), encoding="utf-8")
    assert main(["validate", str(kept)]) == 2
    err = capsys.readouterr().err
    assert f"{kept}: transcripts: the answers archive {archive} does not match the sealed sha256" in err


def test_a_deleted_archive_is_invalid(kept: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept.with_name("r.answers.jsonl").unlink()
    assert main(["validate", str(kept)]) == 2
    err = capsys.readouterr().err
    assert f"{kept}: transcripts: the answers archive {kept.with_name('r.answers.jsonl')} is missing" in err
