"""System checks of the deployment settings (``manage.py check --deploy``)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Tags, Warning, register

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
