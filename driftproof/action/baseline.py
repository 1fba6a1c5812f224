"""The baseline read: a file on ``origin/<default branch>``, through git or the contents API.

The stored receipt lives on the default branch. git answers first (``fetch`` the branch, then
``show``); the REST client is the fallback when git cannot.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, NamedTuple

from driftproof.errors import GitHubError

if TYPE_CHECKING:
    from driftproof.action.github import GitHubClient

__all__ = ["BranchFile", "RunGit", "ensure_safe_directory", "locate_default_branch_file", "read_default_branch_file"]

RunGit = Callable[..., subprocess.CompletedProcess[bytes]]
"""``subprocess.run``-compatible callable; tests may pass a fake."""


class _GitRead(NamedTuple):
    content: bytes | None
    absent: bool
    reason: str


class BranchFile(NamedTuple):
    """A file read from the default branch, and how: what a first run's notice says it looked for."""

    content: bytes | None
    """The file's bytes; ``None`` when it is not there."""
    git_failure: str | None = None
    """Why git could not answer, when the contents API did; ``None`` when git did."""
    endpoint: str | None = None
    """The contents API call that answered (``GET /repos/o/r/contents/p?ref=main``), when git could not."""


def read_default_branch_file(
    workspace: Path,
    default_branch: str,
    path: str,
    *,
    client: GitHubClient | None,
    run_git: RunGit = subprocess.run,
) -> bytes | None:
    """The file at ``path`` on ``origin/<default_branch>``; ``None`` when it is not there
    (`locate_default_branch_file`'s content)."""
    return locate_default_branch_file(workspace, default_branch, path, client=client, run_git=run_git).content


def locate_default_branch_file(
    workspace: Path,
    default_branch: str,
    path: str,
    *,
    client: GitHubClient | None,
    run_git: RunGit = subprocess.run,
) -> BranchFile:
    """The file at ``path`` on ``origin/<default_branch>``, and how it was read.

    git first (``fetch`` the branch, then ``show``), the contents API when git cannot
    answer. No content means "first run, no receipt stored yet", never "something failed".
    """
    if not default_branch or default_branch.startswith("-") or ".." in default_branch:
        raise GitHubError(f"default branch name {default_branch!r} is not a usable branch name")
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
        raise GitHubError(f"{path!r} must be a path relative to the repository root")
    found = _git_read(workspace, default_branch, path, run_git)
    if found.content is not None or found.absent:
        return BranchFile(found.content)
    if client is None:
        raise GitHubError(
            f"cannot read {path} from origin/{default_branch}: {found.reason}; "
            "and there is no GitHub API client to fall back on (set github-token)"
        )
    endpoint = f"GET {client.file_endpoint(path)}?ref={default_branch}"
    return BranchFile(client.fetch_file(path, default_branch), found.reason, endpoint)


def _git_read(workspace: Path, branch: str, path: str, run_git: RunGit) -> _GitRead:
    """Fetch ``branch`` into ``refs/remotes/origin/`` and show ``path``; never raises."""
    remote_ref = f"refs/remotes/origin/{branch}"
    shallow = _git(workspace, run_git, "rev-parse", "--is-shallow-repository")
    depth = ["--depth=1"] if shallow is not None and shallow.stdout.strip() == b"true" else []
    fetched = _git(workspace, run_git, "fetch", "--no-tags", *depth, "origin", f"+refs/heads/{branch}:{remote_ref}")
    if fetched is None or fetched.returncode != 0:
        return _GitRead(None, False, f"git fetch failed: {_stderr(fetched)}")
    shown = _git(workspace, run_git, "show", f"{remote_ref}:{path}")
    if shown is None:
        return _GitRead(None, False, "git show could not run")
    if shown.returncode == 0:
        return _GitRead(shown.stdout, False, "")
    err = _stderr(shown)
    absent = "does not exist" in err or "exists on disk, but not in" in err
    return _GitRead(None, absent, f"git show failed: {err}")


def _git(
    workspace: Path, run_git: RunGit, *args: str, timeout: float = 120.0
) -> subprocess.CompletedProcess[bytes] | None:
    """Run one git command in ``workspace``: no prompts, C locale; ``None`` if git cannot start."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    command = ["git", "-c", f"safe.directory={workspace}", *args]
    try:
        return run_git(command, cwd=workspace, capture_output=True, check=False, env=env, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None


def _stderr(result: subprocess.CompletedProcess[bytes] | None) -> str:
    """The last line git printed on stderr, which is where it says what went wrong."""
    if result is None:
        return "git is not available"
    lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {result.returncode}"


def ensure_safe_directory(workspace: Path, *, run_git: RunGit = subprocess.run) -> bool:
    """Mark the mounted workspace safe in the global git config (the container runs as root
    over a checkout owned by the runner's user). Idempotent; ``False`` if git cannot run."""
    listed = _git(workspace, run_git, "config", "--global", "--get-all", "safe.directory")
    if listed is None:
        return False
    if str(workspace) in listed.stdout.decode("utf-8", "replace").splitlines():
        return True
    added = _git(workspace, run_git, "config", "--global", "--add", "safe.directory", str(workspace))
    return added is not None and added.returncode == 0
