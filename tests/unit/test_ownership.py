"""`driftproof.action.ownership.hand_over`: only where the Action writes (and ``.git``, where its git calls
write), only what root owns."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from driftproof.action.ownership import hand_over

NOBODY = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")


@needs_root
def test_only_what_root_owns_where_the_action_writes_is_handed_over(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for folder in (".driftproof/pr", ".git/objects", "other"):
        (ws / folder).mkdir(parents=True)
    for name in (".driftproof/receipt.json", ".driftproof/pr/receipt.new.json", ".git/objects/x", "other/y", "top.md"):
        (ws / name).write_text("x", encoding="utf-8")
    os.chown(ws, NOBODY, NOBODY)
    os.chown(ws / ".driftproof" / "pr", 1234, 1234)  # another user's folder: left alone, what is in it is root's
    # .driftproof, its receipt, the pr folder's receipt (root's): 3; .git, .git/objects, .git/objects/x (the
    # Action's fetch writes there): 3; 3 + 3 = 6; not the pr folder, other/ or top.md
    assert hand_over(ws, [".driftproof/receipt.json", ".driftproof/badge.json"]) == 6
    owners = {p: os.lstat(ws / p).st_uid for p in (".driftproof", ".driftproof/receipt.json", ".driftproof/pr")}
    assert owners == {".driftproof": NOBODY, ".driftproof/receipt.json": NOBODY, ".driftproof/pr": 1234}
    assert [os.lstat(ws / p).st_uid for p in (".git", ".git/objects", ".git/objects/x")] == [NOBODY] * 3
    assert [os.lstat(ws / p).st_uid for p in ("other/y", "top.md")] == [0, 0]
    assert hand_over(ws, ["receipt.json"]) == 1  # an output at the top: the top's own files (top.md), no folder
    assert os.lstat(ws / "top.md").st_uid == NOBODY and os.lstat(ws / "other").st_uid == 0


@needs_root
def test_a_workspace_root_owns_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / ".driftproof").mkdir()
    assert hand_over(tmp_path, [".driftproof/receipt.json"]) == 0
