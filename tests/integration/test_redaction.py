"""No character of a credential reaches a receipt, journal, report or error message (issue 10).

The loopback server echoes a key that is not shaped like ``sk-…`` (so only its exact value can catch it) in a
long error message, so that it straddles the 300-character cut of a lost reason: the text is redacted first,
then cut.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from driftproof.credentials import REDACTED, held, hold, redact
from driftproof.errors import RunStopped
from driftproof.run import RunRequest, run_suite
from tests.support.fake_llm_script import FakeReply, RecordedRequest
from tests.support.fake_llm_server import FakeLLMServer

KEY = "canary" + "Q7w9Zr2Lx" * 6  # 60 characters, no key shape at all


def straddling(limit: int = 300) -> str:
    """A message whose 300-character cut falls in the middle of the key."""
    prefix = "x" * (limit - 40)
    return f"{prefix} the key {KEY} was not accepted by this gateway"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text("Be brief.", encoding="utf-8")
    cases = [{"id": "a", "prompt": "Task a.", "rubric": "good"}]
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    return tmp_path / "suite.yaml"


def no_piece_of_the_key(text: str) -> None:
    for start in range(len(KEY) - 7):
        assert KEY[start : start + 8] not in text, f"{KEY[start : start + 8]!r} leaked"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_an_echoed_key_straddling_the_cut_leaks_no_character(suite: Path, provider: str) -> None:
    def echo(_req: RecordedRequest) -> FakeReply:
        return FakeReply.error(500, message=straddling(), error_type="api_error")

    with FakeLLMServer(echo) as server:
        environ = {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": server.base_url,
            "OPENAI_API_KEY": KEY,
            "OPENAI_BASE_URL": server.openai_base_url,
        }
        request = RunRequest(
            suite=suite,
            out=suite.parent / "r.json",
            provider=provider,
            judge_model="claude-haiku-4-5",
            max_retries=0,
            max_consecutive_failures=3,
            environ=environ,
        )
        with pytest.raises(RunStopped) as caught:
            run_suite(request)
    message = str(caught.value)
    assert "connection" not in message and "500" in message  # the server's own error reached the line
    no_piece_of_the_key(message)
    assert REDACTED in message


def test_redact_replaces_held_values_each_line_and_key_shapes() -> None:
    hold("first-line-secret\nsecond-line-secret")
    assert redact("a first-line-secret b second-line-secret c") == f"a {REDACTED} b {REDACTED} c"
    assert redact("token sk-proj-abcdefghijkl and Bearer a.b-c and x-api-key: zzzz") == (
        f"token {REDACTED} and Bearer {REDACTED} and x-api-key: {REDACTED}"
    )
    assert "first-line-secret" in held() and redact("abc") == "abc"


def test_a_masked_or_cut_echo_of_a_held_key_leaks_no_run_of_its_characters() -> None:
    """Providers echo a wrong key masked ("first 8 ****  last 4") or cut short: neither piece survives."""
    hold(KEY)
    masked = f"Incorrect API key provided: {KEY[:8]}{'*' * 44}{KEY[-4:]}. You can find your key at …"
    assert redact(masked) == f"Incorrect API key provided: {REDACTED}. You can find your key at …"
    # a cut fragment of the key (its 10 characters from position 20) with no mask around it
    cut = f"key '{KEY[20:30]}...' is not valid"
    assert redact(cut) == f"key '{REDACTED}...' is not valid"
    no_piece_of_the_key(redact(f"{KEY[:30]}|{KEY[25:]}"))
    # seven characters in a row are not a piece worth the name: ordinary text is left alone
    assert redact(f"see {KEY[:7]} here") == f"see {KEY[:7]} here"
    # a run of stars on its own (markdown rules, bold) is not a mask
    assert redact("**** and **bold**") == "**** and **bold**"
