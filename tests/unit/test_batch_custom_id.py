"""The custom_id of a batch item (`driftproof.batch_runner.custom_id`): what the Batch APIs accept, one per call."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from driftproof.batch_runner import custom_id

ARM = st.sampled_from(["with_skill", "baseline"])
KEY = st.one_of(
    st.tuples(st.just("answer"), st.integers(0, 99_999), ARM, st.integers(0, 999)),
    st.tuples(
        st.just("judge"),
        st.integers(0, 99_999),
        ARM,
        st.integers(0, 999),
        st.lists(st.integers(0, 99), min_size=1, max_size=5, unique=True).map(tuple),
    ),
)


@given(KEY)
def test_custom_id_is_what_message_batches_accept(key: tuple[object, ...]) -> None:
    kind, *rest = key
    # ^[a-zA-Z0-9_-]{1,64}$ is the Messages Batches rule for custom_id
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", custom_id(str(kind), rest))


@given(KEY, KEY)
def test_two_calls_never_share_a_custom_id(a: tuple[object, ...], b: tuple[object, ...]) -> None:
    if a != b:
        assert custom_id(str(a[0]), a[1:]) != custom_id(str(b[0]), b[1:])


def test_custom_id_by_hand() -> None:
    assert custom_id("answer", (0, "with_skill", 2)) == "answer-0-with_skill-2"
    assert custom_id("judge", (3, "baseline", 0, (1, 2))) == "judge-3-baseline-0-1_2"
