"""Output paths (`driftproof.targets`): every command that writes a file refuses, in one line naming the flag and
the path, exit 2, before any model call and with nothing written, an output that is not a regular file, that is
a file the command reads, that is another of its outputs, or whose directory cannot be written."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import yaml

from driftproof.atomic import write_bytes
from driftproof.cli import main
from driftproof.errors import OutputError
from tests.integration import test_run_refusals as run_refusals

ROOT = Path(__file__).resolve().parents[2]
CALIPER = ROOT / "tests" / "fixtures" / "imports" / "caliper"
SUITE = {
    "name": "x",
    "skill": "SKILL.md",
    "cases": [{"id": "a", "prompt": "Task a.", "rubric": "good"}, {"id": "b", "prompt": "Task b.", "rubric": "good"}],
}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """In the working directory: a skill, a two-case suite, its two shard receipts, and a stub receipt with its
    answers archive."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "SKILL.md").write_text("Be brief.\n", encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(SUITE), encoding="utf-8")
    assert main(["run", "suite.yaml", "--provider", "stub", "-o", "r.json", "--keep-transcripts"]) == 0
    for i in (1, 2):
        assert main(["run", "suite.yaml", "--provider", "stub", "--shard", f"{i}/2", "-o", f"s{i}.json"]) == 0
    return tmp_path


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI, expect exit 2 and exactly one line on stderr, no plan or progress (no call); return it."""
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code == 2, captured
    assert len(lines) == 1 and lines[0].startswith("driftproof: error: "), lines
    assert "plan:" not in captured.err and "progress:" not in captured.err
    assert captured.out == ""  # no report printed, no regrade started
    return lines[0].removeprefix("driftproof: error: ")


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: a regular file's bytes, anything else its kind."""
    seen: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        mode = path.lstat().st_mode
        seen[str(path.relative_to(root))] = path.read_bytes() if stat.S_ISREG(mode) else stat.filemode(mode)[0]
    return seen


# every command that writes a file, with OUT where its output goes
WRITERS = {
    "run -o": ["run", "suite.yaml", "--provider", "stub", "-o", "OUT"],
    "run --junit": ["run", "suite.yaml", "--provider", "stub", "-o", "new.json", "--junit", "OUT"],
    "regrade -o": ["regrade", "r.json", "--answers", "r.answers.jsonl", "-o", "OUT"],
    "merge -o": ["merge", "s1.json", "s2.json", "-o", "OUT"],
    "import -o": [
        "import",
        "caliper",
        str(CALIPER / "changelog-full.json"),
        str(CALIPER / "changelog-ablated-skill.json"),
        "-o",
        "OUT",
    ],
    "export -o": ["export", "r.json", "-o", "OUT"],
    "badge -o": ["badge", "r.json", "-o", "OUT"],
    "diff --junit": ["diff", "s1.json", "r.json", "--junit", "OUT"],
}
FLAG = {name: name.split()[1] for name in WRITERS}


def argv(name: str, out: str) -> list[str]:
    return [out if a == "OUT" else a for a in WRITERS[name]]


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_fifo_as_output_is_refused_and_left_a_fifo(work: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    os.mkfifo(work / "pipe")
    before = snapshot(work)
    line = refused(capsys, *argv(name, "pipe"))
    assert line.startswith(f"{FLAG[name]}: pipe is a FIFO (a named pipe), not a regular file")
    assert snapshot(work) == before  # the FIFO is still one; nothing written anywhere


@pytest.mark.parametrize("name", ["run -o", "run --junit", "export -o"])
def test_a_character_device_as_output_is_refused_and_kept(
    work: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """``-o /dev/full`` replaced the device node with the receipt (probe-core defect 1); a node of our own here."""
    device = work / "full"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except OSError as exc:  # not permitted here: the FIFO test covers the rule
        pytest.skip(f"cannot make a character device: {exc.strerror}")
    line = refused(capsys, *argv(name, str(device)))
    assert line.startswith(f"{FLAG[name]}: {device} is a character device, not a regular file")
    assert stat.S_ISCHR(device.lstat().st_mode) and device.lstat().st_rdev == os.makedev(1, 7)


def _forms(work: Path, name: str) -> list[str]:
    """The one file as ``./NAME``, an absolute path and a symlink to it."""
    (work / f"link-to-{name}").symlink_to(work / name)
    return [f"./{name}", str(work / name), f"link-to-{name}"]


@pytest.mark.parametrize(
    ("name", "target", "what"),
    [
        ("run -o", "SKILL.md", "the SKILL.md this run reads"),
        ("run -o", "suite.yaml", "the suite this run reads"),
        ("run --junit", "SKILL.md", "the SKILL.md this run reads"),
        ("run --junit", "suite.yaml", "the suite this run reads"),
        ("regrade -o", "r.answers.jsonl", "the answers archive given by --answers"),
        ("regrade -o", "suite.yaml", "the suite recorded in the original receipt"),
        ("regrade -o", "SKILL.md", "the SKILL.md recorded in the original receipt"),
        ("merge -o", "s1.json", "one of the shard receipts given"),
        ("merge -o", "suite.yaml", "the suite recorded in shard receipt s1.json"),
        ("merge -o", "SKILL.md", "the SKILL.md recorded in shard receipt s1.json"),
        ("export -o", "r.json", "the receipt being exported"),
        ("export -o", "suite.yaml", "the suite recorded in the receipt exported"),
        ("export -o", "r.answers.jsonl", "the answers archive of the receipt exported"),
        ("badge -o", "r.json", "the receipt the badge is made from"),
        ("badge -o", "suite.yaml", "the suite recorded in the receipt the badge is made from"),
        ("diff --junit", "s1.json", "the receipt BEFORE"),
        ("diff --junit", "r.json", "the receipt AFTER"),
        ("diff --junit", "SKILL.md", "the SKILL.md recorded in the receipt BEFORE"),
    ],
)
def test_an_output_that_is_a_file_the_command_reads_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str], name: str, target: str, what: str
) -> None:
    for form in _forms(work, target):
        before = snapshot(work)
        line = refused(capsys, *argv(name, form))
        assert line.startswith(f"{FLAG[name]}: {Path(form)} is {what}; "), line  # ./x shown as x
        assert snapshot(work) == before


def test_run_refuses_every_file_it_reads_as_output(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "script.yaml").write_text(yaml.safe_dump({"cases": {}}), encoding="utf-8")
    (work / "prices.json").write_text("{}", encoding="utf-8")
    stub = ["run", "suite.yaml", "--provider", "stub"]
    for extra, out, what in [
        (["--script", "script.yaml"], "script.yaml", "the stub script (--script)"),
        (["--price-table", "prices.json"], "./prices.json", "the price table (--price-table)"),
        (["--reference", "r.json"], "r.json", "the reference receipt (--reference)"),
    ]:
        before = snapshot(work)
        line = refused(capsys, *stub, *extra, "-o", out)
        assert line.startswith(f"-o: {Path(out)} is {what}; write the receipt elsewhere"), line
        assert snapshot(work) == before


def test_the_answers_archive_beside_the_receipt_may_not_be_an_input(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``run -o k.json --keep-transcripts`` writes ``k.answers.jsonl``: here the SKILL.md the run reads."""
    (work / "k.answers.jsonl").write_text("Be brief.\n", encoding="utf-8")
    before = snapshot(work)
    line = refused(
        capsys, "run", "suite.yaml", "--provider", "stub", "--skill", "k.answers.jsonl", "-o", "k.json",
        "--keep-transcripts",
    )  # fmt: skip
    assert line == (
        "--keep-transcripts: k.answers.jsonl is the SKILL.md this run reads; pick another -o (the answers archive "
        "goes beside the receipt, as NAME.answers.jsonl)"
    )
    assert snapshot(work) == before


def test_regrade_and_merge_keep_the_answers_archives_they_rely_on(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # regrade -o r.jsonl would write its own archive at r.answers.jsonl: the one it reads
    before = snapshot(work)
    line = refused(capsys, *argv("regrade -o", "r.jsonl"))
    assert line.startswith("-o: r.answers.jsonl is the answers archive given by --answers; pick another -o"), line
    # a shard run with --keep-transcripts: its archive is the only copy of its answers
    assert (
        main(["run", "suite.yaml", "--provider", "stub", "--shard", "1/2", "-o", "k1.json", "--keep-transcripts"]) == 0
    )
    before = snapshot(work)
    line = refused(capsys, "merge", "k1.json", "s2.json", "-o", "k1.answers.jsonl")
    assert line == (
        "-o: k1.answers.jsonl is the answers archive of shard receipt k1.json; write the merged receipt elsewhere"
    )
    assert snapshot(work) == before


def test_import_refuses_one_of_its_files_as_output(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = work / "changelog-full.json"
    full.write_bytes((CALIPER / "changelog-full.json").read_bytes())
    full.chmod(0o444)
    before = snapshot(work)
    line = refused(
        capsys, "import", "caliper", "changelog-full.json", str(CALIPER / "changelog-ablated-skill.json"), "-o",
        str(full),
    )  # fmt: skip
    assert line == f"-o: {full} is one of the files imported; write the receipt elsewhere"
    assert snapshot(work) == before


def test_regrade_with_a_revised_suite_refuses_it_as_output(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    revised = work / "revised.yaml"
    revised.write_text(yaml.safe_dump({**SUITE, "cases": [{**SUITE["cases"][0], "rubric": "better"}]}))  # type: ignore[dict-item]
    before = snapshot(work)
    line = refused(
        capsys, "regrade", "r.json", "--answers", "r.answers.jsonl", "--suite", "revised.yaml", "-o", "revised.yaml"
    )
    assert line == "-o: revised.yaml is the revised suite (--suite); write the regrade's receipt elsewhere"
    assert snapshot(work) == before


def test_two_outputs_of_one_command_may_not_be_one_file(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, "run", "suite.yaml", "--provider", "stub", "-o", "same.json", "--junit", "./same.json")
    assert line == "--junit: same.json is also where the receipt goes (-o); write the JUnit report elsewhere"
    assert not (work / "same.json").exists()


@pytest.mark.parametrize("name", list(WRITERS))
def test_an_output_directory_is_refused_up_front(work: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    """``regrade -o DIR`` was refused only after every judge call (probe-provenance defect 6)."""
    (work / "adir").mkdir()
    before = snapshot(work)
    line = refused(capsys, *argv(name, "adir"))
    assert line.startswith(f"{FLAG[name]}: adir is a directory; name a file such as adir/"), line
    assert snapshot(work) == before


@pytest.mark.parametrize("name", ["run --junit", "diff --junit", "regrade -o", "badge -o"])
def test_an_output_in_a_directory_that_cannot_be_written_is_refused_up_front(
    work: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """``--junit`` in a read-only directory was found out after the whole run (probe-core defect 3)."""
    with run_refusals.read_only_dir(work) as ro:
        target = ro / "out.file"
        line = refused(capsys, *argv(name, str(target)))
    assert line.startswith(f"{FLAG[name]}: {target}: cannot write in {ro} ("), line
    assert not (work / "new.json").exists()  # run --junit: no receipt either


def test_missing_parent_directories_are_created_for_every_output(work: Path) -> None:
    """One rule for -o and --junit: the directories that do not exist yet are made when the file is written."""
    code = main(["run", "suite.yaml", "--provider", "stub", "-o", "a/b/r.json", "--junit", "c/d/junit.xml"])
    assert code == 0
    assert (work / "a/b/r.json").is_file() and (work / "c/d/junit.xml").is_file()
    assert main(["diff", "s1.json", "r.json", "--junit", "e/f/junit.xml"]) == 0
    assert (work / "e/f/junit.xml").is_file()


def test_an_output_under_a_file_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, "run", "suite.yaml", "--provider", "stub", "-o", "r.json", "--junit", "SKILL.md/j.xml")
    assert line == "--junit: SKILL.md/j.xml: SKILL.md is a file, not a directory, so the JUnit report cannot go there"


def test_the_atomic_writer_never_renames_over_a_special_file(tmp_path: Path) -> None:
    """The last guard: a path that became a FIFO after the check is not replaced when the file is written."""
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OutputError) as caught:
        write_bytes(tmp_path / "pipe", b"{}")
    assert str(caught.value) == (
        f"{tmp_path / 'pipe'}: is a FIFO (a named pipe), not a regular file, so it was not written over; "
        "nothing was written there"
    )
    assert stat.S_ISFIFO((tmp_path / "pipe").lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temp file left


@pytest.mark.parametrize(
    ("argv", "flag", "kind"),
    [
        (["run", "s/suite.yaml", "--provider", "stub", "-o", "NOTES"], "-o", "a Driftproof receipt"),
        (["run", "s/suite.yaml", "--provider", "stub", "--junit", "NOTES"], "--junit", "a JUnit XML report"),
        (["merge", "s/s1.json", "s/s2.json", "-o", "NOTES"], "-o", "a Driftproof receipt"),
        (["export", "s/r.json", "-o", "NOTES"], "-o", "a Driftproof summary"),
        (["badge", "s/r.json", "-o", "NOTES"], "-o", "a shields.io endpoint JSON"),
        (["diff", "s/r.json", "s/r.json", "--junit", "NOTES"], "--junit", "a JUnit XML report"),
    ],
)
def test_an_existing_file_of_another_kind_is_never_written_over(
    work: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    flag: str,
    kind: str,
) -> None:
    """From another directory the receipt's recorded paths (``suite.yaml``, ``SKILL.md``, read from the working
    directory) name other files, so a suite or skill given as ``-o`` was not recognised as the run's and was
    replaced: every output now replaces only a file of the kind it writes (or an empty one), as the Action's do."""
    parent = work.parent / f"{work.name}-up"
    parent.mkdir()
    (parent / "s").symlink_to(work)
    (work / "NOTES.md").write_text("# Notes\nKeep me.\n", encoding="utf-8")
    monkeypatch.chdir(parent)
    targets = ["s/NOTES.md"] if argv[0] == "run" else ["s/suite.yaml", "s/SKILL.md", "s/NOTES.md"]  # run reads both
    for target in targets:
        before = (parent / target).read_bytes()
        said = refused(capsys, *[target if a == "NOTES" else a for a in argv])
        assert said.startswith(f"{flag}: {target} exists and is not {kind}"), said
        assert (parent / target).read_bytes() == before


def test_a_file_of_the_kind_or_an_empty_one_is_written_over(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A receipt over an older receipt (the run again), over an empty file; a badge over a badge."""
    before = (work / "r.json").read_bytes()
    assert main(["run", "suite.yaml", "--provider", "stub", "--draws", "2", "--max-draws", "2", "-o", "r.json"]) == 0
    assert (work / "r.json").read_bytes() != before
    (work / "empty.json").write_bytes(b"")
    assert (
        main(["run", "suite.yaml", "--provider", "stub", "--draws", "2", "--max-draws", "2", "-o", "empty.json"]) == 0
    )
    assert main(["badge", "r.json", "-o", "b.json"]) == 0
    assert main(["badge", "r.json", "-o", "b.json"]) == 0
    assert main(["export", "r.json", "-o", "x.json"]) == 0
    assert main(["export", "r.json", "-o", "x.json"]) == 0


def test_an_output_through_a_symlink_writes_its_target_and_keeps_the_link(work: Path) -> None:
    """``-o link`` wrote a regular file over the link (the rename replaced the link itself) and left its target
    holding the old receipt; a dangling link became a file. Now the file the link names is written, its folder
    made if missing, and the link stays a link."""
    fast = ["--provider", "stub", "--draws", "2", "--max-draws", "2", "--judge-samples", "1"]
    (work / "link.json").symlink_to("r.json")
    before = (work / "r.json").read_bytes()
    assert main(["run", "suite.yaml", *fast, "-o", "link.json"]) == 0
    assert (work / "link.json").is_symlink() and (work / "r.json").read_bytes() != before
    (work / "dangling.json").symlink_to(work / "later" / "new.json")
    assert main(["badge", "r.json", "-o", "dangling.json"]) == 0
    assert (work / "dangling.json").is_symlink()
    assert b'"schemaVersion": 1' in (work / "later" / "new.json").read_bytes()
