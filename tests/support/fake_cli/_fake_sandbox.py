"""Where the fake ``codex`` lets a command write, as Codex documents its sandbox, and the ``write_outside`` scenario.

``read-only`` writes nowhere; ``danger-full-access`` (or ``--dangerously-bypass-approvals-and-sandbox``) anywhere;
``workspace-write`` in the working directory, the ``--add-dir`` directories and
``sandbox_workspace_write.writable_roots``, and also in ``/tmp`` unless ``sandbox_workspace_write.exclude_slash_tmp``
is true and in ``$TMPDIR`` unless ``sandbox_workspace_write.exclude_tmpdir_env_var`` is true.

>>> roots = writable_roots({"sandbox": "workspace-write"}, {}, "/w", {"TMPDIR": "/t"})
>>> [r for r in roots or [] if r in ("/w", "/t")] == ["/w", "/t"] and may_write("/w/a.txt", roots)
True
>>> may_write("/elsewhere/a.txt", roots), writable_roots({"sandbox": "read-only"}, {}, "/w", {})
(False, [])
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Mapping
from typing import Any

SLASH_TMP = "/tmp"
EXCLUDE_SLASH_TMP = "sandbox_workspace_write.exclude_slash_tmp"
EXCLUDE_TMPDIR = "sandbox_workspace_write.exclude_tmpdir_env_var"
WRITABLE_ROOTS = "sandbox_workspace_write.writable_roots"
STRAY_PREFIX = "driftproof-fake-codex-stray-"
"""The file a ``write_outside`` command tries to leave in ``/tmp``; the fake removes it at once when it could."""


def writable_roots(
    opts: Mapping[str, Any], config: Mapping[str, Any], workdir: str, environ: Mapping[str, str]
) -> list[str] | None:
    """The directories a command may write under (real paths); ``None``: anywhere (no sandbox)."""
    mode = str(opts.get("sandbox") or config.get("sandbox_mode") or "read-only")
    if opts.get("bypass") or mode == "danger-full-access":
        return None
    if mode != "workspace-write":
        return []
    extra = config.get(WRITABLE_ROOTS) or []
    roots = [workdir, *opts.get("add_dir", []), *(str(r) for r in (extra if isinstance(extra, list) else [extra]))]
    if config.get(EXCLUDE_SLASH_TMP) is not True:
        roots.append(SLASH_TMP)
    if environ.get("TMPDIR") and config.get(EXCLUDE_TMPDIR) is not True:
        roots.append(environ["TMPDIR"])
    return [os.path.realpath(root) for root in roots]


def may_write(path: str, roots: list[str] | None) -> bool:
    """Whether the sandbox lets a command write ``path``."""
    if roots is None:
        return True
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def siblings(workdir: str, wanted: int, wait_s: float) -> list[str]:
    """The other draws' working directories beside this one (``<root>/*/work``), waiting up to ``wait_s``
    for ``wanted`` of them to exist."""
    pattern = os.path.join(os.path.dirname(os.path.dirname(workdir)), "*", "work")
    deadline = time.monotonic() + wait_s
    while True:
        found = sorted(p for p in glob.glob(pattern) if os.path.realpath(p) != os.path.realpath(workdir))
        if len(found) >= wanted or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


def write_outside(spec: Mapping[str, Any], roots: list[str] | None, workdir: str) -> list[dict[str, Any]]:
    """The ``write_outside`` scenario key: one shell command per target that writes a file into another draw's
    working directory, then one into ``/tmp``, each allowed or refused as the sandbox says.

    Returns one log record per target (``path``, ``written``); the caller turns them into ``command_execution``
    items (`items_for`)."""
    want = spec.get("write_outside")
    if not want:
        return []
    want = want if isinstance(want, dict) else {}
    own = os.path.basename(os.path.dirname(workdir))
    targets = [
        os.path.join(d, f"escaped-from-{own}.txt")
        for d in siblings(workdir, int(want.get("siblings", 1)), float(want.get("wait_s", 10)))
    ]
    targets.append(os.path.join(SLASH_TMP, f"{STRAY_PREFIX}{os.getpid()}.txt"))
    records = []
    for path in targets:
        written = False
        if may_write(path, roots):
            try:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(f"written by the draw in {own}\n")
                written = True
            except OSError:
                pass
            if written and os.path.basename(path).startswith(STRAY_PREFIX):
                os.remove(path)  # leave nothing behind in the real /tmp
        records.append({"path": path, "written": written})
    return records


def items_for(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``command_execution`` items for `write_outside` records, a refused write failing as Codex's sandbox fails it."""
    items = []
    for record in records:
        denied = "" if record["written"] else f"/bin/bash: line 1: {record['path']}: Read-only file system\n"
        items.append(
            {
                "type": "command_execution",
                "command": f"/bin/bash -lc 'echo escaped > {record['path']}'",
                "aggregated_output": denied,
                "exit_code": 0 if record["written"] else 1,
                "status": "completed" if record["written"] else "failed",
            }
        )
    return items
