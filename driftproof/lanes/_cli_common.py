"""What the two command-line lanes share: one isolated process per draw, and the words for its failures.

Each draw runs the CLI once (`CliProcesses.run`) in a fresh temporary directory of its own (`draw_dirs`):
``work/`` is the agent's working directory, ``home/`` its ``HOME`` (the CLI's config directory lives inside
it), ``tmp/`` its ``TMPDIR``. The environment is built from nothing (`isolated_env`): locale, ``PATH``,
proxy and CA settings, the API credentials the lane names, Driftproof's own ``DRIFTPROOF_*`` variables, and
the isolated directories, so no user setting, memory, ``CLAUDE.md``, skill or MCP server of the user's
reaches the agent. Stdin is ``/dev/null``; the process leads a new session, and a timeout ends its whole
process group (SIGTERM, then SIGKILL). Nothing here raises for a failed draw: the lanes turn a
`ProcessResult` into a lost draw with a readable reason.

>>> skill_name("---\\nname: Commit Writer\\ndescription: x\\n---\\nbody")
'commit-writer'
>>> stderr_tail("line 1\\nError: boom\\n", 40)
'line 1 Error: boom'
"""

from __future__ import annotations

import math
import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from driftproof.capture import Capture, assess_draw, capture_files
from driftproof.core.models import CapturedFileRecord, Harness
from driftproof.errors import InputError, LaneError
from driftproof.lanes._api_common import env_value, one_line, redact
from driftproof.lanes.base import Generation, GenerationRequest, Lane, RetryPolicy

CAPTURES = ("text", "files")
DELIVERIES = ("system_prompt", "discover")
_PROXIES = ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy")
PASSTHROUGH = (
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    *_PROXIES,
)
"""Variables passed through unchanged: how to find programs and reach the network, nothing about the user."""
OWN_PREFIX = "DRIFTPROOF_"
"""Driftproof's own variables pass through too (the test fakes read their scenario from them)."""
KILL_GRACE_S = 2.0
"""Seconds between SIGTERM and SIGKILL to a draw's process group."""
STDERR_TAIL_CHARS = 400
PROBE_TIMEOUT_S = 60.0
DEFAULT_SKILL_NAME = "skill-under-test"


@dataclass(frozen=True, slots=True)
class ProcessResult:
    """One CLI run: exit status (negative: killed by that signal), output, and whether the timeout fired."""

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float

    def exit_words(self) -> str:
        """``exited with status 1`` or ``was killed by SIGABRT``."""
        code = self.returncode
        if code is not None and code < 0:
            with suppress(ValueError):
                return f"was killed by {signal.Signals(-code).name}"
        return f"exited with status {code}"


@dataclass(frozen=True, slots=True)
class DrawDirs:
    """The temporary directories of one draw."""

    root: Path
    work: Path
    """The agent's working directory; in ``files`` capture, everything left here is read back."""
    home: Path
    """``HOME`` of the CLI; its config directory (``.claude``, ``.codex``) lives inside."""
    tmp: Path


@contextmanager
def draw_dirs(label: str) -> Iterator[DrawDirs]:
    """Fresh ``work/``, ``home/`` and ``tmp/`` under a new temporary directory, removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix=f"driftproof-{label}-"))
    dirs = DrawDirs(root, root / "work", root / "home", root / "tmp")
    for path in (dirs.work, dirs.home, dirs.tmp):
        path.mkdir(mode=0o700)
    try:
        yield dirs
    finally:
        remove_tree(root)


def remove_tree(root: Path) -> None:
    """Remove ``root`` even when the agent left unreadable directories (mode 000) inside it."""

    def unlock(path: str) -> None:
        with suppress(OSError):
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode):
                os.chmod(path, 0o700)
                for entry in os.listdir(path):
                    unlock(os.path.join(path, entry))

    unlock(str(root))
    shutil.rmtree(root, ignore_errors=True)


def isolated_env(
    environ: Mapping[str, str], dirs: DrawDirs, credentials: Iterable[str], extra: Mapping[str, str]
) -> dict[str, str]:
    """The child's whole environment: pass-through variables, the named credentials, the isolated dirs, ``extra``."""
    env = {name: environ[name] for name in PASSTHROUGH if environ.get(name)}
    env.update({k: v for k, v in environ.items() if k.startswith(OWN_PREFIX)})
    env.update({name: environ[name].strip() for name in credentials if (environ.get(name) or "").strip()})
    env.update(HOME=str(dirs.home), TMPDIR=str(dirs.tmp), XDG_CONFIG_HOME=str(dirs.home / ".config"))
    env.update(XDG_CACHE_HOME=str(dirs.home / ".cache"), XDG_DATA_HOME=str(dirs.home / ".local/share"))
    env["XDG_STATE_HOME"] = str(dirs.home / ".local/state")
    env.update(extra)
    return env


def find_binary(command: str, binary: str | None, environ: Mapping[str, str], install: str) -> str:
    """The CLI's executable: ``binary`` (a path or a name) or ``command``, looked up on ``environ['PATH']``."""
    wanted = binary or command
    found = shutil.which(wanted, path=environ.get("PATH", os.defpath))
    if found is None:
        where = "is not an executable file" if os.sep in wanted else "is not on PATH"
        raise LaneError(f"the {command} lane needs the `{wanted}` command, which {where}: install it with `{install}`")
    return found


def probe_version(processes: CliProcesses, argv: Sequence[str], pattern: str, env: Mapping[str, str], cwd: Path) -> str:
    """The version ``argv`` (``<binary> --version``) prints, as ``pattern``'s group 1 finds it on stdout."""
    done = processes.run(argv, cwd=cwd, env=env, timeout_s=PROBE_TIMEOUT_S)
    match = re.search(pattern, done.stdout, re.MULTILINE)
    if done.timed_out or done.returncode != 0 or match is None:
        said = one_line(done.stdout.strip() or stderr_tail(done.stderr) or "(nothing)")
        raise LaneError(f"`{' '.join(argv)}` did not print a version ({done.exit_words()}): {said}")
    return match.group(1)


def stderr_tail(
    stderr: str, limit: int = STDERR_TAIL_CHARS, secrets: Iterable[str] = (), noise: Sequence[str] = ()
) -> str:
    """The last ``limit`` characters of ``stderr`` on one line, keys redacted, lines starting with ``noise`` out."""
    kept = [line for line in stderr.splitlines() if not any(line.startswith(n) for n in noise)]
    text = redact("\n".join(kept), secrets).strip()
    tail = text[-limit:] if len(text) > limit else text
    return " ".join(tail.split())


class CliProcesses:
    """Runs one CLI process per draw and remembers the live ones, so `kill_all` can end them when a run stops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self._closed = False

    def run(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout_s: float) -> ProcessResult:
        """Run ``argv`` with stdin closed in a new session; on timeout end its process group. Never raises for
        the process's own failure (a missing executable comes back as status 127)."""
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            return ProcessResult(127, "", f"could not start {argv[0]}: {exc}", False, 0.0)
        with self._lock:
            if self._closed:
                _kill_group(proc)
            self._live.add(proc)
        timed_out = False
        try:
            try:
                out, err = proc.communicate(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
                out, err = _drain(proc)
            _kill_group(proc, grace_s=0.0)  # stragglers the CLI left in its group
        except BaseException:
            _kill_group(proc, grace_s=0.0)
            raise
        finally:
            with self._lock:
                self._live.discard(proc)
        stdout, stderr = (b.decode("utf-8", errors="replace") for b in (out, err))
        return ProcessResult(proc.returncode, stdout, stderr, timed_out, time.monotonic() - started)

    def kill_all(self) -> None:
        """End every live draw's process group; later runs are killed as they start."""
        with self._lock:
            self._closed = True
            live = list(self._live)
        for proc in live:
            _kill_group(proc, grace_s=0.0)


def _kill_group(proc: subprocess.Popen[bytes], grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM to the process group, ``grace_s`` for the leader to exit, then SIGKILL to the group."""
    if grace_s > 0:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace_s)
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _drain(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Whatever the killed process had written; a grandchild that escaped the group cannot hold us."""
    try:
        return proc.communicate(timeout=KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        proc.wait()
        return b"", b""


def slug(name: str) -> str:
    """A skill name as a folder name: lower case, runs of other characters as one ``-``.

    >>> slug(" Commit Writer! ")
    'commit-writer'
    """
    return re.sub(r"[^a-z0-9]+", "-", name.strip().strip("\"'").lower()).strip("-")[:64]


def skill_name(skill_text: str) -> str:
    """The folder name a skill is installed under: its frontmatter ``name``, as a `slug`."""
    lines = skill_text.splitlines()
    if lines and lines[0].strip() == "---":
        for line in lines[1:]:
            if line.strip() == "---":
                break
            key, _, value = line.partition(":")
            if key.strip() == "name" and slug(value):
                return slug(value)
    return DEFAULT_SKILL_NAME


def install_skill(skills_root: Path, skill_text: str) -> str:
    """Write ``<skills_root>/<name>/SKILL.md`` (``discover`` delivery); return the name."""
    name = skill_name(skill_text)
    folder = skills_root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(skill_text, encoding="utf-8")
    return name


def tokens_estimate(*texts: str | None) -> int:
    """ceil(chars / 4) over ``texts``: the coarse yardstick the receipt uses for skill tokens.

    >>> tokens_estimate("abcde", None)
    2
    """
    return math.ceil(sum(len(t) for t in texts if t) / 4)


def with_files(gen: Generation, work: Path) -> Generation:
    """``files`` capture: read back ``work``, decide what the grader sees, and list every file on the draw.

    A draw that already failed stays lost with its reason and still lists its files. Otherwise
    `assess_draw` decides: the graded answer (reply, file list, file texts) or a lost draw with its reason.
    """
    capture: Capture = capture_files(work)
    assessment = assess_draw(gen.text, capture)
    records = tuple(
        CapturedFileRecord(path=f.path, size=f.size, included=f.included, reason=f.reason)
        for f in assessment.captured_files
    )
    if gen.error is not None or gen.timed_out or gen.lost_reason is not None:
        return replace(gen, captured_files=records, assessed=True)
    if assessment.lost or assessment.answer is None:
        return replace(gen, captured_files=records, assessed=True, lost_reason=assessment.reason or "no answer")
    return replace(gen, text=assessment.answer, captured_files=records, assessed=True)


def check_choice(name: str, value: str, choices: Sequence[str]) -> None:
    """Refuse a ``capture`` or ``delivery`` the lanes do not know, naming the ones they do."""
    if value not in choices:
        raise InputError(f"unknown {name} {value!r}: expected one of {', '.join(choices)}")


class CliLane(Lane):
    """A command-line surface: one isolated CLI process per draw. Subclasses give the command line and read it.

    Each draw is exactly one invocation (``attempts`` is 1): the CLI retries its own model calls, so the
    lane's `RetryPolicy` is accepted for the registry's sake and not used. The version the binary prints is
    probed once, here, with the same isolated environment the draws get.
    """

    surface: Literal["api", "cli", "none"] = "cli"
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

    def __init__(
        self,
        model: str | None,
        *,
        capture: str = "text",
        delivery: str = "system_prompt",
        timeout_s: float = 120.0,
        environ: Mapping[str, str] | None = None,
        binary: str | None = None,
        base_url: str | None = None,
        policy: RetryPolicy | None = None,
    ) -> None:
        check_choice("capture", capture, CAPTURES)
        check_choice("delivery", delivery, DELIVERIES)
        if timeout_s <= 0:
            raise InputError(f"timeout must be a positive number of seconds, got {timeout_s:g}")
        self._model, self._capture, self._delivery, self._timeout_s = model, capture, delivery, timeout_s
        self._environ = dict(os.environ if environ is None else environ)
        self._binary = find_binary(self.command, binary, self._environ, self.install)
        self._base_url = base_url or env_value(self._environ, self.base_url_variable)
        self._secrets = tuple(v for name in self.credentials if (v := env_value(self._environ, name)))
        if not self._secrets:
            names = " or ".join(self.credentials)
            raise LaneError(f"the {self.harness_name} lane found no credential: set {names} in the environment")
        self._processes = CliProcesses()
        with draw_dirs(self.command) as dirs:
            env = self._env(dirs)
            argv = [self._binary, "--version"]
            self._version = probe_version(self._processes, argv, self.version_pattern, env, dirs.work)
            self._probe(dirs, env)

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

    @abstractmethod
    def _read(
        self, result: ProcessResult, request: GenerationRequest, dirs: DrawDirs, model: str | None, skill: str | None
    ) -> Generation:
        """The draw's `Generation` from what the process printed; raise `LaneError` only if another model answered."""

    # -- the contract ----------------------------------------------------------------------------------
    def generate(self, request: GenerationRequest) -> Generation:
        """One CLI invocation in fresh directories; a failed one comes back as a lost draw, never raised."""
        model = request.model or self._model
        with draw_dirs(self.command) as dirs:
            skill = None
            if request.system and self._delivery == "discover":
                skill = install_skill(self._skills_root(dirs), request.system)
            argv = self._argv(request, dirs, model)
            result = self._processes.run(argv, cwd=dirs.work, env=self._env(dirs), timeout_s=self._timeout_s)
            if result.timed_out:
                reason = f"timed out after {self._timeout_s:g}s: the {self.command} process group was killed"
                gen = Generation(text="", error=reason, timed_out=True, extra={"stderr_tail": self._tail(result)})
            else:
                gen = self._read(result, request, dirs, model, skill)
            if self._capture == "files":
                gen = with_files(gen, dirs.work)
        return gen

    def harness(self) -> Harness:
        """The CLI's name and the version its binary printed when the lane started."""
        return Harness(name=self.harness_name, version=self._version)

    def base_url(self) -> str | None:
        """The endpoint when one was given (argument or the CLI's base-URL variable)."""
        return self._base_url.rstrip("/") if self._base_url else None

    def close(self) -> None:
        """End every draw still running (its whole process group)."""
        self._processes.kill_all()

    # -- helpers ------------------------------------------------------------------------------------------
    def _env(self, dirs: DrawDirs) -> dict[str, str]:
        return isolated_env(self._environ, dirs, self.credentials, self._extra_env(dirs))

    def _tail(self, result: ProcessResult) -> str:
        return stderr_tail(result.stderr, secrets=self._secrets, noise=self.stderr_noise)

    def _exit_reason(self, result: ProcessResult, detail: str | None = None) -> str:
        """``claude exited with status 134: <stderr tail>``."""
        said = detail or self._tail(result) or "no output on stderr"
        return f"{self.command} {result.exit_words()}: {one_line(redact(said, self._secrets))}"
