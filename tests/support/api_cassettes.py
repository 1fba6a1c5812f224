"""The vcrpy cassettes of the two API lanes: one configuration for recording and replay, and the scenarios.

The cassettes in ``tests/cassettes/`` were recorded once, against `FakeLLMServer` on the fixed address
`RECORD_BASE_URL` (a cassette's URI names host and port, so replay must ask for the same one), by::

    .venv/bin/python -m tests.support.api_cassettes          # records only the missing cassettes

Replay (``tests/integration/test_api_lanes_cassettes.py``) uses ``record_mode="none"``: no server, no socket.
Request headers that carry credentials or describe the recording machine are dropped before saving, and
responses keep only `KEPT_RESPONSE_HEADERS`.

>>> sorted(SCENARIOS)[:2], RECORD_BASE_URL
(['anthropic_400_not_retried', 'anthropic_429_then_200'], 'http://127.0.0.1:18531')
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof.lanes.anthropic_api import AnthropicApiLane
from driftproof.lanes.base import Generation, GenerationRequest, Lane, RetryPolicy
from driftproof.lanes.openai_api import OpenAIApiLane

from .fake_llm_server import ANTHROPIC_MESSAGES, OPENAI_CHAT, FakeLLMServer, FakeReply, FakeUsage

CASSETTE_DIR = Path(__file__).resolve().parents[1] / "cassettes"
RECORD_PORT = 18531
RECORD_BASE_URL = f"http://127.0.0.1:{RECORD_PORT}"
ANTHROPIC_TEST_KEY = (
    "sk-ant-" + "api03-CASSETTE-test-key-do-not-record-0001"
)  # a fake key, key-shaped for the redaction checks; split so secret scanners skip it
OPENAI_TEST_KEY = "sk-proj-CASSETTE-test-key-do-not-record-0002"
TEST_KEYS = (ANTHROPIC_TEST_KEY, OPENAI_TEST_KEY)

FILTERED_REQUEST_HEADERS = [
    "authorization",
    "x-api-key",
    "openai-organization",
    "openai-project",
    "cookie",
    # not secret, but they describe the recording machine and change with every SDK upgrade
    "user-agent",
    "x-stainless-arch",
    "x-stainless-os",
    "x-stainless-runtime-version",
]
KEPT_RESPONSE_HEADERS = frozenset({"content-type", "request-id", "x-request-id", "retry-after"})
MATCH_ON = ["method", "scheme", "host", "port", "path", "query", "body"]
POLICY = RetryPolicy(max_retries=2, base_delay_s=0.001, max_delay_s=0.01)

SKILL = "# Commit messages\nWrite Conventional Commits: type(scope): summary."
PROMPT = "Write a commit message for: fix the off-by-one in the pager."


def keep_response_headers(response: dict[str, Any]) -> dict[str, Any]:
    """The response with only the headers a lane reads (and ``content-type``); cookies and org ids go.

    >>> keep_response_headers({"headers": {"Set-Cookie": ["a=b"], "request-id": ["req_1"]}, "status": 200})
    {'headers': {'request-id': ['req_1']}, 'status': 200}
    """
    headers = {name: values for name, values in response["headers"].items() if name.lower() in KEPT_RESPONSE_HEADERS}
    return {**response, "headers": headers}


def cassette_vcr(record_mode: str) -> Any:
    """The one vcrpy configuration both recording (``once``) and replay (``none``) use."""
    import vcr

    return vcr.VCR(
        cassette_library_dir=str(CASSETTE_DIR),
        record_mode=record_mode,
        match_on=MATCH_ON,
        filter_headers=FILTERED_REQUEST_HEADERS,
        before_record_response=keep_response_headers,
        decode_compressed_response=True,
    )


def make_lane(provider: str) -> Lane:
    """The lane as the cassettes saw it: fixed base URL, test key, fast retries."""
    if provider == "anthropic":
        environ = {"ANTHROPIC_API_KEY": ANTHROPIC_TEST_KEY}
        return AnthropicApiLane("claude-haiku-4-5", base_url=RECORD_BASE_URL, policy=POLICY, environ=environ)
    environ = {"OPENAI_API_KEY": OPENAI_TEST_KEY}
    return OpenAIApiLane("gpt-5.5", base_url=f"{RECORD_BASE_URL}/v1", policy=POLICY, environ=environ)


@dataclass(frozen=True)
class Scenario:
    """One cassette: the lane, the replies the fake server gave while recording, the calls made."""

    provider: str
    replies: tuple[FakeReply, ...]
    systems: tuple[str | None, ...]
    """One call per entry: the skill text, or None for a baseline call."""

    @property
    def route(self) -> str:
        return ANTHROPIC_MESSAGES if self.provider == "anthropic" else OPENAI_CHAT

    def run(self) -> list[Generation]:
        """Make the calls through a fresh lane, closed afterwards."""
        lane = make_lane(self.provider)
        try:
            return [lane.generate(GenerationRequest(prompt=PROMPT, system=system)) for system in self.systems]
        finally:
            lane.close()


_CACHED = FakeUsage(input_tokens=21, output_tokens=14, cache_read_tokens=8, cache_write_tokens=3)
SCENARIOS: dict[str, Scenario] = {
    "anthropic_with_skill_and_baseline": Scenario(
        "anthropic",
        (
            FakeReply(text="fix(pager): correct off-by-one", model="claude-haiku-4-5-20251001", usage=_CACHED),
            FakeReply(text="Fixed the pager bug.", model="claude-haiku-4-5-20251001"),
        ),
        (SKILL, None),
    ),
    "anthropic_429_then_200": Scenario(
        "anthropic",
        (FakeReply.error(429, retry_after=0), FakeReply(text="fix(pager): after a retry")),
        (SKILL,),
    ),
    "anthropic_400_not_retried": Scenario(
        "anthropic",
        (FakeReply.error(400, message="messages: roles must alternate"),),
        (None,),
    ),
    "openai_with_skill_and_baseline": Scenario(
        "openai",
        (
            FakeReply(text="fix(pager): correct off-by-one", model="gpt-5.5-2026-04-23", usage=_CACHED),
            FakeReply(text="Fixed the pager bug.", model="gpt-5.5-2026-04-23"),
        ),
        (SKILL, None),
    ),
    "openai_429_then_200": Scenario(
        "openai",
        (FakeReply.error(429, retry_after=0), FakeReply(text="fix(pager): after a retry")),
        (SKILL,),
    ),
    "openai_400_not_retried": Scenario(
        "openai",
        (FakeReply.error(400, message="Unsupported parameter: 'max_tokens'."),),
        (None,),
    ),
}


def record(names: list[str] | None = None, *, log: Callable[[str], None] = print) -> None:
    """Record the missing cassettes (``record_mode="once"``) against a fake server on `RECORD_PORT`."""
    recorder = cassette_vcr("once")
    with FakeLLMServer(port=RECORD_PORT) as server:
        for name in names or sorted(SCENARIOS):
            scenario = SCENARIOS[name]
            path = CASSETTE_DIR / f"{name}.yaml"
            if path.exists():
                log(f"kept     {path.name} (delete it to record again)")
                continue
            server.reset()
            server.queue(scenario.route, *scenario.replies)
            with recorder.use_cassette(path.name):
                generations = scenario.run()
            log(
                f"recorded {path.name}: " + "; ".join(f"{g.attempts} attempt(s) {g.error or 'ok'}" for g in generations)
            )


if __name__ == "__main__":
    record(sys.argv[1:] or None)
