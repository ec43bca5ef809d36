"""Numbers as readers see them, the same on pages and in PDFs."""

from __future__ import annotations

from typing import Any


def percent_text(share: Any) -> str:
    """A share of 0..1 as a percentage with one decimal ("95.5 %"); "–" if
    unknown. Winner stability and other shares read alike everywhere."""
    return "–" if share is None else f"{100 * float(share):.1f} %"
