"""Registry statistics: what registered designs say, parameter by parameter.

Rules (also in docs/public-record.md):
- The unit is the latest registered version of each registration in the
  selection (optionally one call and/or one year).
- `parameters`: a design *answers* a parameter when it holds a filled value for
  it; a task-level parameter must hold one for every task (a design without
  tasks answers none). The challenge name lives on the design row
  and counts when the name is not empty. `not_applicable` counts designs that
  mark the parameter not applicable (at the challenge level, or for at least
  one task); they do not count as answered. `share` = answered / designs.
- `distributions`: per task, values → counts. Method, aggregation,
  missing-data rule and bootstrap replicates come from the task's executable
  ranking scheme (tasks without one are counted in `tasks_without_scheme`);
  metrics from the scheme, or from the task's metrics answer when it has no
  scheme; test cases from the "Number of test cases" answer.
- `amendments`: every amendment of a registration in the selection, by status,
  and what the approved ones changed (a parameter, or a task's scheme).
- `deviations` (follow the registration): of the registrations' published
  results (the latest public result of each; unpublished, embargoed and
  exploratory analyses are not counted), how many there are, how many have no
  deviation, and per deviation code the challenges and the flags
  (publicrecord.follow_up).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
from collections import Counter
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache

from analysis.models import AnalysisStatus
from registry.models import Amendment, AmendmentStatus
from registry.page_cache import read_generation
from registry.parameters import PARAMETERS, Parameter, Role, get_parameter
from registry.spreadsheet import spreadsheet_safe

from .follow_up import follow_up_summary
from .selection import RegisteredDesign, Selection, registered_designs

CACHE_SECONDS = 300
DISTRIBUTIONS = (
    "method",
    "metric",
    "aggregate",
    "missing_policy",
    "test_cases",
    "bootstrap",
)
NO_MISSING_RULE = "no rule"


# --- per parameter ---------------------------------------------------------------


def _state(parameter: Parameter, entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "missing"
    if str(entry.get("not_applicable", "")).strip():
        return "not_applicable"
    return "answered" if parameter.is_filled(entry.get("value")) else "missing"


def _entries(answers: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {a["number"]: a for a in answers}


def parameter_state(parameter: Parameter, design: dict[str, Any]) -> str:
    """ "answered", "not_applicable" or "missing" for one design."""
    if parameter.role == Role.CHALLENGE_NAME:
        return "answered" if str(design.get("name", "")).strip() else "missing"
    if parameter.level == "challenge":
        return _state(
            parameter, _entries(design.get("answers", [])).get(parameter.number)
        )
    tasks = design.get("tasks", [])
    states = [
        _state(parameter, _entries(t.get("answers", [])).get(parameter.number))
        for t in tasks
    ]
    if states and all(s == "answered" for s in states):
        return "answered"
    return "not_applicable" if "not_applicable" in states else "missing"


def parameter_rows(designs: list[RegisteredDesign]) -> list[dict[str, Any]]:
    total = len(designs)
    rows = []
    for parameter in PARAMETERS:
        states = Counter(parameter_state(parameter, d.design) for d in designs)
        rows.append(
            {
                "number": parameter.number,
                "name": parameter.name,
                "group": parameter.group,
                "level": parameter.level,
                "answered": states["answered"],
                "not_applicable": states["not_applicable"],
                "total": total,
                "share": states["answered"] / total if total else 0.0,
            }
        )
    return rows


# --- distributions ---------------------------------------------------------------


def _aggregate_label(aggregate: Any) -> str:
    if isinstance(aggregate, dict) and "quantile" in aggregate:
        return f"quantile {aggregate['quantile']}"
    return str(aggregate or "mean")


def _scheme_metrics(scheme: dict[str, Any]) -> list[str]:
    metric = scheme.get("metric")
    return [metric] if isinstance(metric, str) else [str(m) for m in metric or []]


def _answer_value(task: dict[str, Any], number: int) -> Any:
    entry = _entries(task.get("answers", [])).get(number)
    return entry.get("value") if entry and not entry.get("not_applicable") else None


def _answered_metrics(task: dict[str, Any]) -> list[str]:
    value = _answer_value(task, Role.METRICS.number)
    if not isinstance(value, dict):
        return []
    return [str(m.get("name")) for m in value.get("metrics", []) if m.get("name")]


def task_values(task: dict[str, Any]) -> dict[str, list[str]]:
    """The structured answers of one task, as the labels counted."""
    scheme = task.get("scheme") or {}
    values: dict[str, list[str]] = {name: [] for name in DISTRIBUTIONS}
    if scheme:
        values["method"] = [str(scheme.get("method"))]
        values["aggregate"] = [_aggregate_label(scheme.get("aggregate"))]
        missing = scheme.get("missing") or {}
        values["missing_policy"] = [str(missing.get("policy") or NO_MISSING_RULE)]
        uncertainty = scheme.get("uncertainty") or {}
        values["bootstrap"] = [str(uncertainty.get("bootstrap", 0))]
        values["metric"] = _scheme_metrics(scheme)
    else:
        values["metric"] = _answered_metrics(task)
    cases = _answer_value(task, Role.TEST_CASES.number)
    if isinstance(cases, dict) and cases.get("count") is not None:
        values["test_cases"] = [str(cases["count"])]
    return values


def distributions(designs: list[RegisteredDesign]) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter] = {name: Counter() for name in DISTRIBUTIONS}
    for design in designs:
        for task in design.design.get("tasks", []):
            for name, labels in task_values(task).items():
                counts[name].update(labels)
    return {name: _ordered(counter) for name, counter in counts.items()}


def _ordered(counter: Counter) -> dict[str, int]:
    """Most frequent first, then by label (a stable order for pages and CSV)."""
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


# --- amendments and deviations ---------------------------------------------------


def _changed_labels(changes: dict[str, Any]) -> list[str]:
    labels = [_parameter_label(key) for key in changes.get("challenge", {})]
    for task, task_changes in sorted(changes.get("tasks", {}).items()):
        for key in task_changes:
            what = "Ranking scheme" if key == "scheme" else _parameter_label(key)
            labels.append(f"{what} ({task})")
    return labels


def _parameter_label(key: Any) -> str:
    try:
        return get_parameter(int(key)).name
    except (KeyError, TypeError, ValueError):
        return str(key)


def _what(label: str) -> str:
    """The label without its task: what was changed, counted over tasks."""
    return label.rsplit(" (", 1)[0] if label.endswith(")") else label


def amendment_summary(designs: list[RegisteredDesign]) -> dict[str, Any]:
    identifiers = [d.identifier for d in designs]
    amendments = Amendment.objects.filter(
        registration__identifier__in=identifiers
    ).select_related("registration")
    per: dict[str, dict[str, Any]] = {
        i: {"identifier": i, "approved": 0, "rejected": 0, "pending": 0, "changed": []}
        for i in identifiers
    }
    changed: Counter = Counter()
    for amendment in amendments.order_by("created", "pk"):
        row = per[amendment.registration.identifier]
        row[amendment.status] += 1
        if amendment.status == AmendmentStatus.APPROVED:
            labels = _changed_labels(amendment.changes or {})
            row["changed"] += labels
            changed.update({_what(label) for label in labels})
    statuses = Counter(a.status for a in amendments)
    return {
        "total": sum(statuses.values()),
        "approved": statuses[AmendmentStatus.APPROVED],
        "rejected": statuses[AmendmentStatus.REJECTED],
        "pending": statuses[AmendmentStatus.PENDING],
        "per_challenge": list(per.values()),
        "changed": _ordered(changed),
    }


# --- the whole -------------------------------------------------------------------


def _groups(designs: list[RegisteredDesign], key: str) -> list[dict[str, Any]]:
    rows: dict[Any, dict[str, Any]] = {}
    for d in designs:
        value = d.call_slug if key == "call" else d.year
        row = rows.setdefault(value, {key: value, "challenges": 0, "tasks": 0})
        if key == "call":
            row["title"] = d.call_title
        row["challenges"] += 1
        row["tasks"] += len(d.design.get("tasks", []))
    return [rows[k] for k in sorted(rows)]


def compute_statistics(selection: Selection) -> dict[str, Any]:
    """Every statistic of the selection (uncached; see `registry_statistics`)."""
    designs = registered_designs(selection)
    tasks = [t for d in designs for t in d.design.get("tasks", [])]
    return {
        "filters": {"call": selection.call or None, "year": selection.year},
        "challenges": len(designs),
        "tasks": len(tasks),
        "tasks_without_scheme": sum(1 for t in tasks if not t.get("scheme")),
        "by_call": _groups(designs, "call"),
        "by_year": _groups(designs, "year"),
        "parameters": parameter_rows(designs),
        "distributions": distributions(designs),
        "amendments": amendment_summary(designs),
        "deviations": follow_up_summary(designs),
    }


# One statement of index lookups (no COUNT, no read of every call), so it costs
# the same at 100 000 registrations as at 10; each MAX moves whenever a
# number above may change:
# - versions: a registration or an approved amendment adds one (the listing,
#   its call and year are rewritten with it); append-only (a trigger refuses
#   updates and deletes), so the highest id moves with every new one.
# - calls: groups show their slug and title; `updated` moves with every save
#   (an admin rename) and every new call. Only calls without proposals can be
#   deleted (PROTECT), and those appear in no statistic.
# - amendments: proposed = a new id; decided = `decided_at` set on the row
#   (a rejection adds no version). Nothing deletes amendments.
# - analyses: a run becomes done once, by an update (`finished`), and never
#   leaves it (only failed runs are retried); nothing deletes runs. Other
#   statuses do not count, nor does `finished` of a failed run.
# - publications: append-only (a new id); an embargo ends with the day, so
#   the date is part of the key (publicrecord.follow_up counts public ones).
# Draft edits touch none of these. Ids and timestamps are taken before commit,
# so a write committed after a later one can leave the MAX where it was: that
# change shows when the entry expires (CACHE_SECONDS), as in the page cache.
_GENERATION_SQL = (
    "SELECT (SELECT MAX(id) FROM registry_registrationversion),"
    " (SELECT MAX(updated) FROM registry_call),"
    " (SELECT MAX(id) FROM registry_amendment),"
    " (SELECT MAX(decided_at) FROM registry_amendment),"
    " (SELECT MAX(finished) FROM analysis_analysisrun"
    f" WHERE status = '{AnalysisStatus.DONE.value}'),"
    " (SELECT MAX(id) FROM publicrecord_publication), CURRENT_DATE"
)


def _generation() -> str:
    """Changes whenever a number of the statistics may change: a new version,
    a call added or renamed, an amendment proposed or decided, an analysis
    finished. (Draft edits do not change it: they are not counted.)"""
    return read_generation(_GENERATION_SQL)


def registry_statistics(selection: Selection) -> dict[str, Any]:
    """`compute_statistics`, cached until a version, amendment or analysis changes.

    The key carries `_generation()`, so a change shows at once; the cache only
    saves the parse of every canonical document.
    """
    raw = f"{_generation()}|{selection.key}"
    key = "publicrecord:stats:" + hashlib.sha256(raw.encode()).hexdigest()
    found = None
    with contextlib.suppress(Exception):  # the cache is an optimisation only
        found = cache.get(key)
    if found is not None:
        return found
    stats = compute_statistics(selection)
    with contextlib.suppress(Exception):
        cache.set(key, stats, CACHE_SECONDS)
    return stats


CSV_COLUMNS = ("section", "key", "label", "count", "total", "share")


class _SafeWriter:
    """A csv writer whose cells are escaped for spreadsheets: call titles and
    metric names are typed by people ("=HYPERLINK(...)" must stay text)."""

    def __init__(self, writer) -> None:
        self.writer = writer

    def writerow(self, row: Iterable[Any]) -> None:
        self.writer.writerow([spreadsheet_safe(cell) for cell in row])


def statistics_csv(stats: dict[str, Any]) -> str:
    """The same numbers as the page and the API, one row per number counted."""
    out = io.StringIO()
    writer = _SafeWriter(csv.writer(out, lineterminator="\n"))
    writer.writerow(CSV_COLUMNS)
    writer.writerow(
        ("registry", "challenges", "Challenges", stats["challenges"], "", "")
    )
    writer.writerow(("registry", "tasks", "Tasks", stats["tasks"], "", ""))
    for key in ("call", "year"):
        for row in stats[f"by_{key}"]:
            label = row.get("title", row[key])
            writer.writerow(
                (f"{key}_challenges", row[key], label, row["challenges"], "", "")
            )
            writer.writerow((f"{key}_tasks", row[key], label, row["tasks"], "", ""))
    for row in stats["parameters"]:
        total = row["total"]
        writer.writerow(
            (
                "parameter_answered",
                row["number"],
                row["name"],
                row["answered"],
                total,
                f"{row['share']:.4f}",
            )
        )
        writer.writerow(
            (
                "parameter_not_applicable",
                row["number"],
                row["name"],
                row["not_applicable"],
                total,
                "",
            )
        )
    for name, counts in stats["distributions"].items():
        for value, count in counts.items():
            writer.writerow((f"distribution_{name}", value, value, count, "", ""))
    amendments = stats["amendments"]
    for status in ("approved", "rejected", "pending"):
        writer.writerow(("amendments", status, status, amendments[status], "", ""))
    for what, count in amendments["changed"].items():
        writer.writerow(("amendments_changed", what, what, count, "", ""))
    deviations = stats["deviations"]
    for name, label in (
        ("published", "Registered challenges with published results"),
        ("without_deviation", "Published results without any deviation"),
        ("challenges_with_critical", "Published results with a critical deviation"),
    ):
        writer.writerow(("deviations", name, label, deviations[name], "", ""))
    for code, count in deviations["challenges_by_code"].items():
        writer.writerow(("deviations_challenges", code, code, count, "", ""))
    for code, count in deviations["by_code"].items():
        writer.writerow(("deviations_code", code, code, count, "", ""))
    for severity, count in deviations["by_severity"].items():
        writer.writerow(("deviations_severity", severity, severity, count, "", ""))
    return out.getvalue()
