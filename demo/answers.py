"""Small vocabulary for writing demo designs as plain Python data.

A design module (`msd.py`, `robustmis.py`) maps parameter numbers to values in the
shapes of `registry.answer_kinds`, or to `NotApplicable(reason)`. The loader
(`load.py`) stores them through the real services.
"""

from __future__ import annotations

from dataclasses import dataclass

# Marks every value that is not taken from the published design document.
PLACEHOLDER = (
    "Invented for the demonstration: the published design withholds its "
    'organization section ("to protect personal information"); this value is '
    "plausible but not the organizers' own."
)


@dataclass(frozen=True)
class NotApplicable:
    """The parameter does not apply; `reason` quotes the design document."""

    reason: str


def lines(*parts: str) -> str:
    """Join paragraphs or list lines into one free-text answer."""
    return "\n".join(parts)


def unit_metric(name: str) -> dict:
    """A metric in [0, 1] where higher is better and 0 is the worst value."""
    return {
        "name": name,
        "higher_is_better": True,
        "worst_value": 0,
        "lower_bound": 0,
        "upper_bound": 1,
    }
