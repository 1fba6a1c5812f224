"""What the two command-line lanes share: the base class, skills, files capture and reading JSON lines.

The process side (one isolated process per draw) is in `driftproof.lanes.process`.
Nothing here raises for a failed draw: the lanes turn a `ProcessResult` into a lost draw with a reason.

The name a skill is installed under is `driftproof.core.fired.skill_name` (which skill fired is read by it).
"""

from __future__ import annotations

import json
import os
import weakref
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from driftproof.core.defaults import DEFAULTS
from driftproof.core.fired import skill_name
from driftproof.core.models import CapturedFileRecord, Harness
from driftproof.core.words import Capture, Delivery, Surface
from driftproof.credentials import hold, redact
from driftproof.errors import InputError, LaneError
from driftproof.lanes.base import AttemptFailure, FailureKind, Generation, GenerationRequest, Lane, RetryPolicy
from driftproof.lanes.capture import DirectoryCapture, assess_draw, capture_files
from driftproof.lanes.endpoints import env_value
from driftproof.lanes.failures import one_line
from driftproof.lanes.process import (
    CliProcesses,
    DrawDirs,
    ProcessResult,
    draw_dirs,
    draws_root,
    find_binary,
    isolated_env,
    probe_version,
    remove_tree,
    stderr_tail,
)
from driftproof.lanes.registry import check_choice


def install_skill(skills_root: Path, skill_text: str) -> str:
    """Write ``<skills_root>/<name>/SKILL.md`` (``discover`` delivery); return the name."""
    name = skill_name(skill_text)
    folder = skills_root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(skill_text, encoding="utf-8")
    return name


def assess(gen: Generation, work: Path | None) -> Generation:
    """Apply the capture rules to a CLI draw, which answered as an agent with tools.

    ``work`` is the draw's directory to read back in ``files`` capture (every file is listed on the draw),
    ``None`` in ``text`` capture. A draw that already failed stays lost with its reason. Otherwise
    `assess_draw` decides before any grading call: the graded answer (the reply, and in files capture the
    file list and texts), or a lost draw with its reason (no answer, a pointer at a file the grader is not
    shown, a report of work instead of the work).
    """
    capture: DirectoryCapture | None = capture_files(work) if work is not None else None
    assessment = assess_draw(gen.text, capture)
    records = (
        tuple(
            CapturedFileRecord(path=f.path, size=f.size, included=f.included, reason=f.reason)
            for f in assessment.captured_files
        )
        if capture is not None
        else None
    )
    if gen.error is not None or gen.timed_out or gen.lost_reason is not None:
        return replace(gen, captured_files=records, assessed=True)
    if assessment.lost or assessment.answer is None:
        return replace(gen, captured_files=records, assessed=True, lost_reason=assessment.reason or "no answer")
    return replace(gen, text=assessment.answer, captured_files=records, assessed=True)


def json_lines(stdout: str) -> list[dict[str, Any]]:
    """Every JSON object line of a CLI's stdout; other lines (banners, warnings) are skipped.

    >>> json_lines('{"type": "a"}\\nnot json\\n[1]\\n{"type": "b"}')
    [{'type': 'a'}, {'type': 'b'}]
    """
    out = []
    for line in stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


class CliLane(Lane):
    """A command-line surface: one isolated CLI process per draw. Subclasses give the command line and read it.

    Each draw is exactly one invocation (``attempts`` is 1): the CLI retries its own model calls, so the
    lane's `RetryPolicy` is accepted for the registry's sake and not used, and a lane built without a timeout
    waits ``DEFAULT_TIMEOUT_S``, long enough for those retries. The version the binary prints is probed once,
    here, with the same isolated environment the draws get. Every draw's directory lives in one private root
    of the lane (`draws_root`), removed by `close` (or when the lane is collected).
    """

    surface: Surface = Surface.CLI
    command: str
    """The executable's name, e.g. ``claude``."""
    harness_name: str
    """``run.harness.name``, e.g. ``claude-code``."""
    install: str
    version_pattern: str
    credentials: tuple[str, ...]
    base_url_variable: str
    stderr_noise: tuple[str, ...] = ()
    """Prefixes of stderr lines the CLI always prints, kept out of a lost draw's reason."""
    DEFAULT_TIMEOUT_S: ClassVar[float]
    """Seconds one draw may take when no timeout is given: more than the CLI's own retries of a failing call."""

    def __init__(
        self,
        model: str | None,
        *,
        capture: Capture = DEFAULTS.capture,
        delivery: Delivery = DEFAULTS.delivery,
        timeout_s: float | None = None,
        environ: Mapping[str, str] | None = None,
        binary: str | None = None,
        base_url: str | None = None,
        policy: RetryPolicy | None = None,
    ) -> None:
        capture = check_choice("capture", capture, Capture)
        delivery = check_choice("delivery", delivery, Delivery)
        timeout_s = self.DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s
        if timeout_s <= 0:
            raise InputError(f"timeout must be a positive number of seconds, got {timeout_s:g}")
        self._model, self._capture, self._delivery, self._timeout_s = model, capture, delivery, timeout_s
        self._environ = dict(os.environ if environ is None else environ)
        self._binary = find_binary(self.command, binary, self._environ, self.install)
        self._base_url = base_url or env_value(self._environ, self.base_url_variable)
        self._secrets = tuple(v for name in self.credentials if (v := env_value(self._environ, name)))
        hold(*self._secrets)  # redacted from every string from here on
        if not self._secrets:
            names = " or ".join(self.credentials)
            raise LaneError(f"the {self.harness_name} lane found no credential: set {names} in the environment")
        self._neighbours: tuple[str, ...] = ()
        self._processes = CliProcesses()
        self._draws = draws_root(self._environ)
        self._remove_draws = weakref.finalize(self, remove_tree, self._draws)
        try:
            with draw_dirs(self.command, self._draws) as dirs:
                env = self._env(dirs)
                argv = [self._binary, "--version"]
                self._version = probe_version(self._processes, argv, self.version_pattern, env, dirs.work)
                self._probe(dirs, env)
        except BaseException:
            self._remove_draws()
            raise

    # -- what a subclass says ------------------------------------------------------------------------
    def _probe(self, dirs: DrawDirs, env: Mapping[str, str]) -> None:
        """Ask the binary anything else the lane needs once (Codex: its feature list)."""

    @abstractmethod
    def _extra_env(self, dirs: DrawDirs) -> dict[str, str]:
        """The CLI's own variables: its config directory, endpoint, switches."""

    @abstractmethod
    def _skills_root(self, dirs: DrawDirs) -> Path:
        """Where the agent looks for skills (``discover`` delivery)."""

    @abstractmethod
    def _argv(self, request: GenerationRequest, dirs: DrawDirs, model: str | None) -> list[str]:
        """The full command line of one draw."""

    def _fired_names(self, result: ProcessResult, names: Sequence[str]) -> tuple[str, ...]:
        """Which of the installed skills (folder names) the transcript shows firing, in the order given."""
        return ()

    def _retrying(self, result: ProcessResult) -> str | None:
        """What the CLI said it was retrying when the timeout fired (``Claude Code was retrying ...``), if it did."""
        return None

    @abstractmethod
    def _read(
        self, result: ProcessResult, request: GenerationRequest, dirs: DrawDirs, model: str | None, skill: str | None
    ) -> Generation:
        """The draw's `Generation` from what the process printed; raise `LaneError` only if another model answered."""

    # -- the contract ----------------------------------------------------------------------------------
    def generate(self, request: GenerationRequest) -> Generation:
        """One CLI invocation in fresh directories; a failed one comes back as a lost draw, never raised."""
        model = request.model or self._model
        with draw_dirs(self.command, self._draws) as dirs:
            skill = None
            installed: list[str] = []
            if self._delivery == Delivery.DISCOVER:
                if request.system:
                    skill = install_skill(self._skills_root(dirs), request.system)
                    installed.append(skill)
                installed += [install_skill(self._skills_root(dirs), text) for text in self._neighbours]
            argv = self._argv(request, dirs, model)
            result = self._processes.run(argv, cwd=dirs.work, env=self._env(dirs), timeout_s=self._timeout_s)
            if result.timed_out:
                tail = {"stderr_tail": self._tail(result)}
                reason = self._timeout_reason(result)
                # the CLI was still retrying the provider: the endpoint failed the call, not the agent
                failure = None
                if self._retrying(result) is not None:
                    failure = AttemptFailure(True, reason, timed_out=True, kind=FailureKind.SERVER)
                gen = Generation(text="", error=reason, timed_out=True, failure=failure, extra=tail)
            else:
                gen = self._read(result, request, dirs, model, skill)
            if installed:
                gen = replace(gen, skills_fired=self._fired_names(result, list(dict.fromkeys(installed))))
            gen = assess(gen, dirs.work if self._capture == Capture.FILES else None)
        return gen

    def install_neighbours(self, skills: Sequence[str]) -> None:
        """Install these neighbour skills too, in every draw of both arms (``discover`` delivery only)."""
        self._neighbours = tuple(skills)

    def harness(self) -> Harness:
        """The CLI's name and the version its binary printed when the lane started."""
        return Harness(name=self.harness_name, version=self._version)

    def timeout_s(self) -> float:
        """Seconds one CLI invocation may take before its process group is killed."""
        return self._timeout_s

    def credential_names(self) -> tuple[str, ...]:
        """The variables the CLI may read a credential from."""
        return self.credentials

    def endpoint(self) -> str:
        """The base URL given, or the CLI's own default endpoint."""
        return self.base_url() or f"the {self.command} CLI's default endpoint"

    def base_url(self) -> str | None:
        """The endpoint when one was given (argument or the CLI's base-URL variable)."""
        return self._base_url.rstrip("/") if self._base_url else None

    def close(self) -> None:
        """End every draw still running (its whole process group) and remove the lane's draw directories."""
        self._processes.kill_all()
        self._remove_draws()

    # -- helpers ------------------------------------------------------------------------------------------
    def _env(self, dirs: DrawDirs) -> dict[str, str]:
        return isolated_env(self._environ, dirs, self.credentials, self._extra_env(dirs))

    def _timeout_reason(self, result: ProcessResult) -> str:
        """``timed out after 600s: ...``, naming the API error the CLI was still retrying when it printed one."""
        killed = f"the {self.command} process group was killed"
        retrying = self._retrying(result)
        if retrying is None:
            return f"timed out after {self._timeout_s:g}s: {killed}"
        return f"timed out after {self._timeout_s:g}s while {one_line(redact(retrying))}; {killed}"

    def _tail(self, result: ProcessResult) -> str:
        return stderr_tail(result.stderr, noise=self.stderr_noise)

    def _exit_reason(self, result: ProcessResult, detail: str | None = None) -> str:
        """``claude exited with status 134: <stderr tail>``."""
        said = detail or self._tail(result) or "no output on stderr"
        return f"{self.command} {result.exit_words()}: {one_line(redact(said))}"
