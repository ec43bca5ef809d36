"""A person's public identity in citations: name and ORCID iD."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from accounts.services import profile_of
from audit.services import record

from .models import ResearcherProfile
from .orcid import clean_orcid

EDITABLE = ("orcid", "first_name", "last_name")
NAME_LIMIT = 150  # Django's first_name / last_name columns


def orcid_of(user) -> str:
    found = ResearcherProfile.objects.filter(user=user).values_list("orcid", flat=True)
    return found.first() or ""


def orcid_verified(user) -> bool:
    """Whether ORCID itself confirmed the user's iD (never for a typed one)."""
    return ResearcherProfile.objects.filter(user=user, orcid_verified=True).exists()


def me_data(user) -> dict[str, Any]:
    return {
        "username": user.get_username(),
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "institution": profile_of(user).institution,
        "orcid": orcid_of(user),
        "orcid_verified": orcid_verified(user),
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
    if "orcid" in cleaned and cleaned["orcid"] != orcid_of(user):
        _claim_orcid(user, cleaned["orcid"], verified=False)
    if cleaned:
        record(actor=user, action="profile.update", target=user, fields=sorted(cleaned))
    return me_data(user)


def _taken(orcid: str) -> ValidationError:
    return ValidationError(
        {
            "orcid": f"orcid: {orcid} is already claimed by another account; an "
            "ORCID iD belongs to one person. If it is yours, ask the registry's "
            "staff."
        }
    )


def _claim_orcid(user, orcid: str, *, verified: bool) -> None:
    """Give `user` the iD `orcid` ("" removes theirs); one account per iD."""
    if orcid and (
        ResearcherProfile.objects.filter(orcid=orcid).exclude(user=user).exists()
    ):
        raise _taken(orcid)
    try:
        with transaction.atomic():  # the constraint decides a race
            ResearcherProfile.objects.update_or_create(
                user=user, defaults={"orcid": orcid, "orcid_verified": verified}
            )
    except IntegrityError:
        raise _taken(orcid) from None


@transaction.atomic
def set_verified_orcid(user, orcid: str) -> None:
    """ORCID confirmed that `orcid` is `user`'s (sign-in with ORCID): it is
    theirs, verified. Another account that merely typed it loses it (recorded
    in the audit log); one that ORCID confirmed keeps it, and this is refused."""
    orcid = clean_orcid(orcid)
    squatter = (
        ResearcherProfile.objects.select_for_update()
        .filter(orcid=orcid)
        .exclude(user=user)
        .first()
    )
    if squatter is not None:
        if squatter.orcid_verified:
            raise _taken(orcid)
        squatter.orcid = ""
        squatter.save(update_fields=["orcid"])
        record(actor=user, action="profile.orcid_released", target=squatter.user)
    _claim_orcid(user, orcid, verified=True)
    record(actor=user, action="profile.orcid_verified", target=user)
