"""Run the fake ``claude`` and ``codex`` from tests: PATH, scenario file and invocation log in one place.

The fakes live in ``fake_cli/`` next to this file; ``fake_cli/README.md`` documents the scenario format.

>>> (FAKE_CLI_DIR / "claude").is_file() and (FAKE_CLI_DIR / "codex").is_file()
True
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["FAKE_CLI_DIR", "LOG_ENV", "SCENARIO_ENV", "FakeCLI"]

FAKE_CLI_DIR = Path(__file__).resolve().parent / "fake_cli"
SCENARIO_ENV = "DRIFTPROOF_FAKE_CLI_SCENARIO"
LOG_ENV = "DRIFTPROOF_FAKE_CLI_LOG"


class FakeCLI:
    """A scenario file and an invocation log under ``root``, and the environment that selects them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.scenario_path = root / "scenario.json"
        self.log_path = root / "invocations.jsonl"
        self.home, self.tmp = root / "home", root / "tmp"
        """``HOME`` and ``TMPDIR`` of the fakes that `run` starts without an ``env`` of its own."""
        for path in (self.home, self.tmp):
            path.mkdir(exist_ok=True)
        self.use({})

    def use(self, scenario: Mapping[str, Any]) -> None:
        """Write the scenario the next invocations follow, and restart its sequence counters."""
        self.scenario_path.write_text(json.dumps(scenario), encoding="utf-8")
        Path(f"{self.scenario_path}.counter").unlink(missing_ok=True)

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """``base`` (default: ``os.environ``) with the fakes first on PATH and the scenario and log set."""
        env = dict(os.environ if base is None else base)
        env["PATH"] = f"{FAKE_CLI_DIR}{os.pathsep}{env.get('PATH', '')}"
        env[SCENARIO_ENV] = str(self.scenario_path)
        env[LOG_ENV] = str(self.log_path)
        return env

    def invocations(self) -> list[dict[str, Any]]:
        """Every logged invocation so far, in the order they finished."""
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text(encoding="utf-8").splitlines() if line]

    def isolated_env(self) -> dict[str, str]:
        """`env` over ``os.environ`` with ``HOME`` and ``TMPDIR`` of its own (`home`, `tmp`) and no ``CODEX_HOME``
        or ``CLAUDE_CONFIG_DIR``, as a lane isolates a draw: the fake ``codex`` writes its session files and
        bundled skills into ``$HOME/.codex``, as the real one does, and must not write into the developer's."""
        hidden = ("CODEX_HOME", "CLAUDE_CONFIG_DIR")
        base = {k: v for k, v in os.environ.items() if k not in hidden}
        return self.env({**base, "HOME": str(self.home), "TMPDIR": str(self.tmp)})

    def run(
        self, cli: str, *args: str, cwd: Path, timeout: float = 30, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``cli`` (``"claude"`` or ``"codex"``) as a product lane would: stdin closed, text output, and
        `isolated_env` unless ``env`` is given (then `env` over it)."""
        return subprocess.run(
            [cli, *args],  # looked up on the child's PATH, where the fakes come first
            cwd=cwd,
            env=self.isolated_env() if env is None else self.env(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
