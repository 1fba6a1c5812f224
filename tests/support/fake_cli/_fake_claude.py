"""The fake ``claude`` (Claude Code 2.1.332 headless mode), driven by a scenario file; see README.md.

Argument parsing follows Commander.js, as the real CLI does: ``--opt value`` and ``--opt=value``,
variadic options (``--tools``, ``--allowedTools``, ``--disallowedTools``, ``--mcp-config``, ``--add-dir``,
``--betas``, ``--file``) swallow every following argument up to the next one starting with ``-``, and an
unknown option fails with ``error: unknown option '--x'`` and exit 1.

>>> parse(["-p", "--allowedTools", "Read", "say hi"]).prompt is None  # the variadic ate the prompt
True
>>> parse(["-p", "say hi", "--allowedTools", "Read,Grep"]).values["allowedTools"]
['Read,Grep']
>>> split_tools(["Read,Grep", "Bash(git *) Edit"])
['Read', 'Grep', 'Bash(git *)', 'Edit']
"""

from __future__ import annotations

import difflib
import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import _fake_cli_common as common

VERSION = "2.1.332"
DEFAULT_MODEL = "claude-opus-5-5"
SYNTHETIC_MODEL = "<synthetic>"
"""``message.model`` of the assistant line Claude Code writes itself when the API call failed."""
ALIASES = {
    "haiku": "claude-haiku-5-5",
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "default": "claude-opus-5-5",
    "fable": "claude-fable-5-2",
}
BUILTIN_TOOLS = (
    "Task",
    "Bash",
    "Glob",
    "Grep",
    "ExitPlanMode",
    "Read",
    "Edit",
    "NotebookEdit",
    "WebFetch",
    "TodoWrite",
    "WebSearch",
    "KillShell",
    "Skill",
    "Write",
)
"""Illustrative, in the CLI's order (the reference shows ``Task, Bash, ..., Write``, Grep before Read)."""
BUILTIN_SKILLS = (
    "deep-research",
    "dataviz",
    "update-config",
    "verify",
    "debug",
    "code-review",
    "simplify",
    "batch",
    "fewer-permission-prompts",
    "doctor",
    "loop",
    "claude-api",
    "workflow-authoring",
    "run",
    "run-skill-generator",
    "plugin-authoring",
)
"""The built-in skills 2.1.332 lists in ``init.skills`` after the user's and the project's, whatever
``--setting-sources`` says (captured from the real CLI, in its order)."""
BUILTIN_COMMANDS = (
    "agents",
    "auto-mode-setup",
    "autocompact",
    "clear",
    "color",
    "compact",
    "config",
    "output-style",
    "context",
    "effort",
    "fast",
    "focus",
    "heapdump",
    "init",
    "mcp",
    "model",
    "__remote-workflow",
    "workflow-launch-exec",
    "reload-plugins",
    "reload-skills",
    "rename",
    "security-review",
    "usage",
    "insights",
    "recap",
    "goal",
    "list-agents",
    "team-onboarding",
)
"""``init.slash_commands`` of 2.1.332 after the skills (every skill is a slash command too)."""
BUILTIN_PLUGINS = ("cc-plugin-agents-md", "cc-plugin-privacy", "cc-plugin-plugin-authoring")
PERMISSION_MODES = ("acceptEdits", "auto", "bypassPermissions", "manual", "default", "dontAsk", "plan")

BOOL, VALUE, OPTIONAL, VARIADIC = "bool", "value", "optional", "variadic"
# (flags, kind, dest, placeholder, choices)
OPTIONS: list[tuple[tuple[str, ...], str, str, str, tuple[str, ...]]] = [
    (("-p", "--print"), BOOL, "print", "", ()),
    (("--output-format",), VALUE, "output_format", "<format>", ("text", "json", "stream-json")),
    (("--input-format",), VALUE, "input_format", "<format>", ("text", "stream-json")),
    (("--verbose",), BOOL, "verbose", "", ()),
    (("--include-partial-messages",), BOOL, "include_partial_messages", "", ()),
    (("--include-hook-events",), BOOL, "include_hook_events", "", ()),
    (("--replay-user-messages",), BOOL, "replay_user_messages", "", ()),
    (("--json-schema",), VALUE, "json_schema", "<schema>", ()),
    (("--max-budget-usd",), VALUE, "max_budget_usd", "<amount>", ()),
    (("--max-turns",), VALUE, "max_turns", "<turns>", ()),
    (("--no-session-persistence",), BOOL, "no_session_persistence", "", ()),
    (("--session-id",), VALUE, "session_id", "<uuid>", ()),
    (("-r", "--resume"), OPTIONAL, "resume", "[value]", ()),
    (("-c", "--continue"), BOOL, "continue", "", ()),
    (("--fork-session",), BOOL, "fork_session", "", ()),
    (("--model",), VALUE, "model", "<model>", ()),
    (("--fallback-model",), VALUE, "fallback_model", "<model>", ()),
    (("--effort",), VALUE, "effort", "<level>", ("low", "medium", "high", "xhigh", "max")),
    (("--tools",), VARIADIC, "tools", "<tools...>", ()),
    (("--allowedTools", "--allowed-tools"), VARIADIC, "allowedTools", "<tools...>", ()),
    (("--disallowedTools", "--disallowed-tools"), VARIADIC, "disallowedTools", "<tools...>", ()),
    (("--permission-mode",), VALUE, "permission_mode", "<mode>", PERMISSION_MODES),
    (("--permission-prompts",), VALUE, "permission_prompts", "<mode>", ("host", "none")),
    (("--dangerously-skip-permissions",), BOOL, "dangerously_skip_permissions", "", ()),
    (("--allow-dangerously-skip-permissions",), BOOL, "allow_dangerously_skip_permissions", "", ()),
    (("--system-prompt",), VALUE, "system_prompt", "<prompt>", ()),
    (("--system-prompt-file",), VALUE, "system_prompt_file", "<file>", ()),
    (("--append-system-prompt",), VALUE, "append_system_prompt", "<prompt>", ()),
    (("--append-system-prompt-file",), VALUE, "append_system_prompt_file", "<file>", ()),
    (("--system-prompt-snapshot",), VALUE, "system_prompt_snapshot", "<mode>", ("on", "off")),
    (("--mcp-config",), VARIADIC, "mcp_config", "<configs...>", ()),
    (("--strict-mcp-config",), BOOL, "strict_mcp_config", "", ()),
    (("--setting-sources",), VALUE, "setting_sources", "<sources>", ()),
    (("--settings",), VALUE, "settings", "<file-or-json>", ()),
    (("--bare",), BOOL, "bare", "", ()),
    (("--safe-mode",), BOOL, "safe_mode", "", ()),
    (("--restricted",), BOOL, "restricted", "", ()),
    (("--add-dir",), VARIADIC, "add_dir", "<directories...>", ()),
    (("--agents",), VALUE, "agents", "<json>", ()),
    (("--agent",), VALUE, "agent", "<agent>", ()),
    (("--plugin-dir",), VALUE, "plugin_dir", "<path>", ()),
    (("--betas",), VARIADIC, "betas", "<betas...>", ()),
    (("--file",), VARIADIC, "file", "<specs...>", ()),
    (("--disable-slash-commands",), BOOL, "disable_slash_commands", "", ()),
    (("-n", "--name"), VALUE, "name", "<name>", ()),
    (("-d", "--debug"), OPTIONAL, "debug", "[filter]", ()),
    (("--debug-file",), VALUE, "debug_file", "<path>", ()),
    (("--ide",), BOOL, "ide", "", ()),
    (("--chrome",), BOOL, "chrome", "", ()),
    (("--no-chrome",), BOOL, "no_chrome", "", ()),
    (("-h", "--help"), BOOL, "help", "", ()),
    (("-v", "--version"), BOOL, "version", "", ()),
]
FLAG_INDEX = {flag: option for option in OPTIONS for flag in option[0]}
STDIN_WARNING = (
    "Warning: no stdin data received in 3s, proceeding without it. "
    "If piping from a slow command, redirect stdin explicitly: < /dev/null to skip, or wait longer.\n"
)
"""Approximate: the real CLI waits about 3 s on a pipe that never closes; the fake waits 0.3 s."""
SUBCOMMANDS = ("agents", "auth", "auto-mode", "doctor", "install", "mcp", "plugin", "plugins", "setup-token")


class CommanderError(Exception):
    """A parse error, printed as Commander prints it, exit 1."""


@dataclass
class Parsed:
    values: dict[str, Any] = field(default_factory=dict)
    positionals: list[str] = field(default_factory=list)

    @property
    def prompt(self) -> str | None:
        return self.positionals[0] if self.positionals else None


def _suggest(flag: str) -> str:
    same_letters = [f for f in FLAG_INDEX if f.lower() == flag.lower()]
    close = same_letters or difflib.get_close_matches(flag, list(FLAG_INDEX), n=1, cutoff=0.8)
    return f"\n(Did you mean {close[0]}?)" if close else ""


def parse(argv: list[str]) -> Parsed:
    out, args, variadic = Parsed(), list(argv), None
    while args:
        arg = args.pop(0)
        if arg == "--":
            out.positionals += args
            break
        if not arg.startswith("-") or arg == "-":
            if variadic is not None:
                out.values[variadic].append(arg)
            else:
                out.positionals.append(arg)
            continue
        variadic = None
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name not in FLAG_INDEX:
            raise CommanderError(f"error: unknown option '{name}'{_suggest(name)}")
        flags, kind, dest, placeholder, choices = FLAG_INDEX[name]
        if kind == BOOL:
            out.values[dest] = True
            continue
        if eq:
            value: str | None = inline
        elif kind == OPTIONAL:
            value = args.pop(0) if args and not args[0].startswith("-") else None
        elif args:
            value = args.pop(0)
        else:
            raise CommanderError(f"error: option '{', '.join(flags)} {placeholder}' argument missing")
        if choices and value not in choices:
            raise CommanderError(
                f"error: option '{', '.join(flags)} {placeholder}' argument '{value}' is invalid. "
                f"Allowed choices are {', '.join(choices)}."
            )
        if kind == VARIADIC:
            out.values.setdefault(dest, []).append(value)
            variadic = dest
        else:
            out.values[dest] = True if value is None else value
    return out


def split_tools(values: list[str]) -> list[str]:
    """Tool names from variadic values, split on commas and spaces outside parentheses."""
    names, current, depth = [], "", 0
    for ch in ",".join(values):
        depth += (ch == "(") - (ch == ")")
        if ch in ", " and depth == 0:
            if current:
                names.append(current)
            current = ""
        else:
            current += ch
    return [*names, current] if current else names


def _read_json_or_file(value: str, what: str) -> Any:
    import json

    try:
        if value.lstrip().startswith("{"):
            return json.loads(value)
        with open(value, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise CommanderError(f"Error: Invalid {what}: {exc}") from exc


def _skills(sources: list[str], cwd: str) -> list[str]:
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    roots = ([os.path.join(config_dir, "skills")] if "user" in sources else []) + (
        [os.path.join(cwd, ".claude", "skills")] if "project" in sources else []
    )
    names = []
    for root in roots:
        for entry in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            skill_md = os.path.join(root, entry, "SKILL.md")
            if os.path.isfile(skill_md):
                names.append(_frontmatter_name(skill_md) or entry)
    return names + list(BUILTIN_SKILLS)


def _frontmatter_name(path: str) -> str | None:
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:]:
        if line.strip() == "---":
            break
        if line.startswith("name:"):
            return line[5:].strip().strip("\"'") or None
    return None


class Run:
    """One invocation after parsing: the session facts every output line repeats."""

    def __init__(self, opts: dict[str, Any], spec: dict[str, Any], prompt: str) -> None:
        self.opts, self.spec, self.prompt = opts, spec, prompt
        self.session_id = str(opts.get("session_id") or uuid.uuid4())
        requested = str(opts.get("model") or DEFAULT_MODEL)
        self.requested = ALIASES.get(requested, requested)
        self.model = str(spec.get("model") or self.requested)
        self.started = time.monotonic()
        self.skills: list[str] = []
        """The skills ``init.skills`` listed; ``skill_calls`` can fire only these (with the Skill tool)."""
        self.tools: list[str] = []

    def init_line(self, tools: list[str], mcp: list[dict[str, str]], skills: list[str]) -> dict[str, Any]:
        mode = str(self.opts.get("permission_mode") or "default")
        return {
            "type": "system",
            "subtype": "init",
            "cwd": os.getcwd(),
            "session_id": self.session_id,
            "model": self.model,
            "tools": tools,
            "mcp_servers": mcp,
            "permissionMode": "default" if mode == "manual" else mode,
            "slash_commands": [] if self.opts.get("disable_slash_commands") else [*skills, *BUILTIN_COMMANDS],
            "apiKeySource": "ANTHROPIC_API_KEY" if os.environ.get("ANTHROPIC_API_KEY") else "none",
            "claude_code_version": VERSION,
            "output_style": "default",
            "agents": ["claude", "Explore", "general-purpose", "Plan", "statusline-setup"],
            "skills": skills,
            "plugins": [{"name": n, "path": "builtin", "source": f"{n}@builtin"} for n in BUILTIN_PLUGINS],
            "uuid": str(uuid.uuid4()),
            "fast_mode_state": "off",
        }

    def assistant_line(self, content: list[dict[str, Any]], model: str, usage: dict[str, int]) -> dict[str, Any]:
        return {
            "type": "assistant",
            "message": {
                "id": f"msg_fake{uuid.uuid4().hex[:20]}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": content,
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage_block(usage),
            },
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": str(uuid.uuid4()),
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            "request_id": f"req_fake{uuid.uuid4().hex[:16]}",
        }

    def synthetic_line(self, text: str, status: int, etype: str, code: str) -> dict[str, Any]:
        """The assistant line Claude Code makes up itself on an API error: ``model`` is ``<synthetic>``."""
        usage = usage_block(ZERO_USAGE)
        usage.update(output_tokens_details=None, service_tier=None, inference_geo=None, iterations=None, speed=None)
        return {
            "type": "assistant",
            "message": {
                "id": str(uuid.uuid4()),
                "type": "message",
                "role": "assistant",
                "model": SYNTHETIC_MODEL,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "stop_sequence",
                "stop_sequence": "",
                "usage": usage,
                "context_management": None,
            },
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": str(uuid.uuid4()),
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            "error": code,
            "request_id": f"req_fake{uuid.uuid4().hex[:16]}",
            "is_api_error_message": True,
            "api_error_status": status,
            "api_error_type": etype,
        }

    def result_line(self, **fields: Any) -> dict[str, Any]:
        elapsed = max(2, int((time.monotonic() - self.started) * 1000))
        base = {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "api_error_status": None,
            "duration_ms": elapsed,
            "duration_api_ms": max(0, elapsed - 1),
            "num_turns": 1,
            "stop_reason": "end_turn",
            "terminal_reason": "completed",
            "session_id": self.session_id,
            "total_cost_usd": 0,
            "usage": usage_block(ZERO_USAGE),
            "modelUsage": {},
            "permission_denials": [],
            "fast_mode_state": "off",
            "uuid": str(uuid.uuid4()),
        }
        return {**base, **fields}


DEFAULT_USAGE = {
    "input_tokens": 11,
    "output_tokens": 9,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}
ZERO_USAGE = dict.fromkeys(DEFAULT_USAGE, 0)
SIDE_USAGE = {
    "input_tokens": 120,
    "output_tokens": 8,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}


def usage_block(u: dict[str, int]) -> dict[str, Any]:
    """The result's (and an assistant message's) ``usage``, in the 2.1.332 shape."""
    return {
        "input_tokens": u["input_tokens"],
        "cache_creation_input_tokens": u["cache_creation_input_tokens"],
        "cache_read_input_tokens": u["cache_read_input_tokens"],
        "output_tokens": u["output_tokens"],
        "output_tokens_details": {"thinking_tokens": 0},
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {
            "ephemeral_1h_input_tokens": 0,
            "ephemeral_5m_input_tokens": u["cache_creation_input_tokens"],
        },
        "inference_geo": "",
        "iterations": [],
        "speed": "standard",
    }


def model_usage_entry(model: str, u: dict[str, int], cost: float) -> dict[str, Any]:
    small = "haiku" in model
    return {
        "inputTokens": u["input_tokens"],
        "outputTokens": u["output_tokens"],
        "cacheReadInputTokens": u["cache_read_input_tokens"],
        "cacheCreationInputTokens": u["cache_creation_input_tokens"],
        "webSearchRequests": 0,
        "costUSD": cost,
        "contextWindow": 200000 if small else 1000000,
        "maxOutputTokens": 64000 if small else 128000,
        "thinkingTokens": 0,
        "cacheCreationEphemeral5mInputTokens": u["cache_creation_input_tokens"],
        "cacheCreationEphemeral1hInputTokens": 0,
        "canonicalModel": model.split("[")[0],
        "provider": "firstParty",
        "costBasis": "list",
    }


def _calls(run: Run) -> tuple[str, dict[str, int], list[tuple[str, dict[str, int], float]]]:
    """(answering model, its usage, every call as (model, usage, cost)) for the scenario."""
    spec = run.spec
    usage = {**DEFAULT_USAGE, **(spec.get("usage") or {})}
    cost = float(spec.get("cost_usd", 0.00026))
    side_usage = {**SIDE_USAGE, **(spec.get("side_usage") or {})}
    side_cost = float(spec.get("side_cost_usd", 0.00012))
    answer = run.model
    calls = [(answer, usage, cost)]
    if spec["scenario"] == "other_model":
        if bool(spec.get("answer_model")) == bool(spec.get("side_model")):
            raise common.ScenarioError("other_model needs exactly one of 'answer_model' or 'side_model'")
        if spec.get("answer_model"):
            answer = str(spec["answer_model"])
            calls = [(run.model, side_usage, side_cost), (answer, usage, cost)]
        else:
            calls.append((str(spec["side_model"]), side_usage, side_cost))
    for side in spec.get("side_calls") or []:
        calls.append((str(side["model"]), {**SIDE_USAGE, **side}, float(side.get("cost_usd", side_cost))))
    return answer, usage, calls


def _model_usage(calls: list[tuple[str, dict[str, int], float]]) -> tuple[dict[str, Any], float]:
    merged: dict[str, tuple[dict[str, int], float]] = {}
    for model, u, cost in calls:
        prev_u, prev_cost = merged.get(model, (ZERO_USAGE, 0.0))
        merged[model] = ({k: prev_u[k] + u[k] for k in DEFAULT_USAGE}, prev_cost + cost)
    return {m: model_usage_entry(m, u, c) for m, (u, c) in merged.items()}, sum(c for _, _, c in calls)


API_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
API_ERROR_TYPES.update({500: "api_error", 529: "overloaded_error", 403: "permission_error", 404: "not_found_error"})
API_ERROR_CODES = {401: "authentication_failed", 403: "authentication_failed", 404: "model_not_found"}
API_ERROR_CODES[429] = "rate_limit"
"""The synthetic assistant line's ``error`` per status (5xx: ``server_error``, others ``unknown``)."""


def api_error_text(status: int, message: str, model: str) -> str:
    """The sentence 2.1.332 puts in ``result`` (and the synthetic assistant line) for an HTTP error."""
    if status == 401:
        return "Invalid API key \u00b7 Fix external API key"
    if status == 403:
        return f"Failed to authenticate. API Error: 403 {message}"
    if status == 404:
        return (
            f"There's an issue with the selected model ({model}). It may not exist or you may not have access to "
            "it. Run --model to pick a different model."
        )
    if status == 429:
        return f"API Error: Request rejected (429) \u00b7 {message}"
    if status >= 500:
        base_url = os.environ.get("ANTHROPIC_BASE_URL") or ""
        gateway = base_url.split("://", 1)[-1].split("/", 1)[0]
        where = f" If it persists, check your inference gateway ({gateway})." if gateway else ""
        return (
            f"API Error: {status} {message.rstrip('.')}. This is a server-side issue, usually temporary \u2014 try "
            f"again in a moment.{where}"
        )
    return f"API Error: {status} {message}"


RETRY_BASE_MS, RETRY_CAP_MS, MAX_RETRIES = 500, 32000, 10
"""Claude Code's own backoff between retries of a failed API call (doubling from 0.5 s, at most 32 s; the real
CLI adds up to 25 % jitter, the fake none) and its default retry count (``CLAUDE_CODE_MAX_RETRIES``)."""


def api_retry_lines(run: Run) -> list[dict[str, Any]]:
    """``api_error`` with ``api_retries: N``: the N ``system/api_retry`` lines Claude Code prints as it retries the
    failed call itself (SDK type ``SDKAPIRetryMessage``), attempt 1 to N of ``max_retries`` (default 10)."""
    spec = run.spec
    if spec["scenario"] != "api_error":
        return []
    status = int(spec.get("api_error_status", 429))
    code = API_ERROR_CODES.get(status, "server_error" if status >= 500 else "unknown")
    limit = int(spec.get("max_retries", MAX_RETRIES))
    return [
        {
            "type": "system",
            "subtype": "api_retry",
            "attempt": n,
            "max_retries": limit,
            "retry_delay_ms": min(RETRY_BASE_MS * 2 ** (n - 1), RETRY_CAP_MS),
            "error_status": status,
            "error": code,
            "uuid": str(uuid.uuid4()),
            "session_id": run.session_id,
        }
        for n in range(1, int(spec.get("api_retries", 0)) + 1)
    ]


def _skill_calls(run: Run, served: str, usage: dict[str, int]) -> list[dict[str, Any]]:
    """``skill_calls``: the Skill tool called with each named skill that is installed (listed in ``init.skills``,
    by name or folder) while the Skill tool is on, as Claude Code 2.1.332 prints it: a ``tool_use`` block, then
    the user line with its ``tool_result``. A name not installed is not called (the real tool would refuse it)."""
    if "Skill" not in run.tools:
        return []
    installed = {n.strip().lower().replace(" ", "-") for n in run.skills}
    lines: list[dict[str, Any]] = []
    for k, name in enumerate(run.spec.get("skill_calls") or []):
        if str(name).strip().lower().replace(" ", "-") not in installed:
            continue
        use_id = f"toolu_fakeskill{k:02d}"
        block = {"type": "tool_use", "id": use_id, "name": "Skill", "input": {"skill": str(name)}}
        lines.append(run.assistant_line([block], served, usage))
        lines.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": use_id, "content": f"Launching skill: {name}"}],
                },
                "parent_tool_use_id": None,
                "session_id": run.session_id,
                "uuid": str(uuid.uuid4()),
            }
        )
    return lines


def respond(run: Run, opts: dict[str, Any], stream: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """Append the assistant/user lines to ``stream``; return the result line and files written."""
    spec = run.spec
    kind = spec["scenario"]
    if kind == "api_error":
        status = int(spec.get("api_error_status", 429))
        etype = str(spec.get("api_error_type") or API_ERROR_TYPES.get(status, "api_error"))
        message = str(spec.get("api_error_message", f"fake {etype}"))
        text = str(spec.get("result") or api_error_text(status, message, run.model))
        code = API_ERROR_CODES.get(status, "server_error" if status >= 500 else "unknown")
        stream.append(run.synthetic_line(text, status, etype, code))
        return run.result_line(
            is_error=True,
            api_error_status=status,
            api_error_type=etype,
            result=text,
            stop_reason="stop_sequence",
            terminal_reason="api_error",
        ), []
    answer, usage, calls = _calls(run)
    model_usage, cost = _model_usage(calls)
    served = str(spec.get("served_model") or answer)
    if kind == "max_turns":
        turns = int(opts.get("max_turns") or spec.get("max_turns", 1))
        tool_use = {
            "type": "tool_use",
            "id": "toolu_fake01",
            "name": "Read",
            "input": {"file_path": "README.md"},
        }
        stream.append(run.assistant_line([tool_use], served, usage))
        return run.result_line(
            subtype="error_max_turns",
            is_error=True,
            num_turns=turns + 1,
            stop_reason="tool_use",
            terminal_reason="max_turns",
            errors=[f"Reached maximum number of turns ({turns})"],
            total_cost_usd=cost,
            usage=usage_block(usage),
            modelUsage=model_usage,
        ), []
    written = common.write_files(os.getcwd(), spec.get("files") or {})
    default_text = f"I saved it to {', '.join(spec['files'])}" if spec.get("files") else "FAKE-REPLY"
    text = str(spec["result"]) if "result" in spec else default_text
    if "result_json" in spec:
        import json

        text = json.dumps(spec["result_json"])
    stream += _skill_calls(run, served, usage)
    stream.append(run.assistant_line([{"type": "text", "text": text}], served, usage))
    result = run.result_line(
        result=text, total_cost_usd=cost, usage=usage_block(usage), modelUsage=model_usage, num_turns=1
    )
    return result, written


def main(argv: list[str]) -> int:
    """Run one invocation and log it (also when it fails), returning the exit code."""
    stdin_kind, stdin_text = common.probe_stdin()
    invocation = common.Invocation("claude", argv, stdin_kind)
    try:
        code = _main(argv, stdin_kind, stdin_text, invocation)
    except CommanderError as exc:
        invocation.entry["error"] = str(exc)
        code = common.fail(str(exc), 1)
    except common.ScenarioError as exc:
        invocation.entry["error"] = str(exc)
        code = common.fail(f"fake claude: bad scenario: {exc}", 2)
    invocation.log(code)
    return code


def _main(argv: list[str], stdin_kind: str, stdin_text: str, invocation: common.Invocation) -> int:
    parsed = parse(argv)
    opts = parsed.values
    invocation.entry.update(options=opts, positionals=parsed.positionals)
    if opts.get("version"):
        print(f"{VERSION} (Claude Code)")
        return 0
    if opts.get("help"):
        print("Usage: claude [options] [command] [prompt]\n\nOptions:")
        print("\n".join(f"  {', '.join(o[0])} {o[3]}".rstrip() for o in OPTIONS if o[2] != "max_turns"))
        return 0
    if parsed.prompt in SUBCOMMANDS:
        return common.fail(f"fake claude: the '{parsed.prompt}' command is not faked", 2)
    if stdin_kind == "pipe-open":
        sys.stderr.write(STDIN_WARNING)
    return _run(parsed, stdin_text, invocation)


def _run(parsed: Parsed, stdin_text: str, invocation: common.Invocation) -> int:
    opts, entry = parsed.values, invocation.entry
    if not opts.get("print"):
        return common.fail("fake claude: interactive mode is not faked; pass -p/--print", 2)
    if len(parsed.positionals) > 1:
        raise CommanderError(f"error: too many arguments. Expected 1 argument but got {len(parsed.positionals)}.")
    prompt = "\n".join(p for p in (stdin_text.strip(), parsed.prompt or "") if p)
    entry["prompt"] = prompt
    if not prompt and not opts.get("resume"):
        return common.fail(
            "Error: Input must be provided either through stdin or as a prompt argument when using --print", 1
        )
    fmt = opts.get("output_format", "text")
    if fmt == "stream-json" and not opts.get("verbose"):
        return common.fail("Error: When using --print, --output-format=stream-json requires --verbose", 1)
    skip = opts.get("dangerously_skip_permissions") or opts.get("permission_mode") == "bypassPermissions"
    if skip and os.geteuid() == 0 and os.environ.get("IS_SANDBOX") != "1":
        return common.fail("--dangerously-skip-permissions cannot be used with root/sudo privileges", 1)
    sources_raw = opts.get("setting_sources", "user,project,local")
    sources = [s.strip() for s in str(sources_raw).split(",") if s.strip()]
    for source in sources:
        if source not in ("user", "project", "local"):
            raise CommanderError(
                f"Error processing --setting-sources: Invalid setting source: {source}. "
                "Valid options are: user, project, local"
            )
    for name in ("system_prompt_file", "append_system_prompt_file"):
        if opts.get(name) and not os.path.isfile(str(opts[name])):
            raise CommanderError(f"Error: {name.replace('_', '-')} not found: {opts[name]}")
    if opts.get("settings"):
        _read_json_or_file(str(opts["settings"]), "settings")
    mcp: list[dict[str, str]] = []
    configs = [_read_json_or_file(c, "MCP configuration") for c in opts.get("mcp_config", [])]
    if not opts.get("strict_mcp_config") and os.path.isfile(".mcp.json"):
        configs.append(_read_json_or_file(".mcp.json", "MCP configuration"))
    for config in configs:
        mcp += [{"name": n, "status": "connected"} for n in (config.get("mcpServers") or {})]
    tools = list(BUILTIN_TOOLS)
    if "tools" in opts:
        chosen = split_tools(opts["tools"])
        tools = tools if chosen == ["default"] else [t for t in BUILTIN_TOOLS if t in chosen]
    denied = split_tools(opts.get("disallowedTools", []))
    tools = [t for t in tools if t not in denied]
    texts = [prompt, str(opts.get("system_prompt") or ""), str(opts.get("append_system_prompt") or "")]
    spec, key, index = common.select_spec("claude", texts)
    entry.update(scenario=spec["scenario"], scenario_key=key, scenario_index=index)
    run = Run(opts, spec, prompt)
    init = run.init_line(tools, mcp, _skills(sources, os.getcwd()))
    run.skills, run.tools = list(init["skills"]), tools
    entry["init"] = {k: init[k] for k in ("model", "tools", "mcp_servers", "permissionMode", "skills")}
    if spec["scenario"] in ("crash", "timeout"):
        invocation.log(None if spec["scenario"] == "timeout" else int(spec.get("exit_code", 134)))
    if spec["scenario"] == "crash":
        trace = "Error: fake crash\n    at <anonymous> (/$bunfs/root/claude:1:1)\n"
        return common.crash(spec, trace, 134)
    if fmt == "stream-json":
        common.emit(init)
    if spec["scenario"] == "timeout":
        common.hang(spec)
        return 0
    return _answer(run, opts, fmt, init, entry)


def _answer(run: Run, opts: dict[str, Any], fmt: str, init: dict[str, Any], entry: dict[str, Any]) -> int:
    """Everything after the init line: Claude Code's own retries, the reply, the result line, the exit code."""
    time.sleep(float(run.spec.get("delay_s", 0)))
    retries = api_retry_lines(run)
    if fmt == "stream-json":
        for line in retries:
            common.emit(line)
    time.sleep(float(run.spec.get("retrying_s", 0)))  # still retrying: a long one outlasts the caller's timeout
    stream: list[dict[str, Any]] = [*retries] if fmt == "json" else []
    result, written = respond(run, opts, stream)
    entry["files_written"] = written
    if fmt == "stream-json":
        for line in stream:
            if opts.get("include_partial_messages") and line["message"]["model"] != SYNTHETIC_MODEL:
                common.emit(_partial(run, line))
            common.emit(line)
        common.emit({**result, "model_usage_since_last_result": result["modelUsage"]})
    elif fmt == "json":
        common.emit([init, *stream, result] if opts.get("verbose") else result)
    else:
        _write_text(result, opts)
    return 1 if result["is_error"] else 0


def _partial(run: Run, line: dict[str, Any]) -> dict[str, Any]:
    """A ``stream_event`` frame (``--include-partial-messages``) carrying the message's start event."""
    event = {"type": "message_start", "message": {**line["message"], "content": []}}
    return {
        "type": "stream_event",
        "event": event,
        "session_id": run.session_id,
        "parent_tool_use_id": None,
        "uuid": str(uuid.uuid4()),
    }


def _write_text(result: dict[str, Any], opts: dict[str, Any]) -> None:
    """``--output-format text``: the result text, or the error sentence the CLI prints per subtype."""
    if result["subtype"] == "success":
        text = str(result["result"])
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    elif result["subtype"] == "error_max_turns":
        sys.stdout.write(f"Error: Reached max turns ({opts.get('max_turns', 'undefined')})")
    sys.stdout.flush()
