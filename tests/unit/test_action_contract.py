"""action.yml, the code and the README's Action section name the same inputs and outputs, both ways.

The code side: ``ActionConfig.from_environ`` reads every input (asked through a recording environment)
and ``driftproof.action.OUTPUTS`` is what a run writes (the end-to-end tests check a real run's
``GITHUB_OUTPUT`` against it). The workflows shown in the README and in .github/workflows/ use only
declared inputs and outputs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from driftproof.action import OUTPUTS
from driftproof.action.config import ActionConfig

ROOT = Path(__file__).resolve().parents[2]


def action_yml() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def readme_action_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("<!-- action:start -->", 1)[1].split("<!-- action:end -->", 1)[0]


def table_names(section: str, heading: str) -> set[str]:
    """The first-column names of the table under ``### heading``."""
    body = section.split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"^\| `([^`]+)` \|", body, re.M))


class _Recording(dict[str, str]):
    asked: set[str]

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)


def inputs_read_by_code() -> set[str]:
    env = _Recording({"INPUT_SUITE": "evals/suite.yaml"})
    env.asked = set()
    ActionConfig.from_environ(env)
    return {k.removeprefix("INPUT_").lower() for k in env.asked if k.startswith("INPUT_") and "_" not in k[6:]}


def test_inputs_agree_across_action_yml_code_and_readme() -> None:
    declared = set(action_yml()["inputs"])
    assert declared == inputs_read_by_code()
    assert declared == table_names(readme_action_section(), "Inputs")


def test_outputs_agree_across_action_yml_code_and_readme() -> None:
    declared = set(action_yml()["outputs"])
    assert declared == set(OUTPUTS)
    assert len(OUTPUTS) == len(set(OUTPUTS))
    assert declared == table_names(readme_action_section(), "Outputs")


def _workflow_blocks(text: str) -> list[dict[str, Any]]:
    """Every ```yaml block, a job fragment (indented) read as the job of a workflow."""
    blocks = []
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        doc = yaml.safe_load("jobs:\n" + block if block.startswith("  ") else block)
        if isinstance(doc, dict) and "jobs" in doc:
            blocks.append(doc)
    return blocks


def _uses_of_this_action(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    steps = [s for job in workflow["jobs"].values() for s in job.get("steps", [])]
    return [s for s in steps if str(s.get("uses", "")).startswith(("./", "OWNER/driftproof@"))]


def _outputs_referenced(text: str) -> set[str]:
    return set(re.findall(r"steps\.driftproof\.outputs\.([A-Za-z0-9_-]+)", text))


def test_readme_and_example_workflows_use_only_declared_inputs_and_outputs() -> None:
    spec = action_yml()
    sources = {
        "README": readme_action_section(),
        **{p.name: p.read_text(encoding="utf-8") for p in (ROOT / ".github" / "workflows").glob("*.yml")},
        **{p.name: p.read_text(encoding="utf-8") for p in (ROOT / "examples" / "workflows").glob("*.yml")},
    }
    used_somewhere = 0
    for name, text in sources.items():
        for workflow in _workflow_blocks(text) if name == "README" else [yaml.safe_load(text)]:
            for step in _uses_of_this_action(workflow):
                used_somewhere += 1
                assert set(step.get("with", {})) <= set(spec["inputs"]), name
                assert "suite" in step["with"], name
        assert _outputs_referenced(text) <= set(spec["outputs"]), name
    assert used_somewhere >= 3  # README check + store jobs, and the example workflow


def test_readme_shows_the_permissions_and_the_badge_line() -> None:
    section = readme_action_section()
    assert "contents: read" in section and "pull-requests: write" in section
    assert "https://img.shields.io/endpoint?url=https%3A%2F%2Fraw.githubusercontent.com%2F" in section
    assert "docs/action.md" in section


def test_action_yml_defaults_are_the_defaults_the_code_applies() -> None:
    """Every non-empty ``default:`` in action.yml is what ``from_environ`` uses when the input is not set."""
    inputs = action_yml()["inputs"]
    given = {"INPUT_SUITE": "evals/suite.yaml", "GITHUB_TOKEN": "t"}
    unset = ActionConfig.from_environ(given)
    field_of = {name: name.replace("-", "_") for name in inputs}
    checked = []
    for name, spec in inputs.items():
        default = str(spec.get("default", ""))
        if not default or "${{" in default:
            continue
        value = ActionConfig.from_environ({**given, f"INPUT_{name.upper()}": default})
        attribute = field_of[name]
        assert getattr(value, attribute) == getattr(unset, attribute), name
        checked.append(name)
    # the inputs whose defaults the code writes once, in core.defaults.DEFAULTS
    assert {"draws", "max-draws", "judge-samples", "concurrency", "max-retries", "fail-on", "provider"} <= set(checked)


def test_every_flag_the_action_names_as_an_input_is_both_a_flag_and_an_input() -> None:
    """`driftproof.action.wording.SHARED_NAMES`: an error's ``--x`` is shown as ``input 'x'`` only when the Action
    has an input ``x`` and the CLI a flag ``--x``; every input of the same name as a run flag is in it."""
    import argparse

    from driftproof.action.wording import SHARED_NAMES
    from driftproof.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    flags = {
        option.removeprefix("--")
        for command in sub.choices.values()
        for action in command._actions
        for option in action.option_strings
        if option.startswith("--")
    }
    inputs = set(action_yml()["inputs"])
    assert inputs >= SHARED_NAMES and flags >= SHARED_NAMES
    assert (inputs & flags) - {"suite", "sentinel", "comment", "promote", "receipt-path"} <= SHARED_NAMES
