"""``driftproof.errors`` is the one error tree: every error class lives there, under ``DriftproofError``, says
when it is raised and which exit status it leads to, and the module's drawing of the tree names them all."""

from __future__ import annotations

import inspect
import re

from driftproof import errors

CLASSES = {
    name: cls for name, cls in vars(errors).items() if inspect.isclass(cls) and cls.__module__ == errors.__name__
}


def test_every_error_is_a_driftproof_error_with_its_exit_status() -> None:
    assert set(CLASSES) == {
        "DriftproofError",
        "InputError",
        "ReceiptError",
        "OutputError",
        "LaneError",
        "RunStopped",
        "RunInterrupted",
        "GitHubError",
        "WorkflowError",
    }
    assert all(issubclass(cls, errors.DriftproofError) for cls in CLASSES.values())
    assert errors.RunStopped.__bases__ == (errors.LaneError,)
    # 130 is a shell's status for a command ended by SIGINT (128 + 2); every other error exits 2.
    assert {name: cls.exit_code for name, cls in CLASSES.items() if cls.exit_code != 2} == {"RunInterrupted": 130}
    for name, cls in CLASSES.items():
        doc = inspect.getdoc(cls) or ""
        assert "Raised" in doc and re.search(r"exit", doc, re.IGNORECASE), f"{name} does not say when and how it exits"


def test_the_drawn_tree_names_every_class() -> None:
    drawn = re.findall(r"^\s+(?:[│├└─ ]*)([A-Z]\w+Error|Run\w+)\s", errors.__doc__ or "", re.MULTILINE)
    assert sorted(drawn) == sorted(CLASSES)


def test_a_workflow_error_carries_its_fix() -> None:
    exc = errors.WorkflowError("no API key for this run: X is not set", "Pass X as step `env:`.")
    assert (str(exc), exc.fix, exc.exit_code) == ("no API key for this run: X is not set", "Pass X as step `env:`.", 2)
