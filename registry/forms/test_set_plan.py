"""The "Plan the test set" form: a parametric expected-performance model, or a
pilot (previous edition's) results table uploaded as CSV."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError

from ..test_set_plans import DEFAULT_INPUTS

_MODEL = DEFAULT_INPUTS["model"]
#: The engine's field names (docs/ranking-engine.md) → this form's fields.
SPEC_FIELDS = {
    "model.means": "means",
    "model.algorithms": "algorithms",
    "model.best": "best",
    "model.gap": "gap",
    "model.sd": "sd",
    "model.correlation": "correlation",
    "model.missing_rate": "missing_rate",
    "model": "means",
    "model.table": "pilot",
    "model.task": "pilot_task",
    "model.kind": "pilot",
    "n": "n_grid",
    "simulations": "simulations",
    "seed": "seed",
    "targets.p_winner": "target_p_winner",
}


def _grid_text(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


class TestSetPlanForm(forms.Form):
    """The organizer's expectations; ``inputs()`` gives the planner's inputs."""

    __test__ = False  # not a pytest test class

    means = forms.CharField(
        required=False,
        label="Expected metric value per algorithm (optional)",
        help_text="E.g. “A: 0.86, B: 0.85, C: 0.80”. Leave empty to describe "
        "evenly spaced algorithms below.",
        widget=forms.TextInput(attrs={"class": "form-control"}),
    )
    pilot = forms.FileField(
        required=False,
        label="Pilot results table (CSV)",
        help_text="A previous edition's or a pilot's results in the registry's "
        "results format; its cases are resampled, and the values above are "
        "not used.",
    )
    pilot_task = forms.CharField(
        required=False,
        label="Task of the pilot table",
        help_text="Needed when the table has several tasks.",
    )
    # The table of the last computed pilot plan, so "attach" needs no new upload.
    pilot_table = forms.CharField(required=False, strip=False, widget=forms.HiddenInput)
    algorithms = forms.IntegerField(
        initial=_MODEL["algorithms"], min_value=2, label="Expected algorithms"
    )
    best = forms.FloatField(
        initial=_MODEL["best"], label="Expected value of the best algorithm"
    )
    gap = forms.FloatField(
        initial=_MODEL["gap"],
        min_value=0,
        label="Gap between neighbouring algorithms",
        help_text="How much worse each next algorithm is expected to be.",
    )
    sd = forms.FloatField(
        initial=_MODEL["sd"],
        label="Spread between cases (standard deviation)",
        help_text="How much one algorithm's value varies from case to case.",
    )
    correlation = forms.FloatField(
        initial=_MODEL["correlation"],
        min_value=0,
        max_value=0.99,
        label="Correlation between algorithms on the same case",
        help_text="High when hard cases are hard for every algorithm.",
    )
    missing_rate = forms.FloatField(
        initial=0.0, min_value=0, max_value=0.99, label="Share of missing results"
    )
    n_grid = forms.CharField(
        initial=_grid_text(DEFAULT_INPUTS["n"]),
        label="Numbers of test cases to try",
        widget=forms.TextInput(attrs={"class": "form-control"}),
    )
    simulations = forms.IntegerField(
        initial=DEFAULT_INPUTS["simulations"],
        min_value=1,
        label="Simulated challenges per number of test cases",
    )
    seed = forms.IntegerField(initial=DEFAULT_INPUTS["seed"], min_value=0)
    target_p_winner = forms.FloatField(
        initial=DEFAULT_INPUTS["targets"]["p_winner"],
        min_value=0,
        max_value=1,
        label="Target: probability that the true best algorithm ranks first",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.widget.attrs.setdefault("class", "form-control")

    def clean_means(self) -> dict[str, float] | None:
        text = self.cleaned_data["means"].strip()
        if not text:
            return None
        means: dict[str, float] = {}
        for item in text.split(","):
            name, sep, value = item.partition(":")
            try:
                number = float(value)
            except ValueError:
                number = None
            if not sep or not name.strip() or number is None:
                raise ValidationError(
                    f"“{item.strip()}”: expected “name: value”, e.g. “A: 0.86”."
                )
            means[name.strip()] = number
        return means

    def clean_pilot(self) -> str | None:
        upload = self.cleaned_data.get("pilot")
        if not upload:
            return None
        limit = settings.PLAN_PILOT_MAX_BYTES
        if upload.size > limit:
            raise ValidationError(
                f"The table has {upload.size:,} bytes; at most {limit:,}."
            )
        try:
            return upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValidationError("Expected a CSV file in UTF-8.") from None

    def clean_n_grid(self) -> list[int]:
        try:
            return [int(v) for v in self.cleaned_data["n_grid"].split(",") if v.strip()]
        except ValueError:
            raise ValidationError(
                "Expected whole numbers separated by commas, e.g. “10, 20, 50”."
            ) from None

    def inputs(self) -> dict[str, Any]:
        data = self.cleaned_data
        table = data["pilot"] or data["pilot_table"]
        if table:
            return {
                **self._plan_inputs(),
                "model": {"kind": "pilot", "task": data["pilot_task"], "table": table},
            }
        model: dict[str, Any] = {
            "kind": "parametric",
            "sd": data["sd"],
            "correlation": data["correlation"],
            "missing_rate": data["missing_rate"],
        }
        if data["means"]:
            model["means"] = data["means"]
        else:
            model.update(
                algorithms=data["algorithms"], best=data["best"], gap=data["gap"]
            )
        return {"model": model, **self._plan_inputs()}

    def _plan_inputs(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "n": data["n_grid"],
            "simulations": data["simulations"],
            "seed": data["seed"],
            "targets": {"p_winner": data["target_p_winner"]},
        }

    def add_plan_errors(self, exc: ValidationError) -> None:
        """Errors of the planner, each on the field it names."""
        for name, messages in exc.message_dict.items():
            field = SPEC_FIELDS.get(name)
            for message in messages:
                self.add_error(field, message if field else f"{name}: {message}")


def initial_from_plan(plan: dict[str, Any]) -> dict[str, Any]:
    """The form's initial values from an attached plan's inputs."""
    model = plan["model"]
    initial = {
        "sd": model["sd"],
        "correlation": model["correlation"],
        "missing_rate": model.get("missing_rate", 0.0),
        "n_grid": _grid_text([r["n"] for r in plan["n"]]),
        "simulations": plan["simulations"],
        "seed": plan["seed"],
        "target_p_winner": plan["targets"].get("p_winner", 0.9),
        "means": ", ".join(f"{a}: {v:g}" for a, v in model["means"].items()),
    }
    return initial
