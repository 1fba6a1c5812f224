"""The one shallow error tree of Driftproof.

Every error a user can cause or meet carries a message that says what was expected,
what was found and what to do. The CLI turns any of them into one line on stderr and the
class's ``exit_code`` (2, or 130 for an interrupted run); the Action turns any of them into
one ``::error::`` line with its fix and exit status 2. Nothing else in the code prints errors.

    DriftproofError            base; ``exit_code`` 2
    ├── InputError             a bad flag, input, suite or script file
    ├── ReceiptError           a receipt that is missing, not JSON, off-schema or badly sealed
    ├── OutputError            a file that could not be written (disk full, read-only, no permission)
    ├── LaneError              a lane (provider x surface) that cannot run at all
    │   └── RunStopped         a run stopped because its model could not be reached; no receipt written
    ├── RunInterrupted         Ctrl-C: the finished draws are in the journal (CLI exit 130)
    ├── GitHubError            the GitHub REST API or git refused what the Action needed
    └── WorkflowError          the Action's workflow lacks what the step needs; carries its own fix
"""

from __future__ import annotations


class DriftproofError(Exception):
    """Base of every error Driftproof raises on purpose.

    Raised only through a subclass. The CLI prints ``driftproof: error: <message>`` and exits with
    ``exit_code``; the Action prints one ``::error::`` line and its fix and exits 2.
    """

    exit_code: int = 2


class InputError(DriftproofError):
    """A flag, Action input, suite file or script file is not what it must be.

    Raised while reading what the user gave, before any model is called (and by ``--resume`` when the journal
    does not belong to the run). Exit status 2.
    """


class ReceiptError(DriftproofError):
    """A receipt cannot be read: missing, not JSON, against its schema, or its seal does not match.

    Raised by ``driftproof.receipts`` when a receipt or its answers archive is loaded or checked
    (``validate``, ``view``, ``diff``, the Action's stored receipt). Exit status 2.
    """


class OutputError(DriftproofError):
    """A file Driftproof writes could not be written (disk full, read-only, no permission); what was there stays.

    Raised by the atomic writer and the journal. Exit status 2.
    """


class LaneError(DriftproofError):
    """A lane cannot run at all (missing SDK, missing CLI, another model answered).

    Raised when a lane is built or checked, before or at its first call. Exit status 2.
    """


class RunStopped(LaneError):
    """A run stopped because its model cannot be reached: a failure every later call would meet too (a wrong
    key, a missing model, a refused request), or too many failed calls in a row. No receipt is written.

    Raised by the runner once the calls in flight have ended (and again by ``run_suite`` to say where the
    finished draws are kept). Exit status 2.
    """

    def __init__(self, message: str, *, in_a_row: bool = False, keep_journal: bool = False) -> None:
        super().__init__(message)
        self.in_a_row = in_a_row
        """Stopped by calls failing in a row (timeouts, refused connections, 5xx after their retries), not by a
        refusal every call would meet (a wrong key, a missing model): the key is then not what to check."""
        self.keep_journal = keep_journal
        """The journal is kept whatever it holds, the message saying so: a ``--batch`` run whose submitted batch
        could not be polled or read (the provider runs and bills it), for ``--resume`` to poll it again."""


class RunInterrupted(DriftproofError):
    """The run was interrupted; its finished draws are in the journal.

    Raised by the runner in place of the ``KeyboardInterrupt`` (Ctrl-C, SIGINT) that stopped it; its message
    says how many draws are kept and to add ``--resume``. The CLI exits 130, the status of a shell's
    interrupted command; the Action, like for every error, exits 2.
    """

    exit_code = 130


class GitHubError(DriftproofError):
    """The GitHub REST API or git did not give the Action what it needed.

    Raised by the Action's GitHub glue (the event, the default branch's receipt, the PR comment). Exit status 2,
    except for the PR comment: a refused comment is a warning and the run goes on.
    """


class WorkflowError(DriftproofError):
    """The workflow running the Action does not give the step what it needs, with the fix to make there.

    Raised by the Action before anything runs, today when the chosen provider's API key is not in the step's
    environment. Unlike the other errors, whose fix the Action looks up by class, it carries its own ``fix``,
    shown after the message in the ``::error::`` line and the job summary. Exit status 2.
    """

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix
