"""One isolated process per draw: fresh directories, an environment built from nothing, a killable group.

Each draw runs the CLI once (`CliProcesses.run`) in a fresh directory of its own (`draw_dirs`): ``work/`` is
the agent's working directory, ``home/`` its ``HOME`` (the CLI's config directory lives inside it), ``tmp/``
its ``TMPDIR``. Every draw's directory of one lane lives in a private root of that lane (`draws_root`), under
the user's cache directory rather than ``/tmp``, which a sandboxed agent may be allowed to write. The
environment is built from nothing (`isolated_env`): locale, ``PATH``, proxy and CA settings, the API
credentials the lane names, Driftproof's own ``DRIFTPROOF_*`` variables, and the isolated directories, so no
user setting, memory, ``CLAUDE.md``, skill or MCP server of the user's reaches the agent. Stdin is
``/dev/null``; the process leads a new session, and a timeout ends its whole process group (SIGTERM, then
SIGKILL). Nothing here raises for a failed draw.

>>> stderr_tail("line 1\\nError: boom\\n", 40)
'line 1 Error: boom'
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from driftproof.credentials import redact
from driftproof.errors import LaneError
from driftproof.lanes.failures import one_line

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


def draws_root(environ: Mapping[str, str]) -> Path:
    """A new private directory (mode 0700) for one lane's draw directories.

    It goes under ``$XDG_CACHE_HOME/driftproof/draws`` (``~/.cache/driftproof/draws`` when that is unset or not
    absolute), outside ``/tmp``: Codex's workspace-write sandbox may write all of ``/tmp``, so draws there could
    reach one another. It falls back to the temporary directory when the cache directory cannot be made, or
    lies inside a git work tree, whose ``AGENTS.md`` and git state an agent would read as its project's.
    """
    cache = _cache_dir(environ)
    if cache is not None and not _in_git_work_tree(cache):
        draws = cache / "driftproof" / "draws"
        with suppress(OSError):
            draws.mkdir(mode=0o700, parents=True, exist_ok=True)
            return Path(tempfile.mkdtemp(prefix="run-", dir=draws))
    return Path(tempfile.mkdtemp(prefix="driftproof-run-"))


def _cache_dir(environ: Mapping[str, str]) -> Path | None:
    for name, tail in (("XDG_CACHE_HOME", ()), ("HOME", (".cache",))):
        value = (environ.get(name) or "").strip()
        if value and os.path.isabs(value):
            return Path(value, *tail)
    return None


def _in_git_work_tree(path: Path) -> bool:
    return any(os.path.exists(parent / ".git") for parent in (path, *path.parents))


@contextmanager
def draw_dirs(label: str, parent: Path) -> Iterator[DrawDirs]:
    """Fresh ``work/``, ``home/`` and ``tmp/`` under a new directory in ``parent``, removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=parent))
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
    text = redact("\n".join(kept), secrets).strip()  # redacted before it is cut to the tail
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
