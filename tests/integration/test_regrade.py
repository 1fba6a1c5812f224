"""``driftproof regrade`` (issue 12): kept answers graded again, every refusal before any output, calls counted.

Call counts by hand: the suite has 2 cases x 2 arms x 3 draws = 12 answers, 2 judge samples each.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftproof import batch_runner
from driftproof.core.models import Receipt
from driftproof.core.reading import read_receipt
from driftproof.core.seal import seal_receipt, sha256_text
from driftproof.errors import InputError, RunStopped
from driftproof.prices import price_for
from driftproof.receipts import load_receipt, write_receipt
from driftproof.regrade import RegradeRequest, regrade
from driftproof.run import RunRequest, run_suite
from tests.support.fake_llm_script import FakeReply, FakeUsage, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, FakeLLMServer

SKILL = "Always answer with a Conventional Commits subject line."
JUDGE = "claude-haiku-4-5"
KEY = "sk-ant-" + "test-regrade-0123456789abcdef"  # fake, key-shaped for the redaction checks


def write_suite(tmp: Path, rubric: str = "feat wins", prompt_b: str = "Task b.", extra: bool = False) -> Path:
    (tmp / "SKILL.md").write_text(SKILL, encoding="utf-8")
    cases = [
        {"id": "a", "prompt": "Task a.", "rubric": rubric},
        {"id": "b", "prompt": prompt_b, "rubric": rubric},
    ]
    if extra:
        cases.append({"id": "c", "prompt": "Task c.", "rubric": rubric})
    path = tmp / f"suite-{abs(hash((rubric, prompt_b, extra)))}.yaml"
    path.write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    return path


def script(tmp: Path, name: str, with_scores: list[float], base_scores: list[float], lost_b: bool = False) -> Path:
    """Each draw's judge scores per arm; with ``lost_b`` case b's baseline draw 2 is lost (a timeout)."""
    base: list[dict[str, Any]] = [{"answer": "plain", "scores": base_scores}]
    if lost_b:
        base_b = [base[0], {"lost": "timeout"}, base[0]]
    path = tmp / name
    body = {
        "cases": {
            "a": {"with_skill": [{"answer": "feat: a", "scores": with_scores}], "baseline": base},
            "b": {"with_skill": [{"answer": "feat: b", "scores": with_scores}], "baseline": base_b if lost_b else base},
        }
    }
    path.write_text(yaml.safe_dump(body), encoding="utf-8")
    return path


def stub_original(tmp: Path, lost_b: bool = False) -> Path:
    suite = write_suite(tmp)
    out = tmp / "orig.json"
    run_suite(
        RunRequest(
            suite=suite,
            out=out,
            provider="stub",
            draws=3,
            max_draws=3,
            judge_samples=2,
            script=script(tmp, "run.yaml", [0.8, 0.9], [0.4, 0.5], lost_b),
            keep_transcripts=True,
        )
    )
    return out


def outputs(tmp: Path) -> set[str]:
    return {p.name for p in tmp.iterdir()}


# -- end to end on the stub -----------------------------------------------------------------------------------


def test_a_plain_judge_regrade_grades_every_kept_answer_afresh_and_counts_its_calls(tmp_path: Path) -> None:
    original = stub_original(tmp_path, lost_b=True)
    outcome = regrade(RegradeRequest(receipt=original, answers=tmp_path / "orig.answers.jsonl"), log=lambda _: None)
    r = outcome.receipt
    assert outcome.path == tmp_path / "orig.regrade.json" and r.regrade is not None
    # 12 draws, 1 lost in the original: 11 answers reach the grader, 2 samples each = 22 logical judge calls;
    # the stub makes no endpoint attempt
    assert (r.regrade.kind, r.regrade.graded, r.regrade.calls.judge_calls, r.regrade.calls.endpoint_attempts) == (
        "judge",
        11,
        22,
        0,
    )
    [carried] = r.regrade.carried
    assert (carried.case, carried.arm, carried.index) == ("b", "baseline", 1)
    assert carried.reason == "lost in the original: timeout (scripted)"
    b_base = r.cases[1].baseline.draws
    assert [d.status for d in b_base] == ["measured", "lost", "measured"]  # lost stays lost
    # the stub's own synthetic judge (no script given to the regrade): same answers, fresh samples
    orig = load_receipt(original)
    assert r.regrade.original_sha256 == orig.seal.sha256 and r.regrade.original_tool == orig.tool
    assert r.regrade.answers_sha256 == orig.transcripts.sha256 if orig.transcripts else False
    assert r.regrade.suite_sha256 == orig.suite.sha256 and r.regrade.original_judge == orig.judge
    assert r.run == orig.run  # the original's lane, harness and capture: stale reads what made the answers
    assert r.verification == "UNVERIFIED"  # the stub exception; an UNVERIFIED original stays UNVERIFIED
    for c_new, c_old in zip(r.cases, orig.cases, strict=True):
        for arm in ("with_skill", "baseline"):
            for new, old in zip(getattr(c_new, arm).draws, getattr(c_old, arm).draws, strict=True):
                assert new.answer_sha256 == old.answer_sha256 and new.checks == old.checks  # checks never rerun
    # its own archive: the graded answers with today's replies, sealed
    assert load_receipt(outcome.path).transcripts is not None
    lines = (tmp_path / "orig.regrade.answers.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 11 and all(len(json.loads(x)["judge_replies"]) == 2 for x in lines)


def test_a_rubric_regrade_reads_the_revised_tasks_and_its_scores(tmp_path: Path) -> None:
    original = stub_original(tmp_path)
    revised = write_suite(tmp_path, rubric="feat wins, and say why")
    rescore = script(tmp_path, "rescore.yaml", [0.6, 0.7], [0.5, 0.6])
    out = tmp_path / "rubric.json"
    request = RegradeRequest(
        receipt=original, answers=tmp_path / "orig.answers.jsonl", suite=revised, out=out, script=rescore
    )
    r = regrade(request, log=lambda _: None).receipt
    assert r.regrade is not None and (r.regrade.kind, r.regrade.graded, r.regrade.calls.judge_calls) == (
        "rubric",
        12,
        24,
    )
    orig = load_receipt(original)
    assert r.regrade.suite_sha256 != orig.suite.sha256 and r.suite.path == str(revised)
    assert [c.rubric_sha256 for c in r.cases] != [c.rubric_sha256 for c in orig.cases]  # the revised rubric
    # every with-skill draw now scores mean(0.6, 0.7) = 0.65, every baseline draw mean(0.5, 0.6) = 0.55:
    # a lift of 0.65 - 0.55 = 0.10 per case and overall (it was 0.85 - 0.45 = 0.40)
    assert [d.score for c in r.cases for d in c.with_skill.draws] == pytest.approx([0.65] * 6)
    assert [d.score for c in r.cases for d in c.baseline.draws] == pytest.approx([0.55] * 6)
    assert read_receipt(r).lift == pytest.approx(0.10) and read_receipt(orig).lift == pytest.approx(0.40)


def test_the_cli_prints_what_it_graded_and_carried(tmp_path: Path) -> None:
    original = stub_original(tmp_path, lost_b=True)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "driftproof",
            "regrade",
            str(original),
            "--answers",
            str(tmp_path / "orig.answers.jsonl"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seal = load_receipt(original).seal.sha256[:12]
    assert f"plain judge regrade of {seal}: graded 11 kept answers, carried 1; 22 judge calls, 0 endpoint attempts" in (
        done.stdout
    )
    assert "carried b baseline draw 2: lost in the original: timeout (scripted)" in done.stdout


# -- refusals: each writes nothing --------------------------------------------------------------------------


def resealed(path: Path, **update: Any) -> Path:
    """The receipt at ``path`` changed and sealed again (a fixture for a refusal reason)."""
    body = load_receipt(path).model_dump(mode="json", exclude={"seal", "schema_version"})
    body.update({k: v.model_dump(mode="json") if hasattr(v, "model_dump") else v for k, v in update.items()})
    write_receipt(seal_receipt(body), path)
    return path


def with_archive(tmp: Path, original: Path, text: str) -> Path:
    """An archive of ``text`` and the original resealed to name it, so the checks after the digest are reached."""
    archive = tmp / "orig.answers.jsonl"
    archive.write_text(text, encoding="utf-8")
    resealed(original, transcripts={"path": archive.name, "sha256": sha256_text(text)})
    return archive


def strip_ids(receipt: Receipt, ids: list[str] | None) -> list[dict[str, Any]]:
    cases = receipt.model_dump(mode="json")["cases"]
    for case in cases:
        for arm in ("with_skill", "baseline"):
            for draw in case[arm]["draws"]:
                for s in draw["judge_samples"]:
                    s["reported_ids"] = ids
    return cases


Refusal = Callable[[Path, Path], RegradeRequest]


def _req(tmp: Path, original: Path, **kw: Any) -> RegradeRequest:
    return RegradeRequest(receipt=original, answers=tmp / "orig.answers.jsonl", **kw)


def _edited_archive(tmp: Path, original: Path) -> RegradeRequest:
    archive = tmp / "orig.answers.jsonl"
    archive.write_bytes(archive.read_bytes().replace(b"feat: a", b"feat: A", 1))
    return _req(tmp, original)


def _line(tmp: Path, original: Path, edit: Callable[[dict[str, Any]], Any]) -> RegradeRequest:
    lines = (tmp / "orig.answers.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    changed = edit(first)
    lines[0] = changed if isinstance(changed, str) else json.dumps(changed)
    with_archive(tmp, original, "\n".join(lines) + "\n")
    return _req(tmp, original)


def _drop_line(tmp: Path, original: Path) -> RegradeRequest:
    lines = (tmp / "orig.answers.jsonl").read_text(encoding="utf-8").splitlines()
    with_archive(tmp, original, "\n".join(lines[1:]) + "\n")
    return _req(tmp, original)


REFUSALS: list[tuple[str, Refusal, str]] = [
    (
        "an import",
        lambda t, o: _req(t, resealed(o, source={"harness": "caliper"})),
        "receipt: regrade refused: an imported (DECLARED) receipt holds another tool's figures and no answers",
    ),
    (
        "an aggregates-only import",
        lambda t, o: _req(t, resealed(o, uncertainty_unavailable="aggregates_only", verification="DECLARED")),
        "regrade refused: an aggregates-only receipt has no per-run score to grade again",
    ),
    (
        "no kept answers",
        lambda t, o: _req(t, resealed(o, transcripts=None)),
        "receipt: regrade refused: it kept no answers (run with --keep-transcripts to keep them)",
    ),
    (
        "no judge identity",
        lambda t, o: _req(
            t,
            resealed(o, judge=load_receipt(o).judge.model_copy(update={"models_reported": []})),  # type: ignore[union-attr]
        ),
        "it records no judge identity: no judge reply reported a model",
    ),
    (
        "samples written before 0.16",
        lambda t, o: _req(t, resealed(o, cases=strip_ids(load_receipt(o), None))),
        "its judge samples carry no identity evidence (written before 0.16)",
    ),
    (
        "an anonymous original reply",
        lambda t, o: _req(t, resealed(o, cases=strip_ids(load_receipt(o), []))),
        "a judge reply it recorded is anonymous (it reported no model)",
    ),
    (
        "a grader setting the original lacks",
        lambda t, o: _req(
            t,
            resealed(o, judge=load_receipt(o).judge.model_copy(update={"isolation": None})),  # type: ignore[union-attr]
        ),
        "the original does not record the grader's isolation, so no grader can be held to it",
    ),
    (
        "another judge model",
        lambda t, o: _req(t, o, judge_model="stub-judge-2"),
        "the grader's model differs: 'stub-judge' in the original, 'stub-judge-2' now",
    ),
    (
        "another tool version",
        lambda t, o: _req(
            t,
            resealed(o, judge=load_receipt(o).judge.model_copy(update={"tool_version": "driftproof-stub 0.0.9"})),  # type: ignore[union-attr]
        ),
        "the grader's tool version differs: 'driftproof-stub 0.0.9' in the original",
    ),
    (
        "another template",
        lambda t, o: _req(
            t,
            resealed(o, judge=load_receipt(o).judge.model_copy(update={"template_sha256": "0" * 64})),  # type: ignore[union-attr]
        ),
        "the grader's instructions (template sha256) differs",
    ),
    (
        "other routing settings",
        lambda t, o: _req(
            t,
            resealed(o, judge=load_receipt(o).judge.model_copy(update={"routing": {"HTTPS_PROXY": "http://p:1"}})),  # type: ignore[union-attr]
        ),
        "the grader's routing settings differs: {'HTTPS_PROXY': 'http://p:1'} in the original, {} now",
    ),
    ("a missing archive", lambda t, o: RegradeRequest(receipt=o, answers=t / "nope.jsonl"), "nope.jsonl: no such file"),
    ("a directory", lambda t, o: RegradeRequest(receipt=o, answers=t), "is a directory, not an answers archive"),
    ("an edited archive", _edited_archive, "is not the archive the receipt sealed"),
    ("not JSON", lambda t, o: _line(t, o, lambda e: "{not json"), "line 1: not a JSON object"),
    ("other keys", lambda t, o: _line(t, o, lambda e: {**e, "extra": 1}), "line 1: keys: answer, arm, case, extra"),
    (
        "a bad arm",
        lambda t, o: _line(t, o, lambda e: {**e, "arm": "placebo"}),
        "line 1: arm: not with_skill or baseline",
    ),
    ("a bad index", lambda t, o: _line(t, o, lambda e: {**e, "index": True}), "line 1: index: not a draw index"),
    (
        "a draw the receipt lacks",
        lambda t, o: _line(t, o, lambda e: {**e, "index": 7}),
        "draw 7: not a draw of the receipt",
    ),
    (
        "another answer",
        lambda t, o: _line(t, o, lambda e: {**e, "answer": "forged"}),
        "answer: not the answer the receipt graded",
    ),
    (
        "replies not text",
        lambda t, o: _line(t, o, lambda e: {**e, "judge_replies": [1]}),
        "judge_replies: a reply is not text",
    ),
    (
        "the suite changed",
        lambda t, o: (
            Path(load_receipt(o).suite.path or "").write_text(
                yaml.safe_dump({"skill": "SKILL.md", "cases": [{"id": "a", "prompt": "Task a.", "rubric": "x"}]})
            ),
            _req(t, o),
        )[1],
        "suite.sha256: regrade refused:",
    ),
    (
        "a case the original lacks",
        lambda t, o: _req(t, o, suite=write_suite(t, extra=True)),
        "case 'c' is not in the original: it has no kept answers to grade",
    ),
    (
        "a changed prompt",
        lambda t, o: _req(t, o, suite=write_suite(t, prompt_b="Task b, reworded.")),
        "case 'b': its prompt changed, so its kept answers answer another task (run it again)",
    ),
    (
        "the original as output",
        lambda t, o: _req(t, o, out=o),
        "is the original receipt; write the regrade's receipt elsewhere",
    ),
    # as run refuses them (driftproof.run.check_count), not read as "as recorded"
    ("no calls in flight", lambda t, o: _req(t, o, concurrency=0), "--concurrency must be a whole number from 1 to"),
    ("calls in flight below 0", lambda t, o: _req(t, o, concurrency=-3), "whole number from 1 to 10000, got -3"),
]


SUITE_REASONS = {"the suite changed", "a case the original lacks", "a changed prompt"}
"""Refusals that are about the tasks given: each is already the one kind of regrade it names."""


@pytest.mark.parametrize("kind", ["judge", "rubric"])
@pytest.mark.parametrize(("name", "make", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_every_refusal_names_its_reason_and_writes_nothing(
    tmp_path: Path, name: str, make: Refusal, message: str, kind: str
) -> None:
    if kind == "rubric" and name in SUITE_REASONS:
        pytest.skip("a refusal about the tasks given is one kind of regrade already")
    original = stub_original(tmp_path)
    request = make(tmp_path, original)
    if kind == "rubric":  # the same refusal when the answers are graded under a revised rubric
        request = replace(request, suite=write_suite(tmp_path, rubric="feat wins, and say why"))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    with pytest.raises(InputError) as refused:
        regrade(request, log=lambda _: None)
    assert message in str(refused.value), name
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 2000
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before  # nothing written


def test_a_missing_answer_is_carried_lost_and_named(tmp_path: Path) -> None:
    original = stub_original(tmp_path)
    _drop_line(tmp_path, original)
    r = regrade(_req(tmp_path, original), log=lambda _: None).receipt
    assert r.regrade is not None and (r.regrade.graded, r.regrade.calls.judge_calls) == (11, 22)
    [carried] = r.regrade.carried
    assert carried.reason.startswith("its answer is missing from the answers archive")
    assert r.cases[0].with_skill.draws[0].status == "lost"  # graded by nobody today: out of every figure


def test_the_archive_bounds_are_checked_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from driftproof import regrade as module
    from driftproof.bounded import Limits

    original = stub_original(tmp_path)
    monkeypatch.setattr(module, "ARCHIVE", Limits(max_bytes=100, max_depth=8))
    with pytest.raises(InputError, match=r"too large: [\d,]+ bytes; an answers file holds at most 100 bytes"):
        regrade(_req(tmp_path, original), log=lambda _: None)
    monkeypatch.undo()
    monkeypatch.setattr(module, "EVIDENCE", module.EVIDENCE.__class__(archive_lines=5))
    with pytest.raises(InputError, match=r"lines: 12; an answers archive holds at most 5"):
        regrade(_req(tmp_path, original), log=lambda _: None)


@pytest.fixture(scope="module")
def stub_made(tmp_path_factory: Any) -> Path:
    return stub_original(tmp_path_factory.mktemp("made"))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400) | st.text(max_size=400).map(lambda t: t.encode("utf-8")))
def test_fuzzed_archives_are_refused_in_one_line_and_write_nothing(
    tmp_path_factory: Any, stub_made: Path, data: bytes
) -> None:
    import hashlib
    import shutil

    tmp = tmp_path_factory.mktemp("fuzz")
    for name in ("orig.json", "SKILL.md"):
        shutil.copy(stub_made.parent / name, tmp / name)
    original = tmp / "orig.json"
    archive = tmp / "orig.answers.jsonl"
    archive.write_bytes(data)
    resealed(original, transcripts={"path": archive.name, "sha256": hashlib.sha256(data).hexdigest()})
    before = outputs(tmp)
    try:
        outcome = regrade(_req(tmp, original), log=lambda _: None)
    except InputError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 2000
        assert outputs(tmp) == before
    else:  # only an archive that names no draw at all grades nothing and carries every draw
        assert outcome.receipt.regrade is not None and outcome.receipt.regrade.graded == 0


# -- through the real SDK on the loopback server -------------------------------------------------------------


def responder(judge_model: str | None = f"{JUDGE}-20251001") -> Callable[[RecordedRequest], FakeReply]:
    def reply(req: RecordedRequest) -> FakeReply:
        if "<<<ANSWER" in req.prompt_text:
            answer = req.prompt_text.split("<<<ANSWER\n", 1)[1].split("\nANSWER>>>", 1)[0]
            score = 0.9 if answer.startswith("feat:") else 0.4
            return json_text_reply(
                {"score": score, "reason": "graded"},
                model=judge_model,
                usage=FakeUsage(input_tokens=200, output_tokens=20),
            )
        text = "feat: add the header" if SKILL in req.system_text else "Header support"
        return FakeReply(text=text, usage=FakeUsage(input_tokens=50, output_tokens=10))

    return reply


def env(server: FakeLLMServer) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}


def api_original(tmp: Path, server: FakeLLMServer, *, batch: bool = False) -> Path:
    out = tmp / "orig.json"
    run_suite(
        RunRequest(
            suite=write_suite(tmp),
            out=out,
            provider="anthropic",
            model="claude-sonnet-4-6",
            judge_model=JUDGE,
            draws=3,
            max_draws=3,
            judge_samples=2,
            concurrency=1,
            environ=env(server),
            keep_transcripts=True,
            batch=batch,
        )
    )
    return out


def test_a_tested_original_regraded_through_the_sdk_stays_tested_and_counts_retries(tmp_path: Path) -> None:
    with FakeLLMServer(responder()) as server:
        original = api_original(tmp_path, server)
        server.queue(ANTHROPIC_MESSAGES, FakeReply.error(429, retry_after=0))  # the regrade's first call
        before = len(server.requests)
        request = RegradeRequest(
            receipt=original, answers=tmp_path / "orig.answers.jsonl", environ=env(server), concurrency=1
        )
        r = regrade(request, log=lambda _: None).receipt
        made = len(server.requests) - before
    assert r.verification == "TESTED" and r.regrade is not None
    # 12 answers x 2 samples = 24 logical judge calls; the 429 and its retry are 2 attempts of one: 25
    assert (r.regrade.calls.judge_calls, r.regrade.calls.endpoint_attempts, made) == (24, 25, 25)
    assert r.judge is not None and r.judge.models_reported == [f"{JUDGE}-20251001"]
    # judge overhead counts the regraded draws, each once: 12 draws x 2 samples x (200 in, 20 out)
    assert (r.economics.judge_overhead.usage.input_tokens, r.economics.judge_overhead.judged_draws_counted) == (
        4800,
        12,
    )
    assert KEY not in (tmp_path / "orig.regrade.json").read_text(encoding="utf-8")


def test_a_regrade_of_a_batch_run_prices_its_calls_at_the_list_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The original's judge calls went through Message Batches at half price; a regrade's are plain requests."""
    monkeypatch.setattr(batch_runner, "POLL_S", 0.001)
    with FakeLLMServer(responder()) as server:
        original = api_original(tmp_path, server, batch=True)
        request = RegradeRequest(
            receipt=original, answers=tmp_path / "orig.answers.jsonl", environ=env(server), concurrency=1
        )
        r = regrade(request, log=lambda _: None).receipt
    halved, listed = load_receipt(original).economics.judge_overhead.price, price_for(JUDGE)
    assert halved is not None and listed is not None and halved.input_per_mtok == listed.input_per_mtok / 2
    assert r.economics.judge_overhead.price == listed
    # 12 draws x 2 samples x (200 in, 20 out) = 4,800 in and 480 out, at the list rates
    expected = (4800 * listed.input_per_mtok + 480 * listed.output_per_mtok) / 1e6
    assert r.economics.judge_overhead.cost_usd == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("claude-haiku-4-5-20991231", "the grader answered as claude-haiku-4-5-20991231; the original's answered as "),
        ("", r"a judge reply today is anonymous \(it reported no model\)"),  # a gateway that names no model
    ],
)
def test_a_grader_answering_as_another_dated_model_or_anonymously_is_refused(
    tmp_path: Path, model: str | None, message: str
) -> None:
    with FakeLLMServer(responder()) as server:  # the same address: the base URL is a recorded grader setting
        original = api_original(tmp_path, server)
        before = outputs(tmp_path)
        server.responder = responder(model)
        request = RegradeRequest(receipt=original, answers=tmp_path / "orig.answers.jsonl", environ=env(server))
        with pytest.raises(InputError, match=message):
            regrade(request, log=lambda _: None)
    assert outputs(tmp_path) == before


def test_a_401_stops_the_regrade_before_anything_is_written(tmp_path: Path) -> None:
    with FakeLLMServer(responder()) as server:
        original = api_original(tmp_path, server)
        before, sent = outputs(tmp_path), len(server.requests)
        server.responder = lambda req: FakeReply.error(401)
        request = RegradeRequest(receipt=original, answers=tmp_path / "orig.answers.jsonl", environ=env(server))
        with pytest.raises(RunStopped, match="401"):
            regrade(request, log=lambda _: None)
        assert len(server.requests) - sent <= 4  # stopped at the first refusal, not after 24 calls
    assert outputs(tmp_path) == before
