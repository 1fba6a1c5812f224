"""A loopback fake of the GitHub REST calls the Action makes, recording every request.

Routes (``owner/name`` must be the served repository):

- ``GET /repos/{o}/{r}/issues/{n}/comments``: ascending ids, ``per_page`` (default 30, max 100) and
  ``page``, with a ``Link: <...>; rel="next"`` header while pages remain.
- ``POST /repos/{o}/{r}/issues/{n}/comments`` and ``PATCH /repos/{o}/{r}/issues/comments/{id}``: bodies
  over 65,536 characters are refused with 422, as GitHub does.
- ``GET /repos/{o}/{r}/issues?state=open`` (paginated as comments are; pull requests are items too, with a
  ``pull_request`` key, as GitHub lists them), ``POST /repos/{o}/{r}/issues`` and
  ``PATCH /repos/{o}/{r}/issues/{n}``: the sentinel's issue.
- ``GET /repos/{o}/{r}/contents/{path}?ref=``: the JSON form (base64) or raw bytes for
  ``Accept: application/vnd.github.raw+json``; 404 when the file is not served.

``fail(method, kind, status)`` makes every later call of that kind answer ``status`` with a GitHub-style
error body; kinds are ``list``, ``create``, ``update``, ``contents``, ``issues`` (the list), ``open_issue``
and ``update_issue``. A wrong or missing token is 401.

>>> with FakeGitHub() as gh:
...     gh.base_url.startswith("http://127.0.0.1:"), gh.comments(7)
(True, [])
"""

from __future__ import annotations

import base64
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = ["BODY_LIMIT", "FakeGitHub", "GitHubRequest"]

BODY_LIMIT = 65_536
BOT = {"login": "github-actions[bot]", "type": "Bot"}


@dataclass(frozen=True)
class GitHubRequest:
    """One request as the fake received it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any = field(repr=False)


class FakeGitHub:
    """The fake API on 127.0.0.1 and a free port; close it, or use ``with``."""

    def __init__(self, repository: str = "acme/skills", token: str | None = None) -> None:
        self.repository = repository
        self.token = token
        self._lock = threading.Lock()
        self._comments: dict[int, list[dict[str, Any]]] = {}
        self._files: dict[tuple[str, str], bytes] = {}
        self._issues: list[dict[str, Any]] = []
        self._next_issue = 100
        self._failures: dict[tuple[str, str], tuple[int, str]] = {}
        self._requests: list[GitHubRequest] = []
        self._next_id = 1000
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    # -- test-side API ---------------------------------------------------------------------------
    @property
    def requests(self) -> list[GitHubRequest]:
        with self._lock:
            return list(self._requests)

    def writes(self) -> list[GitHubRequest]:
        """Every POST and PATCH, in order."""
        return [r for r in self.requests if r.method in ("POST", "PATCH")]

    def comments(self, number: int) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(c) for c in self._comments.get(number, [])]

    def add_comment(self, number: int, body: str, user: dict[str, str] | None = None) -> int:
        """Seed a comment (someone else's by default) and return its id."""
        with self._lock:
            return self._create(number, body, user or {"login": "octocat", "type": "User"})["id"]

    def issues(self) -> list[dict[str, Any]]:
        """Every issue (pull requests seeded with ``add_issue(pull_request=True)`` included), oldest first."""
        with self._lock:
            return [dict(i) for i in self._issues]

    def add_issue(self, title: str, body: str, *, pull_request: bool = False, state: str = "open") -> int:
        """Seed an issue (or, with ``pull_request``, a pull request as the issues list shows one); its number."""
        with self._lock:
            issue = self._open_issue(title, body, {"login": "octocat", "type": "User"})
            issue["state"] = state
            if pull_request:
                issue["pull_request"] = {"url": f"{self.base_url}/repos/{self.repository}/pulls/{issue['number']}"}
            return int(issue["number"])

    def serve_file(self, ref: str, path: str, content: bytes) -> None:
        with self._lock:
            self._files[(ref, path)] = content

    def fail(self, method: str, kind: str, status: int, message: str = "Internal Server Error") -> None:
        with self._lock:
            self._failures[(method, kind)] = (status, message)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeGitHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- handler side (called with the lock held) -------------------------------------------------
    def _create(self, number: int, body: str, user: dict[str, str]) -> dict[str, Any]:
        self._next_id += 1
        comment = {
            "id": self._next_id,
            "body": body,
            "user": dict(user),
            "html_url": f"https://github.test/{self.repository}/pull/{number}#issuecomment-{self._next_id}",
        }
        self._comments.setdefault(number, []).append(comment)
        return comment

    def _open_issue(self, title: str, body: str, user: dict[str, str]) -> dict[str, Any]:
        self._next_issue += 1
        number = self._next_issue
        issue = {
            "number": number,
            "title": title,
            "body": body,
            "state": "open",
            "user": dict(user),
            "html_url": f"https://github.test/{self.repository}/issues/{number}",
        }
        self._issues.append(issue)
        return issue

    def _issue_route(self, rest: str, request: GitHubRequest) -> tuple[int, dict[str, str], bytes] | None:
        """The issue routes, or ``None`` when ``rest`` is not one."""
        if rest == "/issues" and request.method in ("GET", "POST"):
            if failure := self._failures.get((request.method, "issues" if request.method == "GET" else "open_issue")):
                return _error(*failure)
            if request.method == "GET":
                state = request.query.get("state", "open")
                shown = [i for i in self._issues if state == "all" or i["state"] == state]
                return self._paged(shown, "/issues", request.query)
            title = request.body.get("title") if isinstance(request.body, dict) else None
            if not isinstance(title, str) or not title:
                return _error(422, "Validation Failed", [{"message": "title is required"}])
            return self._write(request, lambda body: self._open_issue(title, body, BOT))
        if (m := re.fullmatch(r"/issues/(\d+)", rest)) and request.method == "PATCH":
            if failure := self._failures.get(("PATCH", "update_issue")):
                return _error(*failure)
            found = [i for i in self._issues if i["number"] == int(m.group(1))]
            if not found:
                return _error(404, "Not Found")
            return self._write(request, lambda body: _update(found[0], body))
        return None

    def _answer(self, request: GitHubRequest) -> tuple[int, dict[str, str], bytes]:
        self._requests.append(request)
        prefix = f"/repos/{self.repository}"
        if self.token is not None and request.headers.get("authorization") != f"Bearer {self.token}":
            return _error(401, "Bad credentials")
        if not request.path.startswith(prefix + "/"):
            return _error(404, "Not Found")
        rest = request.path[len(prefix) :]
        if (issue := self._issue_route(rest, request)) is not None:
            return issue
        if m := re.fullmatch(r"/issues/(\d+)/comments", rest):
            kind = "list" if request.method == "GET" else "create"
            if failure := self._failures.get((request.method, kind)):
                return _error(*failure)
            number = int(m.group(1))
            if request.method == "GET":
                return self._page(number, request.query)
            if request.method == "POST":
                return self._write(request, lambda body: self._create(number, body, BOT))
        if (m := re.fullmatch(r"/issues/comments/(\d+)", rest)) and request.method == "PATCH":
            if failure := self._failures.get(("PATCH", "update")):
                return _error(*failure)
            found = [c for cs in self._comments.values() for c in cs if c["id"] == int(m.group(1))]
            if not found:
                return _error(404, "Not Found")
            return self._write(request, lambda body: _update(found[0], body))
        if rest.startswith("/contents/") and request.method == "GET":
            if failure := self._failures.get(("GET", "contents")):
                return _error(*failure)
            return self._content(unquote(rest[len("/contents/") :]), request)
        return _error(404, "Not Found")

    def _write(self, request: GitHubRequest, apply: Any) -> tuple[int, dict[str, str], bytes]:
        body = request.body.get("body") if isinstance(request.body, dict) else None
        if not isinstance(body, str):
            return _error(422, "Invalid request: body is required")
        if len(body) > BODY_LIMIT:
            return _error(422, "Validation Failed", [{"message": "Body is too long (maximum is 65536 characters)"}])
        status = 201 if request.method == "POST" else 200
        return status, {"content-type": "application/json"}, json.dumps(apply(body)).encode()

    def _page(self, number: int, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        return self._paged(self._comments.get(number, []), f"/issues/{number}/comments", query)

    def _paged(
        self, items: list[dict[str, Any]], route: str, query: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        per_page = min(100, int(query.get("per_page", "30")))
        page = int(query.get("page", "1"))
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {"content-type": "application/json"}
        if page * per_page < len(items):
            path = f"/repos/{self.repository}{route}"
            url = f"{self.base_url}{path}?per_page={per_page}&page={page + 1}"
            headers["link"] = f'<{url}>; rel="next"'
        return 200, headers, json.dumps(chunk).encode()

    def _content(self, path: str, request: GitHubRequest) -> tuple[int, dict[str, str], bytes]:
        data = self._files.get((request.query.get("ref", ""), path))
        if data is None:
            return _error(404, "Not Found")
        if request.headers.get("accept") == "application/vnd.github.raw+json":
            return 200, {"content-type": "application/octet-stream"}, data
        doc = {"type": "file", "encoding": "base64", "size": len(data), "content": base64.b64encode(data).decode()}
        return 200, {"content-type": "application/json"}, json.dumps(doc).encode()


def _update(comment: dict[str, Any], body: str) -> dict[str, Any]:
    comment["body"] = body
    return comment


def _error(status: int, message: str, errors: list[dict[str, str]] | None = None) -> tuple[int, dict[str, str], bytes]:
    doc: dict[str, Any] = {"message": message, "documentation_url": "https://docs.github.test/rest"}
    if errors:
        doc["errors"] = errors
    return status, {"content-type": "application/json"}, json.dumps(doc).encode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeGitHub

    def server_bind(self) -> None:
        TCPServer.server_bind(self)  # no reverse DNS lookup
        self.server_name, self.server_port = "127.0.0.1", int(self.server_address[1])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """No access log."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PATCH(self) -> None:
        self._serve()

    def _serve(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        url = urlsplit(self.path)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = GitHubRequest(
            method=self.command,
            path=url.path,
            query={k: v[-1] for k, v in parse_qs(url.query).items()},
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        owner = self.server.owner
        with owner._lock:
            status, headers, payload = owner._answer(request)
        self.send_response(status)
        for name, value in {**headers, "content-length": str(len(payload))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
