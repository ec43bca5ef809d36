"""Row-wise ranking with tie rules, vectorised over many rows at once."""

from __future__ import annotations

import numpy as np

__all__ = ["average_ranks", "rank_rows"]


def rank_rows(
    scores: np.ndarray, *, ties: str = "min", higher_is_better: bool = True
) -> np.ndarray:
    """Rank every row of ``scores`` (1 = best).

    Parameters
    ----------
    scores : ndarray, shape (..., m)
        Scores; NaN marks "no score" and ranks worse than every number, NaNs
        tying among themselves (the ``last_rank`` rule of the contract).
    ties : {"min", "average", "max"}
        Rank given to tied scores (seed 000, "Ranking methods": minimum).
    higher_is_better : bool
        Direction of the scores.

    Returns
    -------
    ndarray of float, same shape
        Ranks; whole numbers under ``min``/``max``.
    """
    s = np.asarray(scores, dtype=np.float64)
    shape = s.shape
    m = shape[-1]
    flat = s.reshape(-1, m)
    # Sorted so that better comes first (NaN last, as numpy sorts it); a
    # score's rank follows from where its group of equal scores starts and ends.
    v = -flat if higher_is_better else flat
    order = np.argsort(v, axis=1, kind="stable")
    sv = np.take_along_axis(v, order, axis=1)
    nan = np.isnan(sv)
    new = np.ones(sv.shape, dtype=bool)
    new[:, 1:] = (sv[:, 1:] != sv[:, :-1]) & ~(nan[:, 1:] & nan[:, :-1])
    at = np.arange(m)
    start = np.maximum.accumulate(np.where(new, at, 0), axis=1)  # n better
    last = np.ones(sv.shape, dtype=bool)
    last[:, :-1] = new[:, 1:]
    end = m - np.maximum.accumulate(np.where(last[:, ::-1], at, 0), axis=1)[:, ::-1]
    if ties == "min":
        ranked = 1 + start
    elif ties == "max":
        ranked = end  # n better + n equal (itself included)
    else:
        ranked = start + (end - start + 1) / 2
    out = np.empty(flat.shape, dtype=np.float64)
    np.put_along_axis(out, order, ranked, axis=1)
    return out.reshape(shape)


def average_ranks(ranks: np.ndarray) -> np.ndarray:
    """Turn tied ranks into average ranks (for ``mean_average_rank``)."""
    return rank_rows(ranks, ties="average", higher_is_better=False)
