"""Promotion covers the settings beside the two arms: a pull request's receipt drawn without a placebo is not
promoted for a store job asking for one (and the other way), nor across pairwise judging or the canaries judged.
The simulated GitHub environment, stub lane, as ``test_action_promote``."""

from __future__ import annotations

import io
from pathlib import Path

import httpx
import pytest

from driftproof import action
from driftproof.receipts import load_receipt
from tests.integration.test_action_promote import PR_RECEIPT, _pr_receipt, workspace  # noqa: F401 - a fixture
from tests.support.action_sim import RECEIPT, action_env, push_payload


def _store(tmp_path: Path, workspace: Path, **inputs: str) -> tuple[int, str]:  # noqa: F811
    step = tmp_path / "step"
    step.mkdir(parents=True)
    given = {"provider": "stub", "promote": PR_RECEIPT, **inputs}
    env = action_env(step, workspace, "http://127.0.0.1:9", event_name="push", payload=push_payload(), inputs=given)
    out = io.StringIO()
    with httpx.Client(trust_env=False) as http:
        code = action.run(env, http=http, stdout=out)
    return code, out.getvalue()


@pytest.mark.parametrize(
    ("pr_flags", "store_inputs", "why"),
    [
        ((), {"placebo": "true"}, "placebo arm: this run asks --placebo and the receipt has none"),
        (("--placebo",), {}, "placebo arm: the receipt has one (text "),
        (("--judge-mode", "pairwise"), {}, "pairwise judging changed: pairwise-v1 ("),
        ((), {"judge-mode": "pairwise"}, "pairwise judging changed: none → pairwise-v1 ("),
        (("--default-canaries",), {}, "judge-anchor canaries changed: default set "),
    ],
    ids=["placebo-asked", "placebo-dropped", "pairwise-dropped", "pairwise-asked", "canaries"],
)
def test_a_setting_beside_the_arms_that_differs_is_not_promoted(
    tmp_path: Path,
    workspace: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    pr_flags: tuple[str, ...],
    store_inputs: dict[str, str],
    why: str,
) -> None:
    _pr_receipt("--as-reference", *pr_flags)
    capsys.readouterr()
    code, log = _store(tmp_path, workspace, **store_inputs)
    assert code == 0, log
    assert f"not promoting {PR_RECEIPT}: {why}" in log
    stored = load_receipt(workspace / RECEIPT)
    assert stored.promotion is None  # drawn again, with the store job's own settings
    assert (stored.placebo is not None) == (store_inputs.get("placebo") == "true")


def test_the_same_placebo_and_pairwise_settings_are_promoted(
    tmp_path: Path,
    workspace: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    _pr_receipt("--as-reference", "--placebo", "--judge-mode", "pairwise")
    capsys.readouterr()
    code, log = _store(tmp_path, workspace, placebo="true", **{"judge-mode": "pairwise"})
    assert code == 0, log
    stored = load_receipt(workspace / RECEIPT)
    assert stored.promotion is not None, log
    assert stored.placebo is not None and stored.judge is not None and stored.judge.pairwise is not None
