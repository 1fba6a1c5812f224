"""Seed 000, "Which answer is graded": the ``files`` capture read back from a real directory.

Every reason a file can be left out has a test; permission and mid-read changes are forced through
the module's two I/O seams (``_read_bytes`` and ``_list_dir``) so they also hold when run as root,
which can read anything.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

import driftproof.lanes.capture as capture_module
from driftproof.lanes.capture import (
    CapturedFile,
    DirectoryCapture,
    DrawAssessment,
    assess_draw,
    capture_files,
    graded_answer,
)
from driftproof.lanes.reply_rules import REASON_NO_ANSWER, REASON_ONLY_DESCRIBES_WORK, REASON_POINTS_AT_UNSEEN_FILE

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def by_path(capture: DirectoryCapture) -> dict[str, CapturedFile]:
    return {item.path: item for item in capture.files}


# --- what is read --------------------------------------------------------------------------


def test_text_files_are_read_in_sorted_posix_order(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("bee\n", encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "z.py").write_text("print('z')\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("ay", encoding="utf-8")
    (tmp_path / "empty.txt").write_bytes(b"")

    captured = capture_files(tmp_path)

    # "." (0x2e) sorts before "/" (0x2f), so a.txt comes before a/z.py.
    assert [item.path for item in captured.files] == ["a.txt", "a/z.py", "b.md", "empty.txt"]
    assert all(item.included and item.reason is None for item in captured.files)
    assert captured.texts == {"a.txt": "ay", "a/z.py": "print('z')\n", "b.md": "bee\n", "empty.txt": ""}
    assert by_path(captured)["a/z.py"].size == len("print('z')\n")
    assert captured.directory_error is None
    assert capture_files(tmp_path) == captured  # deterministic


def test_to_json_is_the_receipt_form() -> None:
    shown = CapturedFile("notes/summary.md", 12, True, None)
    skipped = CapturedFile("chart.png", 99, False, "binary")
    assert shown.to_json() == {"path": "notes/summary.md", "size": 12, "included": True, "reason": None}
    assert skipped.to_json() == {"path": "chart.png", "size": 99, "included": False, "reason": "binary"}


# --- every reason a file is named but not shown ----------------------------------------------


def test_past_the_50_file_cap(tmp_path: Path) -> None:
    for index in range(51):
        (tmp_path / f"f{index:02d}.txt").write_text(f"{index}\n", encoding="utf-8")

    captured = capture_files(tmp_path)

    assert len(captured.files) == 51
    assert all(item.included for item in captured.files[:50])
    last = captured.files[50]
    assert last == CapturedFile("f50.txt", 3, False, "past the 50-file cap")
    assert len(captured.texts) == 50 and "f50.txt" not in captured.texts


def test_a_file_over_65536_bytes_is_named_as_truncated_with_its_size_and_the_cap(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"a" * 70_000)
    (tmp_path / "edge.txt").write_bytes(b"b" * 65_536)  # exactly the cap is still read

    files = by_path(capture_files(tmp_path))

    assert files["big.txt"] == CapturedFile("big.txt", 70_000, False, "truncated: 70000 bytes, cap 65536")
    assert files["edge.txt"].included


def test_past_the_total_cap_and_a_later_small_file_still_fits(tmp_path: Path) -> None:
    # 4 x 60,000 = 240,000 <= 262,144; a fifth 60,000 would make 300,000 > 262,144;
    # "f.txt" (100 bytes) still fits: 240,100 <= 262,144.
    for name in "abcde":
        (tmp_path / f"{name}.txt").write_bytes(name.encode() * 60_000)
    (tmp_path / "f.txt").write_bytes(b"f" * 100)

    files = by_path(capture_files(tmp_path))

    assert [files[f"{n}.txt"].included for n in "abcdef"] == [True, True, True, True, False, True]
    assert files["e.txt"] == CapturedFile("e.txt", 60_000, False, "past the total cap")


def test_binary_means_a_nul_byte(tmp_path: Path) -> None:
    (tmp_path / "data.bin").write_bytes(b"abc\x00def")
    assert by_path(capture_files(tmp_path))["data.bin"] == CapturedFile("data.bin", 7, False, "binary")


def test_not_valid_utf8(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes("caf\u00e9".encode("latin-1"))
    item = by_path(capture_files(tmp_path))["latin1.txt"]
    assert item == CapturedFile("latin1.txt", 4, False, "not valid UTF-8")


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (PermissionError(errno.EACCES, "Permission denied"), "unreadable: permission denied"),
        (OSError(errno.EIO, "Input/output error"), "unreadable: read error"),
    ],
)
def test_unreadable_file_through_the_read_seam(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, reason: str
) -> None:
    (tmp_path / "secret.txt").write_text("hidden", encoding="utf-8")
    (tmp_path / "open.txt").write_text("visible", encoding="utf-8")
    real_read = capture_module._read_bytes

    def read(path: Path, limit: int) -> bytes:
        if path.name == "secret.txt":
            raise error
        return real_read(path, limit)

    monkeypatch.setattr(capture_module, "_read_bytes", read)
    captured = capture_files(tmp_path)

    assert by_path(captured)["secret.txt"] == CapturedFile("secret.txt", 6, False, reason)
    assert captured.texts == {"open.txt": "visible"}


@pytest.mark.skipif(IS_ROOT or sys.platform == "win32", reason="root reads a chmod 000 file anyway")
def test_unreadable_file_for_real(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden", encoding="utf-8")
    secret.chmod(0)
    try:
        assert by_path(capture_files(tmp_path))["secret.txt"].reason == "unreadable: permission denied"
    finally:
        secret.chmod(0o600)


def test_changed_while_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    moving = tmp_path / "moving.txt"
    moving.write_text("first", encoding="utf-8")
    real_read = capture_module._read_bytes

    def read_while_the_agent_writes(path: Path, limit: int) -> bytes:
        data = real_read(path, limit)
        with path.open("ab") as handle:
            handle.write(b" and more")
        return data

    monkeypatch.setattr(capture_module, "_read_bytes", read_while_the_agent_writes)
    captured = capture_files(tmp_path)

    assert by_path(captured)["moving.txt"] == CapturedFile("moving.txt", 14, False, "changed while read")
    assert captured.texts == {}


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_symlinks_are_named_and_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside the draw", encoding="utf-8")
    draw = tmp_path / "draw"
    draw.mkdir()
    (draw / "link.txt").symlink_to(outside / "secret.txt")
    (draw / "linkdir").symlink_to(outside, target_is_directory=True)

    captured = capture_files(draw)

    assert [(f.path, f.included, f.reason) for f in captured.files] == [
        ("link.txt", False, "symlink, not followed"),
        ("linkdir", False, "symlink, not followed"),
    ]
    assert captured.texts == {}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_fifo_is_named_and_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    item = by_path(capture_files(tmp_path))["pipe"]
    assert (item.included, item.reason) == (False, "unreadable: not a regular file")


# --- directories -------------------------------------------------------------------------


def test_an_unreadable_subdirectory_is_named_with_its_reason(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "inner.txt").write_text("x", encoding="utf-8")
    (tmp_path / "answer.md").write_text("42\n", encoding="utf-8")
    real_list = capture_module._list_dir

    def list_dir(path: Path) -> list[os.DirEntry[str]]:
        if path.name == "locked":
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_list(path)

    monkeypatch.setattr(capture_module, "_list_dir", list_dir)
    captured = capture_files(tmp_path)

    assert captured.directory_error is None
    assert captured.files == (
        CapturedFile("answer.md", 3, True, None),
        CapturedFile("locked/", 0, False, "unreadable: permission denied"),
    )
    assert "locked/ (directory): not shown, unreadable: permission denied" in graded_answer("", captured)


@pytest.mark.skipif(IS_ROOT or sys.platform == "win32", reason="root lists a chmod 000 directory anyway")
def test_an_unreadable_subdirectory_for_real(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        assert by_path(capture_files(tmp_path))["locked/"].reason == "unreadable: permission denied"
    finally:
        locked.chmod(0o700)


def test_an_unreadable_root_sets_directory_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def list_dir(path: Path) -> list[os.DirEntry[str]]:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(capture_module, "_list_dir", list_dir)
    assert capture_files(tmp_path) == DirectoryCapture((), {}, "unreadable: permission denied")


def test_a_missing_root_sets_directory_error(tmp_path: Path) -> None:
    assert capture_files(tmp_path / "gone").directory_error == "unreadable: read error"


# --- what the grader sees ----------------------------------------------------------------


def test_graded_answer_names_every_file_and_delimits_each_text(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "summary.md").write_text("Discounts round twice.", encoding="utf-8")
    (tmp_path / "chart.png").write_bytes(b"\x89PNG\x00")

    answer = graded_answer("See notes/summary.md.", capture_files(tmp_path))

    assert answer == (
        "See notes/summary.md.\n"
        "\n"
        "----- files left in the working directory: 2 -----\n"
        "chart.png (5 bytes): not shown, binary\n"
        "notes/summary.md (22 bytes)\n"
        "\n"
        "----- file: notes/summary.md (22 bytes) -----\n"
        "Discounts round twice.\n"
        "----- end of file: notes/summary.md -----"
    )


def test_graded_answer_with_no_files() -> None:
    assert graded_answer("Use an index.", DirectoryCapture()) == (
        "Use an index.\n\n----- files left in the working directory: 0 -----\n(none)"
    )


# --- assess_draw: every branch -----------------------------------------------------------


def test_text_mode_grades_the_reply_itself() -> None:
    assert assess_draw("Use an index.", None) == DrawAssessment("Use an index.", False, None, ())


def test_text_mode_still_applies_the_reply_check() -> None:
    assessed = assess_draw("I saved it to notes/summary.md.", None)
    assert assessed == DrawAssessment(None, True, f"{REASON_POINTS_AT_UNSEEN_FILE}: notes/summary.md", ())
    assert assess_draw("I've updated the README.", None).reason == REASON_ONLY_DESCRIBES_WORK


def test_an_unreadable_directory_is_a_lost_draw() -> None:
    assessed = assess_draw("Here it is: 42.", DirectoryCapture(directory_error="unreadable: permission denied"))
    assert assessed.lost and assessed.answer is None
    assert assessed.reason == "working directory could not be read: unreadable: permission denied"


def test_an_empty_reply_is_graded_on_a_shown_file(tmp_path: Path) -> None:
    (tmp_path / "answer.md").write_text("42\n", encoding="utf-8")
    (tmp_path / "chart.png").write_bytes(b"\x00")
    captured = capture_files(tmp_path)

    assessed = assess_draw("", captured)

    assert not assessed.lost and assessed.reason is None
    assert assessed.answer == graded_answer("", captured)
    assert assessed.answer is not None and assessed.answer.startswith("----- files left")
    assert "----- file: answer.md (3 bytes) -----\n42\n----- end of file: answer.md -----" in assessed.answer
    assert assessed.captured_files == captured.files


def test_an_empty_reply_with_no_file_shown_is_lost_and_names_the_files(tmp_path: Path) -> None:
    (tmp_path / "x.bin").write_bytes(b"\x00\x01")
    (tmp_path / "big.txt").write_bytes(b"a" * 70_000)
    captured = capture_files(tmp_path)

    assessed = assess_draw("  \n", captured)

    assert assessed.lost and assessed.answer is None
    assert assessed.reason == (
        "no answer: reply empty and no file could be shown "
        + "(big.txt: truncated: 70000 bytes, cap 65536, x.bin: binary)"
    )
    assert [item.path for item in assessed.captured_files] == ["big.txt", "x.bin"]


def test_an_empty_reply_with_no_files_at_all_is_lost(tmp_path: Path) -> None:
    assert assess_draw("", capture_files(tmp_path)) == DrawAssessment(None, True, REASON_NO_ANSWER, ())


def test_a_reply_pointing_at_a_file_that_was_not_shown_is_lost(tmp_path: Path) -> None:
    (tmp_path / "report.md").write_bytes(b"r" * 70_000)
    captured = capture_files(tmp_path)

    assessed = assess_draw("**Created:** report.md", captured)

    reason = f"{REASON_POINTS_AT_UNSEEN_FILE}: report.md"
    assert assessed == DrawAssessment(None, True, reason, captured.files)


def test_a_reply_pointing_at_a_shown_file_is_graded_with_it(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "summary.md").write_text("Round once.\n", encoding="utf-8")
    captured = capture_files(tmp_path)

    assessed = assess_draw("I wrote the summary to `notes/summary.md`.", captured)

    assert not assessed.lost
    assert assessed.answer == graded_answer("I wrote the summary to `notes/summary.md`.", captured)
    assert "Round once." in assessed.answer


def test_a_work_report_with_a_shown_file_is_graded(tmp_path: Path) -> None:
    (tmp_path / "plan.md").write_text("1. Add an index.\n", encoding="utf-8")
    assessed = assess_draw("I've written the plan.", capture_files(tmp_path))
    assert not assessed.lost and assessed.answer is not None and "1. Add an index." in assessed.answer
