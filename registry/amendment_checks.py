"""What an approved amendment explains (reads only, no import of the
registration module, which `verify_registrations` lives in).

An approval refuses a version that differs from the one before by more than
its changes (`registry.amendments.check_amendment_version`);
`verify_registrations` asks the same of every stored version after v1
(:func:`amendment_problems`), so a version appended or rewritten past the
amendment door is found.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from .design import Change, Design, diff_designs
from .models import Amendment, RegistrationVersion
from .schemes import PROSE_FROM_SCHEME


def _explained(change: Change, changes: dict[str, Any]) -> bool:
    """Whether one difference between two versions is an approved change."""
    if change.scope is None:
        return str(change.number) in changes.get("challenge", {})
    approved = changes.get("tasks", {}).get(change.scope, {})
    if change.kind == "scheme":
        return "scheme" in approved
    if change.number is None:  # a task added or removed
        return False
    # The prose a scheme writes (SCHEME_PROSE) is rewritten from a changed scheme.
    return str(change.number) in approved or (
        "scheme" in approved and change.number in PROSE_FROM_SCHEME
    )


def unexplained_changes(
    previous: RegistrationVersion, version: RegistrationVersion, changes: dict
) -> list[str]:
    """What differs between two versions' designs beyond `changes`."""
    before = Design.from_dict(json.loads(previous.canonical)["design"])
    after = Design.from_dict(json.loads(version.canonical)["design"])
    unexplained = [
        f"{c.scope or 'challenge'}: {c.name}"
        for c in diff_designs(before, after)
        if not _explained(c, changes)
    ]
    name_changed = "1" in changes.get("challenge", {})
    for key in ("call", "planning", *(() if name_changed else ("name",))):
        if getattr(before, key) != getattr(after, key):
            unexplained.append(f"challenge: {key}")
    return unexplained


def amendment_problems(
    versions: list[RegistrationVersion], approved: dict[int, Amendment]
) -> list[tuple[int, str]]:
    """(version number, problem) for every version after the first that no
    approved amendment explains: a version appended by hand (a forged v2)
    or a design edited beyond its amendment. `approved`: version id →
    its approved amendment."""
    problems = []
    for previous, version in itertools.pairwise(versions):
        amendment = approved.get(version.pk)
        if amendment is None:
            problems.append((version.number, "no approved amendment made this version"))
            continue
        try:
            unexplained = unexplained_changes(previous, version, amendment.changes)
        except (ValueError, KeyError, TypeError):
            continue  # the chain check names a version that is not a design
        if unexplained:
            problems.append(
                (
                    version.number,
                    "the design differs from the previous version beyond its "
                    f"amendment ({'; '.join(unexplained)})",
                )
            )
    return problems
