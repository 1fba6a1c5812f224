"""The Anthropic Messages API lane (provider ``anthropic``, surface ``api``), through the ``anthropic`` SDK.

One ``messages.create`` per attempt, the SDK's own retries off (``max_retries=0``): `with_retries` counts
and retries every attempt, honouring ``retry-after`` from the error response. The SDK pins
``anthropic-version: 2026-10-21``, which refuses ``temperature``/``top_p``/``top_k``, so none is sent and
`AnthropicApiLane.sampling` records only ``max_tokens`` and that version. A plain reply is read from its JSON
(`plain_generation`), any other into the SDK's ``Message`` first (`generation_of`): the same `Generation` either way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from driftproof.core.defaults import DEFAULTS
from driftproof.core.models import Usage
from driftproof.core.words import Provider, Surface
from driftproof.credentials import credential_names, hold, redact
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
from driftproof.lanes.prompt_cache import MAX_BREAKPOINTS, system_blocks, user_content
from driftproof.lanes.reply_json import is_count, is_optional_count, is_optional_text, json_body

if TYPE_CHECKING:
    import anthropic
    from anthropic.types import Message

DEFAULT_MODEL = "claude-sonnet-5-5"
"""The answering model when none is requested: the current Sonnet, the middle of the family."""
DEFAULT_BASE_URL = "https://api.anthropic.com"
SPEND_LIMIT_CODES = frozenset({"enforced_spend_limit_reached", "contract_spend_limit_reached"})
"""``error.details.error_code`` values of a 429 that waiting does not cure."""
KEY_VARIABLES = credential_names(Provider.ANTHROPIC, Surface.API)
DEFAULT_POLICY = RetryPolicy()


class AnthropicApiLane(ApiLane):
    """Answers through the Anthropic Messages API: the skill as ``system``, the prompt as the one user turn.

    The skill block and the judge prompt's shared prefixes carry ``cache_control`` (`driftproof.lanes.prompt_cache`),
    and the reply's cache reads and writes are recorded in its usage.

    Credentials and endpoint come from the SDK's own environment handling (``ANTHROPIC_API_KEY``, then
    ``ANTHROPIC_AUTH_TOKEN``, both sent as ``Authorization: Bearer``; ``ANTHROPIC_BASE_URL``), unless
    ``base_url`` is given. ``environ``, when given, replaces ``os.environ`` for those three variables.
    Without either key, a loopback endpoint (``localhost``, ``127.0.0.0/8``, ``::1``) gets the placeholder key
    ``not-needed``, as on the OpenAI lane, since local servers ignore it; any other endpoint raises `LaneError`.
    ``max_tokens`` is a ceiling: each call sends ``min(request.max_tokens, max_tokens)``, and `sampling`
    reports the limits actually sent. Raises `LaneError` when the SDK is missing or no key is set.
    """

    provider = Provider.ANTHROPIC
    DEFAULT_MODEL = DEFAULT_MODEL
    DEFAULT_BASE_URL = DEFAULT_BASE_URL
    SDK_PACKAGE = "anthropic"
    _client: anthropic.Anthropic

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
            import anthropic
        except ImportError:
            raise LaneError("the anthropic lane needs the anthropic package: pip install anthropic") from None
        super().__init__(model, timeout_s=timeout_s, policy=policy, max_tokens=max_tokens)
        self._client = _make_client(anthropic, base_url, timeout_s, environ)
        held = {self._client.api_key, self._client.auth_token} - {LOCAL_PLACEHOLDER_KEY}
        hold(*held)  # redacted from every string from here on

    def sampling(self) -> dict[str, Any]:
        """Exactly what is sent that shapes sampling: ``max_tokens`` and the pinned ``anthropic-version``.

        ``max_tokens`` is the one limit sent, the sorted limits if calls differed, or the ceiling before any call.
        """
        return {"max_tokens": self._max_tokens.recorded(), "anthropic_version": self.api_version()}

    def api_version(self) -> str | None:
        """The ``anthropic-version`` header this client sends (pinned by the SDK: no sampling parameters)."""
        version = self._client.default_headers.get("anthropic-version")
        return version if isinstance(version, str) else None

    def _attempt(self, request: GenerationRequest, max_tokens: int) -> Generation:
        from anthropic import omit
        from anthropic.types import Message

        params = self.message_params(request, max_tokens)
        system = params.pop("system", omit)
        raw = self._client.messages.with_raw_response.create(**params, system=system)
        request_id = raw.headers.get("request-id")
        plain = plain_generation(json_body(raw.http_response), request_id)
        if plain is not None:  # read from its JSON: no SDK models built
            return plain
        try:
            message = raw.parse()
        except ValueError:  # the body is not JSON
            raise UnreadableReply.not_json(raw.http_response.text) from None
        if not isinstance(message, Message) or not isinstance(message.content, list):
            raise UnreadableReply.no_reply(raw.http_response.text)
        return generation_of(message, request_id)

    @property
    def client(self) -> anthropic.Anthropic:
        """The SDK client (the batch calls go through it: `driftproof.lanes.anthropic_batch`)."""
        return self._client

    def message_params(self, request: GenerationRequest, max_tokens: int) -> dict[str, Any]:
        """The Messages API parameters of one request (a batch item's ``params`` too); ``system`` only when set."""
        marks_left = MAX_BREAKPOINTS - (request.system is not None)
        content = user_content(request.prompt, request.cache_breaks, marks_left=marks_left)
        params: dict[str, Any] = {
            "model": self._model_for(request),
            "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": content}],
        }
        if request.system is not None:
            params["system"] = system_blocks(request.system)
        return params

    def sent_max_tokens(self, request: GenerationRequest) -> int:
        """The output-token limit a request is sent with, remembered for `sampling`."""
        return self._max_tokens.take(request.max_tokens)

    def classify(self, exc: BaseException) -> AttemptFailure:
        """How an exception of one HTTP request failed (the batch calls' too)."""
        return self._classify(exc)

    def _classify(self, exc: BaseException) -> AttemptFailure:
        import anthropic

        if isinstance(exc, UnreadableReply):
            return unreadable_failure(exc)
        if isinstance(exc, anthropic.APITimeoutError):
            return timeout_failure(self._timeout_s)
        if isinstance(exc, anthropic.APIConnectionError):
            return connection_failure(redact(_connection_detail(exc)))
        if isinstance(exc, anthropic.APIStatusError):
            reason = redact(status_reason(exc.status_code, exc.type, exc.api_message or exc.message))
            final = exc.status_code == 429 and exc.error_code in SPEND_LIMIT_CODES
            return status_failure(exc.status_code, exc.response.headers, reason, final=final, error_type=exc.type)
        return AttemptFailure(retryable=False, reason=redact(f"{type(exc).__name__}: {one_line(str(exc))}"))


def _make_client(
    sdk: Any, base_url: str | None, timeout_s: float, environ: Mapping[str, str] | None
) -> anthropic.Anthropic:
    """The SDK client with its retries off; raises `LaneError` when it has no credential."""
    http_client = sdk.DefaultHttpxClient()  # the SDK's own defaults (proxies, keep-alive), under one deadline
    arm(http_client)
    kwargs: dict[str, Any] = {"timeout": timeout_s, "max_retries": 0, "http_client": http_client}
    if not spans_can_record():
        kwargs["open_telemetry"] = False  # its call spans would be built on every call and dropped
    env = os.environ if environ is None else environ
    url = base_url or env_value(env, "ANTHROPIC_BASE_URL")
    if all(env_value(env, name) is None for name in KEY_VARIABLES) and url is not None and is_loopback_url(url):
        kwargs |= {"api_key": LOCAL_PLACEHOLDER_KEY, "base_url": url}  # a local server: no key, and none leaves it
    elif environ is None:  # the SDK reads ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN / ANTHROPIC_BASE_URL itself
        if base_url is not None:
            kwargs["base_url"] = base_url
    else:
        api_key, auth_token = (env_value(environ, name) for name in KEY_VARIABLES)
        if api_key is None and auth_token is None:
            raise _no_key_error()
        kwargs["api_key" if api_key is not None else "auth_token"] = api_key or auth_token
        kwargs["base_url"] = base_url or env_value(environ, "ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
    try:
        client: anthropic.Anthropic = sdk.Anthropic(**kwargs)
    except sdk.AnthropicError as exc:  # a broken credentials profile, say; its message names no key
        http_client.close()
        raise LaneError(f"the anthropic lane could not set up its client: {redact(str(exc))}") from None
    if not (client.api_key or client.auth_token or client.credentials is not None):
        client.close()
        raise _no_key_error()
    return client


def spans_can_record() -> bool:
    """Whether OpenTelemetry could record the SDK's call spans: a tracer provider is set, or the environment names one.

    With neither, OpenTelemetry's global provider is its no-op proxy: the SDK would build each call's span (its
    attributes, 0.1 to 0.4 ms of CPU a call) and drop it, since it neither records nor propagates (the workers run
    in no trace context), so the lane gives its client ``open_telemetry=False``. Asked when the lane is built: a
    provider set after that is not seen. With a provider, the SDK's default stands (``ANTHROPIC_OPEN_TELEMETRY``
    and the other variables it reads).
    """
    try:
        from opentelemetry import trace
    except ImportError:  # the SDK traces through it: without it, nothing is traced
        return False
    if os.environ.get("OTEL_PYTHON_TRACER_PROVIDER"):
        return True  # OpenTelemetry loads the provider it names when first asked
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _no_key_error() -> LaneError:
    return LaneError(
        "the anthropic lane found no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the environment "
        "(a server on localhost needs none)"
    )


def generation_of(message: Message, request_id: str | None) -> Generation:
    """The `Generation` of one successful reply, read from the SDK's model of it (a batch result's too).

    A refusal or a reply without text has text ``""``.
    """
    from anthropic.types import TextBlock

    texts = [block.text for block in message.content if isinstance(block, TextBlock) and isinstance(block.text, str)]
    u = getattr(message, "usage", None)  # a gateway in front of the API may leave it out
    counts = (
        None
        if u is None
        else (u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens)
    )
    return _generation(texts, message.stop_reason, message.model, message.id, counts, request_id)


def plain_generation(body: object, request_id: str | None) -> Generation | None:
    """The `Generation` of a plain reply read from its JSON, the same as `generation_of` reads; else ``None``.

    Plain (`driftproof.lanes.reply_json`): ``id``, ``model`` strings; ``stop_reason`` a string or ``null``;
    ``content`` a list of text blocks only (``type`` ``text``, ``text`` a string; another kind of block is
    the SDK's to read); ``usage`` absent, ``null``, or integer input and output counts with integer or
    ``null`` cache counts.
    """
    if not isinstance(body, dict) or not body.keys() >= PLAIN_FIELDS:
        return None
    content, usage, stop_reason = body["content"], body.get("usage"), body["stop_reason"]
    if not (isinstance(body["id"], str) and isinstance(body["model"], str) and is_optional_text(stop_reason)):
        return None
    if not isinstance(content, list) or not all(_is_text_block(block) for block in content):
        return None
    counts: tuple[object, object, object, object] | None = None
    if usage is not None:
        if not isinstance(usage, dict):
            return None
        counts = (
            usage.get("input_tokens"),
            usage.get("output_tokens"),
            usage.get("cache_read_input_tokens"),
            usage.get("cache_creation_input_tokens"),
        )
        if not (is_count(counts[0]) and is_count(counts[1]) and all(is_optional_count(c) for c in counts[2:])):
            return None
    texts = [block["text"] for block in content]
    return _generation(texts, stop_reason, body["model"], body["id"], counts, request_id)


PLAIN_FIELDS = frozenset({"id", "model", "content", "stop_reason"})
"""The fields a plain reply holds (an SDK may read an absent one as ``None`` or refuse it: its models decide)."""


def _is_text_block(block: object) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)


def _generation(
    texts: list[str],
    stop_reason: Any,
    model: Any,
    message_id: Any,
    counts: tuple[Any, Any, Any, Any] | None,
    request_id: str | None,
) -> Generation:
    """The `Generation` of a reply's texts and fields, however they were read (a refusal's text is ``""``)."""
    usage = (
        None
        if counts is None
        else Usage(
            input_tokens=counts[0],
            output_tokens=counts[1],
            cache_read_tokens=counts[2],
            cache_write_tokens=counts[3],
        )
    )
    return Generation(
        text="" if stop_reason == "refusal" else "".join(texts),
        reported_model=model or None,
        model_source="reported" if model else None,
        reported_ids=(model,) if model else (),
        request_id=request_id,
        usage=usage,
        extra={"stop_reason": stop_reason, "message_id": message_id},
    )


def _connection_detail(exc: BaseException) -> str:
    cause = exc.__cause__
    return f"{exc}" if cause is None else f"{exc} ({type(cause).__name__}: {cause})"
