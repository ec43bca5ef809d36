"""Significance decisions of a large matrix without sorting every pair.

A significance map needs, per ordered pair, only the decision "adjusted p ≤
alpha", not the p-value. For many cases (n in the thousands) each pair's
exact signed-rank statistic costs a sort of n |differences|; a histogram of
the |d| over ~n/8 buckets costs a few passes and brackets the statistic:
ranks of different buckets are known, and within a bucket the positive
differences can rank anywhere, so twice the positive rank sum lies in
``[t2_lo, t2_lo + 2 Σ P_b N_b]`` and the tie correction in ``[0, Σ (S_b^3 -
S_b)]``. That brackets each p-value: ``p_lo <= p <= p_hi``.

The decisions (none, Bonferroni, Holm) are monotone: lowering p-values never
withdraws a rejection. So with ``p_lo`` every decision is at least as
generous, with ``p_hi`` at most, as with the exact p-values; where the two
agree, that *is* the exact decision. Only pairs where they disagree get their
exact p-values (computed exactly as when all pairs are tested), and the
bracketing is repeated until both agree. The result is the same matrix of
decisions, bit for bit, as from every exact p-value.
"""

from __future__ import annotations

import threading

import numpy as np

from ._memory import LARGE_ROWS, release_free_memory
from ._parallel import parallel_map
from .significance import (
    PairedDifferences,
    _p_greater,
    _pair_index,
    adjust_pvalues,
    pairwise_wilcoxon,
)

__all__ = ["PValueBounds", "significant_pairs"]

MIN_CASES = 2000  # below this exact statistics are cheap enough
_CASES_PER_BUCKET = 8
_WIDEN = 1e-9  # relative slack for the last-unit rounding of the normal tail


def decisions(p: np.ndarray, *, alpha: float, p_adjust: str) -> np.ndarray:
    """Adjusted p ≤ alpha (no p-value, e.g. the diagonal: not significant)."""
    return np.nan_to_num(adjust_pvalues(p, method=p_adjust), nan=1.0) <= alpha


def _scratch(
    store: dict[str, np.ndarray], name: str, shape: tuple[int, int], dtype: type
) -> np.ndarray:
    """A reusable buffer of at least ``shape`` (rows beyond are sliced off):
    fresh 16 MB arrays for every chunk cost page faults."""
    have = store.get(name)
    if have is None or have.shape[0] < shape[0] or have.shape[1] != shape[1]:
        have = store[name] = np.empty(shape, dtype=dtype)
    return have[: shape[0]]


def _statistic_bounds(
    d: np.ndarray, store: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(t2_lo, t2_hi, tie_hi, n_eff) per pair from a histogram of |d|
    (``d`` is 0.0 for dropped cases, and is overwritten; ``store`` holds the
    thread's buffers)."""
    n_pairs, n = d.shape
    k = max(1, n // _CASES_PER_BUCKET)
    n_eff = np.count_nonzero(d, axis=1)  # zero differences take no rank
    negative = np.less(d, 0, out=_scratch(store, "negative", d.shape, np.bool_))
    scaled = np.abs(d, out=d)  # |d| in place: the signs are kept in negative
    top = scaled.max(axis=1, initial=0.0)
    top[top == 0] = 1.0
    # |d| * (k / top) is monotone in |d|, so buckets never reorder values
    np.multiply(scaled, (k / top)[:, None], out=scaled)
    np.minimum(scaled, k - 0.5, out=scaled)
    # intp, as bincount wants it (an int32 index was copied to intp there)
    index = _scratch(store, "index", d.shape, np.intp)
    index[...] = scaled
    index += (np.arange(n_pairs, dtype=np.intp) * k)[:, None]
    index += index  # room for the sign
    np.add(index, negative, out=index)
    hist = np.bincount(index.ravel(), minlength=2 * n_pairs * k)
    hist = hist.reshape(n_pairs, k, 2)
    hist[:, 0, 0] -= n - n_eff  # zeros (and dropped cases) fell in bucket 0
    pos, neg = hist[:, :, 0], hist[:, :, 1]
    size = pos + neg
    before = np.cumsum(size, axis=1) - size  # non-zero |d| in lower buckets
    t2_lo = (2 * pos * before + pos * (pos + 1)).sum(axis=1)
    t2_hi = t2_lo + 2 * (pos * neg).sum(axis=1)
    sf = size.astype(np.float64)
    tie_hi = (sf * sf * sf - sf).sum(axis=1)
    return t2_lo, t2_hi, tie_hi, n_eff


def _p_range(
    t2_lo: np.ndarray,
    t2_hi: np.ndarray,
    tie_hi: np.ndarray,
    n_eff: np.ndarray,
    family: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of p(t2, tie): monotone in each, so extreme at the corners."""
    none = np.zeros_like(tie_hi)
    corners = np.stack(
        [
            _p_greater(t2, n_eff, tie, None, "approx", family)
            for t2 in (t2_lo, t2_hi)
            for tie in (none, tie_hi)
        ]
    )
    return corners.min(axis=0) * (1 - _WIDEN), corners.max(axis=0) * (1 + _WIDEN)


def _chunk_bounds(
    prepared: PairedDifferences,
    k: int,
    higher_is_better: bool,
    scratch: dict[int, dict[str, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """p bounds of "a better than b" and "b better than a" for chunk ``k``
    (``scratch``: buffers per thread, kept for the call of the caller)."""
    store = scratch.setdefault(threading.get_ident(), {})
    n_pairs = prepared.chunks[k][0].size
    d, _ = prepared.differences(
        k, out=_scratch(store, "d", (n_pairs, prepared.shape[0]), np.float64)
    )
    t2_lo, t2_hi, tie_hi, n_eff = _statistic_bounds(d, store)
    family = prepared.chunks[k][2]
    total2 = n_eff * (n_eff + 1)
    lo_a, hi_a = _p_range(t2_lo, t2_hi, tie_hi, n_eff, family)
    lo_b, hi_b = _p_range(total2 - t2_hi, total2 - t2_lo, tie_hi, n_eff, family)
    if not higher_is_better:
        lo_a, hi_a, lo_b, hi_b = lo_b, hi_b, lo_a, hi_a
    return lo_a, hi_a, lo_b, hi_b


class PValueBounds:
    """Bounds ``p_lo <= p <= p_hi`` of the unadjusted p-values of every ordered
    pair of one matrix (one direction and test method), narrowed to the exact
    p-value wherever that has been computed.

    The decisions of :func:`significant_pairs` under any alpha and adjustment
    follow from the same bounds, so the calls on one matrix (a test-based
    ranking, its significance map, the audit's test-based alternative) share
    one object: the histograms are made once, and an exact p-value computed
    for one call serves the next.
    """

    def __init__(self) -> None:
        self.p_lo: np.ndarray | None = None
        self.p_hi: np.ndarray | None = None
        self.done: np.ndarray | None = None  # pairs i < j with exact p-values


def significant_pairs(
    values: np.ndarray,
    *,
    alpha: float,
    p_adjust: str,
    method: str = "approx",
    higher_is_better: bool = True,
    workers: int | None = None,
    min_cases: int = MIN_CASES,
    bounds: PValueBounds | None = None,
) -> np.ndarray:
    """``significant[i, j]``: i is significantly better than j, as
    ``decisions(pairwise_wilcoxon(values, ...), ...)`` gives it.

    Matrices with at least ``min_cases`` cases (and the normal approximation)
    are bracketed first (module docstring); chunks of pairs run on up to
    ``workers`` threads. ``bounds``: the :class:`PValueBounds` of ``values``
    (same direction and method) from earlier calls, used and narrowed.
    """
    state = PValueBounds() if bounds is None else bounds

    def exact(pairs: PairedDifferences) -> np.ndarray:
        return pairwise_wilcoxon(
            values,
            higher_is_better=higher_is_better,
            method=method,
            pairs=pairs,
            workers=workers,
        )

    if state.p_lo is None:
        prepared = PairedDifferences(values)
        n, m = prepared.shape
        if method != "approx" or n < min_cases or m < 2:
            state.p_lo = state.p_hi = exact(prepared)
            state.done = np.ones(m * (m - 1) // 2, dtype=bool)
        else:
            state.p_lo, state.p_hi = _bracket(prepared, higher_is_better, workers)
            state.done = np.zeros(m * (m - 1) // 2, dtype=bool)
    p_lo, p_hi, done = state.p_lo, state.p_hi, state.done
    if p_lo is p_hi:  # every p-value exact
        return decisions(p_hi, alpha=alpha, p_adjust=p_adjust)
    ii, jj = _pair_index(p_lo.shape[0])
    while True:
        sure = decisions(p_hi, alpha=alpha, p_adjust=p_adjust)
        maybe = decisions(p_lo, alpha=alpha, p_adjust=p_adjust)
        unsure = maybe & ~sure
        if not unsure.any():
            return sure
        todo = np.flatnonzero((unsure[ii, jj] | unsure[jj, ii]) & ~done)
        if todo.size == 0:  # cannot happen for monotone decisions; stay exact
            todo = np.flatnonzero(~done)
        p = exact(PairedDifferences(values, todo))
        a, b = ii[todo], jj[todo]
        p_lo[a, b] = p_hi[a, b] = p[a, b]
        p_lo[b, a] = p_hi[b, a] = p[b, a]
        done[todo] = True


def _bracket(
    prepared: PairedDifferences, higher_is_better: bool, workers: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """(p_lo, p_hi) of every ordered pair from the histograms of its |d|."""
    m = prepared.shape[1]
    p_lo = np.full((m, m), np.nan)
    p_hi = np.full((m, m), np.nan)
    scratch: dict[int, dict[str, np.ndarray]] = {}
    bounds = parallel_map(
        lambda k: _chunk_bounds(prepared, k, higher_is_better, scratch),
        range(len(prepared.chunks)),
        workers,
    )
    for (a, b, _), (lo_a, hi_a, lo_b, hi_b) in zip(
        prepared.chunks, bounds, strict=True
    ):
        p_lo[a, b], p_hi[a, b], p_lo[b, a], p_hi[b, a] = lo_a, hi_a, lo_b, hi_b
    scratch.clear()
    if prepared.shape[0] * m >= LARGE_ROWS:
        release_free_memory()  # the threads' buffers, freed in their arenas
    return p_lo, p_hi
