"""Form inputs for each answer kind of the catalogue.

A widget reads what the user typed into a "raw" shape (strings only, so that a
refused form shows exactly what was typed); its field turns the raw shape into
the value `Parameter.clean` expects, or None when nothing was entered. Stored
values are turned back into the raw shape with `to_raw`.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from django import forms

from ..answer_kinds import OTHER
from ..parameters import Parameter

# --- widgets ------------------------------------------------------------------


class _RawWidget(forms.Widget):
    """A widget made of several named inputs `<name>-<part>`."""

    parts: tuple[str, ...] = ("details",)
    list_parts: tuple[str, ...] = ()

    def __init__(self, parameter: Parameter, attrs=None):
        super().__init__(attrs)
        self.parameter = parameter

    def value_from_datadict(self, data, files, name):
        raw: dict[str, Any] = {p: data.get(f"{name}-{p}", "") for p in self.parts}
        for part in self.list_parts:
            raw[part] = data.getlist(f"{name}-{part}")
        return raw

    def value_omitted_from_data(self, data, files, name):
        return False

    def format_value(self, value):
        return value or {}

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        context["widget"]["parameter"] = self.parameter
        context["widget"]["choices"] = (*self.parameter.choices, OTHER)
        return context


class ChoiceWidget(_RawWidget):
    template_name = "registry/widgets/choice.html"
    parts = ("choice", "details")


class MultiChoiceWidget(_RawWidget):
    template_name = "registry/widgets/multichoice.html"
    list_parts = ("choices",)

    def id_for_label(self, id_):
        return f"{id_}-1" if id_ else id_  # the first checkbox


class CountWidget(_RawWidget):
    template_name = "registry/widgets/count.html"
    parts = ("count", "details")


class InstitutionsWidget(_RawWidget):
    template_name = "registry/widgets/institutions.html"
    parts = ("institutions", "name", "email", "details")


class _RowsWidget(_RawWidget):
    """Repeating rows; a few blank ones are the no-JavaScript way to add more."""

    columns: tuple[str, ...] = ()
    blank_rows = 2

    def value_from_datadict(self, data, files, name):
        raw = super().value_from_datadict(data, files, name)
        columns = [data.getlist(f"{name}-{c}") for c in self.columns]
        raw["rows"] = [
            dict(zip(self.columns, cells, strict=True))
            for cells in zip_longest(*columns, fillvalue="")
        ]
        return raw

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        rows = [r for r in (value or {}).get("rows", []) if _any_text(r)]
        rows += [dict.fromkeys(self.columns, "")] * self.blank_rows
        context["widget"]["rows"] = rows
        return context


class ScheduleWidget(_RowsWidget):
    template_name = "registry/widgets/schedule.html"
    columns = ("date", "event")


class MetricsWidget(_RowsWidget):
    """`higher` is a checkbox: its value is the row index (unchecked = absent)."""

    template_name = "registry/widgets/metrics.html"
    columns = ("name", "worst", "lower", "upper")
    list_parts = ("higher",)

    def value_from_datadict(self, data, files, name):
        raw = super().value_from_datadict(data, files, name)
        higher = set(raw.pop("higher"))
        for index, row in enumerate(raw["rows"]):
            row["higher"] = str(index) in higher
        return raw


def _any_text(row: dict[str, Any]) -> bool:
    return any(str(v).strip() for v in row.values() if isinstance(v, str))


# --- fields -------------------------------------------------------------------


class AnswerField(forms.Field):
    """Turns the raw input of one parameter into a value (None = empty)."""

    def __init__(self, parameter: Parameter, **kwargs):
        self.parameter = parameter
        kwargs.setdefault("widget", WIDGETS[parameter.kind](parameter))
        super().__init__(required=False, label=parameter.name, **kwargs)

    def to_python(self, raw):
        return _TO_VALUE[self.parameter.kind](raw or {})


class TextAnswerField(forms.CharField):
    def __init__(self, parameter: Parameter, **kwargs):
        self.parameter = parameter
        widget = (
            forms.URLInput(attrs={"class": "form-control", "data-fill": ""})
            if parameter.kind == "url"
            else forms.Textarea(
                attrs={"class": "form-control", "rows": 3, "data-fill": ""}
            )
        )
        super().__init__(required=False, label=parameter.name, widget=widget)

    def to_python(self, value):
        return super().to_python(value) or None


def _strip(raw: dict[str, Any], part: str) -> str:
    return str(raw.get(part, "")).strip()


def _choice(raw):
    if not (_strip(raw, "choice") or _strip(raw, "details")):
        return None
    return {"choice": _strip(raw, "choice"), "details": _strip(raw, "details")}


def _multichoice(raw):
    picked = [c for c in raw.get("choices", []) if c]
    if not (picked or _strip(raw, "details")):
        return None
    return {"choices": picked, "details": _strip(raw, "details")}


def _count(raw):
    count, details = _strip(raw, "count"), _strip(raw, "details")
    if not (count or details):
        return None
    try:
        number = int(count) if count else None
    except ValueError:
        raise forms.ValidationError(
            f"count: {count!r} is not a whole number."
        ) from None
    return {"count": number, "details": details}


def _schedule(raw):
    rows = [r for r in raw.get("rows", []) if _any_text(r)]
    details = _strip(raw, "details")
    if not (rows or details):
        return None
    events = [{"date": _strip(r, "date"), "event": _strip(r, "event")} for r in rows]
    return {"events": events, "details": details}


def _institutions(raw):
    if not any(_strip(raw, p) for p in ("institutions", "name", "email", "details")):
        return None
    lines = [line.strip() for line in _strip(raw, "institutions").splitlines()]
    return {
        "institutions": [line for line in lines if line],
        "contact": {"name": _strip(raw, "name"), "email": _strip(raw, "email")},
        "details": _strip(raw, "details"),
    }


def _number(text: str, where: str) -> float | int | None:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise forms.ValidationError(f"{where}: {text!r} is not a number.") from None


def _metrics(raw):
    rows = [r for r in raw.get("rows", []) if _any_text(r)]
    details = _strip(raw, "details")
    if not (rows or details):
        return None
    metrics = []
    for i, row in enumerate(rows, start=1):
        metrics.append(
            {
                "name": _strip(row, "name"),
                "higher_is_better": bool(row.get("higher")),
                "worst_value": _number(row["worst"], f"metrics[{i}].worst value"),
                "lower_bound": _number(row["lower"], f"metrics[{i}].lower bound"),
                "upper_bound": _number(row["upper"], f"metrics[{i}].upper bound"),
            }
        )
    return {"metrics": metrics, "details": details}


WIDGETS: dict[str, type[_RawWidget]] = {
    "choice": ChoiceWidget,
    "multichoice": MultiChoiceWidget,
    "count": CountWidget,
    "schedule": ScheduleWidget,
    "institutions": InstitutionsWidget,
    "metrics": MetricsWidget,
}
_TO_VALUE = {
    "choice": _choice,
    "multichoice": _multichoice,
    "count": _count,
    "schedule": _schedule,
    "institutions": _institutions,
    "metrics": _metrics,
}


def answer_field(parameter: Parameter) -> forms.Field:
    if parameter.kind in ("text", "url"):
        return TextAnswerField(parameter)
    return AnswerField(parameter)


def _num_text(number: float | None) -> str:
    return "" if number is None else f"{number:g}"


def to_raw(parameter: Parameter, value: Any) -> Any:
    """The stored value in the shape the parameter's input shows."""
    if value is None:
        return None
    kind = parameter.kind
    if kind in ("text", "url"):
        return value
    if kind == "choice":
        return {"choice": value["choice"], "details": value.get("details", "")}
    if kind == "multichoice":
        return {"choices": value["choices"], "details": value.get("details", "")}
    if kind == "count":
        return {"count": str(value["count"]), "details": value.get("details", "")}
    if kind == "schedule":
        return {"rows": value["events"], "details": value.get("details", "")}
    if kind == "institutions":
        return {
            "institutions": "\n".join(value["institutions"]),
            "name": value["contact"]["name"],
            "email": value["contact"]["email"],
            "details": value.get("details", ""),
        }
    if kind == "metrics":
        rows = [
            {
                "name": m["name"],
                "higher": m["higher_is_better"],
                "worst": _num_text(m.get("worst_value")),
                "lower": _num_text(m.get("lower_bound")),
                "upper": _num_text(m.get("upper_bound")),
            }
            for m in value["metrics"]
        ]
        return {"rows": rows, "details": value.get("details", "")}
    raise ValueError(f"No input for answer kind {kind!r}.")
