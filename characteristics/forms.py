"""Forms of the case-characteristics page (the API shares the services)."""

from __future__ import annotations

from django import forms

from analysis.forms import TableFileField
from casemodels import column_kind


class MetadataUploadForm(forms.Form):
    file = TableFileField(
        label="Case metadata (CSV or XLSX)",
        help_text="A 'case' column (and 'task' when case ids repeat across tasks); "
        "every other column is a characteristic or a grouping.",
    )


class MetadataCommitForm(forms.Form):
    """The previewed table, carried back unchanged (checked again on commit)."""

    content = forms.CharField(widget=forms.HiddenInput, strip=False)
    name = forms.CharField(widget=forms.HiddenInput, max_length=255)


ALGORITHM_CHOICES = [
    ("all", "All algorithms"),
    ("top", "The best k of the registered ranking"),
    ("list", "These algorithms"),
]


class ModelSpecForm(forms.Form):
    """Builds the contract's specification (§2) from the page's choices."""

    task = forms.ChoiceField()
    metric = forms.ChoiceField()
    outcome = forms.ChoiceField(
        choices=[("failure", "Failure (binomial GLMM)"), ("value", "Value (LMM)")]
    )
    direction = forms.ChoiceField(
        label="Failure when the value is",
        choices=[("below", "below the threshold"), ("above", "above the threshold")],
        required=False,
    )
    threshold = forms.FloatField(required=False)
    characteristics = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
    groups = forms.MultipleChoiceField(
        label="Groupings (random intercepts)",
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    algorithms = forms.ChoiceField(choices=ALGORITHM_CHOICES, initial="all")
    top = forms.IntegerField(label="k", min_value=1, required=False)
    algorithm_list = forms.CharField(
        label="Algorithm names (comma-separated)", required=False
    )
    per_algorithm = forms.BooleanField(
        label="Also fit one model per algorithm", required=False, initial=True
    )
    missing = forms.ChoiceField(
        label="A missing result",
        choices=[("failure", "counts as a failure"), ("drop", "is dropped")],
    )
    alpha = forms.FloatField(initial=0.05, min_value=0.0001, max_value=0.5)

    def __init__(self, *args, tasks, metrics, columns, metadata, prefill=(), **kw):
        super().__init__(*args, **kw)
        self.fields["task"].choices = [(t, t) for t in tasks]
        self.fields["metric"].choices = [(m, m) for m in metrics]
        described = [(c, f"{c} ({column_kind(metadata[c])})") for c in columns]
        self.fields["characteristics"].choices = described
        self.fields["groups"].choices = described
        if not self.is_bound:
            self.initial.setdefault("characteristics", list(prefill))
            self.initial.setdefault("threshold", 0.5)

    def clean(self):
        data = super().clean()
        if data.get("outcome") == "failure" and data.get("threshold") is None:
            self.add_error("threshold", "A failure outcome needs a threshold.")
        if data.get("algorithms") == "top" and not data.get("top"):
            self.add_error("top", "Give k.")
        if data.get("algorithms") == "list" and not data.get("algorithm_list"):
            self.add_error("algorithm_list", "Name at least one algorithm.")
        return data

    def spec(self) -> dict:
        """The specification as the contract writes it."""
        data = self.cleaned_data
        if data["outcome"] == "failure":
            outcome = {
                "type": "failure",
                data["direction"] or "below": data["threshold"],
            }
            missing = data["missing"]
        else:
            outcome, missing = {"type": "value"}, "drop"
        if data["algorithms"] == "top":
            algorithms = {"top": data["top"]}
        elif data["algorithms"] == "list":
            algorithms = [
                a.strip() for a in data["algorithm_list"].split(",") if a.strip()
            ]
        else:
            algorithms = "all"
        return {
            "task": data["task"],
            "metric": data["metric"],
            "outcome": outcome,
            "characteristics": list(data["characteristics"]),
            "groups": list(data["groups"]),
            "algorithms": algorithms,
            "per_algorithm": data["per_algorithm"],
            "missing": missing,
            "alpha": data["alpha"],
        }
