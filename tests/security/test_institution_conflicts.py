"""Attack: dodge the institution conflict rule with another spelling (issue 30).

10 of 13 variants of an organizer's institution were assignable: acronyms,
a zero-width space, a Cyrillic look-alike letter, the German name, "Tech.
Univ. of Munich", "The …". Each is now the same institution, by the rule or
by the call's alias table, and the reason names the match.
"""

import pytest

from reviews.conflicts import conflict_reason, institutions_match

pytestmark = pytest.mark.django_db

TUM = "Technical University of Munich"
ALIASES = [
    ["Technical University of Munich", "Technische Universität München"],
    ["DKFZ", "German Cancer Research Center", "Deutsches Krebsforschungszentrum"],
]


@pytest.mark.parametrize(
    ("variant", "how"),
    [
        ("TUM", "an acronym"),
        ("Technical\u200b University of Munich", "the same name"),
        ("T\u0435chnical University of Munich", "the same name"),  # Cyrillic е
        ("Tech. Univ. of Munich", "the same name"),
        ("The Technical University of Munich", "the same name"),
        ("ＴＵＭ", "an acronym"),  # full-width letters
        ("Technische Universität München", "an alias of the call"),
    ],
)
def test_variants_of_an_institution_match(variant, how):
    assert institutions_match(variant, TUM, ALIASES) == how


def test_an_acronym_in_the_call_alias_table_matches():
    match = institutions_match("DKFZ", "Deutsches Krebsforschungszentrum", ALIASES)
    assert match == "an alias of the call"


def test_other_institutions_stay_different():
    assert institutions_match("University of Munich", TUM, ALIASES) is None
    assert institutions_match("Technical University of Denmark", TUM, ALIASES) is None
    assert institutions_match("TU", "Technical University", ALIASES) is None


def test_the_reason_shown_to_the_chair_names_the_match(world):
    world.call.institution_aliases = ALIASES
    world.call.save()
    world.organizer.profile.institution = TUM
    world.organizer.profile.save()
    world.tech1.profile.institution = "TUM"
    world.tech1.profile.save()
    assert conflict_reason(world.tech1, world.challenge) == (
        "tina is affiliated with 'TUM', which is also an organizing institution "
        "of this proposal ('Technical University of Munich': an acronym)."
    )
