"""Judge identity evidence per sample (issue 12): what each returned sample must report, and its bounds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from driftproof.answers import identity_evidence
from driftproof.core.defaults import EVIDENCE
from driftproof.core.models import JudgeSample
from driftproof.judge import evidence_over_limits, judge_ids, sample_identity
from driftproof.lanes.base import Generation

J = "claude-haiku-4-5"


def sample(ids: list[str] | None, serving: str | None = None, reported: str | None = None) -> JudgeSample:
    return JudgeSample(score=0.5, valid=True, reported_ids=ids, serving_id=serving, reported_model=reported)


@pytest.mark.parametrize(
    ("s", "problem"),
    [
        (sample([J], J), None),
        (sample([J + "-20251001"], J + "-20251001"), None),  # a dated id is the requested judge
        (sample([J, J + "-20251001"], None), None),  # two spellings of the one requested model
        (
            sample(["claude-opus-5"], "claude-opus-5"),
            f"a judge reply named 'claude-opus-5' as serving it, not the requested '{J}'",
        ),
        (sample(["claude-opus-5"], None), f"a judge reply reported 'claude-opus-5', not the requested '{J}'"),
        (sample([], None), "a judge reply reported no model (an anonymous reply)"),
        # several models: the reply must name the requested one as serving it; how tokens split says nothing
        (sample(["claude-opus-5", J], J), None),
        (
            sample(["claude-opus-5", J], None),
            f"a judge reply reported several models ('claude-opus-5', '{J}') and named none as serving it",
        ),
        (
            sample([J, "claude-opus-5"], "claude-opus-5"),
            f"a judge reply named 'claude-opus-5' as serving it, not the requested '{J}'",
        ),
        # one id, but a serving id naming another model: the reply contradicts itself and fails
        (sample([J], "claude-opus-5"), f"a judge reply named 'claude-opus-5' as serving it, not the requested '{J}'"),
        # before 0.16: reported_model alone; serving_id then held a request id and is not read as a model
        (sample(None, "req_011CV", J), None),
        (sample(None, None, None), "a judge reply reported no model (an anonymous reply)"),
    ],
)
def test_each_returned_sample_must_report_the_requested_judge(s: JudgeSample, problem: str | None) -> None:
    assert sample_identity(J, s) == problem


def test_refused_evidence_fails_the_identity_check() -> None:
    s = JudgeSample(score=0.5, valid=True, reported_ids=[], evidence_refused="the reply reported 17 model ids")
    assert sample_identity(J, s) == "a judge reply's identity evidence was not kept: the reply reported 17 model ids"


def test_the_bounds_are_exact() -> None:
    assert EVIDENCE.ids_per_sample == 16 and EVIDENCE.id_chars == 256
    assert evidence_over_limits(["m"] * 16, None) is None
    assert evidence_over_limits(["m"] * 17, None) == "the reply reported 17 model ids (at most 16 are kept)"
    assert evidence_over_limits(["m" * 256], "s" * 256) is None
    assert evidence_over_limits(["m"], "s" * 257) == "the reply reported a model id of 257 characters (at most 256)"


def test_an_api_reply_seals_its_one_model_as_reported_and_serving_and_keeps_the_request_id_apart() -> None:
    gen = Generation(
        text="{}",
        reported_model=J + "-20251001",
        model_source="reported",
        reported_ids=(J + "-20251001",),
        request_id="req_011CV",
    )
    assert identity_evidence(gen) == {
        "reported_model": J + "-20251001",
        "reported_ids": [J + "-20251001"],
        "serving_id": J + "-20251001",
        "request_id": "req_011CV",
    }


def test_a_configured_id_is_not_reported_so_the_reply_is_anonymous() -> None:
    gen = Generation(text="{}", reported_model="gpt-5.5", model_source="configured", request_id="thread-1")
    evidence = identity_evidence(gen)
    assert (evidence["reported_ids"], evidence["serving_id"]) == ([], None)
    s = JudgeSample(score=0.5, valid=True, **evidence)
    assert sample_identity("gpt-5.5", s) == "a judge reply reported no model (an anonymous reply)"


def test_oversized_evidence_is_refused_before_any_id_is_copied() -> None:
    huge = "x" * 10_000
    gen = Generation(text="{}", reported_model=huge, model_source="reported", reported_ids=(huge,), request_id="r")
    evidence = identity_evidence(gen)
    assert evidence == {
        "reported_ids": [],
        "evidence_refused": "the reply reported a model id of 10000 characters (at most 256)",
    }
    assert huge not in repr(JudgeSample(score=None, valid=False, **evidence))


ids = st.lists(st.text(min_size=0, max_size=300), max_size=24)


@given(ids=ids, serving=st.none() | st.text(max_size=300))
def test_any_evidence_is_bounded_and_passes_only_when_it_names_the_requested_judge(
    ids: list[str], serving: str | None
) -> None:
    gen = Generation(text="{}", reported_ids=tuple(ids), served_model=serving)
    evidence = identity_evidence(gen)
    s = JudgeSample(score=0.5, valid=True, **evidence)
    kept = judge_ids(s)
    assert len(kept) <= EVIDENCE.ids_per_sample and all(len(i) <= EVIDENCE.id_chars for i in kept)
    assert s.serving_id is None or len(s.serving_id) <= EVIDENCE.id_chars
    if sample_identity(J, s) is None:  # passing needs a requested id served, or every id the requested one
        named = [i for i in kept if i]
        assert named and (all(i.startswith(J) for i in named) or (s.serving_id or "").startswith(J))
