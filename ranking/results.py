"""Frozen result types returned by the engine's functions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "BootstrapResult",
    "RankingComparison",
    "RankingResult",
    "SignificanceResult",
]


@dataclass(frozen=True)
class RankingResult:
    """Ranks (1 = best) and the scores they were computed from, per algorithm."""

    ranks: np.ndarray
    scores: np.ndarray


@dataclass(frozen=True)
class SignificanceResult:
    """Pairwise one-sided tests of a (cases x algorithms) matrix.

    ``pvalues[i, j]`` is the (adjusted) p-value of "algorithm i is better
    than algorithm j" (NaN on the diagonal), ``significant[i, j]`` the
    decision at ``alpha``; ``scores[i]`` counts the algorithms i is
    significantly better than, ``ranks`` ranks those scores.
    """

    pvalues: np.ndarray
    significant: np.ndarray
    scores: np.ndarray
    ranks: np.ndarray


@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap (or leave-one-out) rankings of one task and their summaries.

    ``ranks`` has shape (samples, algorithms); ``kendall_tau`` holds τ-b
    between the full ranking and every sample (NaN when undefined).
    """

    ranks: np.ndarray
    kendall_tau: np.ndarray
    winner_stability: float
    median: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


@dataclass(frozen=True)
class RankingComparison:
    """Agreement of two rankings of the same algorithms (seed 000)."""

    kendall_tau: float
    spearman_footrule: float
    spearman_distance: float
