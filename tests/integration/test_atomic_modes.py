"""Atomic writes keep the permissions a plain ``open()`` would give (issue 8: the next workflow step reads them)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from driftproof.atomic import write_text


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_0644_under_umask_022(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "receipt.json"
    write_text(target, "{}\n")
    plain = tmp_path / "plain.json"
    plain.write_text("{}\n")  # what open() gives under the same umask: 0o666 & ~0o022 = 0o644
    assert mode(target) == mode(plain) == 0o644


def test_the_umask_is_honoured_not_assumed(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        write_text(tmp_path / "private.json", "x")
    finally:
        os.umask(old)
    assert mode(tmp_path / "private.json") == 0o600  # 0o666 & ~0o077


def test_an_existing_file_keeps_its_own_mode(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "badge.json"
    target.write_text("old")
    target.chmod(0o664)
    write_text(target, "new")
    assert target.read_text() == "new" and mode(target) == 0o664
