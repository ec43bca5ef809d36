"""The ranking-scheme form: every option of the contract, no JSON typing.

Metrics are chosen from the task's registered metrics, which also gives their
direction (shown, never re-entered) and the default substitute for missing
results (the registered worst value). The form only assembles the scheme; the
engine validates it (`registry.schemes.clean_task_scheme`) and its message,
which starts with the dotted field name, is shown next to the matching input.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from config.json_input import loads_bounded
from ranking import vocabulary
from ranking.scheme import (
    CONSENSUS_RULES,
    METHODS,
    MISSING_POLICIES,
    P_ADJUST,
    RANK_CI_METHODS,
    TARGET_RULES,
    TEST_METHODS,
    TIES,
)

from ..parameters import Role
from ..schemes import clean_task_scheme


def _choices(values, *, empty: str | None = None) -> list[tuple[str, str]]:
    options = [(v, vocabulary.label(v)) for v in values]
    return [("", empty), *options] if empty is not None else options


# Scheme field (dotted, as in the engine's messages) → form field.
ERROR_FIELDS = {
    "metric": "metrics",
    "combine": "combine",
    "higher_is_better": "metrics",
    "missing": "missing_policy",
    "missing.policy": "missing_policy",
    "method": "method",
    "aggregate": "aggregate",
    "aggregate.quantile": "quantile",
    "test": "test_name",
    "test.name": "test_name",
    "test.alpha": "test_alpha",
    "test.p_adjust": "test_p_adjust",
    "test.method": "test_method",
    "ties": "ties",
    "targets": "targets",
    "consensus": "consensus",
    "uncertainty": "bootstrap",
    "uncertainty.bootstrap": "bootstrap",
    "uncertainty.seed": "seed",
    "uncertainty.rank_ci": "rank_ci",
    "uncertainty.alpha": "ci_alpha",
}


def _number_text(value: Any) -> Any:
    return "" if value is None else value


def _css_class(widget: forms.Widget) -> str:
    """Bootstrap's class of an input (a checkbox's lines up with its label)."""
    if isinstance(widget, forms.CheckboxSelectMultiple):
        return "form-check-input"
    return "form-select" if isinstance(widget, forms.Select) else "form-control"


class SchemeForm(forms.Form):
    """One task's scheme. `metrics` are the task's registered metrics."""

    # The inputs grouped as in the contract (the page shows one box a group,
    # the group's name as its legend). A box's first label says what its input
    # is, not the legend again ("Missing results" / "Rule", not twice).
    GROUPS = (
        ("Metrics", ("metrics", "combine")),
        ("Method", ("method", "aggregate", "quantile", "ties")),
        ("Missing results", ("missing_policy",)),  # then one value per metric
        (
            "Significance test",
            ("test_name", "test_alpha", "test_p_adjust", "test_method"),
        ),
        ("Targets and tasks", ("targets", "consensus")),
        ("Uncertainty analysis", ("bootstrap", "seed", "rank_ci", "ci_alpha")),
    )

    metrics = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple,
        label="Rank by",
        help_text=f"From parameter {Role.METRICS.number}; the direction is the "
        "registered one.",
    )
    metric_as_list = forms.BooleanField(required=False, widget=forms.HiddenInput)
    combine = forms.ChoiceField(
        required=False,
        label="With several metrics",
        choices=[
            ("", "Keep a separate ranking per metric"),
            ("mean_rank", "Rank per metric, average the ranks, rank the averages"),
        ],
    )
    method = forms.ChoiceField(label="Order of steps", choices=_choices(METHODS))
    aggregate = forms.ChoiceField(
        label="Aggregate over cases",
        choices=_choices(("mean", "median", "quantile")),
        initial="mean",
    )
    quantile = forms.FloatField(
        required=False, label="q (for a quantile, 0 ≤ q ≤ 1)", localize=False
    )
    missing_policy = forms.ChoiceField(
        required=False,
        label="Rule",
        choices=_choices(MISSING_POLICIES, empty="No rule (runs with missing refused)"),
    )
    test_name = forms.ChoiceField(
        label="Pairwise test", choices=[("wilcoxon", "Paired Wilcoxon signed-rank")]
    )
    test_alpha = forms.FloatField(label="Test α", initial=0.05)
    test_p_adjust = forms.ChoiceField(
        label="Multiplicity adjustment", choices=_choices(P_ADJUST), initial="none"
    )
    test_method = forms.ChoiceField(
        label="Test p-values", choices=_choices(TEST_METHODS), initial="approx"
    )
    ties = forms.ChoiceField(label="Ties", choices=_choices(TIES), initial="min")
    targets = forms.ChoiceField(
        label="Targets combined by", choices=_choices(TARGET_RULES), initial="mean_rank"
    )
    consensus = forms.ChoiceField(
        required=False,
        label="Consensus over tasks",
        choices=_choices(CONSENSUS_RULES, empty="No consensus ranking"),
    )
    bootstrap = forms.IntegerField(label="Bootstrap samples", initial=1000)
    seed = forms.IntegerField(
        required=False, label="Seed", help_text="Makes every random draw reproducible."
    )
    rank_ci = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Rank confidence intervals",
        choices=_choices(RANK_CI_METHODS),
    )
    ci_alpha = forms.FloatField(label="Interval α", initial=0.05)

    def __init__(self, *args, task, registered: dict[str, dict[str, Any]], **kwargs):
        super().__init__(*args, **kwargs)
        self.task = task
        self.registered = registered
        self.fields["metrics"].choices = [
            (
                name,
                f"{name} ({'higher' if m['higher_is_better'] else 'lower'} is better)",
            )
            for name, m in registered.items()
        ]
        self.value_fields: list[tuple[str, str]] = []
        for index, (name, metric) in enumerate(registered.items()):
            key = f"missing_value_{index}"
            self.fields[key] = forms.FloatField(
                required=False,
                label=f"Value for a missing {name}",
                help_text="Defaults to the registered worst value.",
            )
            self.initial.setdefault(key, metric.get("worst_value"))
            self.value_fields.append((name, key))
        for field in self.fields.values():
            widget = field.widget
            if isinstance(widget, forms.HiddenInput):
                continue
            widget.attrs.setdefault("class", _css_class(widget))

    # --- initial data from a stored scheme ---------------------------------------

    @staticmethod
    def initial_from(scheme: dict[str, Any] | None) -> dict[str, Any]:
        """Form data for a (normalised) scheme; {} for none."""
        if not scheme:
            return {}
        metric = scheme["metric"]
        metrics = metric if isinstance(metric, list) else [metric]
        aggregate = scheme.get("aggregate", "mean")
        test = scheme.get("test") or {}
        unc = scheme.get("uncertainty") or {}
        initial = {
            "metrics": metrics,
            "metric_as_list": isinstance(metric, list),
            "combine": scheme.get("combine") or "",
            "method": scheme["method"],
            "aggregate": "quantile" if isinstance(aggregate, dict) else aggregate,
            "quantile": aggregate["quantile"] if isinstance(aggregate, dict) else None,
            "missing_policy": (scheme.get("missing") or {}).get("policy", ""),
            "test_name": test.get("name", "wilcoxon"),
            "test_alpha": test.get("alpha", 0.05),
            "test_p_adjust": test.get("p_adjust", "none"),
            "test_method": test.get("method", "approx"),
            "ties": scheme.get("ties", "min"),
            "targets": scheme.get("targets", "mean_rank"),
            "consensus": scheme.get("consensus") or "",
            "bootstrap": unc.get("bootstrap", 1000),
            "seed": unc.get("seed"),
            "rank_ci": unc.get("rank_ci", []),
            "ci_alpha": unc.get("alpha", 0.05),
        }
        missing_value = (scheme.get("missing") or {}).get("value")
        initial["_missing_value"] = missing_value
        return initial

    def set_scheme_initial(self, scheme: dict[str, Any] | None) -> None:
        initial = self.initial_from(scheme)
        missing_value = initial.pop("_missing_value", None)
        self.initial.update(initial)
        if missing_value is not None:
            for name, key in self.value_fields:
                value = (
                    missing_value.get(name)
                    if isinstance(missing_value, dict)
                    else missing_value
                )
                if value is not None:
                    self.initial[key] = value

    # --- the scheme from the cleaned data ---------------------------------------

    def scheme(self) -> dict[str, Any]:
        data = self.cleaned_data
        metrics = list(data.get("metrics") or [])
        directions = {m: self.registered[m]["higher_is_better"] for m in metrics}
        distinct = set(directions.values())
        scheme: dict[str, Any] = {
            "metric": metrics
            if len(metrics) != 1 or data.get("metric_as_list")
            else metrics[0],
            "combine": data.get("combine") or None,
            "higher_is_better": distinct.pop() if len(distinct) == 1 else directions,
            "method": data.get("method"),
            "ties": data.get("ties"),
            "targets": data.get("targets"),
            "consensus": data.get("consensus") or None,
            "test": {
                "name": data.get("test_name"),
                "alpha": data.get("test_alpha"),
                "p_adjust": data.get("test_p_adjust"),
                "method": data.get("test_method"),
            },
            "uncertainty": {
                "bootstrap": data.get("bootstrap"),
                "seed": data.get("seed"),
                "rank_ci": list(data.get("rank_ci") or []),
                "alpha": data.get("ci_alpha"),
            },
        }
        aggregate = data.get("aggregate")
        scheme["aggregate"] = (
            {"quantile": data.get("quantile")} if aggregate == "quantile" else aggregate
        )
        policy = data.get("missing_policy")
        if policy:
            scheme["missing"] = {"policy": policy}
            if policy == "value":
                values = {}
                for name, key in self.value_fields:
                    if name in metrics:
                        values[name] = data.get(key)
                scheme["missing"]["value"] = values
        else:
            scheme["missing"] = None
        return scheme

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            self.cleaned_scheme = clean_task_scheme(self.task, self.scheme())
        except ValidationError as exc:
            self.add_scheme_errors(exc)
        return cleaned

    def add_scheme_errors(self, error: ValidationError) -> None:
        """Attach "scheme.<field>: message" to the input of that field."""
        for messages in error.message_dict.values():
            for message in messages:
                self.add_error(self.field_for(message), message.removeprefix("scheme."))

    def field_for(self, message: str) -> str | None:
        dotted = message.removeprefix("scheme.").split(":", 1)[0].strip()
        if dotted.startswith("missing.value"):
            metric = dotted.removeprefix("missing.value").lstrip(".")
            named = [k for n, k in self.value_fields if n == metric]
            if named:
                return named[0]
            keys = [k for n, k in self.value_fields if n in self.data_metrics()]
            return keys[0] if keys else "missing_policy"
        while dotted:
            if dotted in ERROR_FIELDS:
                return ERROR_FIELDS[dotted]
            dotted = dotted.rpartition(".")[0]
        return None

    def data_metrics(self) -> list[str]:
        return list(getattr(self, "cleaned_data", {}).get("metrics") or [])

    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        """(legend, inputs) of each group of `GROUPS`; the missing-value inputs
        follow the missing-results policy."""
        groups = []
        for legend, keys in self.GROUPS:
            fields = [self[key] for key in keys]
            if "missing_policy" in keys:
                fields += [self[key] for _, key in self.value_fields]
            groups.append((legend, fields))
        return groups


class SchemeJsonForm(forms.Form):
    """The scheme as JSON, for power users (export and import)."""

    scheme_json = forms.CharField(
        label="Scheme as JSON",
        widget=forms.Textarea(
            attrs={"rows": 14, "class": "form-control font-monospace"}
        ),
        help_text="The contract format (shared/reference/ranking-scheme.md).",
    )

    def clean_scheme_json(self):
        text = self.cleaned_data["scheme_json"]
        try:
            return loads_bounded(text)
        except ValueError as exc:
            raise forms.ValidationError(f"scheme: not valid JSON ({exc}).") from None


def scheme_json_text(scheme: dict[str, Any] | None) -> str:
    return "" if scheme is None else json.dumps(scheme, indent=2, sort_keys=True)
