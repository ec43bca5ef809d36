"""Control characters in user text: refused at the doors, in one place.

A NUL character answered 500 on PostgreSQL (which cannot store it) in feedback,
profile names and a results ``teams`` key, and control characters made the
DataCite XML malformed (issue 30). Text enters through form fields, query
strings, JSON bodies and JSON typed into fields; each door asks
:func:`control_character_problem` and refuses with the field and the
character (400). Tab, line feed and carriage return are text, not control.
"""

from __future__ import annotations

import re
from typing import Any

CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
CONTROL_BYTES = re.compile(b"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _problem(text: str, where: str) -> str | None:
    match = CONTROL.search(text)
    if match is None:
        return None
    place = f" in {where}" if where else ""
    return (
        f"The control character U+{ord(match.group()):04X} is not allowed"
        f"{place}; remove it and send the text again."
    )


def control_character_problem(data: Any, where: str = "") -> str | None:
    """The first control character in `data` (text, or lists and objects of
    it, keys included) as a message naming where it is; None when clean.
    Iterative, so a deep document cannot exhaust the stack."""
    pending = [(data, where)]
    while pending:
        value, path = pending.pop()
        if isinstance(value, str):
            if problem := _problem(value, path):
                return problem
        elif isinstance(value, dict):
            for key, item in value.items():
                child = f"{path}.{key}" if path else str(key)
                pending += [(item, child), (str(key), f"the key {child!r}")]
        elif isinstance(value, (list, tuple)):
            pending += [(item, f"{path}[{n}]") for n, item in enumerate(value)]
    return None


def form_problem(data) -> str | None:
    """The first control character among a QueryDict's fields."""
    for key, values in data.lists():
        problem = _problem(key, "a field name") or next(
            (p for v in values if (p := _problem(v, f"the field {key!r}"))), None
        )
        if problem:
            return problem
    return None
