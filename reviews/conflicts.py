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
from dataclasses import dataclass

from django.conf import settings

from registry.models import Challenge
from registry.parameters import Role
from registry.permissions import is_chair

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
    "technical": "technology",
    "technische": "technology",
    "technischen": "technology",
    "universitat": "university",
    "universitaet": "university",
    "universite": "university",
    "universidad": "university",
    "universita": "university",
    "universiteit": "university",
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


# Words that do not tell institutions apart ("The …", "… of …", "für").
STOP_WORDS = frozenset(
    {"the", "of", "for", "and", "at", "in", "de", "la", "le", "der", "die", "das",
     "des", "fur", "f", "di", "del", "du", "und", "et"}
)  # fmt: skip
# Latin look-alikes (Cyrillic and Greek) a name can hide behind; checked after
# NFKC and casefold, so only lower case is needed.
CONFUSABLES = str.maketrans(
    "аеорсуххіјѕԁһӏօɡαοιкνρτυχεµ",
    "aeorcyxxijsdhlogaoikvptuxeu",
)


def normalise_institution(name: str) -> str:
    """ "Univ. of Zürich, Inst. f. Radiology" → "university zurich institute
    radiology": look-alike letters folded to Latin, invisible characters,
    accents, case, punctuation and stop words dropped, abbreviations spelt
    out."""
    text = unicodedata.normalize("NFKC", str(name or "")).casefold()
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")  # zero-width
    text = unicodedata.normalize("NFKD", text.translate(CONFUSABLES))
    text = "".join(c for c in text if not unicodedata.combining(c))
    words = (ABBREVIATIONS.get(w, w) for w in _WORD.findall(text))
    return " ".join(w for w in words if w not in STOP_WORDS)


def _acronym(normalised: str) -> str:
    """ "technical university munich" → "tum"; "" for short names (a
    two-letter acronym matches too much)."""
    words = normalised.split()
    return "".join(w[0] for w in words) if len(words) >= 3 else ""


def institutions_match(a: str, b: str, aliases=()) -> str | None:
    """How two institution names are one institution ("the same name", "an
    acronym", "an alias of the call"), or None. `aliases`: the call's lists of
    names of one institution (``Call.institution_aliases``)."""
    first, second = normalise_institution(a), normalise_institution(b)
    if not first or not second:
        return None
    if first == second:
        return "the same name"
    if first == _acronym(second) or second == _acronym(first):
        return "an acronym"
    for group in aliases if isinstance(aliases, list) else ():
        if not isinstance(group, list):
            continue  # the admin stores any JSON: a malformed entry is skipped
        names = {normalise_institution(n) for n in group if isinstance(n, str)}
        if first in names and second in names:
            return "an alias of the call"
    return None


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


@dataclass(frozen=True)
class _Organizers:
    """Who organizes a proposal and where they work, read once for every
    reviewer asked about (`conflict_reasons`)."""

    ids: frozenset[int]
    people: tuple  # the owner, then the co-organizers
    institutions: dict[str, str]  # normalised name → name as written
    aliases: object  # ``Call.institution_aliases``: any JSON the admin stored


def _organizers(challenge: Challenge) -> _Organizers:
    people = (challenge.owner, *challenge.co_organizers.select_related("profile"))
    names = [_profile_institution(u) for u in people]
    answer = challenge.answers.filter(task=None, number=INSTITUTIONS_PARAMETER).first()
    if answer is not None and isinstance(answer.value, dict):
        names += [n for n in answer.value.get("institutions") or [] if n]
    return _Organizers(
        ids=frozenset(u.pk for u in people),
        people=people,
        institutions={
            normalise_institution(n): n for n in names if normalise_institution(n)
        },
        aliases=challenge.call.institution_aliases,
    )


def conflict_reason(reviewer, challenge: Challenge) -> str | None:
    """Why `reviewer` may not review `challenge`, or None when they may."""
    return conflict_reasons([reviewer], challenge)[reviewer.pk]


def conflict_reasons(reviewers, challenge: Challenge) -> dict[int, str | None]:
    """`conflict_reason` of each of `reviewers` (users, their profiles best
    selected with them), by user id: the organizers and every reviewer's
    declarations are read once, whatever the number of reviewers."""
    reviewers = list(reviewers)
    organizers = _organizers(challenge)
    declarations: dict[int, list[ConflictDeclaration]] = {r.pk: [] for r in reviewers}
    for declared in ConflictDeclaration.objects.filter(reviewer__in=reviewers):
        declarations[declared.reviewer_id].append(declared)
    return {
        r.pk: _reason(r, challenge, organizers, declarations[r.pk]) for r in reviewers
    }


def _reason(
    reviewer, challenge: Challenge, organizers: _Organizers, declarations: list
) -> str | None:
    """The first conflict found, in the order the rules are documented."""
    who = reviewer.get_username()
    if reviewer.pk in organizers.ids:
        return f"{who} is an organizer of this proposal."
    for declared in declarations:
        if declared.challenge_id == challenge.pk:
            return (
                f"{who} declared a conflict of interest with this proposal: "
                f"{declared.reason}"
            )
    own_domain = mail_domain(reviewer)
    for organizer in organizers.people:
        if _same_organisation(own_domain, mail_domain(organizer)):
            return (
                f"{who}'s e-mail domain {own_domain!r} is also an organizer's "
                f"({mail_domain(organizer)!r})."
            )
    aliases = organizers.aliases
    own = _profile_institution(reviewer)
    for name in organizers.institutions.values():
        how = institutions_match(own, name, aliases)
        if how:
            return (
                f"{who} is affiliated with {own.strip()!r}, which is also an "
                f"organizing institution of this proposal ({name.strip()!r}: "
                f"{how})."
            )
    for declared in declarations:
        for name in organizers.institutions.values():
            if institutions_match(declared.institution, name, aliases):
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
