"""GitHub glue for the Action: the event, the REST client, the baseline read, workflow commands.

Nothing here decides anything about skills or receipts. It reads what GitHub hands the
container (event payload, environment files), talks to the REST API through one
``httpx.Client`` (so tests swap in ``httpx.MockTransport``), and writes what GitHub reads
back (stdout workflow commands, ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``).

Secrets: the runner masks logs and the job summary, never what the Action posts through
the API. Every outgoing comment body goes through :func:`redact`, and the token never
appears in a ``repr``, an error message or a URL.
"""

from __future__ import annotations

import base64
import json
import os
import secrets as _secrets
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal, NamedTuple, TextIO
from urllib.parse import quote

import httpx

from driftproof.errors import GitHubError

__all__ = [
    "COMMENT_LIMIT",
    "COMMENT_MARKER",
    "SECRET_ENV_NAMES",
    "SUMMARY_LIMIT_BYTES",
    "CommentResult",
    "Event",
    "GitHubClient",
    "GitHubError",
    "add_mask",
    "append_summary",
    "ensure_safe_directory",
    "error",
    "notice",
    "read_default_branch_file",
    "redact",
    "secret_values",
    "stop_commands",
    "truncate_comment",
    "warning",
    "write_outputs",
]

COMMENT_MARKER = "<!-- driftproof:comment -->"
"""Hidden first line of the sticky PR comment; the only way the Action finds it again."""

COMMENT_LIMIT = 65_536
"""GitHub refuses a comment body longer than this many characters (422 "Body is too long")."""

SUMMARY_LIMIT_BYTES = 1_048_576
"""GitHub drops a step's job summary larger than 1 MiB, so the Action stays under it."""

SECRET_ENV_NAMES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "GITHUB_TOKEN",
    "INPUT_GITHUB-TOKEN",
    "INPUT_GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)
"""Environment variables whose values are masked in logs and redacted from API writes."""

_API_VERSION = "2022-11-28"
_JSON_ACCEPT = "application/vnd.github+json"
_RAW_ACCEPT = "application/vnd.github.raw+json"
_MAX_PAGES = 100  # 100 pages of 100 comments: far past any real PR thread
_DEPENDABOT = "dependabot[bot]"

RunGit = Callable[..., subprocess.CompletedProcess[bytes]]
"""``subprocess.run``-compatible callable; tests may pass a fake."""


# ---------------------------------------------------------------------------------------------
# Event


def _dig(obj: object, *keys: str) -> object:
    """Walk nested JSON objects; ``None`` as soon as a key is missing or a level is not a dict."""
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _str_or_none(value: object) -> str | None:
    """A non-empty string, else ``None``."""
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True)
class Event:
    """What triggered this run, read from the environment and the webhook payload."""

    name: str
    """``GITHUB_EVENT_NAME``: ``pull_request``, ``push``, ``workflow_dispatch``, ..."""
    is_pull_request: bool
    """``pull_request`` or ``pull_request_target`` with a pull request in the payload."""
    pr_number: int | None
    """The pull request's number, for comments."""
    is_fork: bool
    """The PR's head lives in another repository, or it is a Dependabot PR, which GitHub
    treats as a fork PR: no secrets, read-only token."""
    default_branch: str | None
    """``repository.default_branch`` from the payload, where the stored receipt lives."""
    repository: str | None
    """``owner/name`` of the base repository."""
    head_sha: str | None
    """The commit under test: the PR head, or ``GITHUB_SHA``."""
    base_ref: str | None
    """The branch a PR targets; ``None`` outside PRs."""
    ref: str | None = None
    """``GITHUB_REF`` (``refs/heads/main``, ``refs/pull/7/merge``, ...)."""

    @property
    def is_default_branch_push(self) -> bool:
        """A push to the default branch: the run that stores the receipt."""
        return (
            self.name == "push" and self.default_branch is not None and self.ref == f"refs/heads/{self.default_branch}"
        )

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Event:
        """Read ``GITHUB_EVENT_NAME``, ``GITHUB_EVENT_PATH`` (JSON payload) and ``GITHUB_REPOSITORY``."""
        name = environ.get("GITHUB_EVENT_NAME", "")
        payload = _load_payload(environ.get("GITHUB_EVENT_PATH", ""))
        pr = _dig(payload, "pull_request")
        is_pr = name in ("pull_request", "pull_request_target") and isinstance(pr, dict)
        number = _dig(pr, "number") if is_pr else None
        return cls(
            name=name,
            is_pull_request=is_pr,
            pr_number=number if isinstance(number, int) and not isinstance(number, bool) else None,
            is_fork=is_pr and _is_fork(pr),
            default_branch=_str_or_none(_dig(payload, "repository", "default_branch")),
            repository=_str_or_none(environ.get("GITHUB_REPOSITORY"))
            or _str_or_none(_dig(payload, "repository", "full_name")),
            head_sha=(_str_or_none(_dig(pr, "head", "sha")) if is_pr else None)
            or _str_or_none(environ.get("GITHUB_SHA")),
            base_ref=(_str_or_none(_dig(pr, "base", "ref")) if is_pr else None)
            or _str_or_none(environ.get("GITHUB_BASE_REF")),
            ref=_str_or_none(environ.get("GITHUB_REF")) or _str_or_none(_dig(payload, "ref")),
        )


def _load_payload(path: str) -> object:
    """The webhook payload at ``GITHUB_EVENT_PATH``; ``{}`` outside Actions."""
    if not path:
        return {}
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GitHubError(
            f"cannot read the event payload at GITHUB_EVENT_PATH={path}: {exc}; "
            "run the Action from a workflow, or unset GITHUB_EVENT_PATH for a local run"
        ) from None


def _is_fork(pr: object) -> bool:
    """Head repository differs from the base one (or is gone), or the author is Dependabot.

    ``head.repo.fork`` alone is not enough: it is also true for a branch-to-branch PR
    inside a repository that is itself a fork, so it only decides when names are missing.
    """
    if _dig(pr, "user", "login") == _DEPENDABOT:
        return True
    head = _dig(pr, "head", "repo")
    if head is None:
        return True  # the fork was deleted: treat as untrusted
    head_name = _str_or_none(_dig(head, "full_name"))
    base_name = _str_or_none(_dig(pr, "base", "repo", "full_name"))
    if head_name and base_name:
        return head_name.lower() != base_name.lower()
    return _dig(head, "fork") is True


# ---------------------------------------------------------------------------------------------
# REST client


@dataclass(frozen=True)
class CommentResult:
    """What :meth:`GitHubClient.upsert_comment` did."""

    action: Literal["created", "updated"]
    id: int
    url: str


class _Comment(NamedTuple):
    id: int
    login: str
    is_bot: bool


class GitHubClient:
    """The REST calls the Action makes, through one caller-owned ``httpx.Client``.

    The token is sent only as an ``Authorization`` header to ``api_url``; it is kept out of
    ``repr``, error messages and anything posted. ``login``, when known, narrows the sticky
    comment to the token's own comments (``GET /user`` is refused to the Actions token).
    """

    def __init__(
        self,
        http: httpx.Client,
        api_url: str,
        token: str,
        repository: str,
        *,
        login: str | None = None,
        redact_values: Iterable[str] = (),
    ) -> None:
        owner, _, name = repository.partition("/")
        if not owner or not name or "/" in name:
            raise GitHubError(f"repository must be 'owner/name', got {repository!r}")
        self._http = http
        self.api_url = api_url.rstrip("/")
        self._token = token
        self.repository = repository
        self.login = login
        self._secrets = (token, *redact_values)

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self.api_url!r}, repository={self.repository!r})"

    def upsert_comment(self, pr_number: int, body: str, marker: str = COMMENT_MARKER) -> CommentResult:
        """Update the PR's marked comment in place, or create it; the body is redacted and capped."""
        text = truncate_comment(redact(_with_marker(body, marker), self._secrets))
        existing = self._find_comment(pr_number, marker)
        if existing is None:
            path = f"/repos/{self.repository}/issues/{pr_number}/comments"
            response = self._request("POST", path, json_body={"body": text})
            action: Literal["created", "updated"] = "created"
        else:
            path = f"/repos/{self.repository}/issues/comments/{existing.id}"
            response = self._request("PATCH", path, json_body={"body": text})
            action = "updated"
        data = self._json(response, "POST" if existing is None else "PATCH", path)
        comment_id, url = _dig(data, "id"), _dig(data, "html_url")
        if not isinstance(comment_id, int) or not isinstance(url, str):
            raise GitHubError(f"GitHub API {path} answered without a comment id and html_url")
        return CommentResult(action=action, id=comment_id, url=url)

    def fetch_file(self, path: str, ref: str) -> bytes | None:
        """A file's bytes at ``ref`` through the contents API; ``None`` when GitHub says 404."""
        endpoint = f"/repos/{self.repository}/contents/{quote(path.lstrip('/'), safe='/')}"
        response = self._request("GET", endpoint, params={"ref": ref}, allow_404=True)
        if response.status_code == 404:
            return None
        data = self._json(response, "GET", endpoint)
        kind = _dig(data, "type")
        if kind != "file":
            found = "a directory" if isinstance(data, list) else f"type {kind!r}"
            raise GitHubError(f"{path} on {ref} is {found}, expected a file")
        content, encoding = _dig(data, "content"), _dig(data, "encoding")
        if encoding == "base64" and isinstance(content, str) and (content or _dig(data, "size") == 0):
            return base64.b64decode(content)
        # Over 1 MB the JSON form carries no content ("encoding": "none"): ask for raw bytes.
        raw = self._request("GET", endpoint, params={"ref": ref}, accept=_RAW_ACCEPT, allow_404=True)
        return None if raw.status_code == 404 else raw.content

    def _find_comment(self, pr_number: int, marker: str) -> _Comment | None:
        """The newest comment carrying ``marker``, preferring the token's own (or a bot's)."""
        marked: list[_Comment] = []
        url: str | None = f"{self.api_url}/repos/{self.repository}/issues/{pr_number}/comments"
        params: dict[str, str] | None = {"per_page": "100"}
        for _ in range(_MAX_PAGES):
            if url is None:
                break
            response = self._request("GET", url, params=params)
            page = self._json(response, "GET", httpx.URL(url).path)
            if not isinstance(page, list):
                raise GitHubError(f"GitHub API GET {httpx.URL(url).path} did not answer with a list")
            marked.extend(_marked_comment(item, marker) for item in page if _has_marker(item, marker))
            url, params = response.links.get("next", {}).get("url"), None
        if self.login is not None:
            own = [c for c in marked if c.login.lower() == self.login.lower()]
        else:
            own = [c for c in marked if c.is_bot] or marked
        return max(own, key=lambda c: c.id, default=None)

    def _request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        json_body: object = None,
        accept: str = _JSON_ACCEPT,
        allow_404: bool = False,
    ) -> httpx.Response:
        """One API call; any transport error or 4xx/5xx (but an allowed 404) is a GitHubError."""
        full = url if url.startswith(("http://", "https://")) else f"{self.api_url}{url}"
        endpoint = httpx.URL(full).path
        if not (full == self.api_url or full.startswith(self.api_url + "/")):
            raise GitHubError(f"refusing to send the token outside {self.api_url}: {endpoint}")
        headers = {
            "Authorization": f"Bearer {self._token}",
            "Accept": accept,
            "X-GitHub-Api-Version": _API_VERSION,
            "User-Agent": "driftproof-action",
        }
        try:
            response = self._http.request(method, full, params=params, json=json_body, headers=headers)
        except httpx.HTTPError as exc:
            message = f"GitHub API {method} {endpoint} failed: {type(exc).__name__}: {exc}"
            raise GitHubError(redact(message, self._secrets)) from None
        if response.status_code >= 400 and not (allow_404 and response.status_code == 404):
            raise GitHubError(redact(_error_message(method, endpoint, response), self._secrets))
        return response

    def _json(self, response: httpx.Response, method: str, endpoint: str) -> object:
        """The decoded JSON body, or a GitHubError naming the endpoint."""
        try:
            return response.json()
        except ValueError:
            raise GitHubError(f"GitHub API {method} {endpoint} answered with a body that is not JSON") from None


def _has_marker(item: object, marker: str) -> bool:
    body = _dig(item, "body")
    return isinstance(body, str) and marker in body


def _marked_comment(item: object, marker: str) -> _Comment:
    comment_id = _dig(item, "id")
    return _Comment(
        id=comment_id if isinstance(comment_id, int) else -1,
        login=str(_dig(item, "user", "login") or ""),
        is_bot=_dig(item, "user", "type") == "Bot",
    )


def _with_marker(body: str, marker: str) -> str:
    """The body with the marker as its first line, so a cut never loses it."""
    return body if body.startswith(marker) else f"{marker}\n{body}"


def _hint(status: int, endpoint: str) -> str:
    """What to change, for the statuses a workflow's configuration causes."""
    if status == 401:
        return " (the github-token input is missing, wrong or expired)"
    if status == 403 and "/contents/" in endpoint:
        return " (give the job 'permissions: contents: read')"
    if status == 403:
        return " (give the job 'permissions: pull-requests: write'; a fork PR's token is read-only)"
    return ""


def _error_message(method: str, endpoint: str, response: httpx.Response) -> str:
    """``GitHub API PATCH /repos/o/r/... returned 403 Forbidden: <GitHub's message> (hint)``."""
    try:
        data: object = response.json()
    except ValueError:
        data = None
    errors = _dig(data, "errors")
    details = [_dig(e, "message") for e in errors] if isinstance(errors, list) else []
    said = "; ".join(str(m) for m in [_dig(data, "message"), *details] if m) or "no message"
    return (
        f"GitHub API {method} {endpoint} returned {response.status_code} "
        f"{response.reason_phrase}: {said}{_hint(response.status_code, endpoint)}"
    )


# ---------------------------------------------------------------------------------------------
# Baseline receipt from the default branch


class _GitRead(NamedTuple):
    content: bytes | None
    absent: bool
    reason: str


def read_default_branch_file(
    workspace: Path,
    default_branch: str,
    path: str,
    *,
    client: GitHubClient | None,
    run_git: RunGit = subprocess.run,
) -> bytes | None:
    """The file at ``path`` on ``origin/<default_branch>``; ``None`` when it is not there.

    git first (``fetch`` the branch, then ``show``), the contents API when git cannot
    answer. ``None`` means "first run, no receipt stored yet", never "something failed".
    """
    if not default_branch or default_branch.startswith("-") or ".." in default_branch:
        raise GitHubError(f"default branch name {default_branch!r} is not a usable branch name")
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
        raise GitHubError(f"{path!r} must be a path relative to the repository root")
    found = _git_read(workspace, default_branch, path, run_git)
    if found.content is not None or found.absent:
        return found.content
    if client is None:
        raise GitHubError(
            f"cannot read {path} from origin/{default_branch}: {found.reason}; "
            "and there is no GitHub API client to fall back on (set github-token)"
        )
    return client.fetch_file(path, default_branch)


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


# ---------------------------------------------------------------------------------------------
# Workflow commands (stdout)


def _escape_data(value: str) -> str:
    """Escape a command's message as the runner expects.

    >>> _escape_data("50%\\ndone")
    '50%25%0Adone'
    """
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    """Escape a command property value (``file=``, ``title=``): also ``:`` and ``,``.

    >>> _escape_property("a: b, c")
    'a%3A b%2C c'
    """
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _command(name: str, message: str, properties: Mapping[str, object], stream: TextIO | None) -> None:
    """Print ``::name k=v,k=v::message`` with both parts escaped."""
    props = ",".join(f"{k}={_escape_property(str(v))}" for k, v in properties.items() if v is not None)
    out = stream if stream is not None else sys.stdout
    out.write(f"::{name}{' ' + props if props else ''}::{_escape_data(message)}\n")
    out.flush()


def add_mask(value: str, *, stream: TextIO | None = None) -> None:
    """Ask the runner to mask ``value`` (and each of its lines) in every later log line."""
    for item in dict.fromkeys([value, *value.splitlines()]):
        if item.strip():
            _command("add-mask", item, {}, stream)


def _annotation(
    kind: str,
    message: str,
    file: str | None,
    line: int | None,
    title: str | None,
    stream: TextIO | None,
) -> None:
    _command(kind, message, {"file": file, "line": line, "title": title}, stream)


def notice(
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
    stream: TextIO | None = None,
) -> None:
    """A ``::notice::`` annotation."""
    _annotation("notice", message, file, line, title, stream)


def warning(
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
    stream: TextIO | None = None,
) -> None:
    """A ``::warning::`` annotation."""
    _annotation("warning", message, file, line, title, stream)


def error(
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
    stream: TextIO | None = None,
) -> None:
    """An ``::error::`` annotation."""
    _annotation("error", message, file, line, title, stream)


@contextmanager
def stop_commands(*, stream: TextIO | None = None) -> Iterator[str]:
    """Stop the runner from reading workflow commands while raw model output is printed.

    Yields the random resume token; nothing printed inside can guess it.
    """
    token = _secrets.token_hex(16)
    out = stream if stream is not None else sys.stdout
    out.write(f"::stop-commands::{token}\n")
    out.flush()
    try:
        yield token
    finally:
        out.write(f"::{token}::\n")
        out.flush()


# ---------------------------------------------------------------------------------------------
# Environment files, limits, redaction


def write_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    """Append outputs to ``GITHUB_OUTPUT`` in the heredoc form, all in one ``write``.

    ``name<<ghadelimiter_<uuid>`` / value / delimiter, so any value (multi-line too) is safe.
    """
    chunks = []
    for name, value in outputs.items():
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        if not name or any(c in name for c in "\r\n=<") or delimiter in value:
            raise ValueError(f"cannot write output {name!r}: bad name or value")
        chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    _append(path, "".join(chunks).encode("utf-8"))


def _append(path: Path, data: bytes) -> None:
    """Append with O_APPEND, looping only if the kernel writes short."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


SUMMARY_CUT_NOTE = "\n\n> **Summary cut at GitHub's 1 MiB limit.** The full report is in the report file.\n"


def append_summary(path: Path, markdown: str) -> bool:
    """Append Markdown to ``GITHUB_STEP_SUMMARY``, cut with a note to stay under 1 MiB.

    Returns True when the text had to be cut.
    """
    used = path.stat().st_size if path.exists() else 0
    data = markdown.encode("utf-8")
    room = SUMMARY_LIMIT_BYTES - used
    if len(data) <= room:
        _append(path, data)
        return False
    note = SUMMARY_CUT_NOTE.encode("utf-8")
    keep = data[: max(0, room - len(note))].decode("utf-8", "ignore").encode("utf-8")
    _append(path, keep + note if room >= len(note) else b"")
    return True


COMMENT_CUT_NOTE = (
    "\n\n---\n**This comment was cut to fit GitHub's 65,536-character limit.** "
    "The full report is in the job summary and the report file.\n"
)


def truncate_comment(body: str, limit: int = COMMENT_LIMIT) -> str:
    """Cut ``body`` to ``limit`` characters at a line end, close open blocks, add a note.

    >>> truncate_comment("short")
    'short'
    >>> len(truncate_comment("x\\n" * 40_000)) <= 65_536
    True
    """
    if len(body) <= limit:
        return body
    cut = limit - len(COMMENT_CUT_NOTE)
    while cut > 0:
        head = body[:cut]
        newline = head.rfind("\n")
        head = head[:newline] if newline > 0 else head
        closing = "\n```" if head.count("```") % 2 else ""
        closing += "\n</details>" * max(0, head.count("<details") - head.count("</details>"))
        result = head + closing + COMMENT_CUT_NOTE
        if len(result) <= limit:
            return result
        cut -= len(result) - limit
    return COMMENT_CUT_NOTE[-limit:]


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace every secret value of 4+ characters in ``text`` with ``***``, longest first.

    >>> redact("key=sk-abc123 and abc", ["sk-abc123", "abc"])
    'key=*** and abc'
    """
    values = {v for s in secrets for v in (s, s.strip()) if len(v) >= 4}
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, "***")
    return text


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """The non-empty values of :data:`SECRET_ENV_NAMES`, each once, in that order."""
    return list(dict.fromkeys(v for n in SECRET_ENV_NAMES if (v := environ.get(n, "")).strip()))
