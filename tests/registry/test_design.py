"""The one design document (`registry.design`): its canonical form and its differ."""

import importlib
import json

import pytest

from registry import services
from registry.design import Design, design_of, diff_designs
from registry.exports import export_challenge
from registry.registration import register_challenge
from registry.schemes import set_task_scheme
from reviews.models import ProposalVersion
from tests.factories import ChallengeFactory, TaskFactory
from tests.registry.helpers import fill_proposal
from tests.schemes import mean_scheme

pytestmark = pytest.mark.django_db

SCHEME = mean_scheme()
MEDIAN = {**SCHEME, "aggregate": "median", "ties": "max"}


@pytest.fixture
def proposal(call, organizer):
    challenge = ChallengeFactory(call=call, owner=organizer, name="Decathlon")
    task = TaskFactory(challenge=challenge, name="Brain")
    fill_proposal(challenge, organizer)
    services.answer_parameter(
        challenge=challenge,
        task=task,
        number=52,  # a task parameter that may not apply
        not_applicable="No outcome yet.",
        actor=organizer,
    )
    set_task_scheme(task=task, scheme=SCHEME, actor=organizer)
    return challenge


def test_canonical_form_round_trips_exactly(proposal):
    data = design_of(proposal).to_dict()
    assert Design.from_dict(data).to_dict() == data
    assert export_challenge(proposal) == data
    assert data["tasks"][0]["scheme"]["metric"] == "DSC"
    not_applicable = [a for a in data["tasks"][0]["answers"] if a["number"] == 52]
    assert not_applicable == [
        {
            "number": 52,
            "name": not_applicable[0]["name"],
            "not_applicable": "No outcome yet.",
        }
    ]


def test_registered_document_reads_back_to_its_hashed_bytes(proposal, organizer, chair):
    proposal.status = "accepted"
    proposal.save()
    registration = register_challenge(challenge=proposal, actor=chair)
    stored = registration.versions.get().canonical
    design = json.loads(stored)["design"]
    # Never re-serialized differently: the typed design gives the same dict back.
    assert Design.from_dict(design).to_dict() == design


def test_differ_reports_answers_tasks_and_scheme_fields(proposal, organizer):
    before = design_of(proposal)
    task = proposal.tasks.get()
    set_task_scheme(task=task, scheme=MEDIAN, actor=organizer)
    services.add_task(challenge=proposal, name="Liver", actor=organizer)
    diff = diff_designs(before, design_of(proposal))
    scheme = next(c for c in diff if c.kind == "scheme")
    assert scheme.scope == "Brain"
    fields = {name: (a, b) for name, a, b in scheme.fields}
    assert fields["aggregate"] == ("mean", "median")
    assert fields["ties"] == ("min", "max")
    assert set(fields) == {"aggregate", "ties"}
    assert diff.added_tasks == ["Liver"]
    # The prose the scheme determines changed too, word by word.
    prose = [c for c in diff.changed if c.kind == "answer"]
    assert prose
    assert all(c.scope == "Brain" and c.words for c in prose)
    assert any("median" in c.after_text for c in prose)
    assert diff_designs(before, before).changes == ()


def test_not_applicable_change_is_readable(proposal, organizer):
    before = design_of(proposal)
    services.answer_parameter(
        challenge=proposal,
        task=proposal.tasks.get(),
        number=52,
        value="Nat Commun 2028",
        actor=organizer,
    )
    (change,) = diff_designs(before, design_of(proposal)).changes
    assert change.before == {"not_applicable": "No outcome yet."}
    assert change.before_text == "Not applicable: No outcome yet."
    assert change.after == "Nat Commun 2028"
    assert change.to_dict()["to_text"] == "Nat Commun 2028"
    assert change.fields == ()  # read as text, not as a "(value)" field


def test_a_scheme_set_lists_each_field(proposal):
    before = design_of(proposal)
    after = before.with_scheme("Brain", None)
    (change,) = diff_designs(after, before).changes
    assert change.kind == "scheme"
    fields = {name: (a, b) for name, a, b in change.fields}
    assert fields["method"] == (None, "aggregate_then_rank")
    assert fields["ties"] == (None, "min")


def test_old_review_snapshots_migrate_to_the_canonical_form(proposal):
    migration = importlib.import_module(
        "reviews.migrations.0004_canonical_design_snapshots"
    )
    old = {
        "revision": 1,
        "name": "Decathlon",
        "answers": {
            "2": {"value": "https://decathlon.example.org", "not_applicable": ""},
            "3": {"value": "", "not_applicable": ""},  # stored but empty: left out
        },
        "tasks": [
            {
                "name": "Brain",
                "answers": {"52": {"value": None, "not_applicable": "Later."}},
            }
        ],
    }
    new = migration.to_canonical(old, proposal)
    design = Design.from_dict(new)
    assert design.to_dict() == new
    assert [a.number for a in design.answers] == [2]
    assert design.answer(2).value == "https://decathlon.example.org"
    assert design.task("Brain").answer(52).not_applicable == "Later."
    # Schemes were not frozen before: the current one, so no false change shows.
    assert design.task("Brain").scheme == proposal.tasks.get().scheme
    assert migration.to_old(new, 1)["answers"] == {
        "2": {"value": "https://decathlon.example.org", "not_applicable": ""}
    }


def test_migration_converts_stored_versions_once(proposal):
    from django.apps import apps

    migration = importlib.import_module(
        "reviews.migrations.0004_canonical_design_snapshots"
    )
    old = {"revision": 1, "name": "Decathlon", "answers": {}, "tasks": []}
    version = ProposalVersion.objects.create(
        challenge=proposal, revision=1, snapshot=old
    )
    migration.forwards(apps, None)
    version.refresh_from_db()
    assert version.snapshot["schema"] == "challenge-registry/proposal"
    converted = version.snapshot
    migration.forwards(apps, None)  # idempotent
    version.refresh_from_db()
    assert version.snapshot == converted
    migration.backwards(apps, None)
    version.refresh_from_db()
    assert version.snapshot == old


def test_duplicate_has_the_same_design_but_the_name(proposal, organizer):
    copy = services.duplicate_challenge(challenge=proposal, actor=organizer)
    changes = diff_designs(design_of(proposal), design_of(copy))
    assert [(c.kind, c.scope) for c in changes.changed] == [("answer", None)]
    assert copy.tasks.get().scheme == proposal.tasks.get().scheme is not None
