"""What every part shares: its result row, the failures it lists, temporary directories, suites, and
``driftproof`` subprocesses with a hard time limit.

Nothing here reads the caller's environment for credentials: every subprocess gets a fresh environment
built from scratch (PATH, HOME, LANG) plus the fake keys a part passes in.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
SKILL = "# Commit messages\n\nWrite Conventional Commits: a typed subject under 72 characters, then why.\n"
MAX_FAILURES_SHOWN = 12
"""Failures listed per part after the table; the rest are counted."""
ERROR_PREFIX = "driftproof: error: "


_DEADLINE = [math.inf]


def set_budget(seconds: float) -> None:
    """The whole harness's time budget from now: parts stop starting new runs once it is spent."""
    _DEADLINE[0] = time.monotonic() + seconds


def out_of_time(margin_s: float = 0.0) -> bool:
    return time.monotonic() + margin_s > _DEADLINE[0]


@dataclass(frozen=True)
class Failure:
    """One thing a part found wrong: where, on what input, what happened, and how to reproduce it."""

    part: str
    input: str
    what: str
    repro: str = ""


@dataclass
class PartResult:
    """One row of the table; ``None`` in a column means the part does not measure it (shown as a dash)."""

    part: str
    runs: str = "0"
    faults: int | None = None
    lost: int | None = None
    lost_unnamed: int = 0
    corrupted: int | None = None
    redrawn: int | None = None
    leaked: str | None = None
    failures: list[Failure] = field(default_factory=list)
    count: int | None = None
    """What the failures column shows, when a part lists its findings grouped (else one per failure)."""
    details: list[str] = field(default_factory=list)
    """Lines the report adds under the part (a per-run breakdown); not printed on the terminal."""
    skipped: str | None = None
    seconds: float = 0.0

    def fail(self, input: str, what: str, repro: str = "") -> None:
        self.failures.append(Failure(self.part, scrub(one_line(input, 200)), scrub(one_line(what, 500)), scrub(repro)))


def scrub(text: str) -> str:
    """Temporary paths and loopback ports, which change from run to run, replaced by placeholders.

    >>> scrub("/tmp/driftproof-rel-fuzz-ab_12/m.json at http://127.0.0.1:40123/v1")
    '$TMP/m.json at http://127.0.0.1:$PORT/v1'
    """
    text = re.sub(r"/tmp/driftproof-rel-[A-Za-z0-9_-]+", "$TMP", text)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:$PORT", text)


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, control characters shown as escapes, cut to ``limit`` characters.

    >>> one_line("a\\n\\x1b[31mb"), one_line("x" * 10, 4)
    ('a \\\\x1b[31mb', 'xxx…')
    """
    flat = " ".join(str(text).split())
    shown = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in flat)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


@contextlib.contextmanager
def temp_dir(prefix: str) -> Iterator[Path]:
    """A fresh directory, removed afterwards whatever happens."""
    path = Path(tempfile.mkdtemp(prefix=f"driftproof-rel-{prefix}-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def base_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A subprocess environment from scratch: no inherited key, endpoint or SDK logging variable."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "NO_COLOR": "1",
    }
    env.update(extra or {})
    return env


def write_suite(
    where: Path,
    case_ids: Sequence[str],
    *,
    name: str = "reliability",
    prompt: str = "Write a commit message for change {id}.",
    rubric: str = "A Conventional Commits subject, then why.",
) -> Path:
    """A native suite over SKILL.md in ``where``; returns the suite path."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "SKILL.md").write_text(SKILL, encoding="utf-8")
    cases = [{"id": cid, "prompt": prompt.format(id=cid), "rubric": rubric} for cid in case_ids]
    body = {"name": name, "skill": "SKILL.md", "cases": cases}
    path = where / "suite.yaml"
    path.write_text(yaml.safe_dump(body, allow_unicode=True, width=10_000), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Proc:
    """A finished (or killed) ``driftproof`` subprocess."""

    argv: tuple[str, ...]
    code: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in self.stderr or "Traceback (most recent call last)" in self.stdout

    def raised_at(self) -> str:
        """`` at driftproof/x.py:12`` for the innermost frame of Driftproof's own code in a traceback."""
        frames = re.findall(r'File "([^"]*driftproof/[^"]+)", line (\d+)', self.stderr)
        if not frames:
            return ""
        path, line = frames[-1]
        return f" at {path[path.rindex('driftproof/') :]}:{line}"

    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith(ERROR_PREFIX)]

    def clear_error(self) -> bool:
        """Exit 2, no traceback, and exactly one ``driftproof: error:`` line, the last one on stderr."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return (
            self.code == 2
            and not self.traceback
            and len(self.error_lines()) == 1
            and bool(lines)
            and lines[-1].startswith(ERROR_PREFIX)
        )

    def ending(self) -> str:
        """How it ended, in words, for a failure line."""
        if self.timed_out:
            return f"did not finish within {self.seconds:.0f} s (killed)"
        tail = next((line for line in reversed(self.stderr.splitlines()) if line.strip()), "")
        where = self.raised_at()
        what = (
            f"a traceback ({one_line(tail, 160)}{where})"
            if self.traceback
            else f"stderr ending {one_line(tail, 200)!r}"
        )
        return f"exit {self.code} with {what}"


def driftproof_argv(*args: str) -> list[str]:
    return [PYTHON, "-m", "driftproof", *args]


def run_cli(args: Sequence[str], env: Mapping[str, str], *, timeout: float = 120.0, cwd: Path | None = None) -> Proc:
    """``python -m driftproof ARGS`` with a hard time limit (its whole process group is killed past it)."""
    argv = driftproof_argv(*args)
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        env=dict(env),
        cwd=cwd or ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        return Proc(tuple(argv), proc.returncode, out, err, time.monotonic() - started)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        return Proc(tuple(argv), proc.returncode, out, err, time.monotonic() - started, timed_out=True)


def kill_group(proc: subprocess.Popen[str]) -> None:
    """SIGKILL a subprocess started in its own session, and its children; reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def repro_cmd(args: Sequence[str]) -> str:
    """The command line of a run, for a reproduction, with temporary paths shortened."""
    shown = []
    for arg in args:
        text = str(arg)
        if text.startswith(tempfile.gettempdir()):
            text = "$TMP/" + Path(text).name
        shown.append(text if " " not in text else repr(text))
    return scrub("driftproof " + " ".join(shown))
