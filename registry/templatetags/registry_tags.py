"""Small presentation helpers for registry templates."""

import json

from django import template

from ..enums import ChallengeStatus as S

register = template.Library()

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
def status_class(status: str) -> str:
    """The Bootstrap badge class of a proposal status."""
    return STATUS_CLASSES.get(status, "text-bg-light")


@register.filter
def json_value(value) -> str:
    """A JSON value for display: text as is, null as —, the rest as JSON."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
