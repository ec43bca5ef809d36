"""How pages name people and times: a person by name and affiliation (never a
bare username), a moment as a `<time>` that `static/js/localtime.js` rewrites
into the reader's time zone (the server's text is the no-script fallback)."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils import timezone
from django.utils.html import format_html

from ..models import display_name

register = template.Library()


def affiliation(user) -> str:
    profile = getattr(user, "profile", None)
    return profile.institution if profile is not None else ""


@register.simple_tag
def person(user, with_affiliation: bool = True) -> str:
    """A name with its affiliation, e.g. Ada Lovelace (University of London)."""
    if user is None:
        return "—"
    place = affiliation(user) if with_affiliation else ""
    if place:
        return format_html(
            '<span class="person">{} <span class="text-body-secondary">({})</span>'
            "</span>",
            display_name(user),
            place,
        )
    return format_html('<span class="person">{}</span>', display_name(user))


@register.simple_tag
def when(moment, style: str = "datetime") -> str:
    """A date or time, readable ("24 Nov 2026, 14:05 UTC"), machine-tagged so
    the reader's browser shows it in their own time zone."""
    if moment in (None, ""):
        return "—"
    if isinstance(moment, dt.datetime):
        moment = timezone.localtime(moment, dt.UTC)
        text = f"{moment:%-d %b %Y, %H:%M} UTC"
        return format_html(
            '<time datetime="{}" data-local="{}">{}</time>',
            moment.isoformat(),
            style,
            text,
        )
    return format_html(
        '<time datetime="{}">{}</time>', moment.isoformat(), f"{moment:%-d %b %Y}"
    )
