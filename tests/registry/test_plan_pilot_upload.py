"""A pilot results table uploaded on the "Plan the test set" page (issue 29):
parsed by the engine's read_table, kept in the plan with its SHA-256, never a
path on the server; bad tables are refused with the reason and attach nothing."""

import hashlib
import json

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from analysis.models import AnalysisStatus
from analysis.plan_runs import execute_plan_run, start_plan_run
from ranking import read_table
from ranking.planner import run_plan
from registry.models import PilotTable
from registry.pilot_tables import with_stored_table
from registry.test_set_plans import (
    attach_plan,
    compute_task_plan,
    plan_inputs,
    prepare_task_plan,
    task_plan_spec,
)
from tests.analysis.test_plan_runs import died_after_blocks
from tests.ranking.conftest import frame_from
from tests.registry.helpers import proposal_with_scheme
from tests.registry.test_test_set_plans import PAGE_FORM, SCHEME

pytestmark = pytest.mark.django_db

# The model fields stay at their defaults: a pilot table replaces them.
FORM = {**PAGE_FORM, "means": "", "n_grid": "5, 10", "simulations": "50", "seed": "3"}


def pilot_csv(task: str = "T1", metric: str = "DSC") -> str:
    """Eight cases of three algorithms A > B > C (expected), one task."""
    rng = np.random.default_rng(7)
    values = rng.normal([0.8, 0.75, 0.7], 0.05, size=(8, 3))
    frame = frame_from(values, task=task, metric=metric, algorithms=["A", "B", "C"])
    return frame.to_csv(index=False)


@pytest.fixture
def draft(call, organizer):
    return proposal_with_scheme(call, organizer, SCHEME)


def upload(text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("pilot.csv", text.encode(), content_type="text/csv")


def test_uploaded_pilot_is_planned_and_attached_with_its_hash(client, draft, organizer):
    task = draft.tasks.get()
    url = reverse("registry:task-plan", args=[draft.pk, task.pk])
    client.force_login(organizer)
    table = pilot_csv()
    computed = client.post(url, {**FORM, "pilot": upload(table), "compute": ""})
    assert computed.status_code == 200
    assert 'id="plan-computed"' in computed.text
    assert "the 3 algorithms of the pilot task “T1” (8 cases, resampled)" in (
        computed.text
    )
    assert 'id="plan-pilot-kept"' in computed.text
    # "Attach" after "compute" sends the kept table, not a new upload.
    attached = client.post(url, {**FORM, "pilot_table": table, "attach": ""})
    assert attached.status_code == 302
    task.refresh_from_db()
    model = task.test_set_plan["model"]
    assert model["results_sha256"] == hashlib.sha256(table.encode()).hexdigest()
    # The design keeps the table's hash, size and cases; the table is a file.
    assert "table" not in model
    assert model["table_bytes"] == len(table.encode())
    assert "results" not in model  # no path on the server
    stored = PilotTable.objects.get(sha256=model["results_sha256"])
    with stored.file.open("rb") as handle:
        assert handle.read().decode() == table
    page = client.get(url).text
    assert f"Pilot table SHA-256 {model['results_sha256']}." in page
    # The engine, given the same table directly, computes the same plan.
    spec = {
        "scheme": SCHEME,
        "model": {"kind": "pilot", "task": None},
        "n": [5, 10],
        "simulations": 50,
        "seed": 3,
        "targets": {"p_winner": 0.9},
    }
    direct = run_plan(spec, results=read_table(table.encode()))
    assert task.test_set_plan["n"] == direct["n"]
    # Its inputs compute it again, byte for byte.
    again = compute_task_plan(task=task, inputs=plan_inputs(task.test_set_plan))
    assert with_stored_table(again) == task.test_set_plan


@pytest.mark.parametrize(
    ("table", "task_name", "field", "words"),
    [
        ("task,case\nT1,c1\n", "", "pilot", "invalid results table"),
        (pilot_csv(), "T9", "pilot_task", "tasks: T1"),
    ],
)
def test_bad_pilot_is_refused_naming_the_field(
    client, draft, organizer, table, task_name, field, words
):
    task = draft.tasks.get()
    url = reverse("registry:task-plan", args=[draft.pk, task.pk])
    client.force_login(organizer)
    response = client.post(
        url,
        {**FORM, "pilot": upload(table), "pilot_task": task_name, "attach": ""},
    )
    assert response.status_code == 400
    assert f'data-error-for="{field}"' in response.text
    assert words in response.text
    task.refresh_from_db()
    assert task.test_set_plan is None


def test_too_large_or_binary_pilot_is_refused(client, draft, organizer, settings):
    settings.PLAN_PILOT_MAX_BYTES = 100
    task = draft.tasks.get()
    url = reverse("registry:task-plan", args=[draft.pk, task.pk])
    client.force_login(organizer)
    big = client.post(url, {**FORM, "pilot": upload(pilot_csv()), "attach": ""})
    assert big.status_code == 400
    assert "at most 100." in big.text
    binary = SimpleUploadedFile("pilot.csv", b"\xff\xfe\x00bad")
    assert client.post(url, {**FORM, "pilot": binary}).status_code == 400
    with pytest.raises(ValidationError) as caught:
        attach_plan(
            task=task,
            inputs={"model": {"kind": "pilot", "table": pilot_csv()}},
            actor=organizer,
        )
    assert "PLAN_PILOT_MAX_BYTES" in caught.value.message_dict["model.table"][0]
    task.refresh_from_db()
    assert task.test_set_plan is None


def _pilot_inputs(simulations: int) -> dict:
    return {
        "model": {"kind": "pilot", "table": pilot_csv(), "task": "T1"},
        "n": [5, 10],
        "simulations": simulations,
        "seed": 3,
    }


def test_a_pilot_plan_runs_in_the_background_as_in_the_request(draft, organizer):
    # Three blocks per n: a killed worker resumes with the missing ones, and
    # the plan equals the plan computed during a request, table and hash kept.
    task = draft.tasks.get()
    inputs = _pilot_inputs(250)
    run = start_plan_run(task=task, inputs=inputs, attach=True, actor=organizer)
    prepared = prepare_task_plan(task_plan_spec(task=task, inputs=inputs))
    died_after_blocks(run, prepared, 2)
    execute_plan_run(run.pk)
    run.refresh_from_db()
    task.refresh_from_db()
    assert run.status == AnalysisStatus.DONE
    assert "resumed" in run.note
    in_request = compute_task_plan(task=task, inputs=inputs)
    assert json.dumps(run.output, sort_keys=True) == json.dumps(
        in_request, sort_keys=True
    )
    digest = hashlib.sha256(pilot_csv().encode()).hexdigest()
    assert task.test_set_plan["model"]["results_sha256"] == digest


def test_background_button_plans_an_uploaded_pilot(
    client, draft, organizer, django_capture_on_commit_callbacks
):
    task = draft.tasks.get()
    client.force_login(organizer)
    url = reverse("analysis:start-plan", args=[draft.pk, task.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {**FORM, "pilot": upload(pilot_csv())})
    run = task.plan_runs.get()
    assert response["Location"] == reverse("analysis:plan-run", args=[run.pk])
    run.refresh_from_db()
    assert run.status == AnalysisStatus.DONE
    assert run.output["model"]["cases"] == 8
    body = client.get(reverse("analysis:plan-run-body", args=[run.pk])).text
    assert "pilot task “T1” (8 cases, resampled)" in body


def test_a_background_pilot_run_is_refused_before_queueing(draft, organizer):
    task = draft.tasks.get()
    bad = {**_pilot_inputs(250), "model": {"kind": "pilot", "table": "task,case\n"}}
    with pytest.raises(ValidationError) as caught:
        start_plan_run(task=task, inputs=bad, attach=False, actor=organizer)
    assert "invalid results table" in caught.value.message_dict["model.table"][0]
    assert not task.plan_runs.exists()


def test_a_pilot_of_another_metric_is_refused_on_the_pilot_field(
    client, call, organizer
):
    scheme = {
        **SCHEME,
        "metric": "NSD",
        "method": "rank_then_aggregate",
        "aggregate": "mean",
        "ties": "min",
    }
    draft = proposal_with_scheme(call, organizer, scheme)
    task = draft.tasks.get()
    client.force_login(organizer)
    url = reverse("registry:task-plan", args=[draft.pk, task.pk])
    response = client.post(url, {**FORM, "pilot": upload(pilot_csv()), "attach": ""})
    assert response.status_code == 400
    assert 'data-error-for="pilot"' in response.text
    assert "does not fit the task&#x27;s scheme" in response.text
    task.refresh_from_db()
    assert task.test_set_plan is None


def test_a_pilot_task_without_the_scheme_metric_is_refused_on_page_and_api(
    client, draft, organizer
):
    # SCHEME is aggregate-then-rank with a missing rule: without this check
    # every value would be filled and the plan computed from fill values.
    task = draft.tasks.get()
    table = pilot_csv(metric="HD") + pilot_csv(task="T2").split("\n", 1)[1]
    client.force_login(organizer)
    url = reverse("registry:task-plan", args=[draft.pk, task.pk])
    page = client.post(
        url, {**FORM, "pilot": upload(table), "pilot_task": "T1", "attach": ""}
    )
    assert page.status_code == 400
    assert 'data-error-for="pilot"' in page.text
    assert "the scheme ranks metric &#x27;DSC&#x27;" in page.text
    assert "its metrics are &#x27;HD&#x27;" in page.text
    assert 'id="plan-pilot-kept"' not in page.text  # the refused table is not kept
    assert 'name="pilot_table"' not in page.text
    api = client.post(
        reverse("api:task-plan", args=[task.pk]),
        {
            "model": {"kind": "pilot", "table": table, "task": "T1"},
            "n": [5],
            "simulations": 10,
            "seed": 1,
        },
        content_type="application/json",
    )
    assert api.status_code == 400
    assert "its metrics are 'HD'" in api.json()["model.table"][0]
    task.refresh_from_db()
    assert task.test_set_plan is None
