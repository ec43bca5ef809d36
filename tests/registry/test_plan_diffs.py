"""A test-set plan attached, changed or removed shows in every diff (revision
reviews, amendments, the public record, PDFs) in plain words, not as JSON."""

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from registry.design import design_of, diff_designs
from registry.test_set_plans import attach_plan, detach_plan
from reviews import services as review_services
from tests.registry.helpers import proposal_with_scheme
from tests.registry.test_test_set_plans import (
    INPUTS,
    SCHEME,
    planned_and_under_review,
)
from tests.reviews.conftest import submit_review

pytestmark = pytest.mark.django_db

WIDER = {**INPUTS, "n": [10, 50, 200]}


@pytest.fixture
def draft(call, organizer):
    return proposal_with_scheme(call, organizer, SCHEME)


def plan_change(before, after):
    (change,) = [c for c in diff_designs(before, after) if c.kind == "plan"]
    return change


def test_attaching_a_plan_is_a_change_in_plain_words(draft, organizer):
    before = design_of(draft)
    attach_plan(task=draft.tasks.get(), inputs=INPUTS, actor=organizer)
    change = plan_change(before, design_of(draft))
    assert (change.scope, change.name, change.before) == (
        "Brain",
        "Test-set plan",
        None,
    )
    assert change.after == draft.tasks.get().test_set_plan
    assert change.summary.startswith("attached: n grid 10–100; recommended n ")
    assert "3 algorithms, means 0.7–0.8, spread 0.1, correlation 0.5" in change.summary
    assert "seed 4" in change.summary
    assert "{" not in change.summary
    assert change in diff_designs(before, design_of(draft)).changed


def test_a_changed_plan_names_each_changed_input(draft, organizer):
    task = draft.tasks.get()
    attach_plan(task=task, inputs=INPUTS, actor=organizer)
    before = design_of(draft)
    old = task.test_set_plan["recommended_n"]
    attach_plan(task=task, inputs=WIDER, actor=organizer)
    change = plan_change(before, design_of(draft))
    fields = {label: (a, b) for label, a, b in change.fields}
    assert fields["n grid"] == ("10–100", "10–200")
    assert "seed" not in fields
    assert "simulations" not in fields
    new = task.test_set_plan["recommended_n"]
    assert ("recommended n" in fields) == (old != new)
    assert change.summary.startswith("n grid 10–100 → 10–200")
    assert change.to_dict()["fields"][0] == {
        "field": "n grid",
        "from": "10–100",
        "to": "10–200",
    }


def test_a_mean_changed_inside_the_same_range_is_spelled_out(draft, organizer):
    task = draft.tasks.get()
    attach_plan(task=task, inputs=INPUTS, actor=organizer)
    before = design_of(draft)
    model = {**INPUTS["model"], "means": {"A": 0.80, "B": 0.75, "C": 0.70}}
    attach_plan(task=task, inputs={**INPUTS, "model": model}, actor=organizer)
    fields = {a: (b, c) for a, b, c in plan_change(before, design_of(draft)).fields}
    assert "B: 0.78" in fields["expected performance"][0]
    assert "B: 0.75" in fields["expected performance"][1]


def test_a_removed_plan_and_the_changes_list_show_it(draft, organizer):
    task = draft.tasks.get()
    attach_plan(task=task, inputs=INPUTS, actor=organizer)
    before = design_of(draft)
    detach_plan(task=task, actor=organizer)
    change = plan_change(before, design_of(draft))
    assert change.after is None
    assert change.summary.startswith("removed (was: n grid 10–100;")
    html = render_to_string("registry/includes/_changes.html", {"changes": [change]})
    assert 'data-change="Brain|plan"' in html
    assert "Removed: <del>n grid 10–100;" in html
    assert "&quot;simulations&quot;" not in html
    assert '"n":' not in html


def test_reviewer_of_a_revision_sees_the_changed_plan(client, call, organizer):
    challenge, task, chair, reviewer = planned_and_under_review(call, organizer)
    submit_review(challenge, reviewer, "minor_revision", comments="More cases.")
    review_services.decide(
        challenge=challenge, actor=chair, decision="revision", letter="x", confirm=True
    )
    attach_plan(task=task, inputs=WIDER, actor=organizer)
    review_services.resubmit_challenge(
        challenge=challenge, actor=organizer, response="We plan up to 200 cases."
    )
    client.force_login(reviewer)
    html = client.get(reverse("reviews:review", args=[challenge.pk])).text
    row = html[html.index('class="changed-plan" data-task="Brain"') :]
    row = row[: row.index("</tr>")]
    assert "Task Brain: Test-set plan" in row
    assert "n grid <del>10–100</del> → <ins>10–200</ins>" in row
