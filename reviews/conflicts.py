"""Conflicts of interest between a reviewer and a proposal (reads only).

A reviewer's institutions are `Profile.institution` plus every institution they
declared a conflict with; the organizers' institutions are the owner's and
co-organizers' profile institutions plus the organizing institutions answered
(`{"institutions": [...]}`). Names compare after normalisation: case, accents,
punctuation and spacing are ignored and common abbreviations are spelt out
("Univ. of Zürich" == "University of Zurich"). A reviewer whose e-mail domain
is an organizer's (or a subdomain of it, either way) is also in conflict,
except for public mail providers (`PUBLIC_MAIL_DOMAINS`, extended by the
setting of that name) and the reserved example domains.
"""

from __future__ import annotations

import re
import unicodedata

from django.conf import settings

from registry.models import Challenge
from registry.parameters import Role
from registry.permissions import is_chair, is_organizer

from .models import ConflictDeclaration

INSTITUTIONS_PARAMETER = Role.ORGANIZING_INSTITUTIONS.number


# Abbreviation → the word it stands for (compared after normalisation).
ABBREVIATIONS = {
    "univ": "university",
    "uni": "university",
    "u": "university",
    "inst": "institute",
    "institut": "institute",
    "dept": "department",
    "dep": "department",
    "ctr": "center",
    "cntr": "center",
    "centre": "center",
    "hosp": "hospital",
    "med": "medical",
    "natl": "national",
    "nat": "national",
    "lab": "laboratory",
    "labs": "laboratories",
    "tech": "technology",
    "sch": "school",
    "coll": "college",
    "res": "research",
    "&": "and",
}
_WORD = re.compile(r"[^\W_]+|&")

# Shared mail providers: a common domain there says nothing about affiliation.
PUBLIC_MAIL_DOMAINS = frozenset(
    {
        "gmail.com",
        "googlemail.com",
        "outlook.com",
        "hotmail.com",
        "live.com",
        "yahoo.com",
        "icloud.com",
        "me.com",
        "proton.me",
        "protonmail.com",
        "gmx.de",
        "gmx.net",
        "web.de",
        "qq.com",
        "163.com",
        "126.com",
    }
)
# Reserved for documentation and tests (RFC 2606): never an affiliation.
RESERVED_DOMAINS = ("example.com", "example.org", "example.net")
RESERVED_SUFFIXES = (".example", ".test", ".invalid", ".localhost")


def normalise_institution(name: str) -> str:
    """ "Univ. of Zürich, Inst. f. Radiology" → "university of zurich institute f
    radiology": accents, case and punctuation dropped, abbreviations spelt out."""
    text = unicodedata.normalize("NFKD", str(name or ""))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return " ".join(ABBREVIATIONS.get(w, w) for w in _WORD.findall(text))


def mail_domain(user) -> str:
    """The lower-case domain of the user's e-mail, "" when none or public."""
    domain = (user.email or "").rpartition("@")[2].strip().lower().rstrip(".")
    public = PUBLIC_MAIL_DOMAINS | set(getattr(settings, "PUBLIC_MAIL_DOMAINS", ()))
    reserved = domain in RESERVED_DOMAINS or domain.endswith(RESERVED_SUFFIXES)
    return "" if not domain or domain in public or reserved else domain


def _same_organisation(a: str, b: str) -> bool:
    return bool(a and b) and (a == b or a.endswith("." + b) or b.endswith("." + a))


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
    own_domain = mail_domain(reviewer)
    for organizer in [challenge.owner, *challenge.co_organizers.all()]:
        if _same_organisation(own_domain, mail_domain(organizer)):
            return (
                f"{who}'s e-mail domain {own_domain!r} is also an organizer's "
                f"({mail_domain(organizer)!r})."
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


def chair_refusal(user, challenge: Challenge) -> str | None:
    """Why `user` may not act as a chair on `challenge` (see the reviewers'
    identities, assign, decide), or None when they may.

    A chair of the call in conflict with the proposal by the reviewers' rules
    (organizer, co-organizer, the same normalised institution or mail domain,
    a declared conflict) leaves it to another chair of the call."""
    if not is_chair(user, challenge):
        return "Only a chair of the call can do this."
    reason = conflict_reason(user, challenge)
    if reason is not None:
        return (
            f"You have a conflict of interest with this proposal ({reason}); "
            "another chair of the call handles its review and decision."
        )
    return None
