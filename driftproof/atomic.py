"""Atomic file writes: a temp file in the target directory, then ``os.replace``.

Nothing half-written is ever left at the target path: a reader sees the old file or the new one. Files that
belong together (a receipt and its answers archive) are written together: every temp file first, then all are
moved in place, so a disk that fills up half-way leaves the old pair, never a new file beside an old one.
A write that fails raises `OutputError` in one line naming the file and the cause, with every temp file removed.
A target that exists and is not a regular file (a directory, a device such as ``/dev/full``, a FIFO, a socket) is
never renamed over: the rename would replace the node itself. Commands refuse such a path before any call
(`driftproof.targets`); the writer refuses it again in case it became one since.

The file gets the permissions a plain ``open()`` would have given it: an existing file keeps its own mode, a
new one gets ``0o666`` less the process umask (``0644`` under the usual ``022``). ``mkstemp`` alone would leave
``0600``, which the next step of a workflow, running as another user than the Action's root, cannot read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from driftproof.errors import OutputError

_UMASK_LOCK = threading.Lock()

_HINTS = {
    errno.ENOSPC: "free some space, or write it elsewhere",
    errno.EDQUOT: "free some space, or write it elsewhere",
    errno.EROFS: "write it elsewhere",
    errno.EACCES: "write it elsewhere, or fix the permissions",
    errno.EPERM: "write it elsewhere, or fix the permissions",
}


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


_SPECIAL = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (a named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def special_kind(path: Path) -> str | None:
    """What ``path`` is when it exists and is not a regular file (symlinks followed), else ``None``.

    >>> special_kind(Path("/")), special_kind(Path("/no/such/file"))
    ('a directory', None)
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:  # missing, a dangling link, a path under a file: nothing to write over
        return None
    if stat.S_ISREG(mode):
        return None
    return next((word for test, word in _SPECIAL if test(mode)), "not a regular file")


def write_failed(path: Path, exc: OSError, *, appending: bool = False) -> OutputError:
    """The one-line error of a file that could not be written: which file, why, what is left, what to do.

    ``appending``: the file was being appended to (a workflow file), so no claim is made about what it holds.

    >>> import errno
    >>> str(write_failed(Path("/nowhere/r.json"), OSError(errno.ENOSPC, "No space left on device")))
    '/nowhere/r.json: could not write it: No space left on device; nothing was written there (free some space, \
or write it elsewhere)'
    """
    cause = exc.strerror or str(exc) or type(exc).__name__
    if appending:
        left = ""
    else:
        left = "; the file already there is unchanged" if path.exists() else "; nothing was written there"
    hint = _HINTS.get(exc.errno or 0)
    return OutputError(f"{path}: could not write it: {cause}{left}" + (f" ({hint})" if hint else ""))


def _stage(path: Path, data: bytes | Iterable[bytes]) -> str:
    """``data`` (bytes, or chunks written as they come) in a synced temp file beside ``path``, with the mode
    ``path`` will have; returns its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                handle.writelines(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _through_link(path: Path) -> Path:
    """The file a write of ``path`` goes to: the one a symlink names (followed to the end, dangling or not), so the
    rename replaces that file and the link stays a link; ``path`` itself otherwise."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def write_together(files: Mapping[Path, bytes | Iterable[bytes]]) -> None:
    """Write every file atomically, and all of them or none: each is staged first, then all are moved in place.

    A file given as chunks (an answers archive read back from its spool) is written chunk by chunk, never whole in
    memory. A symlink is written through: the file it names is replaced (its folder made if missing), the link kept.

    Raises `OutputError` (one line, the file and the cause) when one cannot be written; no file is changed then.
    """
    for path in files:  # a rename would replace a device node, a FIFO or a socket itself
        special = special_kind(path)
        if special is not None:
            raise OutputError(
                f"{path}: is {special}, not a regular file, so it was not written over; nothing was written there"
            )
    staged: dict[Path, str] = {}
    try:
        for path, data in files.items():
            try:
                staged[path] = _stage(_through_link(path), data)
            except OSError as exc:
                raise write_failed(path, exc) from None
        for path, tmp in staged.items():
            try:
                os.replace(tmp, _through_link(path))
            except OSError as exc:
                raise write_failed(path, exc) from None
    finally:
        for tmp in staged.values():
            with contextlib.suppress(OSError):  # gone once moved in place
                os.unlink(tmp)


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, creating parent directories; `OutputError` when it cannot."""
    write_together({path: data})


def write_text(path: Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes(path, text.encode("utf-8"))
