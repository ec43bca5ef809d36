"""Small forms around a proposal: create, tasks, co-organizers, planning."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model

from ..models import Call
from ..planning import PLANNING_QUESTIONS
from .base import CrispyFormMixin


class NewProposalForm(CrispyFormMixin, forms.Form):
    submit_label = "Create proposal"

    call = forms.ModelChoiceField(
        queryset=Call.objects.all(), empty_label=None, help_text="The call you answer."
    )
    name = forms.CharField(max_length=300, label="Challenge name")


class TaskNameForm(CrispyFormMixin, forms.Form):
    submit_label = "Add task"

    name = forms.CharField(max_length=200, label="Task name")


class CoOrganizerForm(CrispyFormMixin, forms.Form):
    submit_label = "Add co-organizer"
    submit_accesskey = ""

    username = forms.CharField(max_length=150)

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise forms.ValidationError(f"No user {username!r}.")
        return user


class PlanningForm(CrispyFormMixin, forms.Form):
    """One field per question of `registry.planning` (never a hand-written list)."""

    submit_label = "Save planning answers"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for question in PLANNING_QUESTIONS:
            self.fields[question.key] = _planning_field(question)
        # The challenge's version as shown: a save from a stale copy is refused.
        self.fields["version"] = forms.IntegerField(
            required=False, min_value=1, widget=forms.HiddenInput
        )

    def planning(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in self.cleaned_data.items()
            if k != "version" and v not in (None, "")
        }


def _planning_field(question) -> forms.Field:
    common = {"label": question.label, "help_text": question.help, "required": False}
    if question.kind == "choice":
        return forms.ChoiceField(
            choices=[("", "—"), *((c, c) for c in question.choices)], **common
        )
    if question.kind == "integer":
        return forms.IntegerField(min_value=0, **common)
    return forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), **common)
