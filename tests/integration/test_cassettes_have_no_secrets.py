"""No cassette carries a key, a bearer token or an API-key header: they are committed to the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.api_cassettes import CASSETTE_DIR, TEST_KEYS

FORBIDDEN = (*TEST_KEYS, "sk-ant-", "sk-proj-", "Bearer ", "x-api-key", "authorization", "set-cookie")
CASSETTES = sorted(CASSETTE_DIR.glob("**/*.yaml")) + sorted(CASSETTE_DIR.glob("**/*.yml"))


def test_there_are_cassettes_to_check() -> None:
    assert CASSETTES, f"no cassettes under {CASSETTE_DIR}"


@pytest.mark.parametrize("cassette", CASSETTES, ids=lambda p: p.name)
def test_cassette_has_no_secret(cassette: Path) -> None:
    text = cassette.read_text(encoding="utf-8").lower()
    hits = [needle for needle in FORBIDDEN if needle.lower() in text]
    assert not hits, f"{cassette.name} contains {hits}: scrub it and record again"
