"""Absolute links in exported text, for the SITE_URL tests."""

import re

# Addresses of schemas and identifier schemes, not of this site.
EXTERNAL = (
    "http://datacite.org/schema/",
    "http://schema.datacite.org/",
    "http://www.w3.org/",
    "https://orcid.org",
    "https://schema.org",
    "http://www.openarchives.org/",
    "http://purl.org/dc/",
)
_URL = re.compile(r"https?://[^\s\"'<>{}]+")


def urls_in(text: str) -> list[str]:
    """Every http(s) URL in `text` that names this site (schema URIs left out)."""
    return [u for u in _URL.findall(text) if not u.startswith(EXTERNAL)]
