"""What the Action leaves in the checkout goes to the checkout's owner.

The container runs as root over a checkout that belongs to the runner's user, so every file and folder it writes
(the receipt, report and badge, the JUnit report, a run's journal, the folders made for them; a file it rewrites
is a new inode too) would be root's: a later step, as the runner's user, could read it but not change or delete
it, nor add a file beside it. `hand_over` gives each of them to the workspace's owner (its uid and gid), when the
Action runs as root and the workspace is not root's. It looks only where the Action writes: under the top folder
of each output path (``.driftproof`` for ``.driftproof/receipt.json``) and, for an output at the top of the
checkout, the top's own files; and in the checkout's ``.git`` folder, where the Action's own git calls (its fetch
of the default branch or of a push's ``before``) leave ``FETCH_HEAD``, object folders, refs and the index, which a
later ``git fetch``, ``git pull --rebase`` or ``git add`` as the runner's user must rewrite or add to. Only what
root owns there is handed over.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

__all__ = ["hand_over"]


def _root_owned(path: Path) -> bool:
    try:
        return path.lstat().st_uid == 0
    except OSError:
        return False


def _under(workspace: Path, outputs: Iterable[str]) -> Iterator[Path]:
    """Where the Action may have written: each output's top folder, walked, or the checkout's top-level files; then
    the checkout's ``.git`` folder, walked (its own git calls write there)."""
    tops: set[str] = set()
    for output in outputs:
        parts = PurePosixPath(output).parts
        if not parts or parts[0] in ("..", ".git") or PurePosixPath(output).is_absolute():
            continue
        tops.add("." if len(parts) == 1 or "{" in parts[0] else parts[0])
    for top in sorted(tops):
        if top == ".":
            yield from (p for p in workspace.iterdir() if p.name != ".git" and not p.is_dir())
            continue
        folder = workspace / top
        if not folder.is_dir() or folder.is_symlink():
            continue
        yield folder
        for here, dirs, files in os.walk(folder):  # symbolic links are not followed
            dirs[:] = [d for d in dirs if d != ".git"]
            yield from (Path(here) / name for name in (*dirs, *files))
    git = workspace / ".git"
    if git.is_dir() and not git.is_symlink():  # a worktree's or submodule's ``.git`` file points elsewhere: left
        yield git
        for here, dirs, files in os.walk(git):
            yield from (Path(here) / name for name in (*dirs, *files))


def hand_over(workspace: Path, outputs: Iterable[str]) -> int:
    """Give what root owns where the Action writes (``outputs``: paths relative to ``workspace``, ``{skill}`` for a
    set's patterns; and the checkout's ``.git``) to the workspace's owner; returns how many paths changed owner.
    Only as root, over a workspace root does not own; never raises (a path that cannot be changed is left as it is)."""
    try:
        if os.geteuid() != 0:
            return 0
        owner = workspace.stat()
    except (AttributeError, OSError):  # no geteuid (not POSIX), or no workspace
        return 0
    if owner.st_uid == 0:
        return 0
    changed = 0
    for path in _under(workspace, outputs):
        if _root_owned(path):
            try:
                os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
            except OSError:
                continue
            changed += 1
    return changed
