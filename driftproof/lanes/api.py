"""The API surface: what both API lanes share, one attempt at a time under one deadline, retried by one policy.

`ApiLane` holds the model, the timeout, the retry policy and the output-token ceiling, and gives every
method a lane answers with (``generate``, ``base_url``, ``endpoint``, ``credential_names``, ``close``).
A provider's lane (`anthropic_api`, `openai_api`) builds its SDK client and implements one attempt
(``_attempt``) and the mapping of its SDK's exceptions onto failures (``_classify``).
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
from abc import abstractmethod
from typing import ClassVar, Protocol

from driftproof.core.words import Surface
from driftproof.credentials import credential_names
from driftproof.lanes.attempt_deadline import attempt_deadline
from driftproof.lanes.base import AttemptFailure, Generation, GenerationRequest, Lane, RetryPolicy, with_retries
from driftproof.lanes.endpoints import proxy_routing, same_url

API_ISOLATION = "none needed: an HTTP API call through the SDK, nothing runs on this machine"


class SdkClient(Protocol):
    """What `ApiLane` needs of an SDK client: its base URL and a way to close it."""

    @property
    def base_url(self) -> object:
        """The endpoint every call goes to."""

    def close(self) -> None:
        """Release the HTTP client."""


class SentMaxTokens:
    """The output-token limits a lane actually sent, so that ``sampling()`` reports them and not a wish.

    ``ceiling`` is the lane's own ``max_tokens``: a request may ask for less (the judge's smaller budget),
    never more. Thread-safe: the runner calls one lane from several workers.

    >>> sent = SentMaxTokens(2048)
    >>> sent.recorded(), sent.take(1024), sent.take(4096), sent.recorded()
    (2048, 1024, 2048, [1024, 2048])
    """

    def __init__(self, ceiling: int) -> None:
        self.ceiling = ceiling
        self._sent: set[int] = set()
        self._lock = threading.Lock()

    def take(self, requested: int) -> int:
        """The limit to send for a request asking ``requested``, remembered."""
        value = min(requested, self.ceiling)
        with self._lock:
            self._sent.add(value)
        return value

    def recorded(self) -> int | list[int]:
        """The one limit sent, the sorted limits when they differed, or the ceiling before any call."""
        with self._lock:
            sent = sorted(self._sent)
        if not sent:
            return self.ceiling
        return sent[0] if len(sent) == 1 else sent


class ApiLane(Lane):
    """A provider's HTTP API through its SDK, with the SDK's own retries off and `RetryPolicy` in charge."""

    surface: Surface = Surface.API
    DEFAULT_MODEL: ClassVar[str]
    """The model asked for when neither the lane nor the request names one."""
    DEFAULT_BASE_URL: ClassVar[str]
    """The vendor's endpoint: a receipt records a base URL only when it is another."""
    SDK_PACKAGE: ClassVar[str]
    """The distribution name of the provider's SDK (``anthropic``, ``openai``)."""
    _client: SdkClient

    def __init__(self, model: str | None, *, timeout_s: float, policy: RetryPolicy, max_tokens: int) -> None:
        self._model = model
        self._timeout_s = timeout_s
        self._policy = policy
        self._max_tokens = SentMaxTokens(max_tokens)

    def generate(self, request: GenerationRequest) -> Generation:
        """One call (retried per the policy); a failure comes back with ``error`` set, never raised."""
        max_tokens = self._max_tokens.take(request.max_tokens)
        return with_retries(lambda: self._timed_attempt(request, max_tokens), self._classify, self._policy)

    def base_url(self) -> str | None:
        """The endpoint when it is not the vendor's (the argument or the SDK's base-URL variable)."""
        url = str(self._client.base_url)
        return None if same_url(url, self.DEFAULT_BASE_URL) else url.rstrip("/")

    def default_model(self) -> str:
        """The model asked for when neither the lane nor the request names one."""
        return self.DEFAULT_MODEL

    def timeout_s(self) -> float:
        """Seconds one attempt may take, connect to last byte."""
        return self._timeout_s

    def retry_policy(self) -> RetryPolicy:
        """How each call is retried (``--max-retries``); each request of a batch (``--batch``) is retried by it too."""
        return self._policy

    def endpoint(self) -> str:
        """The base URL every call goes to, the vendor default included."""
        return str(self._client.base_url).rstrip("/")

    def credential_names(self) -> tuple[str, ...]:
        """The variables this provider's API lane takes a key from."""
        return credential_names(self.provider, Surface.API)

    def tool_version(self) -> str:
        """The SDK package every call goes through, with its version (``anthropic 2.14.0``)."""
        return f"{self.SDK_PACKAGE} {importlib.metadata.version(self.SDK_PACKAGE)}"

    def isolation(self) -> str:
        """An API call runs nothing on this machine: only the request leaves it."""
        return API_ISOLATION

    def routing(self) -> dict[str, str]:
        """The proxy variables the SDK's HTTP client reads from this process's environment, credentials removed."""
        return proxy_routing(os.environ)

    def close(self) -> None:
        """Close the SDK's HTTP client."""
        self._client.close()

    def _model_for(self, request: GenerationRequest) -> str:
        """The model one call asks for: the request's, else the lane's, else the default."""
        return request.model or self._model or self.DEFAULT_MODEL

    def _timed_attempt(self, request: GenerationRequest, max_tokens: int) -> Generation:
        with attempt_deadline(self._timeout_s):
            return self._attempt(request, max_tokens)

    @abstractmethod
    def _attempt(self, request: GenerationRequest, max_tokens: int) -> Generation:
        """One request to the endpoint; raises what the SDK raises, or `UnreadableReply`."""

    @abstractmethod
    def _classify(self, exc: BaseException) -> AttemptFailure:
        """How an exception of one attempt failed: retryable or not, and its reason, redacted."""
