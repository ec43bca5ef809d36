"""The amendment form: the editor's section forms and the scheme form, in a mode
that collects what differs from the registered design into a change set
(`registry.amendments` format) instead of saving anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django import forms

from ..completeness import StoredAnswer
from ..models import Challenge, Task
from ..schemes import PROSE_FROM_SCHEME, registered_metrics
from ..sections import Section, sections_at
from ..selectors import answers_of
from .scheme import SchemeForm
from .section import SectionForm


class JustificationForm(forms.Form):
    justification = forms.CharField(
        label="Justification",
        max_length=20000,
        widget=forms.Textarea(attrs={"rows": 4, "class": "form-control"}),
        help_text="Why the registered design changes; published with the version.",
    )


@dataclass
class TaskScheme:
    task: Task
    change: forms.BoundField
    form: SchemeForm


def _normal(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text.replace("\\r\\n", "\\n")


class AmendmentForm:
    """Justification, one scheme form per task and one section form per section."""

    def __init__(self, data=None, *, challenge: Challenge):
        self.data = data
        self.challenge = challenge
        self.errors: list[str] = []
        stored = answers_of(challenge)
        self.justification = JustificationForm(data)
        self.schemes: list[TaskScheme] = []
        self.sections: list[tuple[Section, Task | None, SectionForm]] = []
        self._stored: dict[int | None, dict[int, StoredAnswer]] = {}
        scopes = [None, *challenge.tasks.all()]
        for task in scopes:
            task_id = task.pk if task else None
            self._stored[task_id] = {
                n: a for (t, n), a in stored.items() if t == task_id
            }
        for task in scopes[1:]:
            prefix = f"scheme-{task.pk}"
            toggle = forms.Form(data, prefix=prefix)
            toggle.fields["change"] = forms.BooleanField(
                required=False,
                label=(
                    f"Change the ranking scheme of task “{task.name}”"
                    if task.scheme
                    else f"Add a ranking scheme to task “{task.name}”"
                ),
                widget=forms.CheckboxInput(attrs={"class": "form-check-input"}),
            )
            form = SchemeForm(
                data if self._changing_scheme(prefix) else None,
                task=task,
                registered=registered_metrics(task),
                prefix=prefix,
            )
            form.set_scheme_initial(task.scheme)
            self.schemes.append(TaskScheme(task, toggle["change"], form))
        for task in scopes:
            level = "task" if task else "challenge"
            task_id = task.pk if task else None
            derived = (
                frozenset(PROSE_FROM_SCHEME) if task is not None and task.scheme else ()
            )
            for section in sections_at(level):
                prefix = f"{'t' + str(task.pk) if task else 'c'}-{section.slug}"
                form = SectionForm(
                    data,
                    section=section,
                    answers=self._stored[task_id],
                    derived=frozenset(derived),
                    prefix=prefix,
                )
                self.sections.append((section, task, form))

    def _changing_scheme(self, prefix: str) -> bool:
        return bool(self.data) and bool(self.data.get(f"{prefix}-change"))

    def is_valid(self) -> bool:
        forms_ok = self.justification.is_valid()
        for item in self.schemes:
            if item.form.is_bound:
                forms_ok = item.form.is_valid() and forms_ok
        for _, _, form in self.sections:
            forms_ok = form.is_valid() and forms_ok
        if not forms_ok:
            return False
        self.cleaned_changes = self._collect()
        return not self.errors

    def _collect(self) -> dict[str, Any]:
        changes: dict[str, Any] = {"challenge": {}, "tasks": {}}
        for _, task, form in self.sections:
            stored = self._stored[task.pk if task else None]
            for number, answer in form.answers.items():
                before = stored.get(number)
                where = f"Parameter {number}" + (
                    f" of task “{task.name}”" if task else ""
                )
                scope = (
                    changes["tasks"].setdefault(task.name, {})
                    if task
                    else changes["challenge"]
                )
                if answer.not_applicable:
                    if before is None or before.not_applicable != answer.not_applicable:
                        scope[str(number)] = {"not_applicable": answer.not_applicable}
                    continue
                if answer.value is None:
                    if before is not None and (before.value or before.not_applicable):
                        self.errors.append(
                            f"{where}: an amendment cannot clear an answer; give the "
                            "new value."
                        )
                    continue
                if (
                    before is None
                    or before.not_applicable
                    or _normal(before.value) != _normal(answer.value)
                ):
                    scope[str(number)] = answer.value
        for item in self.schemes:
            if item.form.is_bound:
                scheme = item.form.cleaned_scheme
                if scheme != item.task.scheme:
                    changes["tasks"].setdefault(item.task.name, {})["scheme"] = scheme
        changes["tasks"] = {k: v for k, v in changes["tasks"].items() if v}
        return {k: v for k, v in changes.items() if v}

    @property
    def justification_text(self) -> str:
        return self.justification.cleaned_data["justification"]
