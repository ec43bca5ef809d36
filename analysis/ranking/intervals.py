"""Rank confidence intervals (seed 001) — placeholder.

The real module is written on the ``intervals`` branch; this stub only keeps
the engine importable until the branches are merged.
"""

from __future__ import annotations

import numpy as np


def rank_confidence_intervals(
    values: np.ndarray,
    *,
    method: str,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    n_boot: int = 1000,
    seed: int | None = None,
) -> list[tuple[float, float]]:
    """Placeholder: raises NotImplementedError until the intervals branch lands."""
    raise NotImplementedError(
        "rank_confidence_intervals lands with the intervals branch"
    )
