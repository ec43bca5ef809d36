"""Work admission: how many analyses and case-model fits may wait or run.

Twenty analysis requests in a row had started sixteen runs (four answered 500
with "database is locked") and the web process grew from 408 MB to 1.6 GB
(issue 30). A new run is now admitted only while the requester has fewer than
``MAX_ACTIVE_RUNS_PER_USER`` queued or running runs (analyses and case-model
fits together, they share the workers) and the registry fewer than
``MAX_ACTIVE_RUNS``; past either the request is refused with the seconds to
wait (``RUN_RETRY_AFTER_SECONDS``): 429 with ``Retry-After`` on the API, a
message on the pages. A request identical to a pending run is not refused: it
gets that run (see ``run_state.identical_pending_run``).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model

from .models import AnalysisRun, AnalysisStatus

ACTIVE = (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING)


class BusyError(Exception):
    """Too much work is already queued or running; try again later."""

    def __init__(self, message: str, *, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def _run_models() -> list[type]:
    # characteristics may import analysis, not the reverse: found by name
    from django.apps import apps

    return [AnalysisRun, apps.get_model("characteristics", "CaseModelRun")]


def _active(**where) -> int:
    return sum(
        model.objects.filter(status__in=ACTIVE, **where).count()
        for model in _run_models()
    )


def admit_run(actor) -> None:
    """Refuse (BusyError) a new run of `actor` past the per-user or global cap.

    Call inside the transaction that creates the run: the actor's row lock
    makes two simultaneous requests of one user count each other.
    """
    get_user_model().objects.select_for_update().filter(pk=actor.pk).first()
    wait = settings.RUN_RETRY_AFTER_SECONDS
    mine = _active(requested_by=actor)
    if mine >= settings.MAX_ACTIVE_RUNS_PER_USER:
        raise BusyError(
            f"You already have {mine} analyses or case-model fits queued or "
            f"running (the limit is {settings.MAX_ACTIVE_RUNS_PER_USER}); start "
            f"this one when one of them has finished (about {wait} s).",
            retry_after=wait,
        )
    everyone = _active()
    if everyone >= settings.MAX_ACTIVE_RUNS:
        raise BusyError(
            f"The registry is running {everyone} analyses or case-model fits "
            f"(the limit is {settings.MAX_ACTIVE_RUNS}); try again in about "
            f"{wait} s.",
            retry_after=wait,
        )
