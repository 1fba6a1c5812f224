"""The custom_id of a batch item (`driftproof.batch_runner.custom_id`): what the Batch APIs accept, one per call."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from driftproof.batch_runner import answer_lines, custom_id

ARM = st.sampled_from(["with_skill", "baseline", "placebo"])
GROUP = st.lists(st.integers(0, 999), min_size=1, max_size=8, unique=True).map(tuple)
"""The draws of one answer line (an arm's round, one draw on Anthropic), or the samples of one judge line."""
KEY = st.one_of(
    st.tuples(st.just("answer"), st.integers(0, 99_999), ARM, GROUP),
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


@given(KEY)
def test_an_answer_lines_custom_id_reads_back_as_its_draws(key: tuple[object, ...]) -> None:
    kind, ci, arm, group, *_ = key
    if kind == "answer":
        assert answer_lines([custom_id("answer", (ci, arm, group))]) == {(ci, arm): [group]}


def test_custom_id_by_hand() -> None:
    assert custom_id("answer", (0, "with_skill", (2,))) == "answer-0-with_skill-2"  # one draw: as before grouping
    assert custom_id("answer", (1, "baseline", (0, 1, 2))) == "answer-1-baseline-0_1_2"
    assert custom_id("answer", (0, "placebo", (3, 5))) == "answer-0-placebo-3_5"
    assert custom_id("judge", (3, "baseline", 0, (1, 2))) == "judge-3-baseline-0-1_2"
