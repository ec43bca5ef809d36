"""The editor form of one section, built from the catalogue."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django import forms
from django.core.exceptions import ValidationError

from config.json_input import JSONLimitError, check_json_limits, loads_bounded

from ..completeness import StoredAnswer
from ..models import Task
from ..sections import Section
from ..services import AnswerInput, answer_as_stored
from .answers import answer_field, to_raw
from .base import CrispyFormMixin


@dataclass(frozen=True)
class ParameterBlock:
    """What the template shows for one parameter: its inputs and their errors."""

    parameter: object
    value: forms.BoundField
    not_applicable: forms.BoundField | None
    reason: forms.BoundField | None
    derived: bool = False  # read-only: derived from the task's ranking scheme

    @property
    def errors(self) -> list[str]:
        fields = (self.value, self.not_applicable, self.reason)
        return [e for f in fields if f is not None for e in f.errors]


class SectionForm(CrispyFormMixin, forms.Form):
    """One input per parameter of `section`, plus a not-applicable checkbox and
    reason where the catalogue allows it. The template lays it out (composite
    inputs); the helper is kept for the shared button conventions."""

    submit_label = None

    def __init__(
        self,
        *args,
        section: Section,
        answers: dict[int, StoredAnswer],
        derived: frozenset[int] = frozenset(),
        versions: dict[int, int] | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.section = section
        # The versions of the answers as shown: a save from a stale copy is
        # refused instead of overwriting someone else's change.
        self.fields["versions"] = forms.CharField(
            required=False, widget=forms.HiddenInput
        )
        numbers = {p.number for p in section.parameters}
        self.initial["versions"] = json.dumps(
            {str(n): v for n, v in sorted((versions or {}).items()) if n in numbers}
        )
        # ... and their values as shown: after a refused save, only the fields
        # this editor changed keep their input (see edited_numbers).
        self.fields["loaded"] = forms.CharField(
            required=False, widget=forms.HiddenInput
        )
        self.initial["loaded"] = json.dumps(
            {
                str(n): [a.value, a.not_applicable or ""]
                for n, a in sorted(answers.items())
                if n in numbers
            }
        )
        # Parameters written by the ranking scheme: shown, never saved from here.
        self.derived = derived
        self.helper.form_tag = False
        for parameter in section.parameters:
            stored = answers.get(parameter.number)
            key = parameter.key
            self.fields[key] = answer_field(parameter)
            if stored is not None and not stored.not_applicable:
                self.initial[key] = to_raw(parameter, stored.value)
            if parameter.not_applicable_allowed:
                self.fields[f"{key}-na"] = forms.BooleanField(
                    required=False,
                    label="Not applicable",
                    widget=forms.CheckboxInput(
                        attrs={"class": "form-check-input", "data-na": ""}
                    ),
                )
                self.fields[f"{key}-reason"] = forms.CharField(
                    required=False,
                    label="Reason it does not apply",
                    max_length=5000,
                    widget=forms.Textarea(
                        attrs={
                            "class": "form-control",
                            "rows": 2,
                            "data-reason": "",
                            "placeholder": "If not applicable: why?",
                        }
                    ),
                )
                if stored is not None and stored.not_applicable:
                    self.initial[f"{key}-na"] = True
                    self.initial[f"{key}-reason"] = stored.not_applicable
            if parameter.number in derived:
                for name in (key, f"{key}-na", f"{key}-reason"):
                    if name in self.fields:
                        self.fields[name].disabled = True

    def blocks(self) -> list[ParameterBlock]:
        blocks = []
        for parameter in self.section.parameters:
            key = parameter.key
            na = f"{key}-na" in self.fields
            blocks.append(
                ParameterBlock(
                    parameter,
                    self[key],
                    self[f"{key}-na"] if na else None,
                    self[f"{key}-reason"] if na else None,
                    parameter.number in self.derived,
                )
            )
        return blocks

    def clean(self):
        cleaned = super().clean()
        self._check_versions_field()
        answers: dict[int, AnswerInput] = {}
        for parameter in self.section.parameters:
            key = parameter.key
            if parameter.number in self.derived:
                continue  # the scheme owns it; leave the stored answer alone
            if cleaned.get(f"{key}-na"):
                reason = cleaned.get(f"{key}-reason", "")
                if not reason:
                    self.add_error(f"{key}-reason", "Say why it does not apply.")
                    continue
                answers[parameter.number] = AnswerInput(not_applicable=reason)
                continue
            if key not in cleaned:  # the input itself was refused
                continue
            value = cleaned[key]
            if value is not None:
                try:
                    value = parameter.clean(value)
                except ValidationError as exc:
                    self.add_error(key, exc.messages)
                    continue
            answers[parameter.number] = AnswerInput(value, clear=value is None)
        self.answers = answers
        return cleaned

    def seen_versions(self) -> dict[int, int] | None:
        """Parameter → version the editor saw (None: not sent, not checked)."""
        raw = self.data.get("versions")
        if not raw:
            return None
        try:
            versions = {int(n): int(v) for n, v in loads_bounded(raw).items()}
        except (ValueError, TypeError, AttributeError):  # over limits: see clean()
            return None
        return {p.number: versions.get(p.number, 0) for p in self.section.parameters}

    def edited_numbers(self, task: Task | None) -> set[int] | None:
        """The parameters whose answer this editor changed from the one the
        page showed (None: the page sent no values, so any may be)."""
        try:
            loaded = json.loads(self.data.get("loaded") or "null")
        except ValueError:
            return None
        if not isinstance(loaded, dict):
            return None
        edited = set()
        for number, item in self.answers.items():
            try:
                now = answer_as_stored(number, item, task)
            except ValidationError:  # cannot be what was stored: an edit
                edited.add(number)
                continue
            if (None if now is None else [now[0], now[1] or ""]) != loaded.get(
                str(number)
            ):
                edited.add(number)
        return edited

    def over(
        self,
        answers: dict[int, StoredAnswer],
        versions: dict[int, int],
        task: Task | None,
    ) -> SectionForm:
        """This refused form again over the current ``answers`` and
        ``versions``: the fields this editor changed keep their input, every
        other one shows its current value (someone else's change included), so
        saving it again writes this editor's changes and nothing else."""
        again = SectionForm(
            section=self.section,
            answers=answers,
            derived=self.derived,
            versions=versions,
        )
        edited = self.edited_numbers(task)
        for parameter in self.section.parameters:
            if edited is not None and parameter.number not in edited:
                continue
            key = parameter.key
            for name in (key, f"{key}-na", f"{key}-reason"):
                if name in self.fields:
                    again.initial[name] = self.cleaned_data.get(name)
            item = self.answers.get(parameter.number)
            if item is not None and item.value is not None:
                again.initial[key] = to_raw(parameter, item.value)
        return again

    def _check_versions_field(self) -> None:
        # The hidden field is sent back as typed: 100 000 nested "[" had
        # ended in RecursionError (a 500); now the form says why (400).
        try:
            check_json_limits(self.data.get("versions") or "")
        except JSONLimitError as exc:
            self.add_error(None, f"The editor's hidden versions field: {exc}")

    def add_service_errors(self, error: ValidationError) -> None:
        """Show errors raised by `services.answer_section` next to their field."""
        for key, messages in error.message_dict.items():
            self.add_error(key if key in self.fields else None, messages)
