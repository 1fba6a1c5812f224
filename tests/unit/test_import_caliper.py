"""``core.imports.caliper`` on real Caliper 0.21.0 results (tests/fixtures/imports/caliper, none hand-edited).

The refusal tests change a parsed copy in memory, one field at a time, to show each reason; the files stay as
Caliper wrote them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
from pathlib import Path
from typing import Any

import pytest

from driftproof.core.fields import Refusal
from driftproof.core.imports.caliper import import_caliper
from driftproof.core.imports.common import SourceDoc, Written
from driftproof.core.models import Receipt, Tool
from driftproof.core.reading import evidence, not_regradable, read_receipt
from driftproof.core.words import Status, Verification
from tests.support.imports import json_doc

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "caliper"
WRITTEN = Written(Tool(name="driftproof", version="0.0.test"), "2026-12-01T00:00:00Z")


def doc(name: str, data: Any = None) -> SourceDoc:
    return json_doc(FIXTURES / name, data=data)


def data(name: str) -> Any:
    return json.loads((FIXTURES / name).read_bytes())


def means(receipt: Receipt, arm: str) -> list[float | None]:
    out: list[float | None] = []
    for case in receipt.cases:
        scores = evidence(getattr(case, arm)).scores
        out.append(sum(scores) / len(scores) if scores else None)
    return out


def close(a: list[float | None], b: list[float | None]) -> bool:
    return all(
        (x is None and y is None) or (x is not None and y is not None and math.isclose(x, y, abs_tol=1e-12))
        for x, y in zip(a, b, strict=True)
    )


@pytest.fixture(scope="module")
def changelog() -> Receipt:
    return import_caliper([doc("changelog-full.json"), doc("changelog-ablated-skill.json")], WRITTEN)


def test_changelog_pair_per_case_means(changelog: Receipt) -> None:
    # full run: pass,pass,task_fail = 2/3; then four tasks of 3 passes = 1.0 (Caliper's avg_score 0.9333)
    assert close(means(changelog, "with_skill"), [2 / 3, 1.0, 1.0, 1.0, 1.0])
    # ablated run: 1 pass of 3 = 1/3, 1.0, 1 of 3 = 1/3, 1.0, 1.0 (Caliper's avg_score 0.7333)
    assert close(means(changelog, "baseline"), [1 / 3, 1.0, 1 / 3, 1.0, 1.0])
    reading = read_receipt(changelog)
    # lift = mean(1/3, 0, 2/3, 0, 0) = 1/5, context only: no verdict
    assert reading.lift is not None and math.isclose(reading.lift, 0.2, abs_tol=1e-12)
    assert reading.status == Status.NO_VERDICT
    assert all(c.verdict is None for c in reading.cases)


def test_changelog_pair_names_what_produced_it(changelog: Receipt) -> None:
    assert changelog.schema_version == "0.17"
    assert changelog.verification == Verification.DECLARED
    source = changelog.source
    assert source is not None and source.harness == "caliper" and source.version is None
    assert [(d.name, d.role) for d in source.documents] == [
        ("changelog-full.json", "with_skill"),
        ("changelog-ablated-skill.json", "baseline"),
    ]
    full_sha = hashlib.sha256((FIXTURES / "changelog-full.json").read_bytes()).hexdigest()
    assert source.documents[0].sha256 == full_sha == source.document_sha256
    assert source.documents[0].recorded_at == "2026-11-29T16:26:03.517796Z"
    assert any(u.startswith("Caliper's own version") for u in source.unknown)
    assert any(u.startswith("judge samples per answer") for u in source.unknown)
    # Caliper defines k (3 attempts per task) but no judge samples per answer
    assert (changelog.counts.draws_per_arm_min, changelog.counts.draws_per_arm_max) == (3, 3)
    assert changelog.counts.judge_samples_per_draw is None
    skill = changelog.skill
    assert skill is not None and skill.path == "skills/changelog-writer/SKILL.md"
    assert skill.sha256 == "fc6ef5aa63a2c3160fe76f90dc109fc07bece875505f98d9f7e7618df5fc6c17"
    assert (skill.chars, skill.tokens) == (496, 124)  # ceil(496 / 4)
    assert changelog.run.harness is not None and changelog.run.harness.name == "claude-code"
    assert changelog.judge is not None and changelog.judge.model_requested == "claude-fake-haiku-20990101"
    assert changelog.judge.template_version == "4512b58f1c54"
    assert not_regradable(changelog) is not None


def test_changelog_pair_usage_is_the_four_token_fields(changelog: Receipt) -> None:
    # sums over the 15 attempts of each file: input 56+64+46 + 37+40+45 + 51+35+35 + 20+21+28 + 43+45+44 = 610
    gen = changelog.economics.generation
    assert (gen.with_skill.input_tokens, gen.with_skill.output_tokens) == (610, 15543)
    assert (gen.with_skill.cache_read_tokens, gen.with_skill.cache_write_tokens) == (216915, 44329)
    assert (gen.baseline.input_tokens, gen.baseline.cache_write_tokens) == (562, 39079)


def test_changelog_skill_fired_beside_the_score_not_in_the_ablated_arm(changelog: Receipt) -> None:
    fired = [(c.with_skill.skill_fired.fired, c.with_skill.skill_fired.observed) for c in changelog.cases]  # type: ignore[union-attr]
    # changelog-writer in `activated`: task 1 all three, task 2 once (beside commit-summarizer), task 3 all three,
    # task 4 once (the over-firing), task 5 never
    assert fired == [(3, 3), (1, 3), (3, 3), (1, 3), (0, 3)]
    for case in changelog.cases:
        base = case.baseline.skill_fired
        assert base is not None and base.fired is None and base.not_applicable == "skill not installed (ablated)"
    reading = read_receipt(changelog)
    assert (reading.cases[0].with_skill.skill_fired, reading.cases[0].with_skill.skill_fired_of) == (3, 3)
    assert reading.cases[0].baseline.skill_fired is None
    assert changelog.suite.notices == [
        "the baseline is not a bare agent: it kept neighbour skills commit-summarizer and MCP servers notes"
    ]


def test_the_pair_reads_the_same_in_either_order(changelog: Receipt) -> None:
    swapped = import_caliper([doc("changelog-ablated-skill.json"), doc("changelog-full.json")], WRITTEN)
    assert swapped.seal.sha256 == changelog.seal.sha256


def test_tidy_pair_lost_draws_carry_calipers_reason() -> None:
    receipt = import_caliper([doc("tidy-full.json"), doc("tidy-ablated.json")], WRITTEN)
    by_id = {c.id: c for c in receipt.cases}
    subject = by_id["writes a subject line"].with_skill.draws
    assert [(d.status, d.score, d.source_outcome) for d in subject] == [
        ("measured", 1.0, "pass"),
        ("measured", 0.0, "task_fail"),
        ("lost", None, "timeout"),
    ]
    assert subject[2].lost_reason == "timeout" and subject[2].skill_fired is None and subject[2].usage is None
    names = by_id["names the bug"].with_skill.draws[1]
    assert names.lost_reason == "judge_error: Judge returned unparseable response: I think it is fine, probably"
    flaky = [d.lost_reason for d in by_id["survives a flaky CLI"].with_skill.draws]
    assert flaky == ["infra_error: Segmentation fault (core dumped)", None, "infra_error: Error: fake crash"]
    # lost draws are out of the figures: (1.0 + 0.0) / 2, the judge_error out: (1.0 + 0.0) / 2, one pass
    assert close(means(receipt, "with_skill"), [0.5, 0.5, None, 1.0])
    # skill fired over the runs with no recorded error: subject 2 (the timeout out), probe 3, flaky 1
    assert [c.with_skill.skill_fired.observed for c in receipt.cases] == [2, 2, 3, 1]  # type: ignore[union-attr]


def test_a_trigger_probe_carries_no_score() -> None:
    receipt = import_caliper([doc("tidy-full.json"), doc("tidy-ablated.json")], WRITTEN)
    probe = next(c for c in receipt.cases if c.id == "probe fires on commit wording")
    assert probe.with_skill.draws == [] and probe.baseline.draws == []
    assert probe.with_skill.skill_fired is not None and probe.with_skill.skill_fired.fired == 0
    assert probe.notices[0].startswith("trigger-only task")


def test_an_interrupted_single_run_is_one_arm_with_not_run_draws() -> None:
    receipt = import_caliper([doc("tidy-interrupted.json")], WRITTEN)
    first = receipt.cases[0].with_skill.draws
    assert [d.source_outcome for d in first] == ["pass", "task_fail", "not_run"]
    assert first[2].lost_reason == "not_run: run interrupted"
    assert all(c.baseline.draws == [] for c in receipt.cases)
    assert receipt.suite.notices[0].startswith("a single Caliper run with no --ablate partner")
    reading = read_receipt(receipt)
    assert reading.lift is None and reading.status == Status.NO_VERDICT


def test_a_run_with_every_attempt_lost_imports_with_no_score() -> None:
    receipt = import_caliper([doc("tidy-all-infra-error.json")], WRITTEN)
    draws = receipt.cases[0].with_skill.draws
    assert [d.status for d in draws] == ["lost", "lost"]
    assert (
        draws[0].lost_reason == "infra_error: --dangerously-skip-permissions cannot be used with root/sudo privileges"
    )


def with_change(name: str, path: list[str | int], value: Any) -> SourceDoc:
    changed = copy.deepcopy(data(name))
    target = changed
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return doc(name, changed)


FULL, BASE = "changelog-full.json", "changelog-ablated-skill.json"


@pytest.mark.parametrize(
    ("docs", "expected"),
    [
        ([with_change(FULL, ["run", "era"], None)], "changelog-full.json: run.era: null: a legacy Caliper run"),
        ([with_change(FULL, ["run", "era"], "preload")], "run.era: 'preload' is not a loading discipline"),
        ([doc(FULL), with_change(BASE, ["run", "k"], 5)], "changelog-ablated-skill.json: run.k: 5 here, 3 in"),
        ([doc(FULL), with_change(BASE, ["run", "spec"], "other")], "run.spec: 'other' here, 'changelog' in"),
        ([doc(FULL), with_change(BASE, ["run", "model"], "m2")], "run.model: 'm2' here"),
        ([doc(FULL), with_change(BASE, ["run", "backend"], "codex")], "run.backend: 'codex' here"),
        ([doc(FULL), with_change(BASE, ["run", "judge_model"], "j2")], "run.judge_model: 'j2' here"),
        ([doc(FULL), with_change(BASE, ["run", "judge_backend"], "codex")], "run.judge_backend: 'codex' here"),
        ([doc(FULL), with_change(BASE, ["run", "mcp_servers"], [])], "run.mcp_servers: [] here, ['notes'] in"),
        ([doc(FULL), with_change(BASE, ["run", "ablated"], ["mcp:notes"])], "run.ablated: ['mcp:notes']: the baseline"),
        ([doc(FULL), with_change(BASE, ["run", "ablated"], ["nope"])], "run.ablated: 'nope' is not among the skills"),
        ([doc(FULL), with_change(BASE, ["skill_snapshots"], [])], "skill_snapshots: none; expected the full run's"),
        (
            [doc(FULL), with_change(BASE, ["skill_snapshots", 0, "files", "SKILL.md", "hash"], "sha256:" + "0" * 64)],
            "skill_snapshots[0].files: neighbour 'commit-summarizer''s files differ",
        ),
        ([doc(FULL), doc(FULL)], "run.ablated: [] in both files"),
        ([doc(BASE), doc(BASE)], "run.ablated: an ablation in both files"),
        ([doc(BASE)], "run.ablated: an --ablate run alone has no with-skill arm"),
        ([doc(FULL), doc(BASE), doc(BASE)], "(top level): a Caliper import reads one full run"),
        ([doc(FULL)], "changelog-full.json: skill_snapshots: 2 skills installed"),
        (
            [with_change(FULL, ["task_results", 0, "score"], 1.0)],
            "task_results[0].score: stored 1, but the attempts give 0.6667",
        ),
        (
            [with_change(FULL, ["task_results", 0, "attempts", 0, "outcome"], "skipped")],
            "attempts[0].outcome: expected one of",
        ),
        (
            [with_change(FULL, ["task_results", 0, "attempts", 1, "outcome"], "not_checked")],
            "task_results[0].attempts[1].outcome: not_checked beside scored outcomes",
        ),
        (
            [with_change(FULL, ["task_results", 0, "attempts", 0, "attempt"], 4)],
            "attempts[0].attempt: 4 is above k = 3",
        ),
        (
            [with_change(FULL, ["task_results", 1, "task_name"], "Writes a Keep-a-Changelog entry")],
            "task_name: 'Writes",
        ),
        ([with_change(FULL, ["run", "k"], "three")], "run.k: expected a whole number ≥ 1, found 'three'"),
        (
            [doc(FULL, {"results": {"results": []}})],
            "run: missing; a Caliper results file holds run, task_results; this looks like a promptfoo file",
        ),
        ([doc(FULL, [1, 2])], "(top level): a Caliper results file is a JSON object, found a list"),
    ],
)
def test_each_refusal_names_the_file_and_the_field(docs: list[SourceDoc], expected: str) -> None:
    with pytest.raises(Refusal) as caught:
        import_caliper(docs, WRITTEN)
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


def test_skill_named_for_a_single_run_with_several_installed() -> None:
    receipt = import_caliper([doc(FULL)], WRITTEN, skill="commit-summarizer")
    assert receipt.skill is not None and receipt.skill.path == "skills/commit-summarizer/SKILL.md"
    with pytest.raises(Refusal, match="'nope' is not among the skills the full run installed"):
        import_caliper([doc(FULL)], WRITTEN, skill="nope")
    with pytest.raises(Refusal, match="'commit-summarizer' is not among"):
        import_caliper([doc(FULL), doc(BASE)], WRITTEN, skill="commit-summarizer")
