"""Forms of the review pages. They parse input; `reviews.validation` (through the
services) stays the one place that decides what a valid review is, and its
errors are shown next to the field they name."""

from __future__ import annotations

from typing import Any

from crispy_forms.layout import HTML, Fieldset, Layout
from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from registry.forms.base import CrispyFormMixin
from registry.parameters import GROUPS, PARAMETERS

from . import selectors
from .enums import DecisionKind, Recommendation, ReviewerRole

SCORES = [(n, str(n)) for n in range(1, 6)]
# Section scores name their ends, so nobody wonders which one is good.
LABELLED_SCORES = [
    (1, "1 – poor"),
    (2, "2"),
    (3, "3 – adequate"),
    (4, "4"),
    (5, "5 – excellent"),
]
PARAMETER_COMMENT_ROWS = 3


def _textarea(rows: int = 3, **attrs) -> forms.Textarea:
    return forms.Textarea(attrs={"rows": rows, **attrs})


def _score(label: str, *, required: bool = True, blank: str = "—") -> forms.Field:
    choices = LABELLED_SCORES if required else [("", blank), *LABELLED_SCORES]
    return forms.TypedChoiceField(
        choices=choices, coerce=int, empty_value=None, required=required, label=label
    )


class ServiceErrorsMixin:
    """Put a service's ValidationError next to the field it names."""

    service_fields: dict[str, str] = {}

    def add_service_errors(self, error: ValidationError) -> None:
        for key, messages in error.message_dict.items():
            field = self.service_fields.get(key, key)
            if field in self.fields:
                self.add_error(field, messages)
            else:
                self.add_error(None, [f"{key}: {m}" for m in messages])


CONFIRM_LABEL = "I have read the warnings above and want to proceed"


def _confirm_field() -> forms.BooleanField:
    """Hidden until the service has warned; `show_confirmation` reveals it."""
    return forms.BooleanField(
        required=False, label=CONFIRM_LABEL, widget=forms.HiddenInput
    )


class ConfirmMixin:
    def show_confirmation(self) -> None:
        self.fields["confirm"].widget = forms.CheckboxInput()


class AssignForm(ConfirmMixin, ServiceErrorsMixin, CrispyFormMixin, forms.Form):
    submit_label = "Assign reviewer"
    submit_accesskey = ""

    reviewer = forms.CharField(
        max_length=150,
        help_text="Username; the suggestions above are ranked by expertise.",
        widget=forms.TextInput(attrs={"list": "reviewer-suggestions"}),
    )
    role = forms.ChoiceField(choices=ReviewerRole.choices)
    due = forms.DateField(
        required=False,
        label="Review due",
        help_text="Empty: three weeks from today.",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    confirm = _confirm_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # the browser's date picker offers no past date (the service refuses one)
        self.fields["due"].widget.attrs["min"] = timezone.localdate().isoformat()

    def clean_reviewer(self):
        try:
            return selectors.user_named(self.cleaned_data["reviewer"].strip())
        except ValidationError as exc:
            raise forms.ValidationError(exc.message_dict["reviewer"]) from None


class DecisionForm(ConfirmMixin, ServiceErrorsMixin, CrispyFormMixin, forms.Form):
    submit_label = "Send decision"
    submit_accesskey = ""

    decision = forms.ChoiceField(choices=DecisionKind.choices, widget=forms.RadioSelect)
    letter = forms.CharField(
        widget=_textarea(14),
        help_text="Sent to the organizers. Prefilled with the anonymised reviews.",
    )
    confirm = _confirm_field()


class DeclineForm(ServiceErrorsMixin, CrispyFormMixin, forms.Form):
    submit_label = "Decline"
    submit_accesskey = ""

    reason = forms.CharField(
        widget=_textarea(2),
        label="Reason for declining",
        error_messages={"required": "Give a reason for declining."},
    )


class ResubmitForm(ServiceErrorsMixin, CrispyFormMixin, forms.Form):
    submit_label = "Resubmit revision"

    response = forms.CharField(
        widget=_textarea(10),
        label="Response letter",
        help_text="How you addressed each reviewer's comments; the reviewers "
        "read it next to the changes.",
    )


def _group_key(index: int) -> str:
    return f"section_{index}"


def parameter_targets(challenge) -> list[tuple[str, str]]:
    """(value, label) for every parameter a comment can be attached to."""
    targets = [("", "—")]
    tasks = list(challenge.tasks.all())
    for parameter in PARAMETERS:
        if parameter.level == "challenge":
            targets.append(
                (str(parameter.number), f"{parameter.number}. {parameter.name}")
            )
        else:
            targets += [
                (
                    f"{parameter.number}@{task.pk}",
                    f"Task {task.name}: {parameter.number}. {parameter.name}",
                )
                for task in tasks
            ]
    return targets


class ReviewForm(ServiceErrorsMixin, CrispyFormMixin, forms.Form):
    """Recommendation, confidence and comments; a score and comment per
    parameter group; optional comments on single parameters; a confidential
    comment to the chairs; clinical relevance for clinical reviewers."""

    submit_label = "Submit review"

    recommendation = forms.ChoiceField(
        choices=Recommendation.choices, widget=forms.RadioSelect
    )
    confidence = forms.TypedChoiceField(
        choices=SCORES,
        coerce=int,
        widget=forms.RadioSelect,
        help_text="1 = an educated guess, 5 = certain.",
    )
    comments = forms.CharField(widget=_textarea(8), label="Comments to the organizers")

    def __init__(self, *args, challenge, role: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.tasks = {str(t.pk): t.name for t in challenge.tasks.all()}
        self.clinical = role == ReviewerRole.CLINICAL
        self.service_fields = {}
        section_sets = []
        for i, group in enumerate(GROUPS):
            key = _group_key(i)
            self.fields[f"{key}_score"] = _score(f"{group}: score", required=False)
            self.fields[f"{key}_comment"] = forms.CharField(
                widget=_textarea(2), required=False, label=f"{group}: comment"
            )
            self.service_fields[f"sections.{group}.score"] = f"{key}_score"
            self.service_fields[f"sections.{group}.comment"] = f"{key}_comment"
            section_sets.append(Fieldset(group, f"{key}_score", f"{key}_comment"))
        targets = parameter_targets(challenge)
        parameter_rows = []
        for i in range(1, PARAMETER_COMMENT_ROWS + 1):
            self.fields[f"parameter_{i}"] = forms.ChoiceField(
                choices=targets, required=False, label=f"Parameter ({i})"
            )
            self.fields[f"parameter_{i}_comment"] = forms.CharField(
                widget=_textarea(2), required=False, label=f"Comment ({i})"
            )
            self.service_fields[f"parameters[{i}].comment"] = f"parameter_{i}_comment"
            parameter_rows += [f"parameter_{i}", f"parameter_{i}_comment"]
        self.fields["confidential"] = forms.CharField(
            widget=_textarea(3),
            required=False,
            label="Confidential comment to the chairs",
            help_text="Never shown to the organizers or the other reviewers.",
        )
        extra = ["confidential"]
        if self.clinical:
            self.fields["clinical_relevance"] = _score("Clinical relevance")
            self.fields[
                "clinical_relevance"
            ].help_text = "1 = no clinical relevance, 5 = high clinical relevance."
            extra.insert(0, "clinical_relevance")
        self.helper.layout = Layout(
            Fieldset("Overall", "recommendation", "confidence", "comments"),
            HTML(
                '<h2 class="h5 mt-4" id="score-scale">Scores per section'
                ' <span class="fw-normal fs-6">(1 = poor … 5 = excellent;'
                " higher is better)</span></h2>"
            ),
            *section_sets,
            Fieldset("Comments on single parameters (optional)", *parameter_rows),
            Fieldset("For the chairs", *extra),
        )

    def clean(self):
        data = super().clean()
        for i in range(len(GROUPS)):
            key = _group_key(i)
            if data.get(f"{key}_comment") and data.get(f"{key}_score") is None:
                self.add_error(f"{key}_score", "Give a score with your comment.")
        for i in range(1, PARAMETER_COMMENT_ROWS + 1):
            target, comment = (
                data.get(f"parameter_{i}"),
                data.get(f"parameter_{i}_comment"),
            )
            if comment and not target:
                self.add_error(f"parameter_{i}", "Choose the parameter you comment on.")
            if target and not comment:
                self.add_error(f"parameter_{i}_comment", "Write the comment.")
        return data

    def review_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of `services.submit_review`."""
        data = self.cleaned_data
        sections = {
            group: {
                "score": data[f"{_group_key(i)}_score"],
                "comment": data[f"{_group_key(i)}_comment"],
            }
            for i, group in enumerate(GROUPS)
            if data.get(f"{_group_key(i)}_score") is not None
        }
        parameters = []
        for i in range(1, PARAMETER_COMMENT_ROWS + 1):
            target = data.get(f"parameter_{i}")
            if not target:
                continue
            number, _, task_pk = target.partition("@")
            parameters.append(
                {
                    "number": int(number),
                    "task": self.tasks.get(task_pk) if task_pk else None,
                    "comment": data[f"parameter_{i}_comment"],
                }
            )
        return {
            "recommendation": data["recommendation"],
            "confidence": data["confidence"],
            "comments": data["comments"],
            "sections": sections,
            "parameters": parameters,
            "confidential": data.get("confidential", ""),
            "clinical_relevance": data.get("clinical_relevance"),
        }


class ConflictForm(ServiceErrorsMixin, CrispyFormMixin, forms.Form):
    """A reviewer declares a conflict with an institution or one proposal;
    `services.declare_conflict` decides what a valid declaration is."""

    submit_label = "Declare conflict"
    submit_accesskey = ""

    institution = forms.CharField(
        max_length=300,
        required=False,
        help_text="An institution you must not review for, e.g. a recent employer.",
    )
    challenge = forms.TypedChoiceField(
        coerce=int,
        empty_value=None,
        required=False,
        label="Or one proposal",
        help_text="A proposal you were asked to review; declaring withdraws you.",
    )
    reason = forms.CharField(widget=_textarea(3), label="Reason")

    def __init__(self, *args, proposals=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.proposals = {c.pk: c for c in proposals}
        self.fields["challenge"].choices = [("", "—")] + [
            (c.pk, c.name) for c in proposals
        ]

    def clean(self):
        data = super().clean()
        if bool(data.get("institution")) == (data.get("challenge") is not None):
            raise forms.ValidationError(
                "Name either an institution or one proposal, not both."
            )
        return data
