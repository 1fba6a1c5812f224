"""The job summary's figures: the draws this run drew, not the ones it carried from the stored receipt."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.receipts import load_receipt
from tests.integration.test_action_e2e import pr_job, store_job
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_server import FakeLLMServer

pytestmark = pytest.mark.usefixtures("isolated")  # an Action job's environment (tests/conftest.py)


def test_the_summary_counts_the_draws_this_run_drew_not_the_carried_ones(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    main = store_job(tmp_path, github, fake_llm_server)
    job = pr_job(tmp_path, github, fake_llm_server, main)
    receipt = load_receipt(job.workspace / job.outputs["receipt"])
    drawn = [sum(d.carried_from is None for d in a.draws) for c in receipt.cases for a in (c.with_skill, c.baseline)]
    # both with-skill arms settled at 3 draws against main (unchanged); both baselines carried, 12 each, none drawn
    assert drawn == [3, 0, 3, 0]
    # 6 drawn over 4 arms: 1.5 per arm on average, 0 to 3; the 24 carried are said on the carried line
    assert "Draws: 6 in all, 1.5 per arm on average (0–3), drawn against " in job.summary
    assert "24 draws reused, 0 drawn" in job.summary
    assert len(fake_llm_server.requests) == 144 + 6 * 3  # main's 12 × 2 arms × 2 cases × 3 calls; 6 × 3 here
