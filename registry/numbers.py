"""Numbers as readers see them, the same on pages and in PDFs."""

from __future__ import annotations

from typing import Any


def percent_text(share: Any) -> str:
    """A share of 0..1 as a percentage with one decimal ("95.5 %"); "–" if
    unknown. Winner stability and other shares read alike everywhere."""
    return "–" if share is None else f"{100 * float(share):.1f} %"


def number_text(value: Any, digits: int = 3) -> str:
    """A number as reports print it: a whole number without decimals, any
    other to ``digits`` places ("4.025", not 4.025000000000006, the float a
    quantile leaves); "–" if unknown."""
    if value is None:
        return "–"
    if isinstance(value, int):
        return str(value)
    number = float(value)
    if number.is_integer() and abs(number) < 1e9:
        return str(int(number))
    return f"{number:.{digits}f}"
