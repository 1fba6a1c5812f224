"""The Codex lane (provider ``openai``, surface ``cli``): one ``codex exec --json`` per draw.

Every draw runs in fresh directories with ``CODEX_HOME`` and ``HOME`` of its own, the user's config and
rules ignored (``--ignore-user-config --ignore-rules``), no MCP server (``-c mcp_servers={}``) and approvals
off (``-c approval_policy="never"``). ``text`` capture runs the read-only sandbox and turns off every feature
that Codex's own feature list (``codex features list``, read once when the lane starts) names and that writes
a file or runs code, the shell among them (`code_features`). ``files`` capture runs the workspace-write
sandbox with the features as they are. The skill goes in as ``-c developer_instructions=...`` (a developer
message ahead of the prompt), or, with ``discover``, as ``$CODEX_HOME/skills/<name>/SKILL.md``.

With ``base_url`` (or ``OPENAI_BASE_URL``) the draw defines its own provider on that endpoint, Responses
wire API over HTTPS (no WebSocket), key from ``CODEX_API_KEY``. ``OPENAI_API_KEY`` alone is passed as
``CODEX_API_KEY`` too: ``codex exec`` sends only that one.

``files`` capture keeps ``/tmp`` and ``$TMPDIR`` out of the sandbox's writable places
(``sandbox_workspace_write.exclude_slash_tmp`` and ``exclude_tmpdir_env_var``), so a draw writes in its own
working directory and its own ``TMPDIR`` (``writable_roots``) only, never in another draw's directory.

Identity: no event of ``codex exec --json`` carries a model, so ``reported_model`` is the model Codex was
configured with (the session file's ``turn_context.model``, else ``--model``), and ``model_source`` says
``configured``, not reported by the server; ``served_model`` stays empty.

>>> code_features([("shell_tool", "stable", True), ("memories", "stable", False), ("js_repl", "removed", True),
...                ("write_stdin_approval", "stable", True), ("unified_exec", "stable", True)])
['shell_tool', 'unified_exec']
>>> toml_string('say "hi"\\n')
'"say \\\\"hi\\\\"\\\\n"'
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from driftproof.core.economics import estimate_tokens
from driftproof.core.models import Usage
from driftproof.core.words import Capture, Delivery, Provider, Surface
from driftproof.credentials import credential_names
from driftproof.errors import LaneError
from driftproof.lanes.base import AttemptFailure, Generation, GenerationRequest, kind_of_status
from driftproof.lanes.cli import CliLane, json_lines
from driftproof.lanes.failures import one_line
from driftproof.lanes.process import DrawDirs, ProcessResult

CODE_FEATURE_WORDS = (
    "shell",
    "exec",
    "code_mode",
    "repl",
    "patch",
    "browser",
    "computer_use",
    "image_generation",
    "hook",
    "install",
    "automation",
    "daemon",
    "dependencies",
    "worktree",
    "git_commit",
    "plugin",
    "apps",
)
"""A feature whose name holds one of these runs code, writes files, or brings tools of its own (plugins and
apps load MCP servers). Only features that are on and not ``removed`` are turned off; approval switches stay."""
PROVIDER_ID = "driftproof"
NOT_TOOLS = frozenset({"agent_message", "reasoning", "error", "todo_list", "plan"})
_FEATURE_ROW = re.compile(r"^(\S+)\s+(.+?)\s+(true|false)\s*$")
_STATUS = re.compile(r"(?:last status:|unexpected status)\s+(\d{3})")
_RECONNECTING = re.compile(r"^Reconnecting\.\.\. (\d+)/(\d+) \((.*)\)$", re.DOTALL)


def code_features(rows: Sequence[tuple[str, str, bool]]) -> list[str]:
    """The features to turn off in ``text`` capture, from ``codex features list`` rows (name, stage, enabled)."""
    return sorted(
        name
        for name, stage, enabled in rows
        if enabled and stage != "removed" and "approval" not in name and any(w in name for w in CODE_FEATURE_WORDS)
    )


def parse_features(stdout: str) -> list[tuple[str, str, bool]]:
    """``codex features list`` output as (name, stage, enabled) rows; other lines (warnings) are skipped.

    >>> parse_features("shell_tool    stable   true\\nWARNING: x\\nmemories  under development  false\\n")
    [('shell_tool', 'stable', True), ('memories', 'under development', False)]
    """
    rows = []
    for line in stdout.splitlines():
        match = _FEATURE_ROW.match(line.strip())
        if match and not line.startswith("WARNING"):
            rows.append((match.group(1), match.group(2), match.group(3) == "true"))
    return rows


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string, for a ``-c key=value`` override."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\n\t":
            out.append("\\n" if ch == "\n" else "\\t")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    return "".join([*out, '"'])


class CodexCliLane(CliLane):
    """Answers through Codex non-interactively (``codex exec --json``), one isolated process per draw."""

    provider = Provider.OPENAI
    command = "codex"
    harness_name = "codex"
    install = "npm install -g @openai/codex"
    version_pattern = r"^codex-cli (\S+)\s*$"
    credentials = credential_names(Provider.OPENAI, Surface.CLI)  # CODEX_API_KEY first
    base_url_variable = "OPENAI_BASE_URL"
    stderr_noise = ("WARNING: proceeding, even though we could not", "Reading additional input from stdin")
    DEFAULT_TIMEOUT_S = 600.0
    """Codex retries a failed request (4 times by default) and reconnects a dropped stream (5 times) itself,
    and counts a stream silent for 300 s as dropped: one stalled stream alone outlasts the API lanes' 120 s.
    600 s covers one such wait, the reconnects and an agent's several turns."""

    def __init__(self, model: str | None, **kwargs: Any) -> None:
        self._features: list[tuple[str, str, bool]] = []
        super().__init__(model, **kwargs)

    def _probe(self, dirs: DrawDirs, env: Mapping[str, str]) -> None:
        """Read Codex's own feature list once; ``text`` capture turns off the ones that write or run code."""
        result = self._processes.run([self._binary, "features", "list"], cwd=dirs.work, env=env, timeout_s=60.0)
        self._features = parse_features(result.stdout)
        if self._capture == Capture.TEXT and (result.returncode != 0 or not self._features):
            raise LaneError(
                f"`codex features list` gave no feature list ({self._exit_reason(result)}): the text capture "
                "cannot turn off the features that write files or run code, so the lane does not start"
            )

    def disabled_features(self) -> list[str]:
        """What ``--disable`` turns off in this lane's capture mode (none in ``files`` capture)."""
        return code_features(self._features) if self._capture == Capture.TEXT else []

    def _sandbox(self) -> str:
        return "workspace-write" if self._capture == Capture.FILES else "read-only"

    # -- the command line -------------------------------------------------------------------------------
    def _extra_env(self, dirs: DrawDirs) -> dict[str, str]:
        codex_home = dirs.home / ".codex"
        codex_home.mkdir(exist_ok=True)  # codex refuses a CODEX_HOME that does not exist yet
        env = {"CODEX_HOME": str(codex_home)}
        if not (self._environ.get("CODEX_API_KEY") or "").strip():
            env["CODEX_API_KEY"] = self._secrets[0]
        return env

    def _fired_names(self, result: ProcessResult, names: Sequence[str]) -> tuple[str, ...]:
        return fired_in(result.stdout, names)

    def _skills_root(self, dirs: DrawDirs) -> Path:
        return dirs.home / ".codex" / "skills"

    def _argv(self, request: GenerationRequest, dirs: DrawDirs, model: str | None) -> list[str]:
        argv = [self._binary, "exec", "--json", "--skip-git-repo-check", "--ignore-user-config", "--ignore-rules"]
        argv += ["-C", str(dirs.work), "-s", self._sandbox()]
        if self._capture == Capture.FILES:  # /tmp and $TMPDIR are writable by default: keep the draw in its own folders
            argv += ["-c", "sandbox_workspace_write.exclude_slash_tmp=true"]
            argv += ["-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"]
            argv += ["-c", f"sandbox_workspace_write.writable_roots=[{toml_string(str(dirs.tmp))}]"]
        if model:
            argv += ["-m", model]
        argv += ["-c", 'approval_policy="never"', "-c", "mcp_servers={}"]
        if request.system and self._delivery == Delivery.SYSTEM_PROMPT:
            argv += ["-c", f"developer_instructions={toml_string(request.system)}"]
        if self._base_url:
            provider = f"model_providers.{PROVIDER_ID}"
            argv += ["-c", f"model_provider={toml_string(PROVIDER_ID)}"]
            argv += ["-c", f"{provider}.name={toml_string(PROVIDER_ID)}"]
            argv += ["-c", f"{provider}.base_url={toml_string(self._base_url)}"]
            argv += ["-c", f'{provider}.env_key="CODEX_API_KEY"', "-c", f'{provider}.wire_api="responses"']
            argv += ["-c", f"{provider}.supports_websockets=false"]
        for name in self.disabled_features():
            argv += ["--disable", name]
        return [*argv, "--", request.prompt]

    def sampling(self) -> dict[str, Any]:
        """Exactly what each draw passes that shapes the answer."""
        return {
            "harness": self.harness_name,
            "model": self._model,
            "sandbox": self._sandbox(),
            "approval_policy": "never",
            "mcp_servers": {},
            "disabled_features": self.disabled_features(),
            "provider": PROVIDER_ID if self._base_url else "default",
            "capture": self._capture,
            "delivery": self._delivery,
            "skill_via": "developer_instructions" if self._delivery == Delivery.SYSTEM_PROMPT else "CODEX_HOME/skills",
        }

    # -- reading what it printed ------------------------------------------------------------------------
    def _read(
        self, result: ProcessResult, request: GenerationRequest, dirs: DrawDirs, model: str | None, skill: str | None
    ) -> Generation:
        events = json_lines(result.stdout)
        items = [e["item"] for e in events if e.get("type") == "item.completed" and isinstance(e.get("item"), dict)]
        messages = [str(i.get("text") or "") for i in items if i.get("type") == "agent_message"]
        completed = next((e for e in reversed(events) if e.get("type") == "turn.completed"), None)
        failed = next((e for e in reversed(events) if e.get("type") == "turn.failed"), None)
        errors = [str(e.get("message") or "") for e in events if e.get("type") == "error"]
        configured = _configured_model(dirs.home / ".codex") or model
        raw = completed.get("usage") if completed and isinstance(completed.get("usage"), dict) else None
        usage = _usage(raw) if raw else None
        common: dict[str, Any] = {
            "reported_model": configured,
            "model_source": "configured" if configured else None,
            "request_id": next((e.get("thread_id") for e in events if e.get("type") == "thread.started"), None),
            "usage": usage,
            "skill_fired": None if skill is None else _fired(items, skill),
            "extra": {
                "harness_overhead": _overhead(raw, request),
                "stderr_tail": self._tail(result),
            },
        }
        if failed is not None:
            error = failed.get("error") if isinstance(failed.get("error"), dict) else {}
            message = str(error.get("message") or (errors[-1] if errors else "") or "(no message)")
            status = _STATUS.search(message)
            prefix = f"API error {status.group(1)}: " if status else "codex turn failed: "
            reason = prefix + one_line(message)
            failure = None
            if status is not None:  # the provider answered with an error status: the endpoint failed the call
                code = int(status.group(1))
                failure = AttemptFailure(retryable=False, reason=reason, kind=kind_of_status(code), status=code)
            return Generation(text="", error=reason, failure=failure, **common)
        if completed is None:
            return Generation(text="", error=self._exit_reason(result, errors[-1] if errors else None), **common)
        if result.returncode != 0:
            return Generation(text="", error=self._exit_reason(result), **common)
        return Generation(text=messages[-1] if messages else "", **common)

    def _retrying(self, result: ProcessResult) -> str | None:
        """The last ``Reconnecting... n/N (...)`` error Codex printed: the failure it was still retrying."""
        errors = [str(e.get("message") or "") for e in json_lines(result.stdout) if e.get("type") == "error"]
        match = next((m for e in reversed(errors) if (m := _RECONNECTING.match(e.strip()))), None)
        if match is None:
            return None
        attempt, limit, said = match.groups()
        status = _STATUS.search(said)
        if status:
            return f"Codex was reconnecting after API error {status.group(1)} (attempt {attempt} of {limit})"
        return f"Codex was reconnecting (attempt {attempt} of {limit}): {said}"


def _count(raw: Mapping[str, Any], key: str) -> int | None:
    value = raw.get(key)
    return value if isinstance(value, int) and value >= 0 else None


def _usage(raw: Mapping[str, Any]) -> Usage:
    """``turn.completed`` usage, normalised: Codex's ``input_tokens`` includes the cached and cache-written
    part, which the receipt counts apart; ``output_tokens`` already includes reasoning."""
    keys = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens")
    total, cached, written = (_count(raw, k) for k in keys)
    return Usage(
        input_tokens=None if total is None else max(0, total - (cached or 0) - (written or 0)),
        output_tokens=_count(raw, "output_tokens"),
        cache_read_tokens=cached,
        cache_write_tokens=written,
    )


def _configured_model(codex_home: Path) -> str | None:
    """``turn_context.model`` from the draw's session file: the model Codex was configured with."""
    for path in sorted(codex_home.glob("sessions/**/rollout-*.jsonl")):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            payload = entry.get("payload") if isinstance(entry, dict) else None
            if entry.get("type") == "turn_context" and isinstance(payload, dict) and payload.get("model"):
                return str(payload["model"])
    return None


def fired_in(stdout: str, names: Sequence[str]) -> tuple[str, ...]:
    """Which installed skills a JSONL transcript shows opened (`_fired` for each), in the order given."""
    events = json_lines(stdout)
    items = [e["item"] for e in events if e.get("type") == "item.completed" and isinstance(e.get("item"), dict)]
    return tuple(name for name in names if _fired(items, name))


def _fired(items: list[dict[str, Any]], skill: str) -> bool:
    """Whether a tool item of the transcript opened the installed skill's ``SKILL.md``."""
    needle = f"{skill}/SKILL.md"
    return any(item.get("type") not in NOT_TOOLS and needle in json.dumps(item) for item in items)


def _overhead(raw: Mapping[str, Any] | None, request: GenerationRequest) -> dict[str, Any]:
    """What Codex added beyond the prompt and skill, as its usage reports it (its preamble is large)."""
    reported = _count(raw, "input_tokens") if raw else None
    estimate = estimate_tokens(request.prompt, request.system)
    return {
        "input_tokens_reported": reported,
        "prompt_tokens_estimate": estimate,
        "overhead_tokens_estimate": None if reported is None else max(0, reported - estimate),
        "reasoning_output_tokens": _count(raw, "reasoning_output_tokens") if raw else None,
    }
