"""The public-record card of a registration page (quality, citation, feedback),
and the statistics figures laid out for phones.

The card is an inclusion tag, so the registry's page shows it without the
registry importing this app (the layers of tests/test_layers.py).
"""

from __future__ import annotations

import json

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from registry.models import Registration, RegistrationVersion

from ..citation import citation_record, schema_org
from ..figures import NARROW, figure, share_text
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


# What must not appear raw inside <script>: the JSON stays valid, and user text
# cannot close the element (the escapes of Django's json_script).
_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


@register.simple_tag
def record_json_ld(version: RegistrationVersion) -> SafeString:
    """schema.org JSON-LD of `version` (search engines), as a script element."""
    data = json.dumps(schema_org(citation_record(version)), ensure_ascii=False)
    return format_html(
        '<script type="application/ld+json">{}</script>',
        mark_safe(data.translate(_SCRIPT_ESCAPES)),
    )


@register.simple_tag
def narrow_figure(name: str, stats: dict) -> SafeString:
    """The statistics figure `name` laid out for a phone's width (labels above
    the bars). Built by publicrecord.figures, which escapes every label."""
    return mark_safe(figure(name, stats, layout=NARROW) or "")


@register.simple_tag
def share(done: int, total: int) -> str:
    """A share as the statistics figures print it (figures.share_text)."""
    return share_text(done, total)
