"""The "Plan the test set" page of a task of a draft (issue 29)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse

from ..access import editable_challenge, task_of
from ..forms.test_set_plan import TestSetPlanForm, initial_from_plan
from ..parameters import Role
from ..selectors import answers_of
from ..test_set_plans import (
    attach_plan,
    chosen_test_cases,
    compute_task_plan,
    detach_plan,
    plan_view,
    task_plan_view,
)


def plan_url(challenge, task) -> str:
    return reverse("registry:task-plan", args=[challenge.pk, task.pk])


@login_required
def task_plan(request, pk: int, task_pk: int):
    challenge = editable_challenge(request, pk)
    task = task_of(challenge, task_pk)
    stored = answers_of(challenge).get((task.pk, Role.TEST_CASES.number))
    chosen_value = stored.value if stored else None
    if request.method == "POST" and "detach" in request.POST:
        detach_plan(task=task, actor=request.user)
        messages.success(request, f"Removed the test-set plan of “{task.name}”.")
        return redirect(plan_url(challenge, task))
    initial = (
        initial_from_plan(task.test_set_plan)
        if task.test_set_plan and task.test_set_plan["model"]["kind"] == "parametric"
        else None
    )
    posted = request.method == "POST"
    form = TestSetPlanForm(
        request.POST if posted else None,
        request.FILES if posted else None,
        initial=initial,
    )
    computed, pilot_table = None, ""
    if form.is_bound and form.is_valid():
        inputs = form.inputs()
        # Kept in the page, so "attach" after "compute" needs no new upload.
        pilot_table = inputs["model"].get("table", "")
        try:
            if "attach" in request.POST:
                attach_plan(task=task, inputs=inputs, actor=request.user)
                messages.success(
                    request,
                    f"Attached the test-set plan to “{task.name}”: reviewers see "
                    f"it beside parameter {Role.TEST_CASES.number}.",
                )
                return redirect(plan_url(challenge, task))
            plan = compute_task_plan(task=task, inputs=inputs)
            computed = plan_view(task.name, plan, chosen_test_cases(chosen_value))
        except ValidationError as exc:
            form.add_plan_errors(exc)
            if "pilot" in form.errors:  # a refused table is not kept for "attach"
                pilot_table = ""
    if form.errors:
        messages.error(request, "Nothing was computed: correct the marked fields.")
    context = {
        "challenge": challenge,
        "task": task,
        "form": form,
        "computed": computed,
        "pilot_table": pilot_table,
        "attached": task_plan_view(task, chosen_value),
        "test_cases": Role.TEST_CASES.parameter,
    }
    return render(
        request,
        "registry/test_set_plan.html",
        context,
        status=400 if form.errors else 200,
    )
