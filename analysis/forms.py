"""Forms of the results and analysis pages (the API shares their parsers)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.utils.html import escape

from config.json_input import loads_bounded
from ranking import SchemeError, parse_scheme, scheme_to_dict
from registry.forms.scheme import SchemeForm
from registry.schemes import registered_metrics


def parse_team_lines(text: str) -> dict[str, str]:
    """ "team, institution" per line → {team: institution}; errors name the line."""
    teams: dict[str, str] = {}
    errors = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip():
            continue
        team, comma, institution = line.partition(",")
        team, institution = team.strip(), institution.strip()
        if not comma or not team or not institution:
            errors.append(f'Line {number}: write "team, institution".')
        elif team in teams:
            errors.append(f"Line {number}: team {team!r} is listed twice.")
        else:
            teams[team] = institution
    if errors:
        raise forms.ValidationError(errors)
    return teams


def within_upload_limit(upload: UploadedFile) -> UploadedFile:
    """The uploaded file, refused when larger than MAX_UPLOAD_BYTES."""
    limit = settings.MAX_UPLOAD_BYTES
    if upload.size > limit:
        raise forms.ValidationError(
            f"The file is {upload.size:,} bytes; the limit is {limit:,} bytes."
        )
    return upload


class TableFileField(forms.FileField):
    """A CSV or XLSX table, refused when larger than MAX_UPLOAD_BYTES."""

    widget = forms.ClearableFileInput(attrs={"accept": ".csv,.xlsx"})

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        return within_upload_limit(upload) if upload else upload


class ResultsUploadForm(forms.Form):
    file = TableFileField(
        label="Results file (CSV or XLSX)",
        # escaped: Django puts help_text into the page as HTML
        help_text=escape(
            "Long format: task, case, algorithm, metric, value "
            "(optional: target, team, submissions, interaction, meta:<name>)."
        ),
    )
    teams = forms.CharField(
        label="Team affiliations (optional)",
        required=False,
        help_text='One "team, institution" per line; used to check the '
        "organizer-participation policy.",
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean_teams(self) -> dict[str, str]:
        return parse_team_lines(self.cleaned_data["teams"])


class ExploratorySchemeForm(forms.Form):
    scheme = forms.CharField(
        label="Ranking scheme (JSON)",
        help_text="Advanced: one scheme for every task, in the format of the "
        "registered schemes (docs: ranking-scheme contract). The result is "
        "labelled NOT PRE-REGISTERED everywhere.",
        widget=forms.Textarea(attrs={"rows": 8, "class": "font-monospace"}),
    )

    def clean_scheme(self) -> dict:
        try:
            scheme = loads_bounded(self.cleaned_data["scheme"])
        except ValueError as exc:
            raise forms.ValidationError(f"Not valid JSON: {exc}") from None
        if not isinstance(scheme, dict):
            raise forms.ValidationError("The scheme must be a JSON object.")
        return scheme


class ExploratorySchemeBuilder(SchemeForm):
    """The exploratory scheme chosen option by option, as on the registry's
    scheme page, over the metrics registered for any task (the JSON form stays
    as the advanced way). The engine checks the assembled scheme here, so its
    message lands next to the input; the service checks it again per task."""

    def __init__(self, *args, registered: dict[str, dict[str, Any]], **kwargs):
        super().__init__(*args, task=None, registered=registered, **kwargs)

    def clean(self):
        cleaned = forms.Form.clean(self)  # not the registry's per-task check
        if self.errors:
            return cleaned
        try:
            self.cleaned_scheme = scheme_to_dict(parse_scheme(self.scheme()))
        except SchemeError as exc:
            self.add_scheme_errors(ValidationError({"scheme": f"scheme.{exc}"}))
        return cleaned


def registered_metrics_of(challenge) -> dict[str, dict[str, Any]]:
    """The metrics registered for any task of `challenge`, by name."""
    metrics: dict[str, dict[str, Any]] = {}
    for task in challenge.tasks.all():
        for name, metric in registered_metrics(task).items():
            metrics.setdefault(name, metric)
    return metrics
