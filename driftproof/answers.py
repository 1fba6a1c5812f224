"""From calls to draws: an answer's record, a judge sample, and the draw they make once every sample is in.

The runner builds the same draw from what a call returned as a resumed run builds from the journal, so these
functions read records (`AnswerRecord`, `SampleRecord`), never a lane's `Generation` beyond `answer_record`
and `judge_sample`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from driftproof.checks import run_checks
from driftproof.core.build import lost_draw, measured_draw
from driftproof.core.defaults import EVIDENCE
from driftproof.core.models import Draw, JudgeSample
from driftproof.core.seal import sha256_text
from driftproof.journal import AnswerRecord, DrawResult, SampleRecord
from driftproof.judge import evidence_over_limits, parse_reply
from driftproof.judge_batch import REQUEST_SAMPLES
from driftproof.lanes.base import Generation
from driftproof.suite import SuiteCase


class Finished(NamedTuple):
    """A finished draw, and whether it was lost to failed calls (the runner holds it back from the journal)."""

    result: DrawResult
    lost_to_a_failed_call: bool


def answer_record(gen: Generation) -> AnswerRecord:
    """What the journal keeps of an answering call, with why its draw is lost before judging, if it is."""
    reason = gen.lost_reason or gen.error or ("timeout" if gen.timed_out else None)
    if reason is None and not gen.assessed and not gen.text.strip():
        # a bare reply (API, stub) is the answer itself; only an empty one holds none. Agent lanes
        # apply the capture rules themselves and mark the draw assessed.
        reason = "no answer"
    return AnswerRecord(
        text=gen.text,
        attempts=gen.attempts,
        lost_reason=reason,
        call_error=gen.error,
        failed_call=gen.error is not None and gen.failure is not None,  # the endpoint failed, not the answer
        reported_model=gen.reported_model,
        model_source=gen.model_source,
        served_model=gen.served_model,
        request_id=gen.request_id,
        usage=gen.usage,
        captured_files=gen.captured_files,
        skill_fired=gen.skill_fired,
        skills_fired=gen.skills_fired,
        side_calls=gen.side_calls,
        harness_overhead=gen.extra.get("harness_overhead"),
        request_draws=gen.extra.get(REQUEST_SAMPLES),
    )


def judge_sample(case: SuiteCase, gen: Generation) -> SampleRecord:
    """One judge call as a sample: a failed call is a missing sample (``returned: false``), out of the mean."""
    if gen.error is not None or gen.timed_out:
        sample = JudgeSample(
            score=None,
            valid=False,
            invalid_reason=f"judge call failed: {gen.error or 'timeout'}",
            returned=False,
            score_text_sha256=sha256_text(gen.text) if gen.text else None,
            usage=gen.usage,
            request_samples=gen.extra.get(REQUEST_SAMPLES),
            **identity_evidence(gen),
        )
        return SampleRecord(sample, gen.text, gen.attempts)
    parsed = parse_reply(case, gen.text)
    sample = JudgeSample(
        score=parsed.score,
        valid=parsed.score is not None,
        invalid_reason=parsed.invalid_reason,
        returned=True,
        score_text_sha256=sha256_text(gen.text),
        usage=gen.usage,
        request_samples=gen.extra.get(REQUEST_SAMPLES),
        criteria=list(parsed.criteria) if parsed.criteria is not None else None,
        **identity_evidence(gen),
    )
    return SampleRecord(sample, gen.text, gen.attempts)


def identity_evidence(gen: Generation) -> dict[str, Any]:
    """What a judge reply reported of who wrote it, checked against its bounds before any id is copied.

    The serving id is the model the reply names as serving it: Claude Code's main-loop model, or the one model
    an API reply reports in its ``model`` field. A configured id (Codex) is not reported: the reply is anonymous.
    """
    serving = gen.served_model or (gen.reported_ids[0] if len(gen.reported_ids) == 1 else None)
    refused = evidence_over_limits(gen.reported_ids, serving)
    if refused is not None:
        return {"reported_ids": [], "evidence_refused": refused}
    request = gen.request_id if gen.request_id and len(gen.request_id) <= EVIDENCE.id_chars else None
    reported = gen.reported_model if gen.reported_model and len(gen.reported_model) <= EVIDENCE.id_chars else None
    return {
        "reported_model": reported,
        "reported_ids": list(gen.reported_ids),
        "serving_id": serving,
        "request_id": request,
    }


def _common(record: AnswerRecord) -> dict[str, Any]:
    """The draw fields every draw takes from its answer."""
    return {
        "usage": record.usage,
        "reported_model": record.reported_model,
        "model_source": record.model_source,
        "endpoint_attempts": record.attempts,
        "captured_files": list(record.captured_files) if record.captured_files is not None else None,
        "skill_fired": record.skill_fired,
        "skills_fired": list(record.skills_fired) if record.skills_fired is not None else None,
        "side_calls": list(record.side_calls) if record.side_calls is not None else None,
        "harness_overhead": record.harness_overhead,
        "request_draws": record.request_draws,
    }


def lost_answer(index: int, record: AnswerRecord) -> Finished:
    """The draw of an answer lost before judging (``record.lost_reason`` is set)."""
    draw = lost_draw(index, record.lost_reason or "no answer", **_common(record))
    result = DrawResult(draw, record.text or None, [], False, record.failed_call)
    return Finished(result, record.call_error is not None)


def judged_answer(case: SuiteCase, index: int, record: AnswerRecord, samples: Sequence[SampleRecord]) -> Finished:
    """The draw of a judged answer from all its samples, in sample order; lost when none is valid."""
    draw: Draw = measured_draw(
        index,
        [s.sample for s in samples],
        checks=run_checks(case.checks, record.text),
        answer_sha256=sha256_text(record.text),
        served_model=record.served_model,
        **_common(record),
    )
    no_reply = draw.score is None and all(s.sample.returned is False for s in samples)  # every judge call failed
    result = DrawResult(draw, record.text, [s.reply for s in samples], True, no_reply)
    return Finished(result, no_reply)
