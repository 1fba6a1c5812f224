"""Atomic file writes: a temp file in the target directory, then ``os.replace``.

Nothing half-written is ever left at the target path: a reader sees the old file or the new one. The file
gets the permissions a plain ``open()`` would have given it: an existing file keeps its own mode, a new one
gets ``0o666`` less the process umask (``0644`` under the usual ``022``). ``mkstemp`` alone would leave
``0600``, which the next step of a workflow, running as another user than the Action's root, cannot read.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import threading
from pathlib import Path

_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process umask, read without changing it where the platform allows (``/proc/self/status``).

    >>> 0 <= current_umask() <= 0o777
    True
    """
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    with _UMASK_LOCK:  # elsewhere: set and restore it at once, under a lock
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _mode_for(path: Path) -> int:
    """The mode ``open(path, "w")`` would leave: the file's own when it exists, else ``0o666 & ~umask``."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~current_umask()


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, creating parent directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(path: Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes(path, text.encode("utf-8"))
