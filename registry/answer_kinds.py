"""The shapes an answer to a challenge parameter can take.

Each kind knows how to validate a submitted value (returning the normalised value
that is stored), whether a stored value counts as answered, an example value that
the API accepts, and a plain-text rendering for PDFs and diffs. The parameter
catalogue (`registry.parameters`) names a kind per parameter; nothing else in the
code base needs to know the shapes.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, URLValidator

OTHER = "other"


class AnswerKind:
    """Base class: a kind of answer (free text, choice, count, metrics, ...)."""

    name: str = ""

    def clean(self, value: Any, *, choices: tuple[str, ...] = ()) -> Any:
        raise NotImplementedError

    def is_filled(self, value: Any) -> bool:
        return bool(value)

    def example(self, *, choices: tuple[str, ...] = ()) -> Any:
        raise NotImplementedError

    def to_text(self, value: Any) -> str:
        return str(value) if value else ""


class _ObjectKind(AnswerKind):
    """An answer object that counts as answered when its ``filled_by`` key
    holds something (the choice, the options, the items): details alone do not."""

    filled_by: str = ""

    def is_filled(self, value: Any) -> bool:
        return bool(value and value.get(self.filled_by))


def _text(value: Any, field: str, *, required: bool = True, limit: int = 20000) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValidationError(f"{field}: expected text, got {type(value).__name__}.")
    value = value.strip()
    if required and not value:
        raise ValidationError(f"{field}: must not be empty.")
    if len(value) > limit:
        raise ValidationError(f"{field}: at most {limit} characters.")
    return value


def _object(value: Any, allowed: set[str]) -> dict:
    if not isinstance(value, dict):
        raise ValidationError(
            f"expected an object with keys {sorted(allowed)}, "
            f"got {type(value).__name__}."
        )
    unknown = set(value) - allowed
    if unknown:
        raise ValidationError(
            f"unknown keys {sorted(unknown)}; allowed {sorted(allowed)}."
        )
    return value


def _list(value: dict, field: str, refusal: str) -> list:
    """``value[field]`` if it is a list of at least one item; else the refusal."""
    items = value.get(field)
    if not isinstance(items, list) or not items:
        raise ValidationError(f"{field}: {refusal}")
    return items


def _with_details(text: str, value: dict) -> str:
    """`text`, then the answer's details (if any) as a sentence of their own."""
    return f"{text}. {value['details']}" if value.get("details") else text


def _number(value: Any, field: str, *, allow_none: bool = False) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"{field}: expected a number.")
    if not math.isfinite(value):
        raise ValidationError(f"{field}: must be finite.")
    return value


class TextKind(AnswerKind):
    name = "text"

    def clean(self, value, *, choices=()):
        return _text(value, "value")

    def example(self, *, choices=()):
        return "A free-text description."


class UrlKind(AnswerKind):
    name = "url"

    def clean(self, value, *, choices=()):
        url = _text(value, "value", limit=2000)
        try:
            URLValidator(schemes=["http", "https"])(url)
        except ValidationError:
            raise ValidationError(f"value: {url!r} is not an http(s) URL.") from None
        return url

    def example(self, *, choices=()):
        return "https://challenge.example.org"


class ChoiceKind(_ObjectKind):
    """One option from the catalogue's list, or "other" with details."""

    name = "choice"
    filled_by = "choice"

    def clean(self, value, *, choices=()):
        value = _object(value, {"choice", "details"})
        choice = _text(value.get("choice"), "choice")
        if choice not in (*choices, OTHER):
            raise ValidationError(
                f"choice: {choice!r} is not one of {[*choices, OTHER]}."
            )
        details = _text(value.get("details"), "details", required=choice == OTHER)
        return {"choice": choice, "details": details}

    def example(self, *, choices=()):
        return {"choice": choices[0] if choices else OTHER, "details": "Why."}

    def to_text(self, value):
        if not value:
            return ""
        return _with_details(value["choice"], value)


class MultiChoiceKind(_ObjectKind):
    """Several options from the catalogue's list (or "other"), with details."""

    name = "multichoice"
    filled_by = "choices"

    def clean(self, value, *, choices=()):
        value = _object(value, {"choices", "details"})
        picked = _list(value, "choices", "pick at least one option.")
        for item in picked:
            if item not in (*choices, OTHER):
                raise ValidationError(
                    f"choices: {item!r} is not one of {[*choices, OTHER]}."
                )
        details = _text(value.get("details"), "details", required=OTHER in picked)
        ordered = [c for c in (*choices, OTHER) if c in picked]
        return {"choices": ordered, "details": details}

    def example(self, *, choices=()):
        return {"choices": list(choices[:2]), "details": ""}

    def to_text(self, value):
        if not value:
            return ""
        return _with_details(", ".join(value["choices"]), value)


MAX_COUNT = 10**12  # cases: far above any challenge, far below 64-bit integers


class CountKind(AnswerKind):
    """A number of cases, with a description of how they split."""

    name = "count"

    def clean(self, value, *, choices=()):
        value = _object(value, {"count", "details"})
        count = value.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValidationError("count: expected a whole number ≥ 0.")
        if count > MAX_COUNT:  # SQLite stores at most 2^63 - 1 (OverflowError)
            raise ValidationError(f"count: at most {MAX_COUNT:_}.".replace("_", " "))
        return {
            "count": count,
            "details": _text(value.get("details"), "details", required=False),
        }

    def is_filled(self, value):
        return bool(value) and value.get("count") is not None

    def example(self, *, choices=()):
        return {"count": 100, "details": "50 patients, two scans each."}

    def to_text(self, value):
        if not value:
            return ""
        return _with_details(str(value["count"]), value)


class ScheduleKind(_ObjectKind):
    """Dated milestones (release of training data, submission deadline, ...)."""

    name = "schedule"
    filled_by = "events"

    def clean(self, value, *, choices=()):
        value = _object(value, {"events", "details"})
        events = _list(value, "events", "give at least one dated event.")
        cleaned = []
        for i, event in enumerate(events, start=1):
            if not isinstance(event, dict):
                raise ValidationError(f"events[{i}]: expected {{date, event}}.")
            try:
                date = dt.date.fromisoformat(str(event.get("date", "")))
            except ValueError:
                raise ValidationError(
                    f"events[{i}].date: {event.get('date')!r} is not YYYY-MM-DD."
                ) from None
            label = _text(event.get("event"), f"events[{i}].event", limit=500)
            cleaned.append({"date": date.isoformat(), "event": label})
        cleaned.sort(key=lambda e: e["date"])
        details = _text(value.get("details"), "details", required=False)
        return {"events": cleaned, "details": details}

    def example(self, *, choices=()):
        return {
            "events": [
                {"date": "2027-04-01", "event": "Release of training data"},
                {"date": "2027-08-01", "event": "Submission deadline"},
            ],
            "details": "",
        }

    def to_text(self, value):
        if not value:
            return ""
        lines = [f"{e['date']}: {e['event']}" for e in value["events"]]
        if value.get("details"):
            lines.append(value["details"])
        return "\n".join(lines)


class InstitutionsKind(_ObjectKind):
    """Organizing institutions (used for conflict-of-interest checks) and contact."""

    name = "institutions"
    filled_by = "institutions"

    def clean(self, value, *, choices=()):
        value = _object(value, {"institutions", "contact", "details"})
        institutions = _list(value, "institutions", "name at least one institution.")
        names = [_text(n, "institutions[]", limit=300) for n in institutions]
        contact = _object(value.get("contact") or {}, {"name", "email"})
        name = _text(contact.get("name"), "contact.name", limit=300)
        email = _text(contact.get("email"), "contact.email", limit=300)
        try:
            EmailValidator()(email)
        except ValidationError:
            raise ValidationError(f"contact.email: {email!r} is not valid.") from None
        details = _text(value.get("details"), "details", required=False)
        return {
            "institutions": names,
            "contact": {"name": name, "email": email},
            "details": details,
        }

    def example(self, *, choices=()):
        return {
            "institutions": ["German Cancer Research Center (DKFZ)"],
            "contact": {"name": "Jane Doe", "email": "jane.doe@example.org"},
            "details": "",
        }

    def to_text(self, value):
        if not value:
            return ""
        contact = value["contact"]
        text = "; ".join(value["institutions"])
        text += f". Contact: {contact['name']} <{contact['email']}>"
        return _with_details(text, value)


METRIC_KEYS = {"name", "higher_is_better", "worst_value", "lower_bound", "upper_bound"}


class MetricsKind(_ObjectKind):
    """Metrics the application computes with: name, direction, worst value, bounds."""

    name = "metrics"
    filled_by = "metrics"

    def clean(self, value, *, choices=()):
        value = _object(value, {"metrics", "details"})
        metrics = _list(value, "metrics", "name at least one metric.")
        cleaned, seen = [], set()
        for i, metric in enumerate(metrics, start=1):
            where = f"metrics[{i}]"
            metric = _object(metric, METRIC_KEYS)
            name = _text(metric.get("name"), f"{where}.name", limit=100)
            if name in seen:
                raise ValidationError(f"{where}.name: {name!r} is listed twice.")
            seen.add(name)
            higher = metric.get("higher_is_better")
            if not isinstance(higher, bool):
                raise ValidationError(f"{where}.higher_is_better: expected true/false.")
            lower = _number(
                metric.get("lower_bound"), f"{where}.lower_bound", allow_none=True
            )
            upper = _number(
                metric.get("upper_bound"), f"{where}.upper_bound", allow_none=True
            )
            if lower is not None and upper is not None and lower > upper:
                raise ValidationError(f"{where}: lower_bound exceeds upper_bound.")
            worst = _number(
                metric.get("worst_value"), f"{where}.worst_value", allow_none=True
            )
            cleaned.append(
                {
                    "name": name,
                    "higher_is_better": higher,
                    "worst_value": worst,
                    "lower_bound": lower,
                    "upper_bound": upper,
                }
            )
        details = _text(value.get("details"), "details", required=False)
        return {"metrics": cleaned, "details": details}

    def example(self, *, choices=()):
        return {
            "metrics": [
                {
                    "name": "DSC",
                    "higher_is_better": True,
                    "worst_value": 0,
                    "lower_bound": 0,
                    "upper_bound": 1,
                },
                {
                    "name": "NSD",
                    "higher_is_better": True,
                    "worst_value": 0,
                    "lower_bound": 0,
                    "upper_bound": 1,
                },
            ],
            "details": "",
        }

    def to_text(self, value):
        if not value:
            return ""
        parts = []
        for m in value["metrics"]:
            direction = (
                "higher is better" if m["higher_is_better"] else "lower is better"
            )
            extra = [direction]
            if m.get("worst_value") is not None:
                extra.append(f"worst value {m['worst_value']:g}")
            if m.get("lower_bound") is not None or m.get("upper_bound") is not None:
                lo = "-inf" if m.get("lower_bound") is None else f"{m['lower_bound']:g}"
                hi = "inf" if m.get("upper_bound") is None else f"{m['upper_bound']:g}"
                extra.append(f"range [{lo}, {hi}]")
            parts.append(f"{m['name']} ({', '.join(extra)})")
        text = "; ".join(parts)
        return _with_details(text, value)


KINDS: dict[str, AnswerKind] = {
    kind.name: kind
    for kind in (
        TextKind(),
        UrlKind(),
        ChoiceKind(),
        MultiChoiceKind(),
        CountKind(),
        ScheduleKind(),
        InstitutionsKind(),
        MetricsKind(),
    )
}
