"""ActionConfig.from_environ: defaults, one named message per bad input, no token in repr."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.action.config import ActionConfig
from driftproof.core.words import FailOn
from driftproof.errors import InputError

TOKEN = "ghs_SECRETtoken1234567890"


def environ(**inputs: str) -> dict[str, str]:
    """The container environment with ``suite`` set and the given inputs (runner spelling)."""
    env = {"INPUT_SUITE": "examples/commit-writer/suite.yaml"}
    env.update({f"INPUT_{name.upper()}": value for name, value in inputs.items()})
    return env


def test_defaults_when_only_suite_is_given() -> None:
    config = ActionConfig.from_environ(environ())

    assert config.suite == "examples/commit-writer/suite.yaml"
    assert config.skill is None
    assert config.receipt_path == ".driftproof/receipt.json"
    assert config.badge_path == ".driftproof/badge.json"
    assert (config.provider, config.model, config.judge_provider, config.judge_model) == (
        "anthropic",
        None,
        None,
        None,
    )
    assert (config.draws, config.judge_samples, config.concurrency) == (3, 5, 8)
    assert (config.max_draws, config.timeout, config.max_retries, config.max_consecutive_failures) == (10, None, 4, 10)
    assert (config.base_url, config.judge_base_url) == (None, None)
    assert config.fail_on is FailOn.REGRESSED
    assert config.comment is True
    assert config.github_token.get_secret_value() == ""
    assert config.workspace == Path(".")
    assert config.api_url == "https://api.github.com"
    assert config.server_url == "https://github.com"
    assert config.output_path is None
    assert config.summary_path is None


def test_every_input_read_with_the_runners_hyphenated_names() -> None:
    env = {
        "INPUT_SKILL": "skills/commit-writer/SKILL.md",
        "INPUT_SUITE": "./evals//suite.yaml",
        "INPUT_RECEIPT-PATH": "ci/receipt.json",
        "INPUT_PROVIDER": "OpenAI",
        "INPUT_MODEL": "gpt-test",
        "INPUT_JUDGE-PROVIDER": "anthropic",
        "INPUT_JUDGE-MODEL": "claude-test",
        "INPUT_DRAWS": " 6 ",
        "INPUT_JUDGE-SAMPLES": "2",
        "INPUT_CONCURRENCY": "4",
        "INPUT_MAX-DRAWS": "12",
        "INPUT_TIMEOUT": "45.5",
        "INPUT_MAX-RETRIES": "0",
        "INPUT_MAX-CONSECUTIVE-FAILURES": "3",
        "INPUT_BASE-URL": "http://localhost:11434/v1/",
        "INPUT_JUDGE-BASE-URL": "https://gateway.example.test/anthropic",
        "INPUT_FAIL-ON": "underpowered",
        "INPUT_COMMENT": "No",
        "INPUT_GITHUB-TOKEN": TOKEN,
        "INPUT_BADGE-PATH": "badges/driftproof.json",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_API_URL": "https://ghe.example.test/api/v3/",
        "GITHUB_SERVER_URL": "https://ghe.example.test",
        "GITHUB_OUTPUT": "/github/file_commands/set_output_1",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_1",
    }

    config = ActionConfig.from_environ(env)

    assert config.skill == "skills/commit-writer/SKILL.md"
    assert config.suite == "evals/suite.yaml"
    assert config.receipt_path == "ci/receipt.json"
    assert (config.provider, config.model) == ("openai", "gpt-test")
    assert (config.judge_provider, config.judge_model) == ("anthropic", "claude-test")
    assert (config.draws, config.judge_samples, config.concurrency) == (6, 2, 4)
    assert (config.max_draws, config.timeout, config.max_retries, config.max_consecutive_failures) == (12, 45.5, 0, 3)
    assert config.base_url == "http://localhost:11434/v1"
    assert config.judge_base_url == "https://gateway.example.test/anthropic"
    assert config.fail_on is FailOn.UNDERPOWERED
    assert config.comment is False
    assert config.github_token.get_secret_value() == TOKEN
    assert config.badge_path == "badges/driftproof.json"
    assert config.in_workspace(config.receipt_path) == Path("/github/workspace/ci/receipt.json")
    assert config.api_url == "https://ghe.example.test/api/v3"
    assert config.output_path == Path("/github/file_commands/set_output_1")
    assert config.summary_path == Path("/github/file_commands/step_summary_1")


def test_underscore_spelling_is_accepted_too() -> None:
    config = ActionConfig.from_environ({"INPUT_SUITE": "s.yaml", "INPUT_FAIL_ON": "never"})
    assert config.fail_on is FailOn.NEVER


def test_token_falls_back_to_github_token_variable() -> None:
    config = ActionConfig.from_environ({**environ(), "GITHUB_TOKEN": TOKEN})
    assert config.github_token.get_secret_value() == TOKEN


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"suite": ""}, "input 'suite' is required: set it under 'with:', e.g. suite: evals/suite.yaml"),
        ({"draws": "abc"}, "input 'draws' must be a positive integer, got 'abc'"),
        ({"draws": "0"}, "input 'draws' must be a positive integer, got '0'"),
        ({"judge-samples": "-2"}, "input 'judge-samples' must be a positive integer, got '-2'"),
        ({"concurrency": "1_000"}, "input 'concurrency' must be a positive integer, got '1_000'"),
        (
            {"fail-on": "always"},
            "input 'fail-on' must be one of regressed, underpowered, never, got 'always'",
        ),
        ({"comment": "maybe"}, "input 'comment' must be true or false (or yes/no, 1/0), got 'maybe'"),
        ({"provider": "gemini"}, "input 'provider' must be one of anthropic, openai, stub, got 'gemini'"),
        ({"judge-provider": "x"}, "input 'judge-provider' must be one of anthropic, openai, stub, got 'x'"),
        (
            {"receipt-path": "/etc/passwd"},
            "input 'receipt-path' must be a path relative to the workspace, got '/etc/passwd'",
        ),
        (
            {"badge-path": "../elsewhere/b.json"},
            "input 'badge-path' must stay inside the workspace, got '../elsewhere/b.json'",
        ),
        (
            {"suite": "evals/../../x.yaml"},
            "input 'suite' must stay inside the workspace, got 'evals/../../x.yaml'",
        ),
        ({"skill": "~/SKILL.md"}, "input 'skill' must be a path relative to the workspace, got '~/SKILL.md'"),
        ({"receipt-path": "a/.."}, "input 'receipt-path' must name a file, got 'a/..'"),
        ({"draws": "10001"}, "input 'draws' must be at most 10000, got '10001'"),
        ({"draws": "5", "max-draws": "4"}, "input 'max-draws' (4) must be at least input 'draws' (5)"),
        ({"timeout": "nan"}, "input 'timeout' must be a number of seconds above 0 and at most 86400, got 'nan'"),
        ({"timeout": "0"}, "input 'timeout' must be a number of seconds above 0 and at most 86400, got '0'"),
        ({"max-retries": "-1"}, "input 'max-retries' must be a whole number from 0 to 100, got '-1'"),
        ({"max-retries": "101"}, "input 'max-retries' must be a whole number from 0 to 100, got '101'"),
        ({"base-url": "localhost:8000"}, "input 'base-url' must be an http(s) URL, got 'localhost:8000'"),
        ({"judge-base-url": "ftp://x"}, "input 'judge-base-url' must be an http(s) URL, got 'ftp://x'"),
        ({"draws": "9" * 5000}, f"input 'draws' must be at most 10000, got '{'9' * 57}...'"),
    ],
)
def test_each_bad_input_is_named_in_one_line(inputs: dict[str, str], message: str) -> None:
    with pytest.raises(InputError) as caught:
        ActionConfig.from_environ(environ(**inputs))

    assert str(caught.value) == message
    assert "\n" not in str(caught.value)


def test_bad_api_url_is_named() -> None:
    with pytest.raises(InputError, match="environment variable GITHUB_API_URL must be an http"):
        ActionConfig.from_environ({**environ(), "GITHUB_API_URL": "api.github.com"})


def test_token_never_appears_in_repr_str_or_dump() -> None:
    config = ActionConfig.from_environ({**environ(), "INPUT_GITHUB-TOKEN": TOKEN})

    assert TOKEN not in repr(config)
    assert TOKEN not in str(config)
    assert TOKEN not in config.model_dump_json()
    assert TOKEN not in str(config.model_dump())


def test_config_is_frozen() -> None:
    config = ActionConfig.from_environ(environ())
    with pytest.raises(ValueError, match="frozen"):
        config.draws = 10


@pytest.mark.parametrize(
    ("inputs", "env", "missing"),
    [
        ({}, {}, ["ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"]),
        ({}, {"ANTHROPIC_AUTH_TOKEN": "tok"}, []),
        # the default judge is the one fixed anthropic judge, whatever the lane's provider
        (
            {"provider": "openai"},
            {"OPENAI_API_KEY": "  "},
            ["OPENAI_API_KEY", "ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"],
        ),
        ({"provider": "openai"}, {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}, []),
        ({"provider": "openai", "judge-provider": "openai"}, {"OPENAI_API_KEY": "k"}, []),
        (
            {"provider": "openai", "judge-provider": "anthropic"},
            {"OPENAI_API_KEY": "sk"},
            ["ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"],
        ),
        ({"provider": "stub"}, {}, []),
    ],
)
def test_missing_model_secrets_names_the_variables(
    inputs: dict[str, str], env: dict[str, str], missing: list[str]
) -> None:
    config = ActionConfig.from_environ(environ(**inputs))

    assert config.missing_model_secrets(env) == missing
    assert config.has_model_secret(env) is (not missing)


# --- action.yml and docs/action.md agree with the code -------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = {
    "status",
    "regressed",
    "improved",
    "lift",
    "lift-per-1k",
    "draws-needed",
    "baseline-stands",
    "drifted",
    "receipt",
    "report",
    "badge",
}


class RecordingEnviron(dict[str, str]):
    """An environment that remembers every key the code asked for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)


def action_yml() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def test_action_yml_declares_exactly_the_inputs_the_config_reads() -> None:
    env = RecordingEnviron(environ())

    ActionConfig.from_environ(env)

    read = {key.removeprefix("INPUT_").lower() for key in env.asked if key.startswith("INPUT_") and "_" not in key[6:]}
    assert set(action_yml()["inputs"]) == read


def test_action_yml_is_a_docker_action_with_the_documented_outputs() -> None:
    data = action_yml()

    assert data["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert set(data["outputs"]) == OUTPUTS
    assert data["inputs"]["github-token"]["default"] == "${{ github.token }}"
    assert all("description" in spec for spec in data["inputs"].values())


def test_docs_table_every_input_and_output() -> None:
    docs = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")

    for name in [*action_yml()["inputs"], *OUTPUTS]:
        assert f"| `{name}` |" in docs, name


def test_sentinel_and_stale_after_inputs() -> None:
    unset = ActionConfig.from_environ(environ())
    assert (unset.sentinel, unset.stale_after) == (False, 30)
    given = ActionConfig.from_environ({**environ(), "INPUT_SENTINEL": "True", "INPUT_STALE-AFTER": "7"})
    assert (given.sentinel, given.stale_after) == (True, 7)
    with pytest.raises(InputError) as caught:
        ActionConfig.from_environ({**environ(), "INPUT_STALE-AFTER": "a month"})
    assert str(caught.value) == "input 'stale-after' must be a whole number from 0 to 10000, got 'a month'"
    with pytest.raises(InputError, match="input 'sentinel' must be true or false"):
        ActionConfig.from_environ({**environ(), "INPUT_SENTINEL": "weekly"})
