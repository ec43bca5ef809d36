"""Row-wise ranking with tie rules, vectorised over many rows at once."""

from __future__ import annotations

import numpy as np

__all__ = ["average_ranks", "rank_rows"]

_CHUNK_ELEMENTS = 8_000_000


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
    key = flat if higher_is_better else -flat
    nan = np.isnan(key)
    out = np.empty(flat.shape, dtype=np.float64)
    step = max(1, _CHUNK_ELEMENTS // max(1, m * m))
    for start in range(0, flat.shape[0], step):
        k = key[start : start + step]
        n = nan[start : start + step]
        kj = k[:, None, :]
        ki = k[:, :, None]
        nj = n[:, None, :]
        ni = n[:, :, None]
        # better[r, i, j]: j is strictly better than i
        better = (~nj & ni) | (~nj & ~ni & (kj > ki))
        equal = (nj & ni) | (~nj & ~ni & (kj == ki))
        n_better = better.sum(axis=2)
        if ties == "min":
            out[start : start + step] = 1 + n_better
        else:
            n_equal = equal.sum(axis=2)  # includes i itself
            if ties == "max":
                out[start : start + step] = n_better + n_equal
            else:
                out[start : start + step] = n_better + (n_equal + 1) / 2
    return out.reshape(shape)


def average_ranks(ranks: np.ndarray) -> np.ndarray:
    """Turn tied ranks into average ranks (for ``mean_average_rank``)."""
    return rank_rows(ranks, ties="average", higher_is_better=False)
