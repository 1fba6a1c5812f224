"""Pairwise judging needs both answers of a draw pair, and a carried baseline draw brings its scores but not its
answer: before, a pairwise run that carried its baseline judged no pair at all (the with-skill answers waited for
partners that never came) and said nothing. Now ``run`` and ``plan`` refuse the combination in one line before
any call, and the Action does not carry when ``judge-mode`` is pairwise. Stub lane."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.core.carry_sentences import PAIRWISE_CARRY
from driftproof.receipts import load_receipt
from tests.integration.test_carry_baseline import FAST, main_receipt  # noqa: F401 - a fixture
from tests.support.action_sim import RECEIPT, TOKEN, isolate, make_repos, push_payload, run_job
from tests.support.fake_github import FakeGitHub


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeGitHub]:
    """No ambient key, endpoint or git config (as ``test_action_e2e``), and the fake GitHub."""
    isolate(monkeypatch.setenv, monkeypatch.delenv, tmp_path)
    with FakeGitHub(token=TOKEN) as fake:
        yield fake


@pytest.mark.parametrize("command", ["run", "plan"])
def test_pairwise_with_a_carried_baseline_is_refused_in_one_line(
    tmp_path: Path,
    main_receipt: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    out = tmp_path / "pr.json"
    argv = [command, str(tmp_path / "suite.yaml"), *FAST, "--reference", str(main_receipt), "--judge-mode", "pairwise"]
    assert main([*argv, *(["-o", str(out)] if command == "run" else [])]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"driftproof: error: {PAIRWISE_CARRY}"], err
    assert not out.exists() and not out.with_name("pr.json.journal").exists()


def test_pairwise_without_carrying_pairs_every_draw(
    tmp_path: Path,
    main_receipt: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "pr.json"
    argv = ["run", str(tmp_path / "suite.yaml"), *FAST, "--reference", str(main_receipt), "--judge-mode", "pairwise"]
    assert main([*argv, "--no-carry-baseline", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    receipt = load_receipt(out)
    for case in receipt.cases:  # every baseline draw drawn here, so each draw index pairs: 3 pairs a case
        assert all(d.carried_from is None for d in case.baseline.draws)
        assert case.pairwise is not None
        assert [p.draw_index for p in case.pairwise] == [0, 1, 2]
    # 2 cases × 3 pairs = 6 pairs, 2 calls each = 12 pairwise judge calls
    assert "pairwise: judging 6 draw pairs side by side, positions swapped (12 judge calls)" in err


def test_the_action_does_not_carry_when_judge_mode_is_pairwise(tmp_path: Path, github: FakeGitHub) -> None:
    stub = {"provider": "stub", "judge-provider": "stub", "draws": "3"}
    store = tmp_path / "store"
    store.mkdir()
    job = run_job(store, make_repos(store, None), github, None, event_name="push", payload=push_payload(), inputs=stub)
    assert job.code == 0, job.log
    stored = (job.workspace / RECEIPT).read_bytes()
    pr = tmp_path / "pr"
    pr.mkdir()
    job = run_job(pr, make_repos(pr, stored), github, None, inputs={**stub, "judge-mode": "pairwise"})
    assert job.code == 0, job.log
    receipt = load_receipt(job.workspace / job.outputs["receipt"])
    for case in receipt.cases:
        assert all(d.carried_from is None for d in case.baseline.draws)  # drawn, so its answers are here
        assert case.pairwise is not None and len(case.pairwise) == min(
            len(case.with_skill.draws), len(case.baseline.draws)
        )
    assert "baseline carried from" not in job.log
