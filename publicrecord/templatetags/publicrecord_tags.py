"""The public-record card of a registration page (quality, citation, feedback).

An inclusion tag, so the registry's page shows it without the registry
importing this app (the layers of tests/test_layers.py).
"""

from __future__ import annotations

from django import template

from registry.models import Registration

from ..quality import quality_profile

register = template.Library()


@register.inclusion_tag("publicrecord/_record_card.html")
def public_record(registration: Registration) -> dict:
    return {
        "registration": registration,
        "criteria": quality_profile(registration),
    }
