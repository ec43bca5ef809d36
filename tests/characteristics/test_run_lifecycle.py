"""Case-model fits live the life of analysis runs (``analysis.run_state``): a
fit whose worker died is resumed, a lost queue message is sent again, a double
click queues one fit, a fit that keeps failing gives up with the reason."""

import socket
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from characteristics import services
from characteristics.models import CaseModelRun
from tests.analysis.django.test_run_lifecycle import dead_pid, running_fields

from .conftest import SPEC

pytestmark = pytest.mark.django_db


def fit_left_running(metadata, user, **fields) -> CaseModelRun:
    """A fit its worker started (attempt 1) and then stopped answering for."""
    return CaseModelRun.objects.create(
        metadata=metadata,
        spec=SPEC,
        requested_by=user,
        **running_fields(**{"progress": 40, **fields}),
    )


def test_a_fit_runs_to_done_with_a_heartbeat(
    metadata, organizer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = services.start_case_model_run(
            metadata=metadata, spec=SPEC, actor=organizer
        )
    run.refresh_from_db()
    assert (run.status, run.progress, run.attempt, run.error) == ("done", 100, 1, "")
    assert run.heartbeat is not None
    assert run.enqueued is not None
    assert run.output["models"]


@override_settings(JOBS_SYNCHRONOUS=False, CELERY_BROKER_URL="")
def test_a_double_click_queues_one_fit(
    metadata, organizer, django_capture_on_commit_callbacks
):
    # in-process jobs start after commit: these callbacks are never run
    with django_capture_on_commit_callbacks(execute=False):
        first = services.start_case_model_run(
            metadata=metadata, spec=SPEC, actor=organizer
        )
        second = services.start_case_model_run(
            metadata=metadata, spec=SPEC, actor=organizer
        )
        other = services.start_case_model_run(
            metadata=metadata,
            spec={**SPEC, "characteristics": ["blur"]},
            actor=organizer,
        )
    assert first.pk == second.pk != other.pk
    assert CaseModelRun.objects.count() == 2


def test_a_fit_whose_worker_died_is_resumed_by_a_redelivered_job(metadata, organizer):
    run = fit_left_running(
        metadata, organizer, worker=f"{socket.gethostname()}:{dead_pid()}"
    )
    services.execute_case_model_run(run.pk)
    run.refresh_from_db()
    assert (run.status, run.attempt, run.error) == ("done", 2, "")
    assert (
        run.note == "The worker running it stopped at 40 %; resumed (attempt 2 of 5)."
    )


def test_a_fit_with_a_live_heartbeat_is_not_taken_over(metadata, organizer):
    run = fit_left_running(metadata, organizer)
    services.execute_case_model_run(run.pk)
    run.refresh_from_db()
    assert (run.status, run.attempt, run.progress) == ("running", 1, 40)


def test_the_watchdog_resumes_silent_and_unsent_fits(
    metadata, organizer, capsys, django_capture_on_commit_callbacks
):
    long_ago = timezone.now() - timedelta(seconds=settings.JOBS_STALE_SECONDS + 5)
    silent = fit_left_running(metadata, organizer, heartbeat=long_ago)
    unsent = CaseModelRun.objects.create(
        metadata=metadata, spec=SPEC, requested_by=organizer
    )
    alive = fit_left_running(metadata, organizer)

    with django_capture_on_commit_callbacks(execute=True):
        call_command("resume_jobs")

    statuses = dict(CaseModelRun.objects.values_list("pk", "status"))
    assert statuses == {silent.pk: "done", unsent.pk: "done", alive.pk: "running"}
    out = capsys.readouterr().out
    assert f"case model runs: 1 stale running run(s) requeued [{silent.pk}]" in out


def test_a_fit_whose_worker_keeps_dying_gives_up_with_the_reason(metadata, organizer):
    long_ago = timezone.now() - timedelta(seconds=settings.JOBS_STALE_SECONDS + 5)
    run = fit_left_running(
        metadata, organizer, heartbeat=long_ago, attempt=settings.JOBS_MAX_ATTEMPTS
    )
    services.execute_case_model_run(run.pk)
    run.refresh_from_db()
    assert run.status == "failed"
    assert run.error.startswith(f"Gave up after {settings.JOBS_MAX_ATTEMPTS} attempts")


def test_a_fit_that_cannot_be_fitted_fails_with_the_engine_reason(metadata, organizer):
    run = CaseModelRun.objects.create(
        metadata=metadata,
        spec={**SPEC, "characteristics": ["glare"]},
        requested_by=organizer,
    )
    services.execute_case_model_run(run.pk)
    run.refresh_from_db()
    assert (run.status, run.error) == (
        "failed",
        "unknown column 'glare' in the metadata",
    )
