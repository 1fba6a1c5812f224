"""What the Action's notices and errors name: the inputs the user wrote and where it looked, never a CLI flag.

A "first run" says which receipt-path it looked for on which branch and how the answer came (git, or the contents
API after git failed), so a misconfigured path or a failing fetch can be told from a real first run. An error the
run code shared with the CLI raises names the Action's input (``input 'shard'``, not ``--shard``) and a path
relative to the workspace; ``budget-usd`` can price the default model through ``price-table``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from driftproof.receipts import load_receipt
from tests.integration.test_action_e2e import IMPROVEMENT, scripted
from tests.support.action_sim import KEY, make_repos, run_job
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_script import FakeReply
from tests.support.fake_llm_server import FakeLLMServer

pytestmark = pytest.mark.usefixtures("isolated")  # an Action job's environment (tests/conftest.py)

KEYED = {"ANTHROPIC_API_KEY": KEY}
"""A key and no endpoint: for runs refused before any call."""


def first_run_notice(log: str) -> str:
    [line] = [x for x in log.splitlines() if x.startswith("::notice title=Driftproof first run::")]
    return line.removeprefix("::notice title=Driftproof first run::")


def test_a_first_run_names_the_receipt_path_and_the_branch_git_read(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    scripted(fake_llm_server, IMPROVEMENT)
    job = run_job(tmp_path, make_repos(tmp_path, None), github, fake_llm_server, inputs={"receipt-path": "x/r.json"})
    assert first_run_notice(job.log) == (
        "No receipt is stored on main yet: this is the first run; nothing to compare against. Looked for "
        "receipt-path x/r.json on origin/main: git found no such file there. If the job that stores the receipt "
        "writes it elsewhere, give both jobs the same receipt-path."
    )


def test_a_first_run_the_api_answered_says_git_failed(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """git cannot fetch (the upstream is gone, as a private remote without credentials), the contents API 404s."""
    repos = make_repos(tmp_path, None)
    shutil.rmtree(repos.upstream)
    scripted(fake_llm_server, IMPROVEMENT)
    job = run_job(tmp_path, repos, github, fake_llm_server)
    said = first_run_notice(job.log)
    assert said.startswith(
        "No receipt is stored on main yet: this is the first run; nothing to compare against. Looked for "
        "receipt-path .driftproof/receipt.json on origin/main: git could not read it (git fetch failed: "
    )
    assert said.endswith(
        "), and the contents API (GET /repos/acme/skills/contents/.driftproof/receipt.json?ref=main) answered "
        "404 Not Found. If the job that stores the receipt writes it elsewhere, give both jobs the same receipt-path."
    )
    assert (job.code, job.outputs["status"]) == (0, "passing")  # a first run still passes, now said plainly


def error_line(log: str) -> str:
    [line] = [x for x in log.splitlines() if x.startswith("::error")]
    return line.removeprefix("::error title=Driftproof failed::")


# --- budget-usd: the Action's default model has no bundled price; the fix names the Action's inputs -------------


def test_budget_usd_with_an_unpriced_model_names_the_actions_inputs(tmp_path: Path, github: FakeGitHub) -> None:
    job = run_job(tmp_path, make_repos(tmp_path, None), github, None, inputs={"budget-usd": "1"}, extra=KEYED)
    assert job.code == 2
    assert error_line(job.log).startswith(
        "input 'budget-usd': no price for the answering model claude-sonnet-5-5 in the price table; add it with "
        "input 'price-table', answer with a priced model (input 'model'), or give input 'budget' · Fix: "
    )


def test_a_price_table_input_prices_the_default_model_for_budget_usd(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    repos = make_repos(tmp_path, None)
    table = {
        "claude-sonnet-5-5": {"input_per_mtok": 3.0, "output_per_mtok": 15.0},
        "claude-haiku-4-5": {"input_per_mtok": 1.0, "output_per_mtok": 5.0},
    }
    (repos.workspace / "prices.json").write_text(json.dumps(table), encoding="utf-8")
    scripted(fake_llm_server, IMPROVEMENT)
    job = run_job(tmp_path, repos, github, fake_llm_server, inputs={"budget-usd": "100", "price-table": "prices.json"})
    assert job.code == 0, job.log
    budget = load_receipt(job.workspace / job.outputs["receipt"]).run.settings.budget
    assert budget is not None and budget.usd == 100 and budget.committed_usd is not None
    [line] = [x for x in job.log.splitlines() if x.startswith("price of the answering model")]
    assert line.startswith("price of the answering model claude-sonnet-5-5: $3 in, $15 out per million tokens (")
    assert line.endswith("prices.json: claude-sonnet-5-5)")  # the table given, relative when run in the workspace


def test_a_price_table_that_is_not_there_names_the_input(tmp_path: Path, github: FakeGitHub) -> None:
    job = run_job(tmp_path, make_repos(tmp_path, None), github, None, inputs={"price-table": "nope.json"}, extra=KEYED)
    assert job.code == 2
    assert error_line(job.log).startswith("input 'price-table': nope.json: no such file")


@pytest.mark.parametrize(
    ("table", "said"),
    [
        (None, "input 'price-table': p: is a directory, not a price table file (name the JSON file inside it)"),
        ("{", "input 'price-table': p/prices.json: not valid JSON at line 1, column 2"),
        (
            '{"claude-sonnet-5-5": {"input_per_mtok": -3, "output_per_mtok": 15}}',
            "input 'price-table': p/prices.json: claude-sonnet-5-5.input_per_mtok: a number of USD, at least 0, "
            "found -3",
        ),
        (  # a string is not read as a number: "3" is refused, as the CLI's --price-table refuses it
            '{"claude-sonnet-5-5": {"input_per_mtok": "3", "output_per_mtok": 15}}',
            "input 'price-table': p/prices.json: claude-sonnet-5-5.input_per_mtok: a number of USD, at least 0, "
            "found '3'",
        ),
    ],
)
def test_a_bad_price_table_names_the_input(tmp_path: Path, github: FakeGitHub, table: str | None, said: str) -> None:
    repos = make_repos(tmp_path, None)
    (repos.workspace / "p").mkdir()
    if table is not None:
        (repos.workspace / "p" / "prices.json").write_text(table, encoding="utf-8")
    given = "p" if table is None else "p/prices.json"
    dead = {**KEYED, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}  # were a call made, it would fail here, offline
    job = run_job(tmp_path, repos, github, None, inputs={"price-table": given}, extra=dead)
    assert job.code == 2, job.log
    assert error_line(job.log).split(" · Fix:")[0].startswith(said)


# --- errors the shared run code raises name the input and a workspace-relative path, not a CLI flag -------------


@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        ({"shard": "5/5"}, "input 'shard': "),
        ({"skill": "SKILLS.md"}, "SKILLS.md: no such SKILL.md (given by input 'skill')"),
        (
            {"skills": "skill/*/SKILL.md", "suite": "", "skill": ""},
            "input 'skills': 'skill/*/SKILL.md' matches no file",
        ),
    ],
)
def test_a_bad_input_the_run_refuses_is_named_as_the_input(
    tmp_path: Path, github: FakeGitHub, inputs: dict[str, str], said: str
) -> None:
    job = run_job(tmp_path, make_repos(tmp_path, None), github, None, inputs=inputs, extra=KEYED)
    assert job.code == 2
    line = error_line(job.log)
    assert line.startswith(said), line
    assert str(job.workspace) not in line and " --" not in line.split(" · Fix: ")[0]


def test_calls_failing_in_a_row_name_the_inputs_and_do_not_blame_the_key(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """Every call times out (0.2 s, no retries): after 3 in a row the run stops. The key is fine: the fix says to
    look at the network, the endpoint and the timeout."""
    fake_llm_server.responder = lambda _req: FakeReply(text="late", delay_s=1.0)
    inputs = {"timeout": "0.2", "max-retries": "0", "max-consecutive-failures": "3", "concurrency": "1"}
    job = run_job(tmp_path, make_repos(tmp_path, None), github, fake_llm_server, inputs=inputs)
    assert job.code == 2
    message, fix = error_line(job.log).split(" · Fix: ")
    assert message.startswith("3 calls in a row failed; the last, to the answering model (anthropic api at 127.0.0.1:")
    assert message.endswith(
        "The run stopped and wrote no receipt: check the network and the endpoint (input 'base-url'), or raise "
        "input 'max-consecutive-failures'"
    )
    assert "API key" not in fix and "`timeout`" in fix and "`base-url`" in fix


def test_a_skill_without_a_suite_is_named_by_its_repository_path(tmp_path: Path, github: FakeGitHub) -> None:
    """docs/monorepo.md: ``skills/x/SKILL.md: suite: none beside it``, and the input to narrow is ``skills``."""
    repos = make_repos(tmp_path, None)
    (repos.workspace / "skills" / "gamma").mkdir(parents=True)
    (repos.workspace / "skills" / "gamma" / "SKILL.md").write_text("# gamma\n", encoding="utf-8")
    inputs = {"skills": "skills/*/SKILL.md", "suite": "", "skill": ""}
    job = run_job(tmp_path, repos, github, None, inputs=inputs, extra=KEYED)
    assert job.code == 2
    message = error_line(job.log).split(" · Fix: ")[0]
    assert message.startswith("skills/gamma/SKILL.md: suite: none beside it (looked for suite.yaml, ")
    assert message.endswith("add one beside it or narrow input 'skills'")


def test_judge_calls_failing_in_a_row_name_the_judges_endpoint_input(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """The answers come back, every judge call times out: the endpoint to check is the judge's."""

    def reply(request: Any) -> FakeReply:
        late = "<<<ANSWER" in request.prompt_text
        return FakeReply(text='{"score": 0.5, "reason": "x"}' if late else "an answer", delay_s=1.0 if late else 0)

    fake_llm_server.responder = reply
    inputs = {"timeout": "0.2", "max-retries": "0", "max-consecutive-failures": "3", "concurrency": "1"}
    job = run_job(tmp_path, make_repos(tmp_path, None), github, fake_llm_server, inputs=inputs)
    message = error_line(job.log).split(" · Fix: ")[0]
    assert "to the judge (anthropic api at 127.0.0.1:" in message
    assert message.endswith("check the network and the endpoint (input 'judge-base-url'), or raise input "
                            "'max-consecutive-failures'")  # fmt: skip
