"""read_default_branch_file: real git repositories under tmp_path, the API through MockTransport."""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from driftproof.action.baseline import ensure_safe_directory, read_default_branch_file
from driftproof.action.github import GitHubClient
from driftproof.errors import GitHubError

RECEIPT = ".driftproof/receipt.json"
API = "https://api.github.test"


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user or system git config leaks in; commits get a fixed identity."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key, value in {
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.test",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.test",
    }.items():
        monkeypatch.setenv(key, value)


def git(cwd: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=os.environ)
    return result.stdout


def commit_receipt(repo: Path, content: str) -> None:
    (repo / ".driftproof").mkdir(exist_ok=True)
    (repo / RECEIPT).write_text(content, encoding="utf-8")
    git(repo, "add", RECEIPT)
    git(repo, "commit", "-q", "-m", "store receipt")


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """The repository on 'GitHub': main holds a receipt."""
    repo = tmp_path / "upstream"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit_receipt(repo, '{"v": 1}\n')
    return repo


def clone(upstream: Path, target: Path, *, shallow: bool) -> Path:
    depth = ["--depth=1"] if shallow else []
    git(upstream.parent, "clone", "-q", *depth, f"file://{upstream}", str(target))
    git(target, "checkout", "-q", "-b", "pr-branch")
    return target


def no_api() -> GitHubClient:
    """A client whose every call fails the test: proves git answered alone."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"unexpected API call {request.method} {request.url}")

    return GitHubClient(httpx.Client(transport=httpx.MockTransport(handler)), API, "tok", "acme/skills")


def api_serving(content: bytes | None, seen: list[httpx.Request]) -> GitHubClient:
    """A contents API that answers with ``content`` (base64) or 404."""

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if content is None:
            return httpx.Response(404, json={"message": "Not Found"})
        encoded = base64.b64encode(content).decode()
        return httpx.Response(200, json={"type": "file", "encoding": "base64", "content": encoded})

    return GitHubClient(httpx.Client(transport=httpx.MockTransport(handler)), API, "tok", "acme/skills")


@pytest.mark.parametrize("shallow", [True, False])
def test_git_reads_the_latest_receipt_on_the_default_branch(upstream: Path, tmp_path: Path, shallow: bool) -> None:
    work = clone(upstream, tmp_path / "work", shallow=shallow)
    commit_receipt(upstream, '{"v": 2}\n')  # main moved after the checkout: only a fetch sees it
    (work / ".driftproof").mkdir(exist_ok=True)
    (work / RECEIPT).write_text('{"v": "pr"}\n', encoding="utf-8")  # the PR's own copy is not read

    content = read_default_branch_file(work, "main", RECEIPT, client=no_api())

    assert content == b'{"v": 2}\n'
    assert (work / ".git" / "shallow").exists() is shallow  # a full clone is never made shallow


def test_missing_receipt_on_default_branch_is_none_without_asking_the_api(upstream: Path, tmp_path: Path) -> None:
    work = clone(upstream, tmp_path / "work", shallow=True)

    assert read_default_branch_file(work, "main", "never/stored.json", client=no_api()) is None


def test_branch_missing_from_origin_falls_back_to_the_api(upstream: Path, tmp_path: Path) -> None:
    work = clone(upstream, tmp_path / "work", shallow=True)
    seen: list[httpx.Request] = []

    content = read_default_branch_file(work, "trunk", RECEIPT, client=api_serving(b'{"v": "api"}', seen))

    assert content == b'{"v": "api"}'
    assert seen[0].url.path == f"/repos/acme/skills/contents/{RECEIPT}"
    assert seen[0].url.params["ref"] == "trunk"


def test_no_origin_remote_falls_back_to_the_api_and_a_404_is_none(tmp_path: Path) -> None:
    lone = tmp_path / "lone"
    lone.mkdir()
    git(lone, "init", "-q", "-b", "main")
    seen: list[httpx.Request] = []

    assert read_default_branch_file(lone, "main", RECEIPT, client=api_serving(None, seen)) is None
    assert len(seen) == 1


def test_git_not_installed_falls_back_to_the_api(tmp_path: Path) -> None:
    def no_git(*args: Any, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        raise FileNotFoundError("git")

    seen: list[httpx.Request] = []
    client = api_serving(b"{}", seen)

    assert read_default_branch_file(tmp_path, "main", RECEIPT, client=client, run_git=no_git) == b"{}"


def test_git_failure_without_a_client_is_an_error_not_a_first_run(tmp_path: Path) -> None:
    with pytest.raises(GitHubError, match=r"cannot read \.driftproof/receipt\.json from origin/main: git fetch failed"):
        read_default_branch_file(tmp_path, "main", RECEIPT, client=None)


@pytest.mark.parametrize(
    ("branch", "path"), [("--upload-pack=evil", RECEIPT), ("main", "../x"), ("main", "/etc/passwd")]
)
def test_option_like_branch_and_escaping_path_are_refused(tmp_path: Path, branch: str, path: str) -> None:
    with pytest.raises(GitHubError):
        read_default_branch_file(tmp_path, branch, path, client=no_api())


def test_ensure_safe_directory_adds_the_workspace_once(tmp_path: Path) -> None:
    assert ensure_safe_directory(tmp_path) is True
    assert ensure_safe_directory(tmp_path) is True

    listed = git(tmp_path, "config", "--global", "--get-all", "safe.directory").splitlines()
    assert listed == [str(tmp_path)]
