"""Reading the analysis output JSON (contract §3) when tasks used different schemes.

A challenge may rank its tasks under different schemes; the Django side then
stores ``schemes`` (task → scheme) instead of one ``scheme``. These helpers give
every consumer (plots, reports) one way to ask which scheme ranked a task.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["group_tasks_by_scheme", "scheme_groups", "scheme_of"]


def scheme_groups(output: Mapping[str, Any]) -> list[tuple[list[str], dict[str, Any]]]:
    """(tasks, scheme) pairs: one pair, or one per distinct scheme when the tasks
    of a challenge were ranked under different schemes (``output["schemes"]``)."""
    if "scheme" in output:
        tasks = sorted({t for e in output["rankings"].values() for t in e["tasks"]})
        return [(tasks, dict(output["scheme"]))]
    return group_tasks_by_scheme(output["schemes"])


def group_tasks_by_scheme(
    schemes: Mapping[str, Mapping[str, Any]],
) -> list[tuple[list[str], dict[str, Any]]]:
    """Tasks that share one scheme, in task-name order: [(tasks, scheme), ...]."""
    groups: dict[str, tuple[list[str], dict[str, Any]]] = {}
    for task, scheme in sorted(schemes.items()):
        key = json.dumps(scheme, sort_keys=True)
        groups.setdefault(key, ([], dict(scheme)))[0].append(task)
    return list(groups.values())


def scheme_of(output: Mapping[str, Any], task: str) -> dict[str, Any]:
    """The scheme a task was ranked under."""
    if "scheme" in output:
        return dict(output["scheme"])
    return dict(output["schemes"][task])
