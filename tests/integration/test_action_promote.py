"""Pay once per merge (issue 14): the store job, given the pull request's last receipt (``promote``), writes it as
the stored receipt instead of drawing again when the merge commit's skill, suite and settings hash to what it
recorded and it was drawn to the reference rule; otherwise it draws. The simulated GitHub environment, stub lane."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import httpx
import pytest

from driftproof import action
from driftproof.cli import main
from driftproof.receipts import load_receipt
from tests.support.action_sim import RECEIPT, SKILL, action_env, push_payload, read_outputs, suite_yaml

PR_RECEIPT = ".driftproof/pr/receipt.new.json"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = tmp_path / "ws"
    (ws / "evals").mkdir(parents=True)
    (ws / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (ws / "evals" / "suite.yaml").write_text(suite_yaml(), encoding="utf-8")
    monkeypatch.chdir(ws)
    return ws


def _pr_receipt(*extra: str) -> None:
    """The PR job's receipt, drawn with the Action's settings (stub, 3 draws, 2 judge samples)."""
    argv = ["run", "evals/suite.yaml", "--skill", "SKILL.md", "--provider", "stub", "--judge-samples", "2"]
    assert main([*argv, "--draws", "3", "-o", PR_RECEIPT, *extra]) == 0


def _store(tmp_path: Path, workspace: Path) -> tuple[int, dict[str, str], str]:
    step = tmp_path / "step"
    step.mkdir(parents=True)
    env = action_env(
        step,
        workspace,
        "http://127.0.0.1:9",
        event_name="push",
        payload=push_payload(),
        inputs={"provider": "stub", "promote": PR_RECEIPT},
    )
    out = io.StringIO()
    with httpx.Client(trust_env=False) as http:
        code = action.run(env, http=http, stdout=out)
    return code, read_outputs(step / "output"), out.getvalue()


def test_the_store_job_promotes_the_pr_receipt_that_measured_exactly_the_merge(
    tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _pr_receipt("--as-reference")
    capsys.readouterr()
    pr = load_receipt(workspace / PR_RECEIPT)
    code, outputs, log = _store(tmp_path, workspace)
    assert code == 0, log
    assert f"promoted the pull request's receipt ({pr.seal.sha256[:12]}) from {PR_RECEIPT}" in log
    assert "::group::" not in log  # nothing drawn: the run's group never opened
    stored = load_receipt(workspace / RECEIPT)  # the seal checks
    assert outputs["receipt"] == RECEIPT
    assert stored.promotion is not None
    assert (stored.promotion.original_sha256, stored.promotion.commit) == (pr.seal.sha256, "c" * 40)
    assert stored.cases == pr.cases and stored.run == pr.run  # the draws and what produced them, as drawn


def test_a_skill_changed_after_the_pr_run_is_drawn_again(
    tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _pr_receipt("--as-reference")
    capsys.readouterr()
    (workspace / "SKILL.md").write_text(SKILL + "\nAlso: mention the issue.\n", encoding="utf-8")
    code, _, log = _store(tmp_path, workspace)
    assert code == 0, log
    assert f"not promoting {PR_RECEIPT}: skill sha256 changed:" in log
    assert load_receipt(workspace / RECEIPT).promotion is None


def test_a_pr_receipt_not_drawn_to_the_reference_rule_is_drawn_again(
    tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _pr_receipt()
    capsys.readouterr()
    code, _, log = _store(tmp_path, workspace)
    assert code == 0, log
    assert f"not promoting {PR_RECEIPT}: it was not drawn to the reference rule (recorded settle-v2(min=3," in log
    stored = load_receipt(workspace / RECEIPT)
    assert stored.promotion is None and stored.run.settings.as_reference is True


def test_a_tampered_or_missing_pr_receipt_is_drawn_again(
    tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, log = _store(tmp_path, workspace)
    assert code == 0, log
    assert f"not promoting {PR_RECEIPT}: the file is not there" in log
    _pr_receipt("--as-reference")
    capsys.readouterr()
    path = workspace / PR_RECEIPT
    path.write_text(path.read_text(encoding="utf-8").replace('"score": 0.', '"score": 0.0', 1), encoding="utf-8")
    recorded = json.loads(path.read_text(encoding="utf-8"))["seal"]["sha256"]
    code, _, log = _store(tmp_path / "again", workspace)
    assert code == 0, log
    [line] = [x for x in log.splitlines() if x.startswith("::notice title=Driftproof promoted::")]
    said = line.removeprefix("::notice title=Driftproof promoted::")
    # the path as in the repository, once; each seal by its first 12 digits, as the other lines show a sha256
    assert re.fullmatch(
        rf"not promoting {re.escape(PR_RECEIPT)}: seal mismatch: recorded {recorded[:12]}, content gives "
        r"[0-9a-f]{12}; drawing the receipt",
        said,
    ), said
    assert load_receipt(workspace / RECEIPT).promotion is None


def test_promote_on_a_pull_request_is_refused_naming_the_input(tmp_path: Path, workspace: Path) -> None:
    """promote is the store job's: on a pull request it would be dropped silently, so the run refuses it before
    any call, as it refuses sentinel there."""
    step = tmp_path / "step"
    step.mkdir()
    env = action_env(step, workspace, "http://127.0.0.1:9", inputs={"provider": "stub", "promote": PR_RECEIPT})
    out = io.StringIO()
    with httpx.Client(trust_env=False) as http:
        code = action.run(env, http=http, stdout=out)
    assert code == 2
    [line] = [x for x in out.getvalue().splitlines() if x.startswith("::error")]
    assert line.startswith(
        "::error title=Driftproof failed::input 'promote' is for the store job's push to the default branch, not "
        "for a pull request: drop it from this job"
    )
    assert not (workspace / ".driftproof" / "receipt.new.json").exists()  # nothing drawn


def test_promote_on_another_push_is_named_as_not_used(tmp_path: Path, workspace: Path) -> None:
    """A push to a branch that is not the default one stores nothing: promote is not used, and the log says so."""
    step = tmp_path / "step"
    step.mkdir()
    payload = {**push_payload(), "ref": "refs/heads/feature"}
    env = action_env(
        step, workspace, "http://127.0.0.1:9", event_name="push", payload=payload,
        inputs={"provider": "stub", "promote": PR_RECEIPT}, extra={"GITHUB_REF": "refs/heads/feature"},
    )  # fmt: skip
    out = io.StringIO()
    with httpx.Client(trust_env=False) as http:
        code = action.run(env, http=http, stdout=out)
    assert code == 0
    assert (
        "::warning title=Driftproof promote::input 'promote' is not used: it applies to a push to the default "
        "branch (main) only, and this run is a push event on refs/heads/feature\n"
    ) in out.getvalue()


def test_promote_naming_a_directory_says_so(tmp_path: Path, workspace: Path) -> None:
    (workspace / ".driftproof" / "pr").mkdir(parents=True)  # the artifact's folder, not the file in it
    step = tmp_path / "dir"
    step.mkdir()
    env = action_env(
        step, workspace, "http://127.0.0.1:9", event_name="push", payload=push_payload(),
        inputs={"provider": "stub", "promote": ".driftproof/pr"},
    )  # fmt: skip
    out = io.StringIO()
    with httpx.Client(trust_env=False) as http:
        assert action.run(env, http=http, stdout=out) == 0
    said = "not promoting .driftproof/pr: it is a directory, not a receipt file (name the receipt inside it)"
    assert f"{said}; drawing the receipt" in out.getvalue()
