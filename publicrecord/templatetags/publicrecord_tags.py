"""The public-record card of a registration page (quality, citation, feedback).

An inclusion tag, so the registry's page shows it without the registry
importing this app (the layers of tests/test_layers.py).
"""

from __future__ import annotations

from django import template

from registry.models import Registration

from ..models import Feedback
from ..quality import quality_profile

register = template.Library()


@register.inclusion_tag("publicrecord/_record_card.html", takes_context=True)
def public_record(context, registration: Registration) -> dict:
    return {
        "registration": registration,
        "criteria": quality_profile(registration),
        "feedback_count": Feedback.objects.filter(registration=registration).count(),
        "user": context.get("user"),
    }
