"""The registered design as the analysis needs it, read from canonical JSON.

Analyses are checked against what was registered (the frozen registration
version), never against the live proposal rows, so this module reads the
registration document only, through the one typed design (`registry.design`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from registry.design import Design
from registry.parameters import Role

# "at most 3 submissions", "maximum of 2 submissions", "up to 5 submissions",
# "3 submissions per team": the first number before "submission(s)".
SUBMISSION_LIMIT = re.compile(
    r"(?:at most|maximum(?: of)?|up to|no more than|limited to)?\s*(\d+)\s+"
    r"(?:test[- ]set\s+)?submissions?\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RegisteredMetric:
    name: str
    higher_is_better: bool
    worst_value: float | None = None
    lower_bound: float | None = None
    upper_bound: float | None = None


@dataclass(frozen=True)
class RegisteredTask:
    name: str
    metrics: dict[str, RegisteredMetric]
    test_cases: int | None
    scheme: dict[str, Any] | None
    missing_handling: str | None  # missing data prose, None when absent


@dataclass(frozen=True)
class RegisteredDesign:
    identifier: str
    version: int
    sha256: str
    tasks: dict[str, RegisteredTask]
    organizer_institutions: tuple[str, ...]
    organizer_participation: str | None  # the organizer participation choice
    submission_limit: int | None
    post_hoc_versions: tuple[int, ...] = field(default=())


def _metrics(value: Any) -> dict[str, RegisteredMetric]:
    if not value:
        return {}
    return {
        m["name"]: RegisteredMetric(
            m["name"],
            m["higher_is_better"],
            m.get("worst_value"),
            m.get("lower_bound"),
            m.get("upper_bound"),
        )
        for m in value["metrics"]
    }


def submission_limit_from(*texts: str | None) -> int | None:
    """The registered limit on test-set submissions, read from the prose."""
    for text in texts:
        match = SUBMISSION_LIMIT.search(text or "")
        if match:
            return int(match.group(1))
    return None


def design_from_canonical(
    canonical: str, *, sha256: str, post_hoc_versions: tuple[int, ...] = ()
) -> RegisteredDesign:
    document = json.loads(canonical)
    design = Design.from_dict(document["design"])
    tasks = {}
    for task in design.tasks:
        count = task.value_of(Role.TEST_CASES)
        tasks[task.name] = RegisteredTask(
            name=task.name,
            metrics=_metrics(task.value_of(Role.METRICS)),
            test_cases=count["count"] if count else None,
            scheme=task.scheme,
            missing_handling=task.value_of(Role.MISSING_DATA),
        )
    institutions = list(
        (design.value_of(Role.ORGANIZING_INSTITUTIONS) or {}).get("institutions", [])
    )
    institutions += [
        o["institution"] for o in document.get("organizers", []) if o.get("institution")
    ]
    policy = design.value_of(Role.ORGANIZER_PARTICIPATION)
    return RegisteredDesign(
        identifier=document["identifier"],
        version=document["version"],
        sha256=sha256,
        tasks=tasks,
        organizer_institutions=tuple(dict.fromkeys(institutions)),
        organizer_participation=policy["choice"] if policy else None,
        submission_limit=submission_limit_from(
            design.value_of(Role.SUBMISSION_INSTRUCTIONS),
            design.value_of(Role.PRE_EVALUATION),
        ),
        post_hoc_versions=post_hoc_versions,
    )
