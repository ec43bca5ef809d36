"""The ranking-scheme page of a task: form builder, JSON import/export, preview."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify

from ..access import editable_challenge, task_of
from ..forms.scheme import SchemeForm, SchemeJsonForm, scheme_json_text
from ..parameters import Role
from ..scheme_preview import preview_scheme
from ..schemes import (
    PROSE_FROM_SCHEME,
    registered_metrics,
    set_scheme_for_all_tasks,
    set_task_scheme,
    typed_answers_replaced,
)


def scheme_url(challenge, task) -> str:
    return reverse("registry:task-scheme", args=[challenge.pk, task.pk])


@login_required
def task_scheme(request, pk: int, task_pk: int):
    challenge = editable_challenge(request, pk)
    task = task_of(challenge, task_pk)
    registered = registered_metrics(task)
    posted_form = request.method == "POST" and "import_json" not in request.POST
    form = SchemeForm(
        request.POST if posted_form else None, task=task, registered=registered
    )
    form.set_scheme_initial(task.scheme)
    json_form = SchemeJsonForm(
        request.POST if "import_json" in request.POST else None,
        initial={"scheme_json": scheme_json_text(task.scheme)},
    )
    preview, replaced = None, []
    if posted_form and form.is_valid():
        if "preview" in request.POST:
            preview = preview_scheme(form.cleaned_scheme)
        else:
            replaced = _unconfirmed_replacements(request, form, challenge, task)
            if not replaced and _save(request, form, challenge, task, form.scheme()):
                return redirect(scheme_url(challenge, task))
    elif json_form.is_bound and json_form.is_valid():
        try:
            set_task_scheme(
                task=task,
                scheme=json_form.cleaned_data["scheme_json"],
                actor=request.user,
            )
        except ValidationError as exc:
            for error in exc.messages:
                json_form.add_error("scheme_json", error)
        else:
            messages.success(request, f"Imported the scheme of task “{task.name}”.")
            return redirect(scheme_url(challenge, task))
    invalid = form.errors or json_form.errors
    if invalid:
        messages.error(request, "Nothing was saved: correct the marked fields.")
    context = {
        "challenge": challenge,
        "task": task,
        "form": form,
        "json_form": json_form,
        "registered": registered,
        "preview": preview,
        "replaced": replaced,
        "derived": sorted(PROSE_FROM_SCHEME),
        "metrics": Role.METRICS.parameter,
        "metrics_section": slugify(Role.METRICS.parameter.group),
        "other_tasks": challenge.tasks.exclude(pk=task.pk),
    }
    return render(
        request, "registry/scheme.html", context, status=400 if invalid else 200
    )


def _unconfirmed_replacements(request, form, challenge, task) -> list:
    """The typed prose answers the save would overwrite, until the organizer
    confirms (the form posts `confirm_replace` back); then none."""
    if request.POST.get("confirm_replace"):
        return []
    tasks = challenge.tasks.all() if form.data.get("apply_to_all") else [task]
    return [
        replaced
        for each in tasks
        for replaced in typed_answers_replaced(each, form.cleaned_scheme)
    ]


def _save(request, form, challenge, task, scheme) -> bool:
    try:
        if form.data.get("apply_to_all"):
            tasks = set_scheme_for_all_tasks(
                challenge=challenge, scheme=scheme, actor=request.user
            )
            messages.success(
                request, f"Saved the ranking scheme for all {len(tasks)} tasks."
            )
        else:
            set_task_scheme(task=task, scheme=scheme, actor=request.user)
            messages.success(request, f"Saved the ranking scheme of “{task.name}”.")
    except ValidationError as exc:
        if form.data.get("apply_to_all"):
            for error in exc.messages:
                form.add_error(None, error)
        else:
            form.add_scheme_errors(exc)
        return False
    return True
