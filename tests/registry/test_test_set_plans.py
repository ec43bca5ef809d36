"""Test-set plans of tasks (issue 29): attach, show beside parameter 38, freeze,
print, check."""

import io
import json
import re

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from pypdf import PdfReader

from accounts.models import Role
from registry import services as registry_services
from registry.design import Design, DesignAnswer, TaskDesign, design_of
from registry.lock import RegisteredDataError
from registry.registration import register_challenge
from registry.test_set_plans import (
    attach_plan,
    compute_task_plan,
    detach_plan,
    p_winner_at,
    plan_inputs,
)
from reviews import services as review_services
from reviews.checks import checks_for
from tests.factories import UserFactory
from tests.registry.helpers import proposal_with_scheme

pytestmark = pytest.mark.django_db

SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "aggregate_then_rank",
}
INPUTS = {
    "model": {
        "kind": "parametric",
        "means": {"A": 0.80, "B": 0.78, "C": 0.70},
        "sd": 0.1,
        "correlation": 0.5,
    },
    "n": [10, 50, 100],
    "simulations": 100,
    "seed": 4,
}

# The page's form for INPUTS.
PAGE_FORM = {
    "means": "A: 0.8, B: 0.78, C: 0.7",
    "algorithms": "3",
    "best": "0.8",
    "gap": "0.02",
    "sd": "0.1",
    "correlation": "0.5",
    "missing_rate": "0",
    "n_grid": "10, 50, 100",
    "simulations": "100",
    "seed": "4",
    "target_p_winner": "0.9",
}


@pytest.fixture
def draft(call, organizer):
    return proposal_with_scheme(call, organizer, SCHEME)


def test_attached_plan_is_part_of_the_design(draft, organizer):
    task = draft.tasks.get()
    attach_plan(task=task, inputs=INPUTS, actor=organizer)
    plan = design_of(draft).task("Brain").plan
    assert plan == compute_task_plan(task=task, inputs=INPUTS)
    assert [r["n"] for r in plan["n"]] == [10, 50, 100]
    assert plan_inputs(plan)["seed"] == 4
    assert design_of(draft).to_dict()["tasks"][0]["plan"] == plan
    assert "test_set_plan_outdated" not in [
        c.code for c in checks_for(design_of(draft))
    ]


def test_design_without_plan_keeps_its_form(draft):
    assert "plan" not in design_of(draft).to_dict()["tasks"][0]


def test_only_an_editor_attaches_or_detaches(draft, organizer):
    task = draft.tasks.get()
    with pytest.raises(PermissionDenied):
        attach_plan(task=task, inputs=INPUTS, actor=UserFactory())
    attach_plan(task=task, inputs=INPUTS, actor=organizer)
    with pytest.raises(PermissionDenied):
        detach_plan(task=task, actor=UserFactory())
    detach_plan(task=task, actor=organizer)
    task.refresh_from_db()
    assert task.test_set_plan is None


@pytest.mark.parametrize(
    ("inputs", "field", "words"),
    [
        ({"n": [1]}, "n", "between 2"),
        ({"simulations": 10**6}, "simulations", "between 1 and"),
        (
            {"model": {"kind": "pilot", "results": "/etc/passwd"}},
            "model.results",
            "manage.py plan",
        ),
        ({"colour": "red"}, "colour", "unknown field"),
    ],
)
def test_bad_inputs_are_refused_and_nothing_is_attached(
    draft, organizer, inputs, field, words
):
    task = draft.tasks.get()
    with pytest.raises(ValidationError) as caught:
        attach_plan(task=task, inputs={**INPUTS, **inputs}, actor=organizer)
    assert words in caught.value.message_dict[field][0]
    task.refresh_from_db()
    assert task.test_set_plan is None


def test_a_task_without_scheme_cannot_be_planned(call, organizer):
    challenge = registry_services.create_challenge(
        owner=organizer, call=call, name="No scheme"
    )
    task = registry_services.add_task(challenge=challenge, name="T", actor=organizer)
    with pytest.raises(ValidationError, match="has no ranking scheme"):
        compute_task_plan(task=task, inputs=INPUTS)


def _plan_with(p_winners, scheme=None):
    records = [
        {
            "n": n,
            "p_winner": p,
            "p_winner_se": 0.01,
            "kendall_tau": 0.5,
            "kendall_tau_se": 0.01,
            "p_adjacent_swap": 0.5,
            "rank_interval_width": None,
        }
        for n, p in p_winners
    ]
    return {"n": records, "recommended_n": None, "scheme": scheme}


def _design(count, plan, scheme=None):
    answers = (DesignAnswer(38, "Number of test cases", {"count": count}),)
    return Design("c", "n", tasks=(TaskDesign("Brain", answers, scheme, plan),))


def test_design_check_warns_when_the_plan_is_of_another_scheme():
    plan = _plan_with([(20, 0.95)], scheme={"metric": "DSC"})
    same = [c.code for c in checks_for(_design(20, plan, {"metric": "DSC"}))]
    other = [c.code for c in checks_for(_design(20, plan, {"metric": "NSD"}))]
    assert "test_set_plan_outdated" not in same
    assert "test_set_plan_outdated" in other


@pytest.mark.parametrize(
    ("count", "warned"),
    [(20, True), (50, True), (100, False), (75, False), (10, True), (500, False)],
)
def test_design_check_warns_below_eighty_percent_at_the_chosen_n(count, warned):
    # 0.6 at 20, 0.7 at 50, 0.9 at 100: 75 interpolates to 0.8 (not below)
    plan = _plan_with([(20, 0.6), (50, 0.7), (100, 0.9)])
    codes = [c.code for c in checks_for(_design(count, plan))]
    assert ("test_set_plan_weak" in codes) is warned


def test_reading_the_plan_between_and_beyond_its_grid():
    plan = _plan_with([(20, 0.6), (50, 0.7), (100, 0.9)])
    assert p_winner_at(plan, 75).p_winner == pytest.approx(0.8)
    assert p_winner_at(plan, 75).interpolated
    assert p_winner_at(plan, 10).outside == "below"
    assert p_winner_at(plan, 500).outside == "above"
    assert p_winner_at(plan, 50).p_winner == 0.7


def planned_and_under_review(call, organizer):
    """The draft with `INPUTS`' plan attached, submitted, and "tina" assigned
    by "chair": ``(challenge, task, chair, reviewer)``."""
    challenge = proposal_with_scheme(call, organizer, SCHEME)
    task = challenge.tasks.get()
    attach_plan(task=task, inputs=INPUTS, actor=organizer)
    registry_services.submit_challenge(challenge=challenge, actor=organizer)
    chair = UserFactory(username="chair", profile__role=Role.CHAIR)
    call.chairs.add(chair)
    reviewer = UserFactory(username="tina", profile__role=Role.REVIEWER)
    review_services.assign_reviewer(
        challenge=challenge, reviewer=reviewer, role="technical", actor=chair
    )
    return challenge, task, chair, reviewer


def test_reviewer_sees_the_plan_beside_parameter_38_and_registration_freezes_it(
    client, call, organizer
):
    challenge, task, chair, reviewer = planned_and_under_review(call, organizer)
    client.force_login(reviewer)
    html = client.get(reverse("reviews:review", args=[challenge.pk])).text
    row = html.index(f'id="t{task.pk}-p38"')
    plan_at = html.index('data-test-set-plan="Brain"')
    next_row = html.index('class="col-sm-4', plan_at)
    assert row < plan_at < next_row  # right after parameter 38's answer
    assert "With the chosen 100 test cases (parameter 38)" in html
    assert 'data-plan-n="100"' in html

    challenge.status = "accepted"
    challenge.save()
    registration = register_challenge(challenge=challenge, actor=chair)
    document = json.loads(registration.versions.get().canonical)
    assert document["design"]["tasks"][0]["plan"] == task.test_set_plan
    task.test_set_plan = None
    with pytest.raises(RegisteredDataError):
        task.save()
    pdf = client.get(reverse("registry:version-pdf", args=[registration.identifier, 1]))
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages)
    assert "Appendix: test-set plans" in text
    assert re.search(r"100 \(chosen\)", text)
    public = client.get(
        reverse("registry:public-detail", args=[registration.identifier])
    ).text
    assert 'data-test-set-plan="Brain"' in public


def test_plan_page_computes_then_attaches(client, draft, organizer):
    task = draft.tasks.get()
    url = reverse("registry:task-plan", args=[draft.pk, task.pk])
    client.force_login(organizer)
    page = client.get(url)
    assert page.status_code == 200
    assert 'id="plan-none"' in page.text
    form = PAGE_FORM
    computed = client.post(url, {**form, "compute": ""})
    assert computed.status_code == 200
    assert 'id="plan-computed"' in computed.text
    assert "data:image/png;base64," in computed.text
    task.refresh_from_db()
    assert task.test_set_plan is None
    attached = client.post(url, {**form, "attach": ""})
    assert attached.status_code == 302
    task.refresh_from_db()
    assert task.test_set_plan == compute_task_plan(task=task, inputs=INPUTS)
    again = client.get(url).text
    assert 'value="A: 0.8, B: 0.78, C: 0.7"' in again


def test_plan_page_names_the_bad_field_and_attaches_nothing(client, draft, organizer):
    task = draft.tasks.get()
    client.force_login(organizer)
    response = client.post(
        reverse("registry:task-plan", args=[draft.pk, task.pk]),
        {
            "n_grid": "10, ten",
            "sd": "0.1",
            "algorithms": "3",
            "best": "1",
            "gap": "0",
            "correlation": "0",
            "missing_rate": "0",
            "simulations": "10",
            "seed": "1",
            "target_p_winner": "0.9",
            "attach": "",
        },
    )
    assert response.status_code == 400
    assert 'data-error-for="n_grid"' in response.text
    task.refresh_from_db()
    assert task.test_set_plan is None


def test_plan_page_is_only_for_editors(client, draft):
    task = draft.tasks.get()
    client.force_login(UserFactory())
    url = reverse("registry:task-plan", args=[draft.pk, task.pk])
    assert client.get(url).status_code == 404


def test_manage_py_plan_prints_what_python_m_ranking_plan_prints(tmp_path, capsys):
    from django.core.management import CommandError, call_command

    from ranking.cli import main

    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"scheme": SCHEME, **INPUTS}))
    out = io.StringIO()
    call_command("plan", str(spec), stdout=out)
    assert main(["plan", str(spec)]) == 0
    assert out.getvalue() == capsys.readouterr().out
    spec.write_text(json.dumps({"scheme": SCHEME, **INPUTS, "seed": -1}))
    with pytest.raises(CommandError, match="seed: must be between 0"):
        call_command("plan", str(spec), stdout=io.StringIO())
