"""GitHubClient against a fake REST API (httpx.MockTransport): no network."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import httpx
import pytest

from driftproof.action.github import COMMENT_MARKER, CommentResult, GitHubClient
from driftproof.errors import DriftproofError, GitHubError

API = "https://api.github.test"
TOKEN = "ghs_SECRETtoken1234567890"
REPO = "acme/skills"
COMMENTS = f"{API}/repos/{REPO}/issues/7/comments"

Handler = Callable[[httpx.Request], httpx.Response]


class FakeGitHub:
    """Records every request and answers through ``handler``."""

    def __init__(self, handler: Handler) -> None:
        self.requests: list[httpx.Request] = []
        self._handler = handler

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self._handler(request)

    def client(self, **kwargs: object) -> GitHubClient:
        http = httpx.Client(transport=httpx.MockTransport(self))
        return GitHubClient(http, API + "/", TOKEN, REPO, **kwargs)  # type: ignore[arg-type]


def comment(comment_id: int, body: str, login: str = "github-actions[bot]", kind: str = "Bot") -> dict[str, object]:
    return {"id": comment_id, "body": body, "user": {"login": login, "type": kind}}


def created(request: httpx.Request, comment_id: int = 901) -> httpx.Response:
    body = json.loads(request.content)["body"]
    url = f"https://github.test/{REPO}/pull/7#issuecomment-{comment_id}"
    return httpx.Response(201, json={"id": comment_id, "html_url": url, "body": body})


def test_comment_created_when_none_is_marked() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=[comment(1, "looks good", "alice", "User")])
        return created(request)

    fake = FakeGitHub(handler)
    result = fake.client().upsert_comment(7, "## Driftproof\nall fine")

    assert result == CommentResult("created", 901, f"https://github.test/{REPO}/pull/7#issuecomment-901")
    get, post = fake.requests
    assert (get.method, get.url.path, get.url.params["per_page"]) == (
        "GET",
        f"/repos/{REPO}/issues/7/comments",
        "100",
    )
    assert (post.method, post.url.path) == ("POST", f"/repos/{REPO}/issues/7/comments")
    assert json.loads(post.content)["body"] == f"{COMMENT_MARKER}\n## Driftproof\nall fine"
    assert post.headers["Authorization"] == f"Bearer {TOKEN}"
    assert post.headers["X-GitHub-Api-Version"] == "2022-11-28"
    assert post.headers["Accept"] == "application/vnd.github+json"


def test_comment_updated_in_place_when_marked_one_is_on_page_2() -> None:
    page1 = [comment(i, f"comment {i}", "alice", "User") for i in range(1, 101)]
    page2 = [
        comment(150, f"{COMMENT_MARKER}\nold run"),
        comment(160, f"quoting {COMMENT_MARKER} by hand", "bob", "User"),
        comment(170, f"{COMMENT_MARKER}\nnewer run"),
        comment(180, "unrelated", "carol", "User"),
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.params.get("page") == "2":
            return httpx.Response(200, json=page2)
        if request.method == "GET":
            link = f'<{COMMENTS}?per_page=100&page=2>; rel="next", <{COMMENTS}?per_page=100&page=2>; rel="last"'
            return httpx.Response(200, json=page1, headers={"Link": link})
        return created(request, comment_id=170)

    fake = FakeGitHub(handler)
    result = fake.client().upsert_comment(7, "fresh report")

    assert result.action == "updated"
    assert result.id == 170
    methods = [(r.method, r.url.path) for r in fake.requests]
    assert methods == [
        ("GET", f"/repos/{REPO}/issues/7/comments"),
        ("GET", f"/repos/{REPO}/issues/7/comments"),
        ("PATCH", f"/repos/{REPO}/issues/comments/170"),
    ]
    assert json.loads(fake.requests[-1].content)["body"].startswith(COMMENT_MARKER)


def test_known_login_picks_only_the_tokens_own_comment() -> None:
    page = [comment(5, f"{COMMENT_MARKER}\nby a bot"), comment(6, f"{COMMENT_MARKER} by me", "me", "User")]
    fake = FakeGitHub(lambda r: httpx.Response(200, json=page) if r.method == "GET" else created(r, 5))

    fake.client(login="me").upsert_comment(7, "report")

    assert fake.requests[-1].url.path == f"/repos/{REPO}/issues/comments/6"


def test_body_is_redacted_and_capped_before_posting() -> None:
    fake = FakeGitHub(lambda r: httpx.Response(200, json=[]) if r.method == "GET" else created(r))

    fake.client(redact_values=["sk-ant-api-key-xyz"]).upsert_comment(
        7, f"token {TOKEN} key sk-ant-api-key-xyz\n" + "row\n" * 30_000
    )

    posted = json.loads(fake.requests[-1].content)["body"]
    assert TOKEN not in posted
    assert "sk-ant-api-key-xyz" not in posted
    assert "token [REDACTED] key [REDACTED]" in posted
    assert len(posted) <= 65_536
    assert posted.startswith(COMMENT_MARKER)
    assert "full report is in the job summary" in posted


@pytest.mark.parametrize(
    ("status", "method", "path", "said"),
    [
        (403, "POST", f"/repos/{REPO}/issues/7/comments", "Resource not accessible by integration"),
        (500, "GET", f"/repos/{REPO}/issues/7/comments", "Server Error"),
    ],
)
def test_github_error_names_endpoint_and_status_and_never_the_token(
    status: int, method: str, path: str, said: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == method:
            return httpx.Response(status, json={"message": said, "documentation_url": "https://docs.test"})
        return httpx.Response(200, json=[])

    with pytest.raises(GitHubError) as caught:
        FakeGitHub(handler).client().upsert_comment(7, "report")

    message = str(caught.value)
    assert f"GitHub API {method} {path} returned {status}" in message
    assert said in message
    assert TOKEN not in message
    assert isinstance(caught.value, DriftproofError)


def test_403_message_says_which_permission_to_grant() -> None:
    fake = FakeGitHub(lambda r: httpx.Response(403, json={"message": "Resource not accessible by integration"}))

    with pytest.raises(GitHubError, match="pull-requests: write"):
        fake.client().upsert_comment(7, "report")


def test_network_error_becomes_github_error_naming_the_endpoint() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"connection refused (auth {TOKEN})", request=request)

    with pytest.raises(GitHubError) as caught:
        FakeGitHub(handler).client().upsert_comment(7, "report")

    assert f"GET /repos/{REPO}/issues/7/comments failed: ConnectError" in str(caught.value)
    assert TOKEN not in str(caught.value)


def test_next_page_on_another_host_is_refused() -> None:
    link = '<https://evil.test/steal?page=2>; rel="next"'
    fake = FakeGitHub(lambda r: httpx.Response(200, json=[], headers={"Link": link}))

    with pytest.raises(GitHubError, match="refusing to send the token"):
        fake.client().upsert_comment(7, "report")
    assert len(fake.requests) == 1


def test_token_is_not_in_repr() -> None:
    client = FakeGitHub(lambda r: httpx.Response(200)).client()

    assert TOKEN not in repr(client)
    assert REPO in repr(client)


def test_fetch_file_404_is_none() -> None:
    fake = FakeGitHub(lambda r: httpx.Response(404, json={"message": "Not Found"}))

    assert fake.client().fetch_file(".driftproof/receipt.json", "main") is None
    request = fake.requests[0]
    assert request.url.path == f"/repos/{REPO}/contents/.driftproof/receipt.json"
    assert request.url.params["ref"] == "main"


def test_fetch_file_decodes_base64_content() -> None:
    receipt = b'{"schema_version": "0.13", "seal": {}}\n'
    encoded = base64.encodebytes(receipt).decode()  # GitHub wraps base64 at 60 columns
    payload = {"type": "file", "encoding": "base64", "content": encoded, "size": len(receipt)}
    fake = FakeGitHub(lambda r: httpx.Response(200, json=payload))

    assert fake.client().fetch_file(".driftproof/receipt.json", "main") == receipt


def test_fetch_file_over_1mb_asks_for_raw_bytes() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.headers["Accept"] == "application/vnd.github.raw+json":
            return httpx.Response(200, content=b"RAW BYTES")
        return httpx.Response(200, json={"type": "file", "encoding": "none", "content": "", "size": 2_000_000})

    fake = FakeGitHub(handler)

    assert fake.client().fetch_file("big.json", "main") == b"RAW BYTES"
    assert len(fake.requests) == 2


def test_fetch_file_on_a_directory_is_an_error() -> None:
    fake = FakeGitHub(lambda r: httpx.Response(200, json=[{"type": "file", "name": "receipt.json"}]))

    with pytest.raises(GitHubError, match="is a directory, expected a file"):
        fake.client().fetch_file(".driftproof", "main")


def test_repository_must_be_owner_slash_name() -> None:
    with pytest.raises(GitHubError, match="owner/name"):
        GitHubClient(httpx.Client(), API, TOKEN, "just-a-name")
