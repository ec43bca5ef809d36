"""The site's public base URL (setting ``SITE_URL``), for every absolute link the
application writes outside a request: citations, DataCite, deposits, OAI-PMH,
sitemaps and e-mails. A request's own host is not used for these, so an export
names the same address whoever fetched it and however the proxy forwarded it.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from django.conf import settings

DEFAULT_SITE_URL = "http://127.0.0.1:8000"


def site_url() -> str:
    """``SITE_URL`` without a trailing slash (the local default when unset)."""
    return (getattr(settings, "SITE_URL", "") or DEFAULT_SITE_URL).rstrip("/")


def absolute_url(path: str) -> str:
    """``path`` (from ``reverse``, starting with ``/``) under ``SITE_URL``."""
    return f"{site_url()}{path}"


def site_url_problem(url: str) -> str:
    """Why ``url`` cannot be the public base URL ("" when it can)."""
    if not url:
        return "SITE_URL is not set"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"SITE_URL {url!r} is not an http(s) URL with a host"
    host = parts.hostname
    if host == "localhost" or host.endswith(".localhost"):
        return f"SITE_URL {url!r} is a loopback address"
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name
        loopback = False
    if loopback:
        return f"SITE_URL {url!r} is a loopback address"
    return ""
