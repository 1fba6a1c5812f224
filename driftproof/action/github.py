"""GitHub's side of the Action: the event that started the job and the REST client (comments, file contents).

Nothing here decides anything about skills or receipts. It reads what GitHub hands the container (event
payload, environment) and talks to the REST API through one ``httpx.Client`` (so tests swap in
``httpx.MockTransport``). The stored receipt is read from the default branch by
:mod:`driftproof.action.baseline`; what the Action writes back for the runner (workflow commands,
``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``) by :mod:`driftproof.action.workflow`.

Secrets: the runner masks logs and the job summary, never what the Action posts through
the API. Every outgoing comment body goes through :func:`driftproof.credentials.redact`, and the token never
appears in a ``repr``, an error message or a URL.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple
from urllib.parse import quote

import httpx

from driftproof.action.workflow import truncate_comment
from driftproof.credentials import redact
from driftproof.errors import GitHubError

__all__ = ["COMMENT_MARKER", "CommentResult", "Event", "GitHubClient", "GitHubError", "IssueResult"]

COMMENT_MARKER = "<!-- driftproof:comment -->"
"""Hidden first line of the sticky PR comment; the only way the Action finds it again."""

_API_VERSION = "2022-11-28"
_JSON_ACCEPT = "application/vnd.github+json"
_RAW_ACCEPT = "application/vnd.github.raw+json"
_MAX_PAGES = 100  # 100 pages of 100 comments: far past any real PR thread
_DEPENDABOT = "dependabot[bot]"


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
    before: str | None = None
    """A push's previous commit (the payload's ``before``); ``None`` outside pushes, when the payload names
    none, or when it is all zeros (a new branch, a first push)."""

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
            before=_commit_or_none(_dig(payload, "before")) if name == "push" else None,
        )


def _commit_or_none(value: object) -> str | None:
    """A full commit id (40 or 64 lowercase hex digits, not all zeros), else ``None``.

    >>> _commit_or_none("0" * 40), _commit_or_none("--upload-pack=x"), _commit_or_none("ab" * 20)[:6]
    (None, None, 'ababab')
    """
    if not isinstance(value, str) or len(value) not in (40, 64) or value.strip("0123456789abcdef"):
        return None
    return value if value.strip("0") else None


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


@dataclass(frozen=True)
class IssueResult:
    """What :meth:`GitHubClient.upsert_issue` did."""

    action: Literal["opened", "updated"]
    number: int
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
        update = None if existing is None else f"/repos/{self.repository}/issues/comments/{existing.id}"
        create = f"/repos/{self.repository}/issues/{pr_number}/comments"
        comment_id, url = self._create_or_update((create, {"body": text}), update, {"body": text}, "id", "a comment id")
        return CommentResult(action="created" if existing is None else "updated", id=comment_id, url=url)

    def upsert_issue(self, title: str, body: str, marker: str) -> IssueResult:
        """Update the open issue whose body carries ``marker`` (the oldest, if several), or open one; the body is
        redacted and capped, the marker its first line. Pull requests, which the issues list also returns, are
        skipped."""
        text = truncate_comment(redact(_with_marker(body, marker), self._secrets))
        number = self._find_issue(marker)
        update = None if number is None else f"/repos/{self.repository}/issues/{number}"
        create = (f"/repos/{self.repository}/issues", {"title": title, "body": text})
        found, url = self._create_or_update(create, update, {"body": text}, "number", "an issue number")
        return IssueResult(action="opened" if number is None else "updated", number=found, url=url)

    def _create_or_update(
        self, create: tuple[str, dict[str, Any]], update: str | None, changes: dict[str, Any], key: str, what: str
    ) -> tuple[int, str]:
        """POST ``create`` (path, body), or PATCH ``update`` with ``changes`` when there is one to update; the
        answer's ``key`` (an id or a number) and ``html_url``."""
        method, path, body = ("POST", *create) if update is None else ("PATCH", update, changes)
        data = self._json(self._request(method, path, json_body=body), method, path)
        found, url = _dig(data, key), _dig(data, "html_url")
        if not isinstance(found, int) or not isinstance(url, str):
            raise GitHubError(f"GitHub API {path} answered without {what} and html_url")
        return found, url

    def _find_issue(self, marker: str) -> int | None:
        """The number of the oldest open issue (not pull request) whose body carries ``marker``."""
        numbers: list[int] = []
        for page in self._pages(f"/repos/{self.repository}/issues", {"state": "open", "per_page": "100"}):
            for item in page:
                number = _dig(item, "number")
                if _has_marker(item, marker) and _dig(item, "pull_request") is None and isinstance(number, int):
                    numbers.append(number)
        return min(numbers, default=None)

    def _pages(self, endpoint: str, params: dict[str, str]) -> Iterator[list[Any]]:
        """Each page of a listing, following its ``next`` links, at most ``_MAX_PAGES``."""
        url: str | None = f"{self.api_url}{endpoint}"
        query: dict[str, str] | None = params
        for _ in range(_MAX_PAGES):
            if url is None:
                return
            response = self._request("GET", url, params=query)
            page = self._json(response, "GET", httpx.URL(url).path)
            if not isinstance(page, list):
                raise GitHubError(f"GitHub API GET {httpx.URL(url).path} did not answer with a list")
            yield page
            url, query = response.links.get("next", {}).get("url"), None

    def file_endpoint(self, path: str) -> str:
        """The contents API's path for ``path`` (``/repos/o/r/contents/...``), as `fetch_file` asks it."""
        return f"/repos/{self.repository}/contents/{quote(path.lstrip('/'), safe='/')}"

    def fetch_file(self, path: str, ref: str) -> bytes | None:
        """A file's bytes at ``ref`` through the contents API; ``None`` when GitHub says 404."""
        endpoint = self.file_endpoint(path)
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
        for page in self._pages(f"/repos/{self.repository}/issues/{pr_number}/comments", {"per_page": "100"}):
            marked.extend(_marked_comment(item, marker) for item in page if _has_marker(item, marker))
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
    an_issue = endpoint.endswith("/issues") or ("/issues/" in endpoint and "/comments" not in endpoint)
    if status in (403, 410) and an_issue:  # the sentinel's issue (410: Issues are turned off)
        return " (give the job 'permissions: issues: write', and turn Issues on for the repository)"
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
