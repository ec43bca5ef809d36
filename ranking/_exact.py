"""Exactly rounded, order-independent aggregates and a canonical case order.

Contract §2: scores that are mathematically equal are equal. A column mean is
computed from the *exact* sum of its values (as a Python integer times a power
of two) and rounded once, so it depends only on the multiset of values; two
columns whose exact means are equal get the same float, whatever the order of
the cases or rows. The integer mantissas are summed per exponent with
vectorised ``bincount`` in two 26-bit halves, which stays exact below 2**26
summands per column (each partial sum is an integer below 2**53).

:func:`canonical_row_order` orders the cases of a task by their values, so
that relabelling cases or reordering rows cannot change which case a bootstrap
draw, a leave-one-out sample or a tie-break picks.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "NonFiniteResultError",
    "canonical_row_order",
    "differences_safe",
    "exact_means",
    "exact_quantile",
]

_FRACTION = (1 << 52) - 1
_HALF_BITS = 26  # a 53-bit mantissa as two halves below 2**27
_HALF_MASK = (1 << _HALF_BITS) - 1
_CHUNK_CELLS = 1 << 16


def _exact_sums(x: np.ndarray, present: np.ndarray) -> tuple[list[int], int]:
    """Exact column sums: column ``j`` sums to ``sums[j] * 2**scale``.

    A finite double is ``±M * 2**(E - 1075)`` with integers ``M < 2**53`` and
    ``E`` its biased exponent (1 for subnormals). Per (exponent, column) the
    two halves of ``M`` are summed by ``bincount``: each partial sum is an
    integer below 2**53, so the float accumulation is exact.
    """
    n, m = x.shape
    n_bins = 2048 * m
    high = np.zeros(n_bins)
    low = np.zeros(n_bins)
    columns = np.arange(m, dtype=np.int64)
    step = max(1, _CHUNK_CELLS // max(1, m))
    for start in range(0, n, step):
        block = np.where(present[start : start + step], x[start : start + step], 0.0)
        bits = block.view(np.int64)
        biased = (bits >> 52) & 0x7FF
        mantissa = (bits & _FRACTION) | ((biased != 0).astype(np.int64) << 52)
        index = (np.maximum(biased, 1) * m + columns).ravel()
        sign = np.where(bits < 0, -1.0, 1.0).ravel()
        high += np.bincount(
            index, weights=(mantissa >> _HALF_BITS).ravel() * sign, minlength=n_bins
        )
        low += np.bincount(
            index, weights=(mantissa & _HALF_MASK).ravel() * sign, minlength=n_bins
        )
    high = high.reshape(2048, m)
    low = low.reshape(2048, m)
    used = np.flatnonzero(((high != 0) | (low != 0)).any(axis=1))
    if used.size == 0:
        return [0] * m, 0
    e_min = int(used[0])
    sums = []
    for j in range(m):
        total = 0
        for e in used.tolist():
            part = (int(high[e, j]) << _HALF_BITS) + int(low[e, j])
            if part:
                total += part << (e - e_min)
        sums.append(total)
    return sums, e_min - 1075


def exact_means(values: np.ndarray) -> np.ndarray:
    """Correctly rounded mean of each column, NaN left out (NaN if none left).

    Parameters
    ----------
    values : ndarray, shape (n, m)
        Finite numbers or NaN.

    Returns
    -------
    ndarray, shape (m,)
        ``round(sum / k)`` with the exact sum: equal multisets (and equal exact
        means) give identical floats, and a mean never overflows.
    """
    x = np.asarray(values, dtype=np.float64)
    present = ~np.isnan(x)
    counts = present.sum(axis=0)
    sums, scale = _exact_sums(x, present)
    out = np.full(x.shape[1], np.nan)
    for j, (total, k) in enumerate(zip(sums, counts.tolist(), strict=True)):
        if k == 0:
            continue
        if scale >= 0:
            out[j] = (total << scale) / k
        else:
            out[j] = total / (k << -scale)  # int / int: correctly rounded
    return out


def exact_quantile(sorted_values: np.ndarray, q: float) -> float:
    """Type-7 quantile of already sorted finite values, without overflow.

    ``a + (b - a) * h`` as numpy computes it; when ``b - a`` overflows (values
    near ±1.8e308) the same interpolation is done in exact rational arithmetic.
    """
    n = sorted_values.size
    h = (n - 1) * q
    lo = int(np.floor(h))
    hi = min(lo + 1, n - 1)
    a, b = float(sorted_values[lo]), float(sorted_values[hi])
    frac = h - lo
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(np.quantile(sorted_values, q))
    if np.isfinite(value):
        return value
    from fractions import Fraction

    exact = Fraction(a) + (Fraction(b) - Fraction(a)) * Fraction(frac)
    return float(exact)


def canonical_row_order(key: np.ndarray) -> np.ndarray:
    """An order of the rows of ``key`` that depends only on their contents.

    Rows are sorted lexicographically by their values (NaN last); identical
    rows are interchangeable, so their relative order cannot matter.
    """
    k = np.asarray(key, dtype=np.float64)
    n = k.shape[0]
    if n <= 1 or k.shape[1] == 0:
        return np.arange(n)
    order = np.argsort(k[:, 0], kind="stable")
    first = k[order, 0]
    same = (first[1:] == first[:-1]) | (np.isnan(first[1:]) & np.isnan(first[:-1]))
    if not same.any():
        return order
    return np.lexsort(k.T[::-1])


class NonFiniteResultError(ValueError):
    """A computation would leave the float range (overflow to ±inf or NaN).

    Raised deep in the engine with the affected algorithm columns; the run
    re-raises it with the metric, task and algorithm names (:meth:`named`).
    """

    def __init__(
        self,
        detail: str,
        *,
        columns: tuple[int, ...] = (),
        metric: str | None = None,
        task: str | None = None,
        algorithms: tuple[str, ...] = (),
    ):
        self.detail = detail
        self.columns = tuple(columns)
        self.metric = metric
        self.task = task
        self.algorithms = tuple(algorithms)
        where = []
        if metric is not None:
            where.append(f"metric {metric!r}")
        if task is not None:
            where.append(f"task {task!r}")
        if algorithms:
            where.append("algorithm(s) " + ", ".join(repr(a) for a in algorithms))
        prefix = ", ".join(where)
        super().__init__(
            (f"{prefix}: " if prefix else "")
            + f"{detail}; the run is refused rather than ranked on an infinite or "
            "undefined score (rescale the metric, e.g. report it in other units)"
        )

    def named(
        self, *, metric: str, task: str, algorithms: list[str]
    ) -> NonFiniteResultError:
        """The same error with the names of the metric, task and algorithms."""
        if self.metric is not None:
            return self
        names = tuple(algorithms[j] for j in self.columns) or tuple(algorithms)
        return NonFiniteResultError(
            self.detail,
            columns=self.columns,
            metric=metric,
            task=task,
            algorithms=names,
        )


_HALVING_EXACT_BELOW = 2.0**-1021  # halving a smaller nonzero value may round


def differences_safe(x: np.ndarray) -> np.ndarray:
    """``x``, or ``x / 2`` when differences of its values could overflow.

    Halving is exact for every value of magnitude at least 2**-1021, so the
    signs, ties and order of all differences are unchanged (the Wilcoxon
    statistics depend on nothing else). When the values are both near the
    float limit and subnormal, no exact rescaling exists: refused.
    """
    finite = np.abs(x[~np.isnan(x)])
    if finite.size == 0 or float(finite.max()) < 2.0**1022:
        return x
    tiny = (finite > 0) & (finite < _HALVING_EXACT_BELOW)
    if tiny.any():
        columns = np.flatnonzero(
            np.nan_to_num(np.abs(x), nan=0.0).max(axis=0) >= 2.0**1022
        )
        raise NonFiniteResultError(
            "differences between values near ±1.8e308 overflow, and values near "
            "5e-324 in the same data rule out an exact rescaling",
            columns=tuple(int(c) for c in columns),
        )
    return x * 0.5
