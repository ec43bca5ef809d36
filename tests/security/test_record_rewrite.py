"""Attack: rewrite the record so that `verify_registrations` says OK (issue 30).

A forged v2 appended with no amendment passed, and so did a rewritten latest
version with its hash recomputed. Every version after v1 must now be the
version an approved amendment made, and differ from the one before by
exactly the amendment's changes.
"""

import copy

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from registry.amendments import approve_amendment, propose_amendment
from registry.registration import append_version, verify_registrations
from tests.analysis.django.conftest import SCHEME
from tests.security.test_tamper_evidence import rewrite_latest_version

pytestmark = pytest.mark.django_db

TABLE = "registry_registrationversion"


def amend_to_holm(registration, organizer, chair):
    holm = copy.deepcopy(SCHEME)
    holm["test"]["p_adjust"] = "holm"
    amendment = propose_amendment(
        registration=registration,
        actor=organizer,
        justification="Holm is safer.",
        changes={"tasks": {"Brain": {"scheme": holm}}},
    )
    return approve_amendment(amendment=amendment, actor=chair)


def test_a_forged_version_without_an_amendment_fails_verification(
    registration, organizer
):
    append_version(registration=registration, actor=organizer)  # no amendment
    [problem] = verify_registrations().problems
    assert (problem.identifier, problem.version, problem.message) == (
        "miccai-2027-001",
        2,
        "no approved amendment made this version",
    )
    with pytest.raises(CommandError, match="1 problem"):
        call_command("verify_registrations")


def test_an_approved_amendment_verifies(registration, organizer, chair):
    amend_to_holm(registration, organizer, chair)
    assert verify_registrations().problems == []


def test_a_rewritten_amended_version_with_its_hash_recomputed_fails(
    registration, organizer, chair
):
    amend_to_holm(registration, organizer, chair)
    rewrite_latest_version(0.5)  # beyond the amendment; triggers off on PostgreSQL
    [problem] = verify_registrations().problems
    assert problem.version == 2
    assert problem.message.startswith(
        "the design differs from the previous version beyond its amendment"
    )
