"""Both API lanes replayed from vcrpy cassettes of real SDK traffic: no server, no socket, ``record_mode="none"``.

The cassettes were recorded once against `FakeLLMServer` (see `tests.support.api_cassettes`). Replay checks
that the lanes still send exactly the recorded requests (vcrpy matches on the body too) and still read the
recorded replies the same way, retries included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.core.models import Usage
from driftproof.lanes.base import Generation
from tests.support.api_cassettes import CASSETTE_DIR, MATCH_ON, SCENARIOS, SKILL, cassette_vcr

SERVING_ID = re.compile(r"^req_fake[0-9a-f]{16}$")


@pytest.fixture(autouse=True)
def _no_ambient_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)


def replay(name: str) -> list[Generation]:
    """Run scenario ``name`` against its cassette only; every recorded interaction must be played."""
    with cassette_vcr("none").use_cassette(f"{name}.yaml") as cassette:
        generations = SCENARIOS[name].run()
    assert cassette.all_played, f"{name}: {len(cassette.data) - cassette.play_count} interaction(s) not replayed"
    return generations


def interactions(name: str) -> Iterator[dict[str, Any]]:
    data = yaml.safe_load((CASSETTE_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
    yield from data["interactions"]


def test_every_scenario_has_a_cassette_and_every_cassette_a_scenario() -> None:
    assert {p.stem for p in CASSETTE_DIR.glob("*.yaml")} == set(SCENARIOS)
    assert "body" in MATCH_ON


def test_anthropic_with_skill_and_baseline() -> None:
    with_skill, baseline = replay("anthropic_with_skill_and_baseline")
    assert (with_skill.error, with_skill.attempts) == (None, 1), with_skill.error
    assert with_skill.text == "fix(pager): correct off-by-one"
    assert with_skill.reported_model == "claude-haiku-4-5-20251001"
    assert with_skill.usage == Usage(input_tokens=21, output_tokens=14, cache_read_tokens=8, cache_write_tokens=3)
    assert with_skill.request_id is not None and SERVING_ID.match(with_skill.request_id)
    assert (baseline.text, baseline.error) == ("Fixed the pager bug.", None)
    bodies = [json.loads(i["request"]["body"]) for i in interactions("anthropic_with_skill_and_baseline")]
    # the skill goes as one system block marked for the prompt cache; the baseline sends no system at all
    marked = [{"type": "text", "text": SKILL, "cache_control": {"type": "ephemeral"}}]
    assert [b.get("system") for b in bodies] == [marked, None]
    for body in bodies:
        assert not {"temperature", "top_p", "top_k"} & set(body)


def test_anthropic_429_then_200_is_two_attempts() -> None:
    (g,) = replay("anthropic_429_then_200")
    assert (g.text, g.attempts, g.error) == ("fix(pager): after a retry", 2, None)
    first, _ = interactions("anthropic_429_then_200")
    assert (first["response"]["status"]["code"], first["response"]["headers"]["retry-after"]) == (429, ["0"])


def test_anthropic_400_is_not_retried() -> None:
    (g,) = replay("anthropic_400_not_retried")
    assert (g.text, g.attempts, g.error) == ("", 1, "400 invalid_request_error: messages: roles must alternate")


def test_openai_with_skill_and_baseline() -> None:
    with_skill, baseline = replay("openai_with_skill_and_baseline")
    assert (with_skill.error, with_skill.attempts) == (None, 1), with_skill.error
    assert (with_skill.text, with_skill.reported_model) == ("fix(pager): correct off-by-one", "gpt-5.5-2026-04-23")
    # prompt_tokens 32 = 21 + 8 cached + 3 written; Chat Completions reports only the cached 8, so input is 24.
    assert with_skill.usage == Usage(input_tokens=24, output_tokens=14, cache_read_tokens=8)
    assert with_skill.extra["system_fingerprint"] == "fp_fake0000"
    assert with_skill.request_id is not None and SERVING_ID.match(with_skill.request_id)
    assert (baseline.text, baseline.error) == ("Fixed the pager bug.", None)
    bodies = [json.loads(i["request"]["body"]) for i in interactions("openai_with_skill_and_baseline")]
    assert [[m["role"] for m in b["messages"]] for b in bodies] == [["system", "user"], ["user"]]
    assert all(b["max_completion_tokens"] == 2048 and "temperature" not in b for b in bodies)


def test_openai_429_then_200_is_two_attempts() -> None:
    (g,) = replay("openai_429_then_200")
    assert (g.text, g.attempts, g.error) == ("fix(pager): after a retry", 2, None)


def test_openai_400_is_not_retried() -> None:
    (g,) = replay("openai_400_not_retried")
    assert (g.attempts, g.error) == (1, "400 invalid_request_error: Unsupported parameter: 'max_tokens'.")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_cassettes_keep_only_the_allowed_response_headers(name: str) -> None:
    for interaction in interactions(name):
        assert set(interaction["response"]["headers"]) <= {"content-type", "request-id", "x-request-id", "retry-after"}


def test_a_changed_request_does_not_match(tmp_path: Path) -> None:
    """Matching includes the body: a lane that sent something else would find no recorded reply."""
    from driftproof.lanes.base import GenerationRequest
    from tests.support.api_cassettes import make_lane

    lane = make_lane("anthropic")
    try:
        with cassette_vcr("none").use_cassette("anthropic_400_not_retried.yaml"):
            g = lane.generate(GenerationRequest(prompt="a prompt that was never recorded"))
    finally:
        lane.close()
    assert g.error is not None and g.error.startswith("connection error") and g.attempts == 3
