"""Test-set plans computed in the background (issue 29): start one from the
task's planning form, follow its progress, read the plan."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from registry.access import editable_challenge, task_of
from registry.forms.test_set_plan import TestSetPlanForm
from registry.parameters import Role
from registry.permissions import can_view_challenge
from registry.selectors import answers_of
from registry.test_set_plans import chosen_test_cases, plan_view

from ..models import PlanRun
from ..plan_runs import start_plan_run


def visible_plan_run(request, pk: int) -> PlanRun:
    run = get_object_or_404(PlanRun.objects.select_related("task__challenge"), pk=pk)
    if not can_view_challenge(request.user, run.task.challenge):
        raise Http404("No such plan.")
    return run


@login_required
@require_POST
def start_plan(request, pk: int, task_pk: int):
    """The planning form's "in the background" button: queue, then follow it."""
    challenge = editable_challenge(request, pk)
    task = task_of(challenge, task_pk)
    # With the files: a pilot table is refused by name, not silently left out.
    form = TestSetPlanForm(request.POST, request.FILES)
    back = reverse("registry:task-plan", args=[challenge.pk, task.pk])
    if not form.is_valid():
        messages.error(request, "Nothing was started: correct the marked fields.")
        return redirect(back)
    try:
        run = start_plan_run(
            task=task,
            inputs=form.inputs(),
            attach="attach" in request.POST,
            actor=request.user,
        )
    except ValidationError as exc:
        for field, errors in exc.message_dict.items():
            messages.error(request, f"{field}: {' '.join(errors)}")
        return redirect(back)
    return redirect("analysis:plan-run", run.pk)


def _context(run: PlanRun) -> dict:
    stored = answers_of(run.task.challenge).get((run.task.pk, Role.TEST_CASES.number))
    chosen = chosen_test_cases(stored.value if stored else None)
    return {
        "run": run,
        "task": run.task,
        "challenge": run.task.challenge,
        "plan": plan_view(run.task.name, run.output, chosen) if run.output else None,
        "api_url": f"/api/v1/plan-runs/{run.pk}/",
        "body_url": reverse("analysis:plan-run-body", args=[run.pk]),
    }


@login_required
@require_GET
def plan_run_page(request, pk: int):
    return render(
        request, "analysis/plan_run.html", _context(visible_plan_run(request, pk))
    )


@login_required
@require_GET
def plan_run_body(request, pk: int):
    """The result part alone; static/js/progress.js loads it when done."""
    run = visible_plan_run(request, pk)
    return render(request, "analysis/_plan_run_body.html", _context(run))
