"""Conflicts of interest between a reviewer and a proposal (reads only).

A reviewer's institutions are `Profile.institution` plus every institution they
declared a conflict with; the organizers' institutions are the owner's and
co-organizers' profile institutions plus the organizing institutions answered
(`{"institutions": [...]}`). Names compare case-insensitively with whitespace
normalised ("  German  Cancer Research Center" == "german cancer research center").
"""

from __future__ import annotations

from registry.models import Challenge
from registry.parameters import Role
from registry.permissions import is_organizer

from .models import ConflictDeclaration

INSTITUTIONS_PARAMETER = Role.ORGANIZING_INSTITUTIONS.number


def normalise_institution(name: str) -> str:
    return " ".join(str(name or "").split()).casefold()


def _profile_institution(user) -> str:
    profile = getattr(user, "profile", None)
    return profile.institution if profile is not None else ""


def organizer_institutions(challenge: Challenge) -> dict[str, str]:
    """Normalised name → name as written, for every organizing institution."""
    names = [_profile_institution(challenge.owner)]
    names += [_profile_institution(u) for u in challenge.co_organizers.all()]
    answer = challenge.answers.filter(task=None, number=INSTITUTIONS_PARAMETER).first()
    if answer is not None and isinstance(answer.value, dict):
        names += [n for n in answer.value.get("institutions") or [] if n]
    return {normalise_institution(n): n for n in names if normalise_institution(n)}


def conflict_reason(reviewer, challenge: Challenge) -> str | None:
    """Why `reviewer` may not review `challenge`, or None when they may."""
    who = reviewer.get_username()
    if is_organizer(reviewer, challenge):
        return f"{who} is an organizer of this proposal."
    declarations = list(ConflictDeclaration.objects.filter(reviewer=reviewer))
    for declared in declarations:
        if declared.challenge_id == challenge.pk:
            return (
                f"{who} declared a conflict of interest with this proposal: "
                f"{declared.reason}"
            )
    organizers = organizer_institutions(challenge)
    own = _profile_institution(reviewer)
    if normalise_institution(own) in organizers:
        return (
            f"{who} is affiliated with {own.strip()!r}, which is also an "
            "organizing institution of this proposal."
        )
    for declared in declarations:
        if normalise_institution(declared.institution) in organizers:
            return (
                f"{who} declared a conflict of interest with "
                f"{declared.institution!r}, an organizing institution of this "
                f"proposal: {declared.reason}"
            )
    return None
