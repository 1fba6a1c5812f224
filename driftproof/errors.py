"""The one shallow error tree of Driftproof.

Every error a user can cause or meet carries a message that says what was expected,
what was found and what to do. The CLI and the Action turn any of them into one line
and exit status 2; nothing else in the code prints errors.

    DriftproofError            base; ``exit_code`` 2
    ├── InputError             a bad flag, input, suite or script file
    ├── ReceiptError           a receipt that is missing, not JSON, off-schema or badly sealed
    ├── OutputError            a file that could not be written (disk full, read-only, no permission)
    ├── LaneError              a lane (provider x surface) that cannot run at all
    │   └── RunStopped         a run stopped because its model could not be reached; no receipt written
    ├── RunInterrupted         Ctrl-C: the finished draws are in the journal (exit 130)
    └── GitHubError            the GitHub REST API or git refused what the Action needed
"""

from __future__ import annotations


class DriftproofError(Exception):
    """Base of every error Driftproof raises on purpose."""

    exit_code: int = 2


class InputError(DriftproofError):
    """A flag, Action input, suite file or script file is not what it must be."""


class ReceiptError(DriftproofError):
    """A receipt cannot be read: missing, not JSON, against its schema, or its seal does not match."""


class OutputError(DriftproofError):
    """A file Driftproof writes could not be written (disk full, read-only, no permission); what was there stays."""


class LaneError(DriftproofError):
    """A lane cannot run at all (missing SDK, missing CLI, another model answered)."""


class RunStopped(LaneError):
    """A run stopped because its model cannot be reached: a failure every later call would meet too (a wrong
    key, a missing model, a refused request), or too many failed calls in a row. No receipt is written."""


class RunInterrupted(DriftproofError):
    """The run was interrupted; its finished draws are in the journal."""

    exit_code = 130


class GitHubError(DriftproofError):
    """The GitHub REST API or git did not give the Action what it needed."""
