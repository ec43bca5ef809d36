"""Aggregate-then-rank and rank-then-aggregate (seed 000 "Ranking methods";
seed 004 Appendix A.2, Algorithms 1 and 2).

Values come as a (cases x algorithms) matrix in which NaN marks a missing
result that the missing policy left missing (``ignore``/``last_rank``).
Bootstrap samples are expressed as a (samples x cases) matrix of *counts*
(how often each case was drawn), so one code path serves the full data, the
bootstrap and leave-one-case-out.
"""

from __future__ import annotations

import numpy as np

from ._exact import exact_means, exact_quantile
from ._ranks import rank_rows
from .results import RankingResult

__all__ = [
    "aggregate_scores",
    "aggregate_then_rank",
    "case_ranks",
    "leave_one_out_means",
    "rank_then_aggregate",
]

_CHUNK_ELEMENTS = 4_000_000


def _check_values(values: np.ndarray) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("values must be a (cases x algorithms) matrix")
    if np.isinf(x).any():
        raise ValueError("values must be finite (NaN marks a missing result)")
    return x


def _quantile_of(
    q: float | None, aggregate: str, quantile: float | None
) -> float | None:
    if q is not None:
        return q
    if aggregate == "mean":
        if quantile is not None:
            raise ValueError("quantile given with aggregate='mean'")
        return None
    if aggregate == "median":
        return 0.5
    if aggregate == "quantile":
        if quantile is None or not 0 <= quantile <= 1:
            raise ValueError("aggregate='quantile' needs 0 ≤ quantile ≤ 1")
        return float(quantile)
    raise ValueError(f"unknown aggregate {aggregate!r}")


def aggregate_scores(
    values: np.ndarray, counts: np.ndarray | None = None, *, q: float | None = None
) -> np.ndarray:
    """Aggregate each column over cases, ignoring NaN.

    Parameters
    ----------
    values : ndarray, shape (n, m)
        Values (or per-case ranks); NaN is left out.
    counts : ndarray, shape (B, n), optional
        Case multiplicities of B resamples; ``None`` means the data once.
    q : float or None
        ``None`` for the mean, else the quantile (type 7, linear
        interpolation, numpy's default).

    Returns
    -------
    ndarray, shape (m,) without counts, (B, m) with counts
        NaN where a column has no value. Without counts the mean is the
        exactly rounded mean (contract §2: equal values give equal scores,
        whatever their order); resampled means are ordinary float sums of the
        canonically ordered cases (:func:`ranking._core.build_tasks`).
    """
    x = np.asarray(values, dtype=np.float64)
    present = ~np.isnan(x)
    _n, m = x.shape
    if counts is None:
        if q is None:
            return exact_means(x)
        out = np.full(m, np.nan)
        for j in range(m):
            col = np.sort(x[present[:, j], j])
            if col.size:
                out[j] = exact_quantile(col, q)
        return out
    if q is None:
        left_out = _left_out_cases(counts)
        if left_out is not None:  # leave-one-case-out: the total less one row
            return leave_one_out_means(x, left_out)
        w = np.asarray(counts, dtype=np.float64)
        # Resampled sums may exceed the float range where the data's mean
        # does not: scale by a power of two (exact), divide, scale back.
        filled = np.where(present, x, 0.0)
        scale = _resample_scale(filled, float(w.sum(axis=1).max(initial=0.0)))
        if scale != 1.0:
            filled = filled * scale
        num = w @ filled
        if present.all():  # every algorithm has every case
            den = np.repeat(w.sum(axis=1)[:, None], m, axis=1)
        else:
            den = w @ present.astype(np.float64)
        out = np.full(num.shape, np.nan)
        np.divide(num, den, out=out, where=den > 0)
        return out if scale == 1.0 else out / scale
    return _weighted_quantile(x, present, np.asarray(counts, dtype=np.int64), q)


def leave_one_out_means(values: np.ndarray, left_out: np.ndarray) -> np.ndarray:
    """Column means (NaN left out) of the data less one case: row ``i`` of the
    result leaves out case ``left_out[i]``; shape (len(left_out), m).

    The column totals less one row, O(n·m) for all n leave-one-out samples,
    in slices of bounded size; each row is what :func:`aggregate_scores`
    gives with that sample's counts (the same bits, however it is sliced).
    """
    x = np.asarray(values, dtype=np.float64)
    present = ~np.isnan(x)
    filled = np.where(present, x, 0.0)
    scale = _resample_scale(filled, float(x.shape[0] - 1))
    if scale != 1.0:
        filled = filled * scale
    total = filled.sum(axis=0)
    count = present.sum(axis=0)
    rows = np.asarray(left_out, dtype=np.int64)
    out = np.full((rows.size, x.shape[1]), np.nan)
    step = max(1, _CHUNK_ELEMENTS // max(1, x.shape[1]))
    for s in range(0, rows.size, step):
        r = rows[s : s + step]
        num = total - filled[r]
        den = (count - present[r]).astype(np.float64)
        np.divide(num, den, out=out[s : s + step], where=den > 0)
    return out if scale == 1.0 else out / scale


def _left_out_cases(counts: np.ndarray) -> np.ndarray | None:
    """The case each resample leaves out, when every resample is the data
    less one case (counts all one but a single zero); else None.

    Their means are then the column totals less one row: O(n·m) for all n
    leave-one-out samples instead of the O(n²·m) product with the counts.
    """
    c = np.asarray(counts)
    if c.size == 0 or c.min() < 0 or c.max() != 1:
        return None
    if not (c.sum(axis=1) == c.shape[1] - 1).all():
        return None
    return np.argmin(c, axis=1)


def _resample_scale(filled: np.ndarray, weight: float) -> float:
    """1, or a power of two that keeps every resampled sum finite (``filled``:
    the values with 0 for missing ones; ``weight``: the largest number of
    cases in a resample)."""
    biggest = float(np.abs(filled).max(initial=0.0))
    if biggest * max(weight, 1.0) < 2.0**1000:
        return 1.0
    return 2.0 ** -(int(np.ceil(np.log2(max(weight, 1.0)))) + 2)


def _weighted_quantile(
    x: np.ndarray, present: np.ndarray, counts: np.ndarray, q: float
) -> np.ndarray:
    """Type-7 quantile of each column, each case repeated ``counts[b, i]`` times."""
    n_samples, n = counts.shape
    m = x.shape[1]
    out = np.full((n_samples, m), np.nan)
    step = max(1, _CHUNK_ELEMENTS // max(1, n))
    for j in range(m):
        rows = np.flatnonzero(present[:, j])
        if rows.size == 0:
            continue
        order = rows[np.argsort(x[rows, j], kind="stable")]
        v = x[order, j]
        for start in range(0, n_samples, step):
            c = counts[start : start + step][:, order]
            cum = np.cumsum(c, axis=1)
            total = cum[:, -1]
            ok = total > 0
            h = (np.maximum(total, 1) - 1) * q
            lo = np.floor(h)
            frac = h - lo
            lo_i = lo.astype(np.int64)
            hi_i = np.minimum(lo_i + 1, np.maximum(total - 1, 0))
            pos_lo = np.minimum((cum <= lo_i[:, None]).sum(axis=1), v.size - 1)
            pos_hi = np.minimum((cum <= hi_i[:, None]).sum(axis=1), v.size - 1)
            a, b = v[pos_lo], v[pos_hi]
            with np.errstate(over="ignore", invalid="ignore"):
                res = a + frac * (b - a)
                # b - a overflows only for values near ±1.8e308
                res = np.where(np.isfinite(res), res, a * (1 - frac) + b * frac)
            out[start : start + step, j] = np.where(ok, res, np.nan)
    return out


def case_ranks(
    values: np.ndarray,
    *,
    ties: str = "min",
    higher_is_better: bool = True,
    missing: str = "ignore",
) -> np.ndarray:
    """Rank the algorithms within every case (rows of ``values``).

    Parameters
    ----------
    values : ndarray, shape (n, m)
        NaN marks a missing result.
    ties, higher_is_better
        As in :func:`rank_then_aggregate`.
    missing : {"ignore", "last_rank"}
        ``ignore``: missing results get no rank (NaN) and present ones are
        ranked among themselves; ``last_rank``: a missing result ranks below
        every present one, missing results tying under ``ties`` (contract §2:
        with ``min``, two tied present results and one missing give 1, 1, 3).

    Returns
    -------
    ndarray, shape (n, m)
    """
    x = _check_values(values)
    ranks = rank_rows(x, ties=ties, higher_is_better=higher_is_better)
    if missing == "ignore":
        ranks[np.isnan(x)] = np.nan
    elif missing != "last_rank":
        raise ValueError("missing must be 'ignore' or 'last_rank'")
    return ranks


def aggregate_then_rank(
    values: np.ndarray,
    *,
    aggregate: str = "mean",
    quantile: float | None = None,
    ties: str = "min",
    higher_is_better: bool = True,
) -> RankingResult:
    """Aggregate each algorithm's values over cases, then rank the aggregates.

    Seed 000, "Ranking methods"; seed 004, Appendix A.2, Algorithm 1.

    Parameters
    ----------
    values : ndarray, shape (n_cases, m_algorithms)
        Metric values after the missing policy; remaining NaN are left out
        (``ignore``). An algorithm without any value gets score NaN and ranks
        last.
    aggregate : {"mean", "median", "quantile"}
    quantile : float, optional
        q for ``aggregate="quantile"`` (type 7).
    ties : {"min", "average", "max"}
    higher_is_better : bool

    Returns
    -------
    RankingResult
    """
    x = _check_values(values)
    q = _quantile_of(None, aggregate, quantile)
    scores = aggregate_scores(x, q=q)
    return RankingResult(
        ranks=rank_rows(scores, ties=ties, higher_is_better=higher_is_better),
        scores=scores,
    )


def rank_then_aggregate(
    values: np.ndarray,
    *,
    aggregate: str = "mean",
    quantile: float | None = None,
    ties: str = "min",
    higher_is_better: bool = True,
    missing: str = "ignore",
) -> RankingResult:
    """Rank within each case, aggregate the per-case ranks, rank the aggregates.

    Seed 000, "Ranking methods"; seed 004, Appendix A.2, Algorithm 2.
    Smaller aggregated rank is better; see :func:`case_ranks` for ``missing``.

    Returns
    -------
    RankingResult
        ``scores`` are the aggregated per-case ranks.
    """
    q = _quantile_of(None, aggregate, quantile)
    per_case = case_ranks(
        values, ties=ties, higher_is_better=higher_is_better, missing=missing
    )
    scores = aggregate_scores(per_case, q=q)
    return RankingResult(
        ranks=rank_rows(scores, ties=ties, higher_is_better=False), scores=scores
    )
