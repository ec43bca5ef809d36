"""The model specification (contract §2), checked once for every caller."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import CaseModelError

__all__ = ["Characteristic", "ModelSpec", "parse_spec"]

_KNOWN = frozenset(
    {
        "task",
        "target",
        "metric",
        "outcome",
        "characteristics",
        "groups",
        "algorithms",
        "per_algorithm",
        "missing",
        "alpha",
    }
)


@dataclass(frozen=True)
class Characteristic:
    column: str
    reference: str | None = None

    def to_json(self) -> str | dict[str, str]:
        if self.reference is None:
            return self.column
        return {"column": self.column, "reference": self.reference}


@dataclass(frozen=True)
class ModelSpec:
    """A checked specification; :meth:`to_dict` is the spec as executed."""

    task: str | None
    target: str | None
    metric: str
    outcome: str  # "failure" or "value"
    below: float | None
    above: float | None
    characteristics: tuple[Characteristic, ...]
    groups: tuple[str, ...]
    algorithms: str | tuple[str, ...] | int  # "all", names, or top k
    per_algorithm: bool
    missing: str
    alpha: float

    @property
    def columns(self) -> list[str]:
        return [c.column for c in self.characteristics] + list(self.groups)

    def failed(self, value: float) -> bool:
        """Whether a present metric value is a failure."""
        if self.below is not None:
            return value < self.below
        return value > self.above  # type: ignore[operator]

    def to_dict(self) -> dict[str, Any]:
        outcome: dict[str, Any] = {"type": self.outcome}
        if self.below is not None:
            outcome["below"] = self.below
        if self.above is not None:
            outcome["above"] = self.above
        if isinstance(self.algorithms, int):
            algorithms: Any = {"top": self.algorithms}
        elif isinstance(self.algorithms, tuple):
            algorithms = list(self.algorithms)
        else:
            algorithms = self.algorithms
        out = {
            "task": self.task,
            "metric": self.metric,
            "outcome": outcome,
            "characteristics": [c.to_json() for c in self.characteristics],
            "groups": list(self.groups),
            "algorithms": algorithms,
            "per_algorithm": self.per_algorithm,
            "missing": self.missing,
            "alpha": self.alpha,
        }
        if self.target is not None:
            out["target"] = self.target
        return out


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CaseModelError(f"specification: {what} must be a non-empty name")
    return value.strip()


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CaseModelError(f"specification: {what} must be a number")
    if not math.isfinite(value):
        raise CaseModelError(f"specification: {what} must be finite")
    return float(value)


def parse_spec(data: Any) -> ModelSpec:
    """Check a specification dict and return it typed (contract §2)."""
    if not isinstance(data, dict):
        raise CaseModelError("specification: expected a JSON object")
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise CaseModelError(f"specification: unknown field {unknown[0]!r}")
    task = _name(data["task"], "task") if data.get("task") is not None else None
    target = _name(data["target"], "target") if data.get("target") is not None else None
    if "metric" not in data:
        raise CaseModelError("specification: 'metric' is required")
    metric = _name(data["metric"], "metric")
    outcome, below, above = _outcome(data.get("outcome"))
    characteristics = _characteristics(data.get("characteristics"))
    groups = _groups(data.get("groups", []))
    overlap = {c.column for c in characteristics} & set(groups)
    if overlap:
        raise CaseModelError(
            f"specification: column {sorted(overlap)[0]!r} is both a characteristic "
            "and a grouping"
        )
    if {"algorithm", "case", "task"} & set(groups):
        raise CaseModelError(
            "specification: 'algorithm', 'case' and 'task' cannot be groupings "
            "(the global model adds the algorithm intercept itself)"
        )
    default_missing = "failure" if outcome == "failure" else "drop"
    missing = data.get("missing", default_missing)
    if missing not in ("failure", "drop"):
        raise CaseModelError("specification: missing must be 'failure' or 'drop'")
    if outcome == "value" and missing != "drop":
        raise CaseModelError(
            "specification: value outcomes can only drop missing results"
        )
    per_algorithm = data.get("per_algorithm", True)
    if not isinstance(per_algorithm, bool):
        raise CaseModelError("specification: per_algorithm must be true or false")
    alpha = _number(data.get("alpha", 0.05), "alpha")
    if not 0.0 < alpha < 1.0:
        raise CaseModelError("specification: alpha must lie between 0 and 1")
    return ModelSpec(
        task=task,
        target=target,
        metric=metric,
        outcome=outcome,
        below=below,
        above=above,
        characteristics=characteristics,
        groups=groups,
        algorithms=_algorithms(data.get("algorithms", "all")),
        per_algorithm=per_algorithm,
        missing=missing,
        alpha=alpha,
    )


def _outcome(raw: Any) -> tuple[str, float | None, float | None]:
    if not isinstance(raw, dict) or raw.get("type") not in ("failure", "value"):
        raise CaseModelError("specification: outcome.type must be 'failure' or 'value'")
    extra = set(raw) - {"type", "below", "above"}
    if extra:
        raise CaseModelError(
            f"specification: unknown outcome field {sorted(extra)[0]!r}"
        )
    if raw["type"] == "value":
        if "below" in raw or "above" in raw:
            raise CaseModelError(
                "specification: a value outcome takes no failure threshold"
            )
        return "value", None, None
    if ("below" in raw) == ("above" in raw):
        raise CaseModelError(
            "specification: a failure outcome needs exactly one of below / above"
        )
    if "below" in raw:
        return "failure", _number(raw["below"], "outcome.below"), None
    return "failure", None, _number(raw["above"], "outcome.above")


def _characteristics(raw: Any) -> tuple[Characteristic, ...]:
    if not isinstance(raw, list) or not raw:
        raise CaseModelError("specification: characteristics must be a non-empty list")
    out = []
    for item in raw:
        if isinstance(item, dict):
            extra = set(item) - {"column", "reference"}
            if extra or "column" not in item:
                raise CaseModelError(
                    "specification: a characteristic object needs 'column' "
                    "(and optionally 'reference')"
                )
            reference = item.get("reference")
            if reference is not None:
                reference = _name(str(reference), "reference")
            out.append(Characteristic(_name(item["column"], "column"), reference))
        else:
            out.append(Characteristic(_name(item, "characteristic")))
    names = [c.column for c in out]
    if len(set(names)) != len(names):
        raise CaseModelError("specification: a characteristic is listed twice")
    if {"case", "task"} & set(names):
        raise CaseModelError("specification: 'case' and 'task' are not characteristics")
    return tuple(out)


def _groups(raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise CaseModelError("specification: groups must be a list of columns")
    names = tuple(_name(g, "grouping") for g in raw)
    if len(set(names)) != len(names):
        raise CaseModelError("specification: a grouping is listed twice")
    return names


def _algorithms(raw: Any) -> str | tuple[str, ...] | int:
    if raw == "all":
        return "all"
    if isinstance(raw, list):
        names = tuple(_name(a, "algorithm") for a in raw)
        if not names or len(set(names)) != len(names):
            raise CaseModelError(
                "specification: algorithms must list distinct names (at least one)"
            )
        return names
    if isinstance(raw, dict) and set(raw) == {"top"}:
        top = raw["top"]
        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise CaseModelError("specification: algorithms.top must be an integer ≥ 1")
        return top
    raise CaseModelError(
        "specification: algorithms must be 'all', a list of names or {\"top\": k}"
    )
