"""A deadline for a whole API attempt: connecting, TLS, sending, the headers and the body, not idle time alone.

Both SDKs pass their timeout to httpx as per-phase limits, and a read limit is idle time between two
socket reads: a server that trickles one byte every half second holds an attempt for ever. Here every
socket operation of the SDK's connection pool is given at most the time left until the attempt's
deadline, and one that starts after it fails at once with the pool's own timeout exception, which the
SDKs turn into their ``APITimeoutError``; the lanes classify it as any other timeout.

The deadline is per thread (the runner calls a lane from several workers, each attempt on its own thread)
and is set by `attempt_deadline` around one attempt; outside one, operations keep their own limits.

>>> with attempt_deadline(5.0):
...     0 < remaining(None) <= 5.0, remaining(1.0) <= 1.0
(True, True)
>>> remaining(7.0)
7.0
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

_local = threading.local()


@contextmanager
def attempt_deadline(seconds: float) -> Iterator[None]:
    """Every socket operation inside the block ends by ``seconds`` from now (on this thread)."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.deadline = previous


def remaining(timeout: float | None) -> float | None:
    """``timeout`` shortened to the time left before this thread's deadline; raises once it has passed.

    Raises ``TimeoutError`` (the caller turns it into its own pool's exception) when no time is left.
    """
    deadline: float | None = getattr(_local, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the attempt's deadline passed")
    return left if timeout is None else min(timeout, left)


def arm(http_client: Any) -> bool:
    """Put every connection pool of an httpx2 client (its transport and its proxy mounts) under the deadline.

    Call it before the client's first request (a pool hands its backend to each connection it opens). Returns
    whether a pool was found; when none is (an httpx2 release laid out differently), a warning says that
    ``--timeout`` then bounds idle time only.
    """
    transports = [getattr(http_client, "_transport", None), *getattr(http_client, "_mounts", {}).values()]
    armed = False
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if pool is None or backend is None:
            continue
        if not isinstance(backend, _DeadlineBackend):
            pool._network_backend = _DeadlineBackend(backend)
        armed = True
    if not armed:
        warnings.warn(
            "this httpx2 release keeps its connection pool elsewhere: --timeout bounds the idle time of an "
            "attempt, not the whole attempt",
            RuntimeWarning,
            stacklevel=2,
        )
    return armed


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    try:
        return remaining(timeout)
    except TimeoutError:
        raise error("the attempt's deadline passed") from None


class _DeadlineStream:
    """A pool's network stream whose reads and writes end by the attempt's deadline."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        import httpcore2

        data: bytes = self._stream.read(max_bytes, timeout=_bounded(timeout, httpcore2.ReadTimeout))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        import httpcore2

        self._stream.write(buffer, timeout=_bounded(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        import httpcore2

        bounded = _bounded(timeout, httpcore2.ConnectTimeout)
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname=server_hostname, timeout=bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend:
    """A pool's network backend whose connections and streams end by the attempt's deadline."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> _DeadlineStream:
        import httpcore2

        bounded = _bounded(timeout, httpcore2.ConnectTimeout)
        return _DeadlineStream(
            self._backend.connect_tcp(
                host, port, timeout=bounded, local_address=local_address, socket_options=socket_options
            )
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> _DeadlineStream:
        import httpcore2

        bounded = _bounded(timeout, httpcore2.ConnectTimeout)
        return _DeadlineStream(self._backend.connect_unix_socket(path, timeout=bounded, socket_options=socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)
