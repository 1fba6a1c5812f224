"""The Claude Code lane (provider ``anthropic``, surface ``cli``): one ``claude -p`` per draw.

Every draw runs in fresh directories with ``CLAUDE_CONFIG_DIR`` and ``HOME`` of its own, no setting source
(``discover``: the isolated user folder only, where the skill is installed), no MCP server
(``--strict-mcp-config --mcp-config '{"mcpServers":{}}'``) and no session written. ``--tools`` is the allow
list of tools: Read, WebFetch and WebSearch in ``text`` capture, so every other tool is off, a later version's
new ones included; ``files`` capture adds Write, Edit and NotebookEdit with ``--permission-mode acceptEdits``,
which lets them write inside the working directory only. ``discover`` delivery adds the Skill tool, through
which the skill fires. The output is ``stream-json``: the init line names the resolved model, each assistant
line the model the server answered with, and the result line usage per model (``modelUsage``) and cost.

Identity: ``reported_model`` is the model Claude Code resolved (``init.model``, a trailing ``[1m]`` stripped);
``served_model`` the last main-loop assistant message's ``model``. When that names another model (not the
same id, nor a dated snapshot of it), another model gave the answer and `LaneError` stops the run. Every
other ``modelUsage`` entry is a call Claude Code made on its own on another model: a `SideCall`.

>>> strip_context("claude-opus-4-8[1m]"), same_model("claude-opus-5-5-20991231", "claude-opus-5-5")
('claude-opus-4-8', True)
>>> same_model("claude-haiku-5-5", "claude-opus-5-5")
False
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from driftproof.core.economics import estimate_tokens
from driftproof.core.fired import slug
from driftproof.core.models import SideCall, Usage
from driftproof.core.words import Capture, Delivery, Provider, Surface
from driftproof.credentials import credential_names
from driftproof.errors import LaneError
from driftproof.lanes.base import AttemptFailure, Generation, GenerationRequest, kind_of_status
from driftproof.lanes.cli import CliLane, json_lines
from driftproof.lanes.failures import one_line
from driftproof.lanes.process import DrawDirs, ProcessResult

READ_TOOLS = ("Read", "WebFetch", "WebSearch")
"""``text`` capture: the only tools, none of which writes a file or runs code."""
FILE_TOOLS = ("Write", "Edit", "NotebookEdit")
"""Added in ``files`` capture: they write files; still nothing that runs code."""
SKILL_TOOL = "Skill"
"""Added in ``discover`` delivery: the tool through which an installed skill fires."""
NO_MCP = '{"mcpServers":{}}'
SYNTHETIC = "<synthetic>"
"""The ``model`` of the assistant line Claude Code makes up itself (an API error's text), not a server reply."""
QUIET = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1"}


def strip_context(model: str) -> str:
    """A model id without a trailing ``[...]`` (``claude-opus-4-8[1m]`` is ``claude-opus-4-8``)."""
    return re.sub(r"\[[^\]]*\]$", "", model.strip())


def same_model(served: str, resolved: str) -> bool:
    """Whether ``served`` is ``resolved`` or a dated snapshot of it (``resolved-20991231``)."""
    served, resolved = strip_context(served), strip_context(resolved)
    return served == resolved or re.fullmatch(re.escape(resolved) + r"-\d{8}", served) is not None


class ClaudeCliLane(CliLane):
    """Answers through Claude Code in headless mode (``claude -p``), one isolated process per draw."""

    provider = Provider.ANTHROPIC
    command = "claude"
    harness_name = "claude-code"
    install = "npm install -g @anthropic-ai/claude-code"
    version_pattern = r"^(\S+) \(Claude Code\)\s*$"
    credentials = credential_names(Provider.ANTHROPIC, Surface.CLI)
    base_url_variable = "ANTHROPIC_BASE_URL"
    DEFAULT_TIMEOUT_S = 600.0
    """Claude Code retries a failed API call (529, 5xx, 429) itself, up to 10 times with a backoff that doubles
    from 0.5 s to at most 32 s: about 165 s of waiting before it reports the error, more than the API lanes'
    120 s. 600 s covers those retries and an agent's several turns."""

    def __init__(self, model: str | None, *, max_turns: int | None = None, **kwargs: Any) -> None:
        self._max_turns = max_turns
        super().__init__(model, **kwargs)

    # -- the command line -------------------------------------------------------------------------------
    def tools(self) -> list[str]:
        """The ``--tools`` allow list of this lane's capture mode and delivery."""
        extra = FILE_TOOLS if self._capture == Capture.FILES else ()
        return [*READ_TOOLS, *extra, *((SKILL_TOOL,) if self._delivery == Delivery.DISCOVER else ())]

    def allowed_tools(self) -> list[str]:
        """``--allowedTools``: the tools that run without asking (file tools go by ``acceptEdits`` instead)."""
        return [*READ_TOOLS, *((SKILL_TOOL,) if self._delivery == Delivery.DISCOVER else ())]

    def _permission_mode(self) -> str | None:
        return "acceptEdits" if self._capture == Capture.FILES else None

    def _setting_sources(self) -> str:
        return "user" if self._delivery == Delivery.DISCOVER else ""

    def _extra_env(self, dirs: DrawDirs) -> dict[str, str]:
        env = {"CLAUDE_CONFIG_DIR": str(self._skills_root(dirs).parent), **QUIET}
        if self._base_url:
            env["ANTHROPIC_BASE_URL"] = self._base_url
        return env

    def _fired_names(self, result: ProcessResult, names: Sequence[str]) -> tuple[str, ...]:
        return fired_in(result.stdout, names)

    def _skills_root(self, dirs: DrawDirs) -> Path:
        return dirs.home / ".claude" / "skills"

    def _argv(self, request: GenerationRequest, dirs: DrawDirs, model: str | None) -> list[str]:
        argv = [self._binary, "-p", "--output-format", "stream-json", "--verbose"]
        if model:
            argv += ["--model", model]
        argv += ["--tools", ",".join(self.tools()), "--allowedTools", ",".join(self.allowed_tools())]
        if mode := self._permission_mode():
            argv += ["--permission-mode", mode]
        argv += ["--strict-mcp-config", "--mcp-config", NO_MCP, "--setting-sources", self._setting_sources()]
        argv += ["--no-session-persistence"]
        if self._max_turns is not None:
            argv += ["--max-turns", str(self._max_turns)]
        if request.system and self._delivery == Delivery.SYSTEM_PROMPT:
            argv += ["--append-system-prompt", request.system]
        return [*argv, "--", request.prompt]

    def sampling(self) -> dict[str, Any]:
        """Exactly what each draw passes that shapes the answer."""
        return {
            "harness": self.harness_name,
            "model": self._model,
            "output_format": "stream-json",
            "tools": self.tools(),
            "allowed_tools": self.allowed_tools(),
            "permission_mode": self._permission_mode() or "default",
            "mcp_servers": [],
            "setting_sources": self._setting_sources(),
            "session_persistence": False,
            "max_turns": self._max_turns,
            "capture": self._capture,
            "delivery": self._delivery,
            "skill_via": "--append-system-prompt"
            if self._delivery == Delivery.SYSTEM_PROMPT
            else "CLAUDE_CONFIG_DIR/skills",
        }

    # -- reading what it printed ------------------------------------------------------------------------
    def _read(
        self, result: ProcessResult, request: GenerationRequest, dirs: DrawDirs, model: str | None, skill: str | None
    ) -> Generation:
        lines = json_lines(result.stdout)
        init = next((m for m in lines if m.get("type") == "system" and m.get("subtype") == "init"), {})
        final = next((m for m in reversed(lines) if m.get("type") == "result"), None)
        main = [m for m in lines if m.get("type") == "assistant" and m.get("parent_tool_use_id") is None]
        served = [strip_context(s) for m in main if isinstance(s := _message(m).get("model"), str) and s != SYNTHETIC]
        resolved = strip_context(init["model"]) if isinstance(init.get("model"), str) else None
        if resolved and model and "-" in model and not same_model(resolved, model):
            raise LaneError(
                f"another model gave the answer: {model} was asked for but Claude Code resolved {resolved} "
                f"(case {request.case_id or '?'}, {request.arm or 'arm ?'}); the run stops"
            )
        if served and resolved and not same_model(served[-1], resolved):
            raise LaneError(
                f"another model gave the answer: Claude Code resolved {resolved} but {served[-1]} answered "
                f"(case {request.case_id or '?'}, {request.arm or 'arm ?'}); the run stops because its scores "
                "would measure a model that was not asked for"
            )
        usage, side_calls = _usages(final, resolved)
        fired = None if skill is None else _fired(main, skill)
        overhead = _overhead(final, usage, request)
        common: dict[str, Any] = {
            "reported_model": resolved,
            "model_source": "reported" if resolved else None,
            "served_model": served[-1] if served else None,
            "reported_ids": _reported_ids(init, main, final),
            "request_id": final.get("session_id") if final else None,
            "usage": usage,
            "side_calls": side_calls or None,
            "skill_fired": fired,
            "extra": {"harness_overhead": overhead, "stderr_tail": self._tail(result)},
        }
        if final is None:
            return Generation(text="", error=self._exit_reason(result), **common)
        if final.get("is_error") or final.get("subtype") != "success":
            reason = self._result_error(final)
            return Generation(text="", error=reason, failure=_api_failure(final, reason), **common)
        text = final.get("result")
        return Generation(text=text if isinstance(text, str) else "", **common)

    def _retrying(self, result: ProcessResult) -> str | None:
        """The last ``system/api_retry`` line Claude Code printed: the API error it was still retrying."""
        lines = reversed(json_lines(result.stdout))
        retry = next((m for m in lines if m.get("type") == "system" and m.get("subtype") == "api_retry"), None)
        if retry is None:
            return None
        status, kind = retry.get("error_status"), retry.get("error") or "error"
        failure = f"API error {status} {kind}" if status is not None else f"a request that got no HTTP answer ({kind})"
        attempt = f"attempt {retry.get('attempt', '?')} of {retry.get('max_retries', '?')}"
        return f"Claude Code was retrying {failure} ({attempt})"

    def _result_error(self, final: dict[str, Any]) -> str:
        """A readable reason from the result line's own error fields."""
        subtype = final.get("subtype")
        errors = "; ".join(str(e) for e in final.get("errors") or [] if e)
        text = final.get("result") if isinstance(final.get("result"), str) else ""
        if subtype == "error_max_turns":
            return f"claude stopped at its turn limit: {one_line(errors or 'error_max_turns')}"
        status = final.get("api_error_status")
        if status is not None:
            kind = final.get("api_error_type") or "error"
            return f"API error {status} {kind}: {one_line(text or errors or '(no message)')}"
        return f"claude reported an error ({subtype}): {one_line(errors or text or '(no message)')}"


def _api_failure(final: dict[str, Any], reason: str) -> AttemptFailure | None:
    """The provider's failure, when the result line names the API error Claude Code ended on; else ``None``
    (an agent that stopped at its turn limit failed, not its endpoint)."""
    status = final.get("api_error_status")
    if not isinstance(status, int):
        return None
    kind = final.get("api_error_type")
    return AttemptFailure(
        retryable=False,
        reason=reason,
        kind=kind_of_status(status),
        status=status,
        error_type=kind if isinstance(kind, str) else None,
    )


def _message(line: dict[str, Any]) -> dict[str, Any]:
    message = line.get("message")
    return message if isinstance(message, dict) else {}


def _reported_ids(init: dict[str, Any], main: list[dict[str, Any]], final: dict[str, Any] | None) -> tuple[str, ...]:
    """Every model id Claude Code printed, verbatim, once each in the order printed: the resolved model, each
    main-loop assistant line's model, then the ``modelUsage`` keys (its side calls' models among them)."""
    printed = [init.get("model"), *(_message(m).get("model") for m in main)]
    printed += list((final or {}).get("modelUsage") or {})
    ids = (m for m in printed if isinstance(m, str) and m and m != SYNTHETIC)
    return tuple(dict.fromkeys(ids))


def _count(entry: dict[str, Any], key: str) -> int | None:
    value = entry.get(key)
    return value if isinstance(value, int) and value >= 0 else None


def _model_usage(entry: dict[str, Any]) -> Usage:
    cost = entry.get("costUSD")
    return Usage(
        input_tokens=_count(entry, "inputTokens"),
        output_tokens=_count(entry, "outputTokens"),
        cache_read_tokens=_count(entry, "cacheReadInputTokens"),
        cache_write_tokens=_count(entry, "cacheCreationInputTokens"),
        cost_usd=float(cost) if isinstance(cost, (int, float)) and cost >= 0 else None,
    )


def _usages(final: dict[str, Any] | None, resolved: str | None) -> tuple[Usage | None, tuple[SideCall, ...]]:
    """The answer's usage (its ``modelUsage`` entry) and one `SideCall` per other model Claude Code called."""
    if final is None:
        return None, ()
    per_model = {k: v for k, v in (final.get("modelUsage") or {}).items() if isinstance(v, dict)}
    answer_key = next((k for k in per_model if resolved and same_model(k, resolved)), None)
    if answer_key is None and len(per_model) == 1:
        answer_key = next(iter(per_model))
    sides = tuple(
        SideCall(model=strip_context(k), usage=_model_usage(v)) for k, v in sorted(per_model.items()) if k != answer_key
    )
    if answer_key is not None:
        return _model_usage(per_model[answer_key]), sides
    u: dict[str, Any] = final["usage"] if isinstance(final.get("usage"), dict) else {}
    total = final.get("total_cost_usd")
    usage = Usage(
        input_tokens=_count(u, "input_tokens"),
        output_tokens=_count(u, "output_tokens"),
        cache_read_tokens=_count(u, "cache_read_input_tokens"),
        cache_write_tokens=_count(u, "cache_creation_input_tokens"),
        cost_usd=float(total) if isinstance(total, (int, float)) and not per_model else None,
    )
    return (usage if any(v is not None for v in usage.model_dump().values()) else None), sides


def fired_in(stdout: str, names: Sequence[str]) -> tuple[str, ...]:
    """Which installed skills a stream-json transcript shows firing (`_fired` for each), in the order given."""
    main = [m for m in json_lines(stdout) if m.get("type") == "assistant" and m.get("parent_tool_use_id") is None]
    return tuple(name for name in names if _fired(main, name))


def _fired(main: list[dict[str, Any]], skill: str) -> bool:
    """Whether the transcript shows the skill firing: the Skill tool called with it, or its SKILL.md read."""
    for line in main:
        for block in _message(line).get("content") or []:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            args: dict[str, Any] = block["input"] if isinstance(block.get("input"), dict) else {}
            if block.get("name") == SKILL_TOOL and slug(str(args.get("skill") or args.get("command") or "")) == skill:
                return True
            if block.get("name") == "Read" and str(args.get("file_path", "")).endswith(f"{skill}/SKILL.md"):
                return True
    return False


def _overhead(final: dict[str, Any] | None, usage: Usage | None, request: GenerationRequest) -> dict[str, Any]:
    """What Claude Code added beyond the prompt and skill, as it reported it: input tokens, turns, cost."""
    reported = None
    if usage is not None and usage.input_tokens is not None:
        reported = usage.input_tokens + (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
    estimate = estimate_tokens(request.prompt, request.system)
    last: dict[str, Any] = final or {}
    return {
        "input_tokens_reported": reported,
        "prompt_tokens_estimate": estimate,
        "overhead_tokens_estimate": None if reported is None else max(0, reported - estimate),
        "total_cost_usd": last.get("total_cost_usd"),
        "num_turns": last.get("num_turns"),
        "duration_ms": last.get("duration_ms"),
    }
