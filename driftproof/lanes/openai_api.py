"""The OpenAI Chat Completions lane (provider ``openai``, surface ``api``), through the ``openai`` SDK.

One Chat Completions request per attempt, sent with the SDK client's ``post`` as ``chat.completions.create``
sends it (the same body and headers: a test compares the two on the wire) but without ``create``'s parameter
transform, which leaves the lane's fields as they are and costs 0.7 ms of CPU a call; the reply is read from its
JSON, into the SDK's ``ChatCompletion`` first only when it is not plain (`is_plain_completion`). The SDK's own
retries are off (``max_retries=0``): `with_retries` counts and retries every attempt, honouring ``retry-after``
from the error response. Any
OpenAI-compatible server works through ``base_url`` or ``OPENAI_BASE_URL`` (vLLM ``http://localhost:8000/v1``,
Ollama ``http://localhost:11434/v1``, llama.cpp ``http://localhost:8080/v1``). Only
``max_completion_tokens`` is sent that shapes sampling: no temperature, no top_p, no seed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from driftproof.core.defaults import DEFAULTS
from driftproof.core.models import Usage
from driftproof.core.words import Provider
from driftproof.credentials import hold, redact
from driftproof.errors import LaneError
from driftproof.lanes.api import ApiLane
from driftproof.lanes.attempt_deadline import arm
from driftproof.lanes.base import AttemptFailure, Generation, GenerationRequest, RetryPolicy
from driftproof.lanes.endpoints import LOCAL_PLACEHOLDER_KEY, env_value, is_loopback_url
from driftproof.lanes.failures import (
    UnreadableReply,
    connection_failure,
    one_line,
    status_failure,
    status_reason,
    timeout_failure,
    unreadable_failure,
)
from driftproof.lanes.reply_json import is_count, is_optional_count, is_optional_text

if TYPE_CHECKING:
    import httpx2
    import openai
    from openai.types.chat import ChatCompletionMessageParam

DEFAULT_MODEL = "gpt-6.2-sol"
"""The answering model when none is requested (also the Codex CLI's default)."""
DEFAULT_BASE_URL = "https://api.openai.com/v1"
FINAL_429_CODES = frozenset({"insufficient_quota"})
"""``error.code`` values of a 429 that waiting does not cure (quota or billing, not rate)."""
DEFAULT_POLICY = RetryPolicy()
MAX_CHOICES = 128
"""The most choices (``n``) Chat Completions returns for one request."""
CHAT_COMPLETIONS = "/chat/completions"
"""Where ``chat.completions.create`` posts, under the base URL."""


class OpenAIApiLane(ApiLane):
    """Answers through Chat Completions: the skill as a leading ``system`` message, the prompt as the user turn.

    The key comes from ``OPENAI_API_KEY`` and the endpoint from ``base_url``, else ``OPENAI_BASE_URL``, else
    ``https://api.openai.com/v1``; ``environ``, when given, replaces ``os.environ`` for both. Without a key,
    a loopback endpoint (``localhost``, ``127.0.0.0/8``, ``::1``) gets the placeholder key ``not-needed``,
    since local servers ignore it; any other endpoint raises `LaneError` naming ``OPENAI_API_KEY``.
    Organization and project headers follow the SDK (``OPENAI_ORG_ID``, ``OPENAI_PROJECT_ID``).
    ``max_tokens`` is a ceiling: each call sends ``max_completion_tokens = min(request.max_tokens, max_tokens)``,
    and `sampling` reports the limits actually sent.
    """

    provider = Provider.OPENAI
    DEFAULT_MODEL = DEFAULT_MODEL
    DEFAULT_BASE_URL = DEFAULT_BASE_URL
    SDK_PACKAGE = "openai"
    SAMPLES_PER_REQUEST = MAX_CHOICES
    _client: openai.OpenAI

    def __init__(
        self,
        model: str | None,
        *,
        base_url: str | None = None,
        timeout_s: float = DEFAULTS.api_timeout_s,
        policy: RetryPolicy = DEFAULT_POLICY,
        max_tokens: int = 2048,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise LaneError("the openai lane needs the openai package: pip install openai") from None
        env = os.environ if environ is None else environ
        url = base_url or env_value(env, "OPENAI_BASE_URL")
        key = env_value(env, "OPENAI_API_KEY")
        if key is None:
            if url is None or not is_loopback_url(url):
                where = "api.openai.com" if url is None else url
                raise LaneError(
                    f"the openai lane found no API key for {where}: set OPENAI_API_KEY in the environment "
                    "(a server on localhost needs none)"
                )
            key = LOCAL_PLACEHOLDER_KEY
        super().__init__(model, timeout_s=timeout_s, policy=policy, max_tokens=max_tokens)
        self._ignores_n = False
        """An endpoint that answered ``n`` with fewer choices, or refused it: one answer per request from then on."""
        self._n_works = False
        """An endpoint that answered ``n`` with as many choices as asked: a later error is never read as refusing it."""
        if key != LOCAL_PLACEHOLDER_KEY:
            hold(key)  # redacted from every string from here on
        http_client = openai.DefaultHttpxClient()  # the SDK's own defaults (proxies, keep-alive), under one deadline
        arm(http_client)
        try:
            self._client = openai.OpenAI(
                api_key=key,
                base_url=url or DEFAULT_BASE_URL,
                timeout=timeout_s,
                max_retries=0,
                http_client=http_client,
            )
        except openai.OpenAIError as exc:
            http_client.close()
            raise LaneError(f"the openai lane could not set up its client: {redact(str(exc))}") from None

    def sampling(self) -> dict[str, Any]:
        """Exactly what is sent that shapes sampling: ``max_completion_tokens``, nothing else.

        The one limit sent, the sorted limits if calls differed, or the ceiling before any call.
        """
        return {"max_completion_tokens": self._max_tokens.recorded()}

    def samples_per_request(self) -> int:
        """Chat Completions answers one prompt ``n`` times in one request; 1 once an endpoint ignored ``n``."""
        return 1 if self._ignores_n else self.SAMPLES_PER_REQUEST

    @property
    def client(self) -> openai.OpenAI:
        """The SDK client (the batch calls go through it: `driftproof.lanes.openai_batch`)."""
        return self._client

    def chat_body(self, request: GenerationRequest, max_tokens: int) -> dict[str, Any]:
        """The Chat Completions body of one request (a batch line's ``body`` too); ``n`` only when above 1."""
        # the skill is the first message, so the provider's automatic prefix caching applies to it
        messages: list[ChatCompletionMessageParam] = []
        if request.system is not None:
            messages.append({"role": "system", "content": request.system})
        messages.append({"role": "user", "content": request.prompt})
        body: dict[str, Any] = {
            "model": self._model_for(request),
            "messages": messages,
            "max_completion_tokens": max_tokens,
        }
        n = min(request.samples, MAX_CHOICES)
        if n > 1 and not self._ignores_n:  # once refused or ignored, a request asked for several goes without ``n``
            body["n"] = n
        return body

    def sent_max_tokens(self, request: GenerationRequest) -> int:
        """The output-token limit a request is sent with, remembered for `sampling`."""
        return self._max_tokens.take(request.max_tokens)

    def classify(self, exc: BaseException) -> AttemptFailure:
        """How an exception of one HTTP request failed (the batch calls' too)."""
        return self._classify(exc)

    def saw_choices(self, generation: Generation, asked: int) -> None:
        """Remember an endpoint that ignores ``n`` (fewer choices than asked): one answer per request from now on;
        or that honours it (as many as asked)."""
        if asked > 1 and generation.choices is not None:
            if len(generation.choices) < asked:
                self._ignores_n = True
            else:
                self._n_works = True

    def _attempt(self, request: GenerationRequest, max_tokens: int) -> Generation:
        import httpx2
        import openai

        body = self.chat_body(request, max_tokens)
        n = int(body.get("n", 1))
        # the options ``create`` gives a call: the bearer key, never an admin key
        options: openai.RequestOptions = {"security": {"bearer_auth": True}}
        try:
            response = self._client.post(CHAT_COMPLETIONS, cast_to=httpx2.Response, body=body, options=options)
        except openai.APIStatusError as exc:
            message = _error_message(exc.body, exc.message)
            if n > 1 and not self._n_works and refuses_n(exc.status_code, message):
                self._ignores_n = True  # the retry, and every request after it, goes without ``n``
                raise RefusedN(n, message) from None
            raise
        completion = _completion(response)
        choices = _field(completion, "choices")
        if not isinstance(choices, list) or not choices or _field(choices[0], "message") is None:
            raise UnreadableReply.no_reply(response.text)
        generation = generation_of(completion, response.headers.get("x-request-id"), n)
        self.saw_choices(generation, n)
        return generation

    def _classify(self, exc: BaseException) -> AttemptFailure:
        import openai

        if isinstance(exc, UnreadableReply):
            return unreadable_failure(exc)
        if isinstance(exc, RefusedN):  # asked again at once, without ``n``
            return AttemptFailure(retryable=True, reason=redact(str(exc)), retry_after_s=0.0)
        if isinstance(exc, openai.APITimeoutError):
            return timeout_failure(self._timeout_s)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            detail = str(exc) if cause is None else f"{exc} ({type(cause).__name__}: {cause})"
            return connection_failure(redact(detail))
        if isinstance(exc, openai.APIStatusError):
            label = exc.type or exc.code
            if exc.type and exc.code and exc.code != exc.type:
                label = f"{exc.type} ({exc.code})"
            reason = redact(status_reason(exc.status_code, label, _error_message(exc.body, exc.message)))
            final = exc.status_code == 429 and exc.code in FINAL_429_CODES
            return status_failure(exc.status_code, exc.response.headers, reason, final=final, error_type=label)
        return AttemptFailure(retryable=False, reason=redact(f"{type(exc).__name__}: {one_line(str(exc))}"))


class RefusedN(Exception):
    """An endpoint refused a request for ``n`` choices (llama.cpp's server: "Only one completion choice is
    allowed", as a 500 or a 400): the attempt is retried at once without ``n``, and the lane asks one answer per
    request from then on, as for an endpoint that ignores ``n``."""

    def __init__(self, n: int, message: str) -> None:
        super().__init__(f"the endpoint refused n={n} ({one_line(message)}); asking one answer per request")


REFUSES_N = re.compile(r"choice|\bn\b", re.IGNORECASE)
"""What an error message says when an endpoint refuses ``n``: "only one completion choice is allowed" (llama.cpp),
"'n' is not supported", "n must be 1"."""


def refuses_n(status: int, message: str) -> bool:
    """Whether an HTTP error to a request for several choices reads as the endpoint refusing ``n``: a 400, 422 or
    5xx whose message names choices or ``n``. Never a key, permission, rate or not-found error.

    >>> refuses_n(500, "Only one completion choice is allowed"), refuses_n(400, "Unsupported parameter: 'n'")
    (True, True)
    >>> refuses_n(400, "maximum context length is 8192 tokens"), refuses_n(429, "n too large")
    (False, False)
    """
    return (status in (400, 422) or status >= 500) and REFUSES_N.search(message) is not None


def _error_message(body: object, fallback: str) -> str:
    """``error.message`` (OpenAI), a bare ``error`` string (Ollama) or ``detail`` (FastAPI servers)."""
    if isinstance(body, str):
        return body
    if isinstance(body, Mapping):
        for name in ("message", "detail"):
            value = body.get(name)
            if isinstance(value, str) and value:
                return value
    return fallback


def _completion(response: httpx2.Response) -> object:
    """The reply as ``with_raw_response.create(...).parse()`` reads it, raising `UnreadableReply` for no JSON.

    A plain reply (`is_plain_completion`) is its JSON as it is; any other JSON object is read into the SDK's
    ``ChatCompletion``, as the SDK reads it. A body that is not JSON is ``not JSON`` when it is labelled JSON, and
    a reply without one (its text) otherwise, as the SDK reads it.
    """
    try:
        data = response.json()
    except ValueError:
        content_type = response.headers.get("content-type", "*").split(";")[0]
        if content_type.endswith("json"):
            raise UnreadableReply.not_json(response.text) from None
        raise UnreadableReply.no_reply(response.text) from None
    if isinstance(data, dict) and not is_plain_completion(data):
        from openai.types.chat import ChatCompletion

        return ChatCompletion.construct(**data)
    return data  # a plain reply; or a list, a string, a number or null, which holds none


def is_plain_completion(body: object) -> bool:
    """Whether every field `generation_of` reads of a ``chat.completion`` has its plain JSON type, or is absent.

    Plain (`driftproof.lanes.reply_json`): ``choices`` a list of objects, each with a ``message`` object whose
    ``content`` and ``refusal`` are strings or ``null``, an integer ``index`` and a string or ``null``
    ``finish_reason``; ``id``, ``model``, ``system_fingerprint`` strings or ``null``; ``usage`` ``null`` or an
    object of integer counts, its ``prompt_tokens_details`` ``null`` or an object of integer or ``null`` counts.
    """
    if not isinstance(body, dict) or not all(is_optional_text(body.get(k)) for k in PLAIN_TEXTS):
        return False
    choices, usage = body.get("choices"), body.get("usage")
    if not isinstance(choices, list) or not all(_is_plain_choice(c) for c in choices):
        return False
    if usage is None:
        return True
    if not isinstance(usage, dict) or not all(k not in usage or is_count(usage[k]) for k in PLAIN_COUNTS):
        return False
    details = usage.get("prompt_tokens_details")
    return details is None or (
        isinstance(details, dict) and all(is_optional_count(details.get(k)) for k in PLAIN_DETAIL_COUNTS)
    )


PLAIN_TEXTS = ("id", "model", "system_fingerprint")
PLAIN_COUNTS = ("prompt_tokens", "completion_tokens")
PLAIN_DETAIL_COUNTS = ("cached_tokens", "cache_write_tokens")


def _is_plain_choice(choice: object) -> bool:
    if not isinstance(choice, dict) or not is_optional_text(choice.get("finish_reason")):
        return False
    message, index = choice.get("message"), choice.get("index")
    return (
        ("index" not in choice or is_count(index))
        and isinstance(message, dict)
        and is_optional_text(message.get("content"))
        and is_optional_text(message.get("refusal"))
    )


def _field(obj: object, name: str) -> Any:
    """A field of a reply, read from its JSON (a ``dict``) or from the SDK's model of it; ``None`` when absent."""
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _choice_text(choice: object) -> str:
    """One choice's answer; a refusal or a choice without content has text ``""``."""
    message = _field(choice, "message")
    content = _field(message, "content")
    return content if isinstance(content, str) and not _field(message, "refusal") else ""


def generation_of(completion: object, request_id: str | None, asked: int = 1) -> Generation:
    """The `Generation` of one successful reply; a refusal or a reply without content has text ``""``.

    ``completion`` is the reply's JSON (a plain one: `is_plain_completion`) or the SDK's ``ChatCompletion`` of it.
    Read defensively: OpenAI-compatible servers leave out fields the SDK types as required. With ``asked`` > 1
    (``n``), ``choices`` holds each choice's text in ``index`` order, at most ``asked`` of them.
    """
    choices = _field(completion, "choices") or []
    if asked > 1:
        choices = sorted(choices, key=lambda c: index if isinstance(index := _field(c, "index"), int) else 0)
    choice = choices[0] if choices else None
    message = _field(choice, "message")
    refusal = _field(message, "refusal")
    text = _choice_text(choice)
    extra: dict[str, Any] = {
        "finish_reason": _field(choice, "finish_reason"),
        "system_fingerprint": _field(completion, "system_fingerprint"),
        "completion_id": _field(completion, "id"),
    }
    if refusal:
        extra["refusal"] = True
    model = _field(completion, "model")
    return Generation(
        text=text,
        reported_model=model if isinstance(model, str) and model else None,
        model_source="reported" if isinstance(model, str) and model else None,
        reported_ids=(model,) if isinstance(model, str) and model else (),
        request_id=request_id,
        usage=_usage(_field(completion, "usage")),
        extra=extra,
        choices=tuple(_choice_text(c) for c in choices[:asked]) if asked > 1 else None,
    )


def _usage(usage: object) -> Usage | None:
    """``prompt_tokens`` minus the cached (and cache-written) part is the uncached input, as Anthropic counts it.

    ``None`` when the server reported no usage; a count it left out stays ``None``.
    """
    if usage is None:
        return None
    details = _field(usage, "prompt_tokens_details")
    prompt = _count(usage, "prompt_tokens")
    cached = _count(details, "cached_tokens")
    written = _count(details, "cache_write_tokens")
    return Usage(
        input_tokens=None if prompt is None else max(0, prompt - (cached or 0) - (written or 0)),
        output_tokens=_count(usage, "completion_tokens"),
        cache_read_tokens=cached,
        cache_write_tokens=written,
    )


def _count(obj: object, name: str) -> int | None:
    value = _field(obj, name)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
