"""Where a lane's calls go: environment variables read the way the SDKs read them, and base URLs compared.

Used by the API lanes (the SDK's base URL and key) and the CLI lanes (the base URL handed to the CLI).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")
"""The variables an HTTP client reads to route its requests (each also in lower case)."""


LOCAL_PLACEHOLDER_KEY = "not-needed"
"""The key an API lane sends to a loopback endpoint when none is set (local servers ignore it); never sent elsewhere."""


def env_value(environ: Mapping[str, str], name: str) -> str | None:
    """The variable's value without surrounding whitespace; ``None`` when unset or blank.

    >>> env_value({"A": " k \\n", "B": "  "}, "A"), env_value({"B": "  "}, "B"), env_value({}, "C")
    ('k', None, None)
    """
    value = environ.get(name)
    if value is None:
        return None
    return value.strip() or None


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` points at this machine (``localhost``, ``127.0.0.0/8``, ``::1``).

    >>> is_loopback_url("http://localhost:11434/v1"), is_loopback_url("http://127.0.0.1:8000/v1")
    (True, True)
    >>> is_loopback_url("http://[::1]:8080/v1"), is_loopback_url("https://api.openai.com/v1")
    (True, False)
    """
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def same_url(a: str, b: str) -> bool:
    """Whether two base URLs name the same endpoint, ignoring a trailing slash and the scheme/host case.

    >>> same_url("https://API.anthropic.com/", "https://api.anthropic.com")
    True
    """
    return a.rstrip("/").lower() == b.rstrip("/").lower()


def without_credentials(url: str) -> str:
    """``url`` with any user name and password removed (a proxy URL may carry them).

    >>> without_credentials("http://user:secret@proxy.local:3128"), without_credentials("proxy.local:3128")
    ('http://proxy.local:3128', 'proxy.local:3128')
    """
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def proxy_routing(environ: Mapping[str, str]) -> dict[str, str]:
    """The proxy variables set in ``environ``, each named as it is set, with credentials removed.

    >>> proxy_routing({"https_proxy": "http://u:p@proxy:3128", "NO_PROXY": "localhost", "PATH": "/bin"})
    {'NO_PROXY': 'localhost', 'https_proxy': 'http://proxy:3128'}
    """
    names = [n for upper in PROXY_VARIABLES for n in (upper, upper.lower())]
    found = {n: without_credentials(v) for n in names if (v := env_value(environ, n)) is not None}
    return dict(sorted(found.items()))
