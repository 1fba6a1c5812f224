"""Neighbour skills as provenance (``--delivery discover``): a run records them in ``skill.neighbours``, and an
edited neighbour makes ``driftproof stale`` draw both arms again, so a run stops carrying that baseline.

Through the fake ``claude`` (``tests/support/fake_cli``), with the suite of ``test_skills_fired``: the skill
under test ``commit-writer`` and its neighbour ``pr-writer``, one case, 2 draws an arm, one judge sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from driftproof.cli import main
from driftproof.core.seal import sha256_text
from driftproof.core.words import Staleness
from driftproof.run import run_suite
from driftproof.stale import stale_against
from tests.integration.test_skills_fired import SIBLING, request, suite_dir  # noqa: F401 - a fixture
from tests.support.fake_cli_harness import FakeCLI

EDITED = SIBLING.replace("Summarise the change.", "Summarise the change in one line.")


def test_a_discover_run_records_its_neighbours(suite_dir: Path, fake_cli: FakeCLI) -> None:  # noqa: F811
    fake_cli.use({"skill_calls": ["commit-writer"]})
    receipt = run_suite(request(suite_dir, "r.json")).receipt
    assert receipt.skill is not None
    (beside,) = receipt.skill.neighbours or []
    assert beside.model_dump() == {
        "name": "pr-writer",
        "path": str(suite_dir / "../pr-writer/SKILL.md"),
        "sha256": sha256_text(SIBLING),
        "chars": len(SIBLING),
    }
    plain = run_suite(request(suite_dir, "p.json", delivery="system_prompt")).receipt
    assert plain.skill is not None and plain.skill.neighbours is None  # nothing installed: not recorded


def test_an_edited_neighbour_reruns_both_arms_and_stops_the_carry(
    suite_dir: Path,  # noqa: F811
    fake_cli: FakeCLI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_cli.use({"skill_calls": ["commit-writer"]})
    main_path = suite_dir / "main.json"
    stored = run_suite(request(suite_dir, "main.json")).receipt
    assert stale_against(stored, request(suite_dir, "x.json")).stands  # unchanged: every arm stands

    (suite_dir.parent / "pr-writer" / "SKILL.md").write_text(EDITED, encoding="utf-8")
    reason = f"neighbour skills changed: pr-writer {sha256_text(SIBLING)[:12]} → {sha256_text(EDITED)[:12]}"
    report = stale_against(stored, request(suite_dir, "x.json"))
    (case,) = report.cases
    assert case.baseline == (Staleness.RERUN, (reason,))  # the baseline arm had pr-writer installed too
    assert case.with_skill == (Staleness.RERUN, (reason,))

    capsys.readouterr()
    flags = ["--provider", "anthropic", "--surface", "cli", "--delivery", "discover", "--judge-provider", "stub"]
    assert main(["stale", str(main_path), *flags, "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["cases"][0]["baseline"] == {"status": "rerun", "reasons": [reason]}

    # a PR run against the stored receipt draws its baseline instead of carrying it, and says why
    pr = run_suite(request(suite_dir, "pr.json", reference=main_path)).receipt
    assert all(d.carried_from is None for d in pr.cases[0].baseline.draws)
    assert len(pr.cases[0].baseline.draws) == 2
    assert reason in capsys.readouterr().err


def test_an_unchanged_neighbour_lets_the_baseline_be_carried(
    suite_dir: Path,  # noqa: F811
    fake_cli: FakeCLI,
) -> None:
    fake_cli.use({"skill_calls": ["commit-writer"]})
    stored = run_suite(request(suite_dir, "main.json")).receipt
    (suite_dir / "SKILL.md").write_text(
        "---\nname: commit-writer\ndescription: Writes commit messages.\n---\nUse conventional commits, briefly.\n",
        encoding="utf-8",
    )  # only the skill under test changes: the baseline arm stands, neighbours and all
    pr = run_suite(request(suite_dir, "pr.json", reference=suite_dir / "main.json")).receipt
    assert [d.carried_from for d in pr.cases[0].baseline.draws] == [stored.seal.sha256] * 2


def _interrupted(suite_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A run stopped by Ctrl-C at its second judge call: its journal is left for --resume."""
    import driftproof.run as rs
    from driftproof.errors import RunInterrupted

    real = rs.make_lanes
    calls: list[int] = []

    def lanes(req: Any) -> Any:
        lane, judge, model = real(req)
        generate = judge.generate

        def stopping(r: Any) -> Any:
            calls.append(1)
            if len(calls) == 2:
                raise KeyboardInterrupt
            return generate(r)

        judge.generate = stopping  # type: ignore[method-assign]
        return lane, judge, model

    monkeypatch.setattr(rs, "make_lanes", lanes)
    with pytest.raises(RunInterrupted):
        run_suite(request(suite_dir, "r.json", concurrency=1))
    monkeypatch.setattr(rs, "make_lanes", real)


def test_a_resume_after_a_neighbour_was_edited_is_refused_naming_it(
    suite_dir: Path,  # noqa: F811
    fake_cli: FakeCLI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from driftproof.errors import InputError

    fake_cli.use({"skill_calls": ["commit-writer"]})
    _interrupted(suite_dir, monkeypatch)
    journal = suite_dir / "r.json.journal"
    header = json.loads(journal.read_text().splitlines()[0])
    neighbour = str(suite_dir / "../pr-writer/SKILL.md")
    assert header["neighbours"] == {neighbour: sha256_text(SIBLING)}

    (suite_dir.parent / "pr-writer" / "SKILL.md").write_text(EDITED, encoding="utf-8")
    with pytest.raises(InputError) as refused:
        run_suite(request(suite_dir, "r.json", concurrency=1, resume=True))
    assert str(refused.value) == (
        f"{journal}: the neighbour skill {neighbour} is not the one the stopped run installed (it was edited, "
        "added or removed since), so the journal cannot be resumed; run without --resume to start afresh"
    )
    assert "\n" not in str(refused.value) and journal.exists() and not (suite_dir / "r.json").exists()

    (suite_dir.parent / "pr-writer" / "SKILL.md").write_text(SIBLING, encoding="utf-8")  # as it was: resumed
    receipt = run_suite(request(suite_dir, "r.json", concurrency=1, resume=True)).receipt
    assert len(receipt.cases[0].with_skill.draws) == 2 and not journal.exists()
