"""Test-set plans in the background (issue 29): a large plan runs as a job,
block by block, each finished block stored on the run; a worker that dies is
resumed by the watchdog and computes only the blocks still missing, so the
plan does not change (blocks depend only on seed, n and block number)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from ranking.planner import (
    BlockStats,
    plan_blocks,
    simulate_block,
    summarise_plan,
)
from ranking.version import ENGINE_VERSION
from registry.models import Task
from registry.permissions import can_edit_challenge, can_view_challenge
from registry.test_set_plans import (
    attach_computed_plan,
    finished_plan,
    prepare_task_plan,
    task_plan_spec,
)

from . import run_state
from .jobs import job
from .models import AnalysisStatus, PlanRun


def _key(n: int, block: int) -> str:
    return f"{n}:{block}"


def start_plan_run(
    *, task: Task, inputs: Mapping[str, Any], attach: bool, actor
) -> PlanRun:
    """Check the inputs, then queue the plan (attached to the task when done,
    with ``attach``: the caller must be able to edit the proposal)."""
    allowed = can_edit_challenge if attach else can_view_challenge
    if not allowed(actor, task.challenge):
        raise PermissionDenied("You cannot plan the test set of this task.")
    spec = task_plan_spec(task=task, inputs=inputs)
    prepare_task_plan(spec)  # refuse now, not in the worker
    # A pilot's table text is kept on the run (≤ PLAN_PILOT_MAX_BYTES) so a
    # resumed worker parses the same table.
    stored = {k: v for k, v in spec.items() if k != "scheme"}
    with transaction.atomic():
        run = PlanRun.objects.create(
            task=task,
            inputs=stored,
            attach=attach,
            requested_by=actor,
            engine_version=ENGINE_VERSION,
        )
        transaction.on_commit(lambda: send_plan_run(run.pk))
    return run


def send_plan_run(run_id: int) -> None:
    """Send the plan's job to the queue (the watchdog's sender, too)."""
    run_state.send_run(execute_plan_run, PlanRun, run_id)


@job
def execute_plan_run(run_id: int) -> None:
    """The background job: claim the run, compute its missing blocks with a
    heartbeat, summarise, attach if asked."""
    claim = run_state.claim(run_id, PlanRun)
    if claim is not None:
        run_state.run_claimed(claim, lambda beat: _plan_claimed(claim, beat))


def _plan_claimed(claim: run_state.Claim, beat: run_state.Heartbeat) -> None:
    run = PlanRun.objects.select_related("task__challenge").get(pk=claim.run_id)
    spec = {"scheme": run.task.scheme, **run.inputs}
    try:
        prepared = prepare_task_plan(spec)
    except ValidationError as exc:  # the task's scheme changed since the request
        reason = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        run_state.fail(run.pk, reason, attempt=claim.attempt, model=PlanRun)
        return
    todo = plan_blocks(prepared)
    blocks = dict(run.blocks)
    for done, (n, block) in enumerate(todo, start=1):
        if _key(n, block) not in blocks:
            beat.check()
            stats = simulate_block(prepared, n, block)
            blocks[_key(n, block)] = stats.to_json_dict()
            if not claim.runs().update(
                blocks=blocks,
                heartbeat=timezone.now(),
                progress=min(99, 100 * done // len(todo)),
            ):
                raise run_state.RunLost
    plan = finished_plan(
        summarise_plan(
            prepared,
            {nb: BlockStats.from_json_dict(blocks[_key(*nb)]) for nb in todo},
        ),
        spec,
    )
    if run.attach:
        attach_computed_plan(task=run.task, plan=plan, actor=run.requested_by)
    claim.runs().update(
        status=AnalysisStatus.DONE,
        output=plan,
        progress=100,
        finished=timezone.now(),
        heartbeat=timezone.now(),
    )
