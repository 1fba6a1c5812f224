"""A bad input on a pull request: the sticky comment stops showing an earlier verdict.

The inputs are what failed, but the event and the token can still be read: the one comment is updated to say the
run failed and names the input, as a run error (a 401) does, so a reviewer never reads an older push's verdict as
this one's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.action.github import COMMENT_MARKER
from tests.integration.test_action_e2e import REGRESSION, marked, scripted, stored
from tests.support.action_sim import make_repos, pr_payload, run_job
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_server import FakeLLMServer

pytestmark = pytest.mark.usefixtures("isolated")  # an Action job's environment (tests/conftest.py)


@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        ({"draws": "three"}, "input 'draws' must be a positive integer, got 'three'"),
        ({"fail-on": "regresed"}, "input 'fail-on' must be one of regressed, underpowered, never, got 'regresed'"),
        ({"provider": "antrhopic"}, "input 'provider' must be one of"),
    ],
)
def test_a_bad_input_after_a_verdict_replaces_the_verdict_in_the_sticky_comment(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer, inputs: dict[str, str], said: str
) -> None:
    repos = make_repos(tmp_path, stored())
    scripted(fake_llm_server, REGRESSION)
    first = run_job(tmp_path, repos, github, fake_llm_server)
    assert first.code == 1 and "**Driftproof · regressed**" in str(marked(github)[0]["body"])
    (tmp_path / "output").unlink()
    calls = len(fake_llm_server.requests)

    job = run_job(tmp_path, repos, github, fake_llm_server, inputs=inputs)

    assert job.code == 2 and len(fake_llm_server.requests) == calls  # refused before any model call
    [comment] = marked(github)  # the same comment, updated in place
    body = str(comment["body"])
    assert body.startswith(COMMENT_MARKER)
    assert "**Driftproof · error** · the run failed, so this push has no verdict." in body
    assert said in body and "regressed**" not in body
    assert [r.method for r in github.writes()] == ["POST", "PATCH"]


def test_a_bad_comment_input_posts_nothing(tmp_path: Path, github: FakeGitHub) -> None:
    """Whether to comment at all is the input that failed: nothing is posted."""
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, None, inputs={"comment": "maybe"})
    assert job.code == 2 and github.writes() == []


def test_a_read_only_fork_token_is_not_used_for_the_error_comment(tmp_path: Path, github: FakeGitHub) -> None:
    job = run_job(
        tmp_path, make_repos(tmp_path, stored()), github, None, inputs={"draws": "x"}, payload=pr_payload(fork=True)
    )
    assert job.code == 2 and github.writes() == []
