"""What the fake ``claude`` and ``codex`` share: scenario selection, the invocation log, stdin, files.

Standard library only, and no side effect on import (pytest's ``--doctest-modules`` imports this file).
The scenario format is documented in ``README.md`` next to this file.

>>> merge({"usage": {"input_tokens": 1, "output_tokens": 2}}, {"usage": {"output_tokens": 5}, "result": "x"})
{'usage': {'input_tokens': 1, 'output_tokens': 5}, 'result': 'x'}
>>> safe_relpath("notes/a.md"), safe_relpath("../x") is None, safe_relpath("/etc/passwd") is None
('notes/a.md', True, True)
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import stat
import sys
import time
from typing import Any

SCENARIO_ENV = "DRIFTPROOF_FAKE_CLI_SCENARIO"
LOG_ENV = "DRIFTPROOF_FAKE_CLI_LOG"
RECORDED_ENV = (
    "HOME",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "XDG_CONFIG_HOME",
    "TMPDIR",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
)
"""Environment variables whose values go into the invocation log."""
SECRET_ENV = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
)
"""Credentials: the log says only whether each is set, never its value."""
SCENARIOS = ("success", "files", "other_model", "api_error", "max_turns", "timeout", "crash")
CONTROL_KEYS = ("sequence", "when", "cycle", "claude", "codex", "match")
STDIN_WAIT_S = 0.3


class ScenarioError(Exception):
    """The scenario file is malformed; the fake exits 2 with this message."""


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base``; nested dicts (``usage``) merge key by key."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def _without_control(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in CONTROL_KEYS}


def _bump_counter(scenario_path: str, key: str) -> int:
    """The 0-based invocation number for ``key``, kept in ``<scenario>.counter`` under an exclusive lock."""
    fd = os.open(scenario_path + ".counter", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        raw = b""
        while chunk := os.read(fd, 65536):
            raw += chunk
        counters = json.loads(raw) if raw.strip() else {}
        index = int(counters.get(key, 0))
        counters[key] = index + 1
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(counters, sort_keys=True).encode())
        return index
    finally:
        os.close(fd)  # closing releases the lock


def load_scenario() -> dict[str, Any]:
    """The scenario file named by ``$DRIFTPROOF_FAKE_CLI_SCENARIO``, or {} when unset."""
    path = os.environ.get(SCENARIO_ENV)
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        raise ScenarioError(f"cannot read scenario {path}: {exc}") from exc
    if not isinstance(doc, dict):
        raise ScenarioError(f"scenario {path} must hold a JSON object")
    return doc


def select_spec(cli: str, texts: list[str]) -> tuple[dict[str, Any], str, int]:
    """The spec for this invocation, the key it was chosen under, and its index in that key's sequence.

    Order: top-level keys, then the ``claude``/``codex`` section, then the first ``when`` rule whose
    ``match`` occurs in one of ``texts`` (prompt and system prompts), then that level's ``sequence`` item.
    """
    path = os.environ.get(SCENARIO_ENV)
    if not path:
        return {"scenario": "success"}, "default", 0
    doc = load_scenario()
    if isinstance(doc.get(cli), dict):
        doc = merge(doc, doc[cli])
    spec, key, sequence, cycle = _without_control(doc), "default", doc.get("sequence"), bool(doc.get("cycle"))
    for n, rule in enumerate(doc.get("when") or []):
        if not isinstance(rule, dict) or not isinstance(rule.get("match"), str):
            raise ScenarioError(f"when[{n}] needs a string 'match'")
        if any(rule["match"] in text for text in texts):
            spec, key = merge(spec, _without_control(rule)), f"when[{n}]"
            sequence, cycle = rule.get("sequence"), bool(rule.get("cycle", cycle))
            break
    index = _bump_counter(path, key)
    if sequence:
        if not isinstance(sequence, list) or not all(isinstance(item, dict) for item in sequence):
            raise ScenarioError("'sequence' must be a list of objects")
        item = sequence[index % len(sequence)] if cycle else sequence[min(index, len(sequence) - 1)]
        spec = merge(spec, item)
    spec.setdefault("scenario", "success")
    if spec["scenario"] not in SCENARIOS:
        raise ScenarioError(f"unknown scenario {spec['scenario']!r}; expected one of {', '.join(SCENARIOS)}")
    return spec, key, index


def probe_stdin() -> tuple[str, str]:
    """Classify fd 0 without ever blocking for long, and return what it held.

    Kinds: ``closed``, ``devnull``, ``tty``, ``file``, ``pipe`` (data then EOF), ``pipe-empty`` (EOF at
    once), ``pipe-open`` (no EOF within 0.3 s: the real CLI would hang here), ``other``.
    """
    try:
        st = os.fstat(0)
    except OSError:
        return "closed", ""
    if stat.S_ISCHR(st.st_mode):
        if os.isatty(0):
            return "tty", ""
        devnull = os.stat(os.devnull)
        return ("devnull" if st.st_rdev == devnull.st_rdev else "other"), ""
    if stat.S_ISREG(st.st_mode):
        with open(0, "rb", closefd=False) as f:
            return "file", f.read().decode("utf-8", "replace")
    if not (stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode)):
        return "other", ""
    data, deadline = b"", time.monotonic() + STDIN_WAIT_S
    while True:
        ready, _, _ = select.select([0], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return "pipe-open", data.decode("utf-8", "replace")
        chunk = os.read(0, 65536)
        if not chunk:
            return ("pipe" if data else "pipe-empty"), data.decode("utf-8", "replace")
        data += chunk


def append_log(entry: dict[str, Any]) -> None:
    """One JSON line in ``$DRIFTPROOF_FAKE_CLI_LOG`` (if set), written under an exclusive lock."""
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    line = (json.dumps(entry, sort_keys=True) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, line)
    finally:
        os.close(fd)


class Invocation:
    """The log entry of one run; `log` writes it once (before a hang or a crash, or at exit)."""

    def __init__(self, cli: str, argv: list[str], stdin_kind: str) -> None:
        self.entry = base_log_entry(cli, argv, stdin_kind)
        self._logged = False

    def log(self, exit_code: int | None) -> None:
        """Append the entry with ``exit_code`` (None: the fake is about to hang until killed)."""
        if not self._logged:
            self._logged = True
            append_log({**self.entry, "exit_code": exit_code})


def base_log_entry(cli: str, argv: list[str], stdin_kind: str) -> dict[str, Any]:
    return {
        "cli": cli,
        "argv": argv,
        "cwd": os.getcwd(),
        "pid": os.getpid(),
        "time": time.time(),
        "env": {name: os.environ.get(name) for name in RECORDED_ENV},
        "secrets_set": {name: bool(os.environ.get(name)) for name in SECRET_ENV},
        "env_names": sorted(os.environ),
        "stdin": stdin_kind,
    }


def safe_relpath(path: str) -> str | None:
    """``path`` if it is relative and stays inside its root, else None."""
    parts = path.replace("\\", "/").split("/")
    if not path or path.startswith("/") or ".." in parts:
        return None
    return "/".join(p for p in parts if p not in ("", "."))


def write_files(root: str, files: dict[str, Any]) -> list[str]:
    """Write the scenario's ``files`` under ``root``; return their absolute paths.

    A value is the UTF-8 text, or an object with one of ``text``, ``base64`` or ``size`` (that many
    ``fill`` characters, default "x"), and optionally ``mode`` (octal string such as "000").
    """
    written = []
    for name, value in files.items():
        rel = safe_relpath(name)
        if rel is None:
            raise ScenarioError(f"file name {name!r} must be relative and stay inside the working directory")
        spec = value if isinstance(value, dict) else {"text": value}
        if "base64" in spec:
            data = base64.b64decode(spec["base64"])
        elif "size" in spec:
            data = (str(spec.get("fill", "x")) * int(spec["size"])).encode()[: int(spec["size"])]
        else:
            data = str(spec.get("text", "")).encode()
        target = os.path.join(root, rel)
        os.makedirs(os.path.dirname(target) or root, exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        if "mode" in spec:
            os.chmod(target, int(str(spec["mode"]), 8))
        written.append(os.path.abspath(target))
    return written


def emit(obj: Any) -> None:
    """One compact JSON line on stdout, flushed (consumers read line by line)."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def fail(message: str, code: int) -> int:
    sys.stderr.write(message if message.endswith("\n") else message + "\n")
    sys.stderr.flush()
    return code


def hang(spec: dict[str, Any]) -> None:
    """The ``timeout`` scenario: sleep ``sleep_s`` (default 3600) so the caller's timeout fires."""
    time.sleep(float(spec.get("sleep_s", 3600)))


def crash(spec: dict[str, Any], default_stderr: str, default_code: int) -> int:
    """The ``crash`` scenario: stderr only, no JSON; exit ``exit_code``, or die by ``signal`` ("SIGABRT")."""
    sys.stdout.flush()
    sys.stderr.write(str(spec.get("stderr", default_stderr)))
    sys.stderr.flush()
    if spec.get("signal"):
        import signal

        os.kill(os.getpid(), getattr(signal, str(spec["signal"])))
    return int(spec.get("exit_code", default_code))
