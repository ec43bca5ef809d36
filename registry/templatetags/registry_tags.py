"""Small presentation helpers for registry templates."""

import json
from urllib.parse import urlsplit

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString

from ranking import vocabulary

from ..enums import ChallengeStatus as S
from ..numbers import number_text, percent_text

register = template.Library()

# Only these become links: a stored "javascript:" or "data:" value stays text.
LINK_SCHEMES = ("http", "https")

STATUS_CLASSES = {
    S.DRAFT: "text-bg-secondary",
    S.SUBMITTED: "text-bg-primary",
    S.UNDER_REVIEW: "text-bg-info",
    S.REVISION_REQUESTED: "text-bg-warning",
    S.ACCEPTED: "text-bg-success",
    S.REJECTED: "text-bg-danger",
    S.WITHDRAWN: "text-bg-dark",
    S.REGISTERED: "text-bg-success",
}


@register.filter
def plain(code) -> str:
    """The plain-language label of an engine or check code (ranking.vocabulary)."""
    return vocabulary.label(None if code is None else str(code))


@register.filter
def plain_short(code) -> str:
    """The plain label without its parenthesised example, for table cells."""
    return vocabulary.short_label(None if code is None else str(code))


@register.filter
def explain(code) -> str:
    """The one-line explanation of an engine or check code."""
    return vocabulary.explanation(None if code is None else str(code))


@register.filter
def scheme_field(name) -> str:
    """A dotted ranking-scheme field in words ("test.p_adjust" → "Multiplicity
    adjustment")."""
    return vocabulary.field_label(str(name))


@register.filter
def scheme_value(value) -> str:
    """A scheme value in words: codes by their label, true/false as yes/no,
    lists item by item; numbers and names as they are."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return ", ".join(vocabulary.short_label(part) for part in value.split(", "))
    if isinstance(value, list):
        return ", ".join(scheme_value(v) for v in value) or "—"
    return json_value(value)


@register.filter
def with_severity(deviations, severity: str) -> list:
    """The deviations of one severity ("info"); "-info": all the others."""
    if severity.startswith("-"):
        return [d for d in deviations if d.get("severity") != severity[1:]]
    return [d for d in deviations if d.get("severity") == severity]


@register.filter
def any_changed(rows) -> bool:
    """Whether a section's rows (public record) hold a change of this version."""
    return any(getattr(row, "changed", False) for row in rows)


@register.filter
def status_class(status: str) -> str:
    """The Bootstrap badge class of a proposal status."""
    return STATUS_CLASSES.get(status, "text-bg-light")


@register.filter
def percent(share) -> str:
    """A share of 0..1 as the PDFs print it: "95.5 %"."""
    return percent_text(share)


@register.filter
def number(value) -> str:
    """A number as the PDFs print it: 4, 4.025 (never 4.025000000000006)."""
    return number_text(value)


@register.filter
def json_value(value) -> str:
    """A JSON value for display: text as is, null as —, the rest as JSON."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@register.filter
def web_link(value) -> SafeString:
    """An http(s) URL as a link to itself; any other value as escaped text.

    Organizers type the URL, so whoever reads the design (reviewers, chairs,
    the public) must never get a link to another scheme."""
    text = str(value).strip()
    parts = urlsplit(text)
    if parts.scheme.lower() in LINK_SCHEMES and parts.netloc:
        return format_html('<a href="{}" rel="nofollow noopener">{}</a>', text, text)
    return escape(value)


@register.filter
def with_columns(cells, columns) -> list[tuple]:
    """`cells` of a row each with its column, as ``(column, cell)`` pairs: e.g.
    the rank intervals of an algorithm with the table's methods, so that each
    cell can carry its column's name (data-label) when tables stack on phones."""
    return list(zip(columns, cells, strict=True))
