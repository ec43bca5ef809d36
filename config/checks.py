"""System checks of the deployment settings (``manage.py check --deploy``)."""

from __future__ import annotations

import re

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

from .site import site_url_problem


@register(Tags.security, deploy=True)
def check_site_url(app_configs, **kwargs) -> list[Warning]:
    """Citations, DataCite records, OAI-PMH and e-mails carry SITE_URL: a
    loopback or missing address would be published in every one of them."""
    problem = site_url_problem(getattr(settings, "SITE_URL", ""))
    if not problem:
        return []
    return [
        Warning(
            f"{problem}: every citation, DataCite record, OAI-PMH record and "
            "e-mail link would point there.",
            hint="Set SITE_URL to the public address, e.g. https://registry.example.org.",
            id="registry.W001",
        )
    ]


# DataCite repository IDs: the provider's symbol, a dot, the repository's
_DATACITE_CLIENT_ID = re.compile(r"[A-Za-z0-9]+(\.[A-Za-z0-9_-]+)+")


@register()
def check_datacite_client_id(app_configs, **kwargs) -> list[Error]:
    """DATACITE_CLIENT_ID is written into every OAI-PMH oai_datacite record:
    a value that is not a repository ID would be published as one (and a
    control character would make every such record fail)."""
    value = getattr(settings, "DATACITE_CLIENT_ID", "")
    if not value or _DATACITE_CLIENT_ID.fullmatch(value):
        return []
    return [
        Error(
            f"DATACITE_CLIENT_ID {value[:50]!r} is not a DataCite repository ID.",
            hint='Set the repository ID DataCite gave you, e.g. "TIB.EXAMPLE", '
            "or leave it empty.",
            id="registry.E001",
        )
    ]
