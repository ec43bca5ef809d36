"""A person's public identity in citations: name and ORCID iD."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.services import profile_of
from audit.services import record

from .models import ResearcherProfile
from .orcid import clean_orcid

EDITABLE = ("orcid", "first_name", "last_name")
NAME_LIMIT = 150  # Django's first_name / last_name columns


def orcid_of(user) -> str:
    found = ResearcherProfile.objects.filter(user=user).values_list("orcid", flat=True)
    return found.first() or ""


def me_data(user) -> dict[str, Any]:
    return {
        "username": user.get_username(),
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "institution": profile_of(user).institution,
        "orcid": orcid_of(user),
    }


def _clean(changes: Any) -> dict[str, str]:
    if not isinstance(changes, dict):
        raise ValidationError({"detail": "Send a JSON object of fields to change."})
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise ValidationError(
            {
                name: f"{name}: cannot be changed here (only {', '.join(EDITABLE)})."
                for name in unknown
            }
        )
    cleaned: dict[str, str] = {}
    for name, value in changes.items():
        # every field is text or null; `false` is not an empty ORCID iD
        if value is not None and not isinstance(value, str):
            raise ValidationError({name: f"{name}: expected text."})
        if name == "orcid":
            cleaned[name] = clean_orcid(value)
            continue
        text = (value or "").strip()
        if len(text) > NAME_LIMIT:
            raise ValidationError({name: f"{name}: at most {NAME_LIMIT} characters."})
        cleaned[name] = text
    return cleaned


@transaction.atomic
def update_me(user, changes: Any) -> dict[str, Any]:
    """Change the user's name and/or ORCID iD; all or nothing."""
    cleaned = _clean(changes)
    names = {k: v for k, v in cleaned.items() if k != "orcid"}
    if names:
        for name, value in names.items():
            setattr(user, name, value)
        user.save(update_fields=list(names))
    if "orcid" in cleaned:
        ResearcherProfile.objects.update_or_create(
            user=user, defaults={"orcid": cleaned["orcid"]}
        )
    if cleaned:
        record(actor=user, action="profile.update", target=user, fields=sorted(cleaned))
    return me_data(user)
