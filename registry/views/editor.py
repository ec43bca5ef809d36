"""The section editor (one page per section and task) and the planning page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse

from .. import services
from ..access import editable_challenge, task_of
from ..forms import PlanningForm, SectionForm
from ..links import section_url
from ..schemes import PROSE_FROM_SCHEME
from ..sections import section_for, sections_at
from ..selectors import answer_versions, answers_of, completeness_of
from ..versions import StaleEditError


def _sequence(challenge) -> list[tuple[object, object | None]]:
    """Every (section, task) the editor walks through, in order."""
    steps = [(s, None) for s in sections_at("challenge")]
    for task in challenge.tasks.all():
        steps += [(s, task) for s in sections_at("task")]
    return steps


@login_required
def edit_first_section(request, pk: int):
    challenge = editable_challenge(request, pk)
    section, task = _sequence(challenge)[0]
    return redirect(section_url(challenge, section, task.pk if task else None))


@login_required
def edit_section(request, pk: int, section: str, task_pk: int | None = None):
    challenge = editable_challenge(request, pk)
    task = task_of(challenge, task_pk) if task_pk is not None else None
    task_id = task.pk if task else None
    current = section_for("task" if task else "challenge", section)
    if current is None:
        raise Http404("No such section.")
    stored = {n: a for (t, n), a in answers_of(challenge).items() if t == task_id}
    derived = (
        frozenset(PROSE_FROM_SCHEME)
        if task is not None and task.scheme
        else frozenset()
    )
    versions = answer_versions(challenge, task_id)
    form = SectionForm(
        request.POST or None,
        section=current,
        answers=stored,
        derived=derived,
        versions=versions,
    )
    conflict = None
    steps = _sequence(challenge)
    index = next(
        i for i, (s, t) in enumerate(steps) if s == current and (t and t.pk) == task_id
    )
    after = steps[index + 1] if index + 1 < len(steps) else None
    next_url = (
        section_url(challenge, after[0], after[1].pk if after[1] else None)
        if after
        else reverse("registry:overview", args=[challenge.pk])
    )
    here = section_url(challenge, current, task_id)
    if request.method == "POST" and form.is_valid():
        try:
            services.answer_section(
                challenge=challenge,
                task=task,
                actor=request.user,
                answers=form.answers,
                seen_versions=form.seen_versions(),
            )
        except StaleEditError as exc:
            conflict = exc
            now = {n: a for (t, n), a in answers_of(challenge).items() if t == task_id}
            form = form.over(now, answer_versions(challenge, task_id), task)
        except ValidationError as exc:
            form.add_service_errors(exc)
        else:
            messages.success(request, f"Saved “{current.group}”.")
            return redirect(next_url if "save_next" in request.POST else here)
    if conflict is not None:
        messages.error(request, "Nothing was saved: someone else changed this section.")
    elif form.errors:
        messages.error(request, "Nothing was saved: correct the marked fields.")
    completeness = completeness_of(challenge)
    tally = completeness.section(current.group, task_id)
    nav = [(s, t, section_url(challenge, s, t.pk if t else None)) for s, t in steps]
    sidebar = [
        (
            s,
            t,
            url,
            completeness.section(s.group, t.pk if t else None),
            f"{s.group}|{t.pk if t else ''}",
        )
        for s, t, url in nav
    ]
    context = {
        "challenge": challenge,
        "task": task,
        "section": current,
        "form": form,
        "conflict": conflict,
        "blocks": form.blocks(),
        "here": here,
        "next_url": next_url,
        "previous_url": nav[index - 1][2] if index else None,
        "sidebar": sidebar,
        "tally": tally,
        "overall": completeness.overall,
        "done_elsewhere": completeness.overall.done - tally.done,
        "completeness_api": reverse("api:completeness", args=[challenge.pk]),
        "scheme_url": (
            reverse("registry:task-scheme", args=[challenge.pk, task.pk])
            if task is not None
            else None
        ),
    }
    return render(
        request,
        "registry/edit_section.html",
        context,
        status=409 if conflict else 400 if form.errors else 200,
    )


def _current_version(challenge) -> int:
    challenge.refresh_from_db(fields=["version"])
    return challenge.version


@login_required
def planning(request, pk: int):
    challenge = editable_challenge(request, pk)
    initial = {**challenge.planning, "version": challenge.version}
    form = PlanningForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.update_challenge(
                challenge=challenge,
                actor=request.user,
                planning=form.planning(),
                expected_version=form.cleaned_data.get("version"),
            )
        except StaleEditError as exc:
            form = PlanningForm(
                {**request.POST.dict(), "version": str(_current_version(challenge))}
            )
            form.is_valid()
            form.add_error(None, str(exc))
        except ValidationError as exc:
            for key, errors in exc.message_dict.items():
                field = key.removeprefix("planning.")
                form.add_error(field if field in form.fields else None, errors)
        else:
            messages.success(request, "Saved the planning answers.")
            response = redirect("registry:overview", challenge.pk)
            response["Location"] += "#planning"
            return response
    return render(
        request, "registry/planning.html", {"challenge": challenge, "form": form}
    )
