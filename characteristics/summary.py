"""The run in words and tables, shared by the page and the PDF (no ORM)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Finding:
    """One characteristic's effect in one model, in plain words."""

    term: str
    direction: str  # "raises", "lowers", "unclear", "not estimable"
    sentence: str


def _fmt(x: float) -> str:
    return f"{x:.2f}" if abs(x) < 100 else f"{x:.3g}"


def findings(output: Mapping[str, Any], model: Mapping[str, Any]) -> list[Finding]:
    """Which characteristics raise (or lower) the odds of failure, with the
    interval, and which show no evidence either way."""
    level = round(100 * (1 - output["spec"]["alpha"]))
    if not model["converged"]:
        reason = (model.get("warnings") or ["The model could not be estimated."])[0]
        return [Finding("", "not estimable", f"Not estimable. {reason}")]
    binomial = model["family"] == "binomial"
    metric = output["spec"]["metric"]
    out = []
    for entry in model["fixed"][1:]:
        term = entry["term"]
        if binomial:
            point, low, high = (
                entry["odds_ratio"],
                entry["or_ci_low"],
                entry["or_ci_high"],
            )
            null = 1.0
            effect = f"odds ratio {_fmt(point)} ({level} % CI {_fmt(low)}–{_fmt(high)})"
            raise_text, lower_text = (
                "raises the odds of failure",
                "lowers the odds of failure",
            )
        else:
            point, low, high = entry["estimate"], entry["ci_low"], entry["ci_high"]
            null = 0.0
            effect = f"change {_fmt(point)} ({level} % CI {_fmt(low)} to {_fmt(high)})"
            raise_text, lower_text = f"raises {metric}", f"lowers {metric}"
        if low > null:
            direction, verb = "raises", raise_text
        elif high < null:
            direction, verb = "lowers", lower_text
        else:
            direction = "unclear"
            verb = "shows no evidence either way"
        out.append(Finding(term, direction, f"{term} {verb}: {effect}."))
    return out


def failure_rate_table(output: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of failure rates (or mean values) per level and algorithm."""
    algorithms = ["all", *output["spec"]["algorithms_modelled"]]
    failure = output["spec"]["outcome"]["type"] == "failure"
    header = ["Characteristic", "Level", *algorithms]
    rows = []
    for entry in output.get("levels", []):
        cells = [entry["characteristic"], entry["level"]]
        for algorithm in algorithms:
            cell = entry["by_algorithm"].get(algorithm, {})
            rate, n = cell.get("rate"), cell.get("n", 0)
            if rate is None:
                cells.append("–")
            elif failure:
                cells.append(f"{100 * rate:.0f} % (n={n})")
            else:
                cells.append(f"{rate:.3g} (n={n})")
        rows.append(cells)
    return header, rows
