"""Pairwise one-sided Wilcoxon signed-rank tests, test-then-rank and
significance maps (seed 000, "Ranking methods" and "Testing approach";
seed 003, steps 1-2; seed 004, Appendix A.2, Algorithm 3).

All ordered pairs of a (cases x algorithms) matrix are tested at once, and,
given a (samples x cases) matrix of case counts, for every bootstrap sample at
once. The trick: the ranks of ``|d|`` in a resample follow from the sorted
``|d|`` of the full data and the counts, so each pair is sorted once and every
sample costs only cumulative sums (exact integer arithmetic).

The ``approx`` method is R's ``wilcox.test(paired=TRUE, exact=FALSE)``:
zero differences discarded, mid-ranks for ties, tie-corrected variance and a
continuity correction of 1/2 — the same numbers as
``scipy.stats.wilcoxon(..., zero_method="wilcox", correction=True,
method="asymptotic")``. ``exact`` uses the exact null distribution when the
(non-zero) differences have no ties, there are no zero differences and
n ≤ 50 (R's rule), else the approximation.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ._exact import differences_safe
from ._parallel import parallel_map
from ._ranks import rank_rows
from .results import SignificanceResult

__all__ = [
    "PairedDifferences",
    "adjust_pvalues",
    "column_variant_pvalues",
    "pairs_with",
    "pairwise_wilcoxon",
    "significance_map",
    "significance_ranking",
]

_CHUNK_ELEMENTS = 2_000_000
EXACT_MAX_N = 50


@lru_cache(maxsize=1)
def _exact_upper_tail() -> np.ndarray:
    """``table[n, t] = P(T+ ≥ t)`` under H0 for n ≤ 50 untied non-zero ranks."""
    t_max = EXACT_MAX_N * (EXACT_MAX_N + 1) // 2
    table = np.zeros((EXACT_MAX_N + 1, t_max + 2))
    freq = np.zeros(t_max + 1)
    freq[0] = 1.0
    table[0, 0] = 1.0
    for n in range(1, EXACT_MAX_N + 1):
        shifted = np.zeros_like(freq)
        shifted[n:] = freq[:-n]
        freq = freq + shifted
        top = n * (n + 1) // 2
        tail = np.cumsum(freq[: top + 1][::-1])[::-1] / 2.0**n
        table[n, : top + 1] = tail
    return table


@lru_cache(maxsize=16)
def _pair_index(m: int) -> tuple[np.ndarray, np.ndarray]:
    """All pairs i < j of m algorithms (read-only: shared by every caller;
    the audit asks for them thousands of times)."""
    ii, jj = np.triu_indices(m, k=1)
    ii.flags.writeable = jj.flags.writeable = False
    return ii, jj


def pairs_with(m: int, column: int) -> np.ndarray:
    """Positions (among all pairs i < j of m algorithms) of the pairs that
    involve algorithm ``column``: the tests a change to one column affects."""
    ii, jj = _pair_index(m)
    return np.flatnonzero((ii == column) | (jj == column))


_EXACT_FLOAT = 2.0**53  # integers below this add up exactly in float64


_SERIAL_PRODUCT = 2**18  # multiply-adds per matrix product: BLAS stays on one thread


def _counted(weights: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """``weights @ flags`` in exact integers: (B, n) ints by (n, P) 0/1 floats.

    Float64 while every sum stays below 2**53: each partial sum of
    non-negative integers is at most the total, so no addition can round,
    whatever order BLAS adds in. The product goes in slices of rows small
    enough for BLAS to run single-threaded (its threads stall on a busy
    machine, and the engine's own workers already share the cores); integer
    einsum beyond 2**53.
    """
    if weights.size and float(weights.sum(axis=1).max()) >= _EXACT_FLOAT:
        return np.einsum("bn,np->bp", weights.astype(np.int64), flags.astype(np.int64))
    w = weights.astype(np.float64)
    rows = _SERIAL_PRODUCT // max(1, flags.shape[0] * flags.shape[1])
    if rows < 4:
        return np.einsum("bn,np->bp", w, flags).astype(np.int64)
    out = np.empty((w.shape[0], flags.shape[1]))
    for r0 in range(0, w.shape[0], rows):
        np.matmul(w[r0 : r0 + rows], flags, out=out[r0 : r0 + rows])
    return out.astype(np.int64)


_PACK = 2.0**20


def _counted_two(
    low: np.ndarray, high: np.ndarray, flags: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(low @ flags, high @ flags)`` in exact integers, as one product of
    ``low + high * 2**20`` when both fit (the halves cannot overlap)."""
    if low.size and (
        float(low.sum(axis=1).max()) < _PACK
        and float(high.sum(axis=1).max()) * _PACK < _EXACT_FLOAT
    ):
        packed = _counted(low + high * int(_PACK), flags)
        upper = packed >> 20
        return packed - (upper << 20), upper
    return _counted(low, flags), _counted(high, flags)


@dataclass(frozen=True)
class _PairChunk:
    """One chunk of pairs of a matrix, with everything a resample needs that
    depends only on the data: each pair's |d| sorted once (seed 000's
    bootstrap then costs O(n) per pair and sample)."""

    zero: np.ndarray  # (n, P) zero differences among the used cases
    fast: np.ndarray  # pairs whose non-zero |d| are all distinct
    slow: np.ndarray  # the other pairs (tie groups on the full data)
    pos_fast: np.ndarray  # (n, F) positive differences, by case
    nz_fast: np.ndarray  # (n, F) non-zero differences of used cases, by case
    order_fast: np.ndarray  # (n, F) case at each sorted position
    pos_order_fast: np.ndarray  # (n, F) that case if its d > 0, else n (no case)
    order_slow: np.ndarray  # (S, n)
    nz_slow: np.ndarray  # (S, n) sorted non-zero flags
    pos_slow: np.ndarray  # (S, n) sorted positive flags
    start_slow: np.ndarray  # (S, n) first sorted position of each tie group
    end_slow: np.ndarray  # (S, n) exclusive end of each tie group
    group_start_slow: np.ndarray  # (S, n) first position of a non-zero group


def _prepare_chunk(d: np.ndarray, dropped: np.ndarray) -> _PairChunk:
    """Sort the |d| of some pairs; ``d`` (pairs x cases) is 0.0 where ``dropped``."""
    n_pairs, n = d.shape
    absd = np.where(dropped, 0.0, np.abs(d))
    zero = (absd == 0) & ~dropped
    # Order within a tie group is irrelevant (groups share their mid-rank),
    # so the fast unstable sort is fine.
    order = np.argsort(absd, axis=1)  # (P, n)
    sabs = np.take_along_axis(absd, order, axis=1)
    sd = np.take_along_axis(d, order, axis=1)
    nz = sabs > 0
    pos = (sd > 0) & nz
    new = np.ones((n_pairs, n), dtype=bool)
    new[:, 1:] = sabs[:, 1:] != sabs[:, :-1]
    group_start = new & nz
    # Pairs whose non-zero |d| are all distinct on the full data (the usual
    # case for continuous metrics) need no tie-group bookkeeping: in a
    # resample each case is its own tie group of size count.
    untied = group_start.sum(axis=1) == nz.sum(axis=1)
    fast, slow = np.flatnonzero(untied), np.flatnonzero(~untied)
    order_t = np.ascontiguousarray(order[fast].T)
    pos_t = pos[fast].T
    ar = np.arange(n)
    s_new = new[slow]
    start = np.maximum.accumulate(np.where(s_new, ar, 0), axis=1)
    last = np.ones(s_new.shape, dtype=bool)
    last[:, :-1] = s_new[:, 1:]
    rev = np.maximum.accumulate(np.where(last[:, ::-1], ar, 0), axis=1)[:, ::-1]
    used = ~dropped[fast]
    return _PairChunk(
        zero=np.ascontiguousarray(zero.T, dtype=np.float64),
        fast=fast,
        slow=slow,
        pos_fast=np.ascontiguousarray(((d[fast] > 0) & used).T, dtype=np.float64),
        nz_fast=np.ascontiguousarray(
            ((np.abs(d[fast]) > 0) & used).T, dtype=np.float64
        ),
        order_fast=order_t,
        pos_order_fast=np.ascontiguousarray(np.where(pos_t, order_t, n)),
        order_slow=order[slow],
        nz_slow=nz[slow],
        pos_slow=pos[slow],
        start_slow=start,
        end_slow=n - rev,
        group_start_slow=group_start[slow],
    )


def _cross_term(chunk: _PairChunk, w: np.ndarray, bound: int) -> np.ndarray:
    """Σ over positive d of count x (inclusive cumulative count in |d| order),
    shape (B, F): one pass over the sorted positions, each step adding the
    counts of one position of every pair and sample (exact integers)."""
    n, n_fast = chunk.order_fast.shape
    # Every count, cumulative count, product and sum is at most bound**2
    # (bound: a sample's total count), so the narrowest type that holds it
    # is exact; 16 bits (up to 181 cases) halve the memory each step streams.
    square = bound * bound
    ctype = np.int16 if square < 2**15 else np.int32 if square < 2**31 else np.int64
    wt = np.zeros((n + 1, w.shape[0]), dtype=ctype)  # row n: "no case", count 0
    wt[:n] = w.T
    cum = np.zeros((n_fast, w.shape[0]), dtype=ctype)
    acc = np.zeros_like(cum)
    step = np.empty_like(cum)
    for k in range(n):
        wt.take(chunk.order_fast[k], axis=0, out=step)
        cum += step
        wt.take(chunk.pos_order_fast[k], axis=0, out=step)
        step *= cum
        acc += step
    return acc.T.astype(np.int64)


def _signed_rank_batch(
    chunk: _PairChunk, counts: np.ndarray, *, zeros: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Signed-rank statistics of the chunk's pairs in many resamples.

    Parameters
    ----------
    chunk : the pairs, from :func:`_prepare_chunk`.
    counts : (B, n) int case multiplicities.

    Returns
    -------
    t2 : (B, P) twice the sum of the positive mid-ranks (an integer).
    n_eff : (B, P) number of non-zero differences.
    tie : (B, P) sum of (t^3 - t) over tie groups of |d|.
    n_zero : (B, P) number of zero differences among used cases (None
        unless ``zeros``: only the exact test needs it).
    """
    n, n_pairs = chunk.zero.shape
    itype = np.int32 if n < 40_000 else np.int64
    b_total = counts.shape[0]
    t2 = np.empty((b_total, n_pairs), dtype=np.int64)
    n_eff = np.empty((b_total, n_pairs), dtype=np.int64)
    tie = np.empty((b_total, n_pairs), dtype=np.float64)
    fast, slow = chunk.fast, chunk.slow
    step = max(1, _CHUNK_ELEMENTS // max(1, n * n_pairs))
    for b0 in range(0, b_total, step):
        w = counts[b0 : b0 + step].astype(itype, copy=False)
        b1 = b0 + w.shape[0]
        if fast.size:
            w64 = w.astype(np.int64)
            w2 = w64 * w64
            bound = int(w64.sum(axis=1).max())
            # Terms that do not depend on the order of |d| are sums over the
            # cases in their own order: matrix products in exact integers.
            # s1: positive d, counted; total: non-zero d, counted
            s1, s2 = _counted_two(w64, w2, chunk.pos_fast)
            total, cubes = _counted_two(w64, w2 * w64, chunk.nz_fast)
            before = w64.sum(axis=1)[:, None] - total  # zeros and unused first
            cross = _cross_term(chunk, w64, bound)
            # mid-rank of a case drawn k times whose inclusive count among the
            # non-zero |d| is c: c - (k - 1) / 2; twice the sum over positive
            # differences is 2 sum(k c) - sum(k^2) + sum(k)
            t2[b0:b1, fast] = 2 * (cross - before * s1) - s2 + s1
            n_eff[b0:b1, fast] = total
            tie[b0:b1, fast] = cubes - total
        if slow.size:
            rows = np.arange(slow.size)[:, None]
            # counts and cumulative counts are at most a sample's total, twice
            # the rank sum at most 3 total**2: 32 bits while that fits (half
            # the memory each step streams), exact either way
            most = int(w.sum(axis=1).max())
            ctype = np.int32 if 3 * most * most < 2**31 else np.int64
            ws = (w[:, chunk.order_slow] * chunk.nz_slow).astype(ctype, copy=False)
            cum0 = np.zeros((ws.shape[0], slow.size, n + 1), dtype=ctype)
            np.cumsum(ws, axis=2, out=cum0[:, :, 1:])
            cs = cum0[:, rows, chunk.start_slow]
            g = cum0[:, rows, chunk.end_slow] - cs
            t2[b0:b1, slow] = np.einsum(
                "bpn,bpn->bp", ws * chunk.pos_slow, 2 * cs + g + 1
            )
            n_eff[b0:b1, slow] = cum0[:, :, n]
            gf = g.astype(np.float64)
            tie[b0:b1, slow] = np.where(
                chunk.group_start_slow, gf * gf * gf - gf, 0.0
            ).sum(axis=2)
    n_zero = _counted(np.asarray(counts, dtype=np.int64), chunk.zero) if zeros else None
    return t2, n_eff, tie, n_zero


def _signed_rank_single(
    d: np.ndarray, dropped: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_signed_rank_batch` for the data themselves (every count 1).

    ``d`` holds 0.0 (never -0.0) for dropped cases. Each difference becomes
    one integer key, ``|d|``'s IEEE bits (monotone for non-negative floats)
    shifted left with the sign in the lowest bit, so one sort orders |d| and
    zeros (key 0) come first; the rank sums are then dot products. Pairs with
    tied non-zero |d| are handed to the general routine.
    """
    n_pairs, n = d.shape
    bits = d.view(np.uint64)
    key = np.sort((bits << np.uint64(1)) | (bits >> np.uint64(63)), axis=1)
    n_first = np.count_nonzero(key == 0, axis=1)  # zero or dropped
    negative = (key & np.uint64(1)).astype(np.float64)
    ranks = np.arange(1, n + 1, dtype=np.float64)
    neg_positions = negative @ ranks  # sum of (position + 1) of negative d
    n_neg = negative.sum(axis=1).astype(np.int64)
    n_eff = n - n_first
    n_pos = n_eff - n_neg
    # positions n_first .. n - 1 hold the non-zero |d|, with ranks 1 .. n_eff
    all_positions = (n * (n + 1) - n_first * (n_first + 1)) // 2
    t2 = 2 * (all_positions - np.rint(neg_positions).astype(np.int64) - n_first * n_pos)
    adjacent = np.count_nonzero((key[:, 1:] ^ key[:, :-1]) < np.uint64(2), axis=1)
    tied = adjacent > np.maximum(n_first - 1, 0)  # zeros are adjacent too
    tie = np.zeros(n_pairs)
    if tied.any():
        ones = np.ones((1, n), dtype=np.int64)
        chunk = _prepare_chunk(d[tied], dropped[tied])
        t2_t, n_eff_t, tie_t, _ = _signed_rank_batch(chunk, ones, zeros=False)
        t2[tied], n_eff[tied], tie[tied] = t2_t[0], n_eff_t[0], tie_t[0]
    n_zero = n_first - np.count_nonzero(dropped, axis=1)
    return t2[None], n_eff[None], tie[None], n_zero[None]


def _leave_one_out_cases(counts: np.ndarray) -> np.ndarray | None:
    """The case each row of ``counts`` leaves out (n: none), when every row
    counts each case once but at most one (leave-one-case-out, also within a
    target's cases, where a sample may leave out a case of another); else
    None."""
    if counts.ndim != 2 or not counts.size:
        return None
    n = counts.shape[1]
    ones = np.count_nonzero(counts == 1, axis=1)
    if not np.all(ones + np.count_nonzero(counts == 0, axis=1) == n):
        return None
    if not np.all(ones >= n - 1):
        return None
    return np.where(ones == n, n, np.argmin(counts, axis=1))


def _signed_rank_leave_one_out(
    d: np.ndarray, dropped: np.ndarray, left_out: np.ndarray, *, zeros: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`_signed_rank_batch` for leave-one-case-out counts (row b counts
    every case once but ``left_out[b]``; n: none), from the data's own ranks.

    Leaving out a non-zero difference of mid-rank group G (non-zero cases
    before it s, size g) moves the differences of later groups one rank down
    and the rest of G half a rank down, and takes its own rank 2s + g + 1
    (twice the mid-rank) out if it is positive: O(n) per pair instead of
    O(n) per pair and sample. The same integers as the batch routine.
    """
    n_pairs, n = d.shape
    absd = np.where(dropped, 0.0, np.abs(d))
    order = np.argsort(absd, axis=1)
    sabs = np.take_along_axis(absd, order, axis=1)
    nz = sabs > 0  # zeros and dropped cases come first
    pos = (np.take_along_axis(d, order, axis=1) > 0) & nz
    ar = np.arange(n)
    new = np.ones((n_pairs, n), dtype=bool)
    new[:, 1:] = sabs[:, 1:] != sabs[:, :-1]
    start = np.maximum.accumulate(np.where(new, ar, 0), axis=1)
    last = np.ones((n_pairs, n), dtype=bool)
    last[:, :-1] = new[:, 1:]
    end = n - np.maximum.accumulate(np.where(last[:, ::-1], ar, 0), axis=1)[:, ::-1]
    size = end - start
    n_first = n - np.count_nonzero(nz, axis=1)  # zero or dropped
    twice = 2 * (start - n_first[:, None]) + size + 1  # twice the mid-rank
    cum_pos = np.zeros((n_pairs, n + 1), dtype=np.int64)
    np.cumsum(pos, axis=1, out=cum_pos[:, 1:])
    rows = np.arange(n_pairs)[:, None]
    later = cum_pos[:, n][:, None] - cum_pos[rows, end]  # positive, later groups
    in_group = cum_pos[rows, end] - cum_pos[rows, start]  # positive, same group
    t2_all = np.where(pos, twice, 0).sum(axis=1)
    ties = np.where(new & nz, size * size * size - size, 0).sum(axis=1)
    # what leaving out the case at each sorted position takes away
    shrunk = size - 1
    t2_less = np.where(nz, 2 * later + in_group - pos + pos * twice, 0)
    tie_less = np.where(nz, size**3 - size - (shrunk**3 - shrunk), 0)
    # sorted position of each case; "case" n (none left out) at position n,
    # where nothing is taken away
    at = np.full((n_pairs, n + 1), n, dtype=np.intp)
    at[rows, order] = ar
    k = at[:, left_out].T  # (B, pairs)
    cols = np.arange(n_pairs)[None, :]

    def taken(per_position: np.ndarray) -> np.ndarray:
        padded = np.zeros((n_pairs, n + 1), dtype=per_position.dtype)
        padded[:, :n] = per_position
        return padded[cols, k]

    t2 = t2_all[None, :] - taken(t2_less)
    n_eff = (n - n_first)[None, :] - taken(nz.astype(np.int64))
    tie = (ties[None, :] - taken(tie_less)).astype(np.float64)
    n_zero = None
    if zeros:
        zero = (absd == 0) & ~dropped
        zero_at = np.zeros((n_pairs, n + 1), dtype=np.int64)
        zero_at[:, :n] = zero
        n_zero = zero.sum(axis=1)[None, :] - zero_at[:, left_out].T
    return t2, n_eff, tie, n_zero


_SMALL = 4096  # up to this many p-values math.erfc is cheaper than importing scipy


def _normal_upper_tail(z: np.ndarray, family: int) -> np.ndarray:
    """P(Z >= z) for a standard normal Z, elementwise.

    Small families of tests (``family`` p-values computed together: the
    data's own tests) use ``math.erfc`` so that a small job never imports
    scipy; large ones (bootstrap samples) ``scipy.special.ndtr``. Both are
    accurate to about one unit in the last place, but not the same unit: the
    choice depends on the family, never on how many of its tests are
    recomputed (the audit recomputes a few pairs).
    """
    if family <= _SMALL:
        flat = [0.5 * math.erfc(v / _SQRT2) for v in z.ravel().tolist()]
        return np.asarray(flat, dtype=np.float64).reshape(z.shape)
    from scipy.special import ndtr

    return ndtr(-z)


_SQRT2 = math.sqrt(2.0)


def _null_moments(
    n_eff: np.ndarray, tie: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and standard deviation of the positive rank sum under H0 (tie
    corrected), and where they are defined (some non-zero difference)."""
    nf = n_eff.astype(np.float64)
    mean = nf * (nf + 1) / 4
    var = (nf * (nf + 1) * (2 * nf + 1) - tie / 2) / 24
    ok = n_eff > 0
    return mean, np.sqrt(np.where(ok, var, 1.0)), ok


def _z_greater(t_plus2: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """The continuity-corrected normal statistic of "differences tend to be
    positive" (moments from :func:`_null_moments`)."""
    return (t_plus2 / 2 - mean - 0.5) / sd


def _exact_cases(
    n_eff: np.ndarray, tie: np.ndarray, n_zero: np.ndarray | None, ok: np.ndarray
) -> np.ndarray:
    """Tests the exact null distribution decides (R's rule, module docstring)."""
    return ok & (n_eff <= EXACT_MAX_N) & (tie == 0) & (n_zero == 0)


def _p_greater(
    t_plus2: np.ndarray,
    n_eff: np.ndarray,
    tie: np.ndarray,
    n_zero: np.ndarray | None,
    method: str,
    family: int,
) -> np.ndarray:
    """One-sided p-value of "differences tend to be positive" (``family``:
    see :func:`_normal_upper_tail`)."""
    mean, sd, ok = _null_moments(n_eff, tie)
    z = _z_greater(t_plus2, mean, sd)
    p = np.where(ok, _normal_upper_tail(z, family), 1.0)
    if method == "exact":
        exact = _exact_cases(n_eff, tie, n_zero, ok)
        if exact.any():
            t_plus = t_plus2[exact] // 2
            p[exact] = _exact_upper_tail()[n_eff[exact], t_plus]
    return p


_Z_SLACK = 1e-6  # z this close to the critical value: decided by the p-value


@dataclass(frozen=True)
class _Threshold:
    """ "Adjusted p ≤ alpha" for an adjustment that scales every p-value by
    the same factor (none: 1; Bonferroni: the number of tests), decided from
    the normal statistic z without computing the normal tail where z is not
    within ``_Z_SLACK`` (relative) of the critical value.

    p = P(Z ≥ z) falls with z, so the decision is "z above the critical z".
    Both tails the engine uses (``math.erfc``, ``scipy.special.ndtr``) are
    accurate to a few units in the last place, while a step of ``_Z_SLACK``
    in z moves p by a relative 1e-7 or more (for critical p-values between
    1e-250 and 0.45): away from the critical value the decision is the
    p-value's whatever the rounding, and near it the p-value is computed as
    :func:`pairwise_wilcoxon` does and decides. Same decisions, bit for bit,
    without the normal tail of every bootstrap test (nor importing scipy for
    it).
    """

    alpha: float
    scale: float
    z_low: float
    z_high: float

    @classmethod
    def of(cls, alpha: float, p_adjust: str, n_tests: int) -> _Threshold | None:
        """None when the decision is not a threshold on p (Holm) or the
        critical p-value is outside the range where the slack is proven."""
        if p_adjust not in ("none", "bonferroni") or not 0 < alpha < 1:
            return None
        if n_tests < 1:  # one algorithm: no tests to decide
            return None
        scale = 1.0 if p_adjust == "none" else float(n_tests)
        critical = alpha / scale
        if not 1e-250 <= critical <= 0.45:
            return None
        z = _critical_z(critical)
        slack = _Z_SLACK * max(1.0, z)
        return cls(alpha=alpha, scale=scale, z_low=z - slack, z_high=z + slack)

    def decide(self, p: np.ndarray) -> np.ndarray:
        """The decision from p-values, as ``adjust_pvalues`` and ``<= alpha``."""
        if self.scale == 1.0:
            return p <= self.alpha
        return np.minimum(1.0, p * self.scale) <= self.alpha


@lru_cache(maxsize=32)
def _critical_z(p: float) -> float:
    """z with P(Z ≥ z) = p (0 < p < 1/2), by bisection on ``math.erfc``."""
    low, high = 0.0, 40.0
    for _ in range(200):
        mid = (low + high) / 2
        if 0.5 * math.erfc(mid / _SQRT2) > p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _significant_greater(
    z: np.ndarray,
    ok: np.ndarray,
    family: int,
    threshold: _Threshold,
    exact: np.ndarray | None = None,
    exact_p: np.ndarray | None = None,
) -> np.ndarray:
    """``threshold.decide(p)`` for the p-values :func:`_p_greater` would give
    (``ok``: the tests with a statistic, p = 1 elsewhere; ``exact``: the
    tests it takes from the exact table, ``exact_p`` their p-values)."""
    significant = ok & (z > threshold.z_high)
    near = ok & (z >= threshold.z_low) & ~significant
    if near.any():
        significant[near] = threshold.decide(_normal_upper_tail(z[near], family))
    if exact is not None and exact_p is not None:
        significant[exact] = threshold.decide(exact_p)
    return significant


_KEEP_CELLS = 1_000_000  # pairs x cases kept sorted between calls (~40 B each)


class PairedDifferences:
    """The differences of pairs of algorithms of one (cases x algorithms)
    matrix, in chunks of pairs of bounded size.

    For resamples each pair's |d| are sorted once: a small matrix keeps its
    sorted pairs between calls (a bootstrap's blocks, leave-one-case-out and
    the audit share them); a large one sorts them again for every call, so
    memory stays bounded by the chunk size.

    Parameters
    ----------
    values : ndarray, shape (n_cases, m_algorithms)
        NaN marks a missing result.
    pairs : ndarray, optional
        The pairs to test, as positions in the list of all pairs i < j
        (``numpy.triu_indices(m, 1)``, e.g. :func:`pairs_with`); all pairs by
        default. Each keeps the chunk it has among all pairs, so its p-value
        is computed exactly as when all pairs are tested.
    """

    def __init__(self, values: np.ndarray, pairs: np.ndarray | None = None):
        x = np.asarray(values, dtype=np.float64)
        if x.ndim != 2:
            raise ValueError("values must be a (cases x algorithms) matrix")
        x = differences_safe(x)  # d = x_i - x_j must not overflow
        self.shape: tuple[int, int] = x.shape
        n, m = x.shape
        self._xt = np.ascontiguousarray(x.T) + 0.0  # algorithms x cases; no -0.0
        self._missing = np.isnan(self._xt)
        self._any_missing = bool(self._missing.any())
        ii, jj = _pair_index(m)
        step = max(1, _CHUNK_ELEMENTS // max(1, n))
        chosen = np.arange(ii.size) if pairs is None else np.unique(pairs)
        bounds = np.searchsorted(chosen, np.arange(0, ii.size + step, step))
        #: (first algorithms, second algorithms, pairs in the whole chunk)
        self.chunks: list[tuple[np.ndarray, np.ndarray, int]] = [
            (ii[chosen[lo:hi]], jj[chosen[lo:hi]], min(step, ii.size - k * step))
            for k, (lo, hi) in enumerate(itertools.pairwise(bounds))
            if hi > lo
        ]
        self._keep = chosen.size * n <= _KEEP_CELLS
        self._sorted: dict[int, _PairChunk] = {}

    def differences(
        self, k: int, out: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``d`` (one row per pair of chunk ``k``; 0.0 where dropped), dropped;
        ``d`` is written to ``out`` if given."""
        a, b, _ = self.chunks[k]
        d_rows = np.empty((a.size, self.shape[0])) if out is None else out
        # Pairs come in runs of one first algorithm; when the second ones are
        # consecutive (all pairs tested) the run is one broadcast subtraction.
        starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]]).tolist()
        for s, e in zip(starts, [*starts[1:], a.size], strict=True):
            run = slice(b[s], b[e - 1] + 1) if b[e - 1] - b[s] == e - s - 1 else b[s:e]
            np.subtract(self._xt[a[s]], self._xt[run], out=d_rows[s:e])
        if self._any_missing:
            dropped = self._missing[a] | self._missing[b]
            d_rows[dropped] = 0.0
        else:
            dropped = np.zeros(d_rows.shape, dtype=bool)
        return d_rows, dropped

    def sorted_chunk(self, k: int) -> _PairChunk:
        """Chunk ``k`` prepared for resamples (kept when the matrix is small)."""
        chunk = self._sorted.get(k)
        if chunk is None:
            chunk = _prepare_chunk(*self.differences(k))
            if self._keep:
                self._sorted[k] = chunk
        return chunk

    def statistics(
        self, k: int, counts: np.ndarray | None, *, zeros: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """(t2, n_eff, tie, n_zero) of chunk ``k``, each (B, pairs); B = 1
        without counts (the data themselves); n_zero only with ``zeros``."""
        if counts is None:
            return _signed_rank_single(*self.differences(k))
        left_out = _leave_one_out_cases(counts)
        if left_out is not None:
            return _signed_rank_leave_one_out(
                *self.differences(k), left_out, zeros=zeros
            )
        return _signed_rank_batch(self.sorted_chunk(k), counts, zeros=zeros)


def pairwise_wilcoxon(
    values: np.ndarray,
    counts: np.ndarray | None = None,
    *,
    higher_is_better: bool = True,
    method: str = "approx",
    pairs: PairedDifferences | None = None,
    workers: int | None = 1,
) -> np.ndarray:
    """One-sided paired Wilcoxon p-values for every ordered pair of algorithms.

    Parameters
    ----------
    values : ndarray, shape (n_cases, m_algorithms)
        NaN marks a missing result; a pair uses the cases both algorithms have.
    counts : ndarray, shape (B, n_cases), optional
        Case multiplicities of B resamples (a case drawn twice is two pairs).
    higher_is_better : bool
        Direction: "i better than j" means ``x_i - x_j`` tends to be positive
        (negative when lower is better).
    method : {"approx", "exact"}
    pairs : PairedDifferences, optional
        ``PairedDifferences(values)`` made once and reused across calls (its
        sorted pairs are then shared); it also selects the pairs tested (the
        others stay NaN).
    workers : int, optional
        Threads for the chunks of pairs of a large matrix (None: the default
        of :func:`ranking._parallel.default_workers`); the result is the same.

    Returns
    -------
    ndarray, shape (m, m), or (B, m, m) with counts
        ``p[..., i, j]``: unadjusted p-value of "i better than j"; the diagonal
        is NaN. No cases left for a pair gives p = 1.
    """
    if method not in ("approx", "exact"):
        raise ValueError("method must be 'approx' or 'exact'")
    prepared = PairedDifferences(values) if pairs is None else pairs
    m = prepared.shape[1]
    w = None if counts is None else np.asarray(counts, dtype=np.int64)
    out = np.full((1 if w is None else w.shape[0], m, m), np.nan)

    def chunk_pvalues(k: int) -> tuple[np.ndarray, np.ndarray]:
        t2, n_eff, tie, n_zero = prepared.statistics(k, w, zeros=method == "exact")
        total2 = n_eff * (n_eff + 1)  # twice n(n+1)/2
        family = t2.shape[0] * prepared.chunks[k][2]
        p_a = _p_greater(t2, n_eff, tie, n_zero, method, family)  # a > b in value
        p_b = _p_greater(total2 - t2, n_eff, tie, n_zero, method, family)
        return (p_a, p_b) if higher_is_better else (p_b, p_a)

    results = parallel_map(chunk_pvalues, range(len(prepared.chunks)), workers)
    for (a, b, _), (p_a, p_b) in zip(prepared.chunks, results, strict=True):
        out[:, a, b] = p_a
        out[:, b, a] = p_b
    return out[0] if counts is None else out


def _resample_decisions(
    values: np.ndarray,
    counts: np.ndarray,
    threshold: _Threshold,
    *,
    higher_is_better: bool,
    method: str,
    pairs: PairedDifferences | None,
) -> np.ndarray:
    """``significant[b, i, j]`` of resample ``b``: what adjusting
    ``pairwise_wilcoxon(values, counts, ...)`` and comparing with alpha
    gives, decided by ``threshold`` (p-values only near the critical one)."""
    prepared = PairedDifferences(values) if pairs is None else pairs
    m = prepared.shape[1]
    w = np.asarray(counts, dtype=np.int64)
    out = np.zeros((w.shape[0], m, m), dtype=bool)
    table = _exact_upper_tail() if method == "exact" else None
    for k, (a, b, in_chunk) in enumerate(prepared.chunks):
        t2, n_eff, tie, n_zero = prepared.statistics(k, w, zeros=table is not None)
        family = t2.shape[0] * in_chunk
        mean, sd, ok = _null_moments(n_eff, tie)
        exact = None if table is None else _exact_cases(n_eff, tie, n_zero, ok)
        decided = []
        # "a better than b in value" from twice the positive rank sum, the
        # other direction from twice the negative one
        for t in (t2, n_eff * (n_eff + 1) - t2):
            exact_p = None
            if exact is not None and exact.any():
                exact_p = table[n_eff[exact], t[exact] // 2]
            z = _z_greater(t, mean, sd)
            decided.append(
                _significant_greater(z, ok, family, threshold, exact, exact_p)
            )
        sig_a, sig_b = decided if higher_is_better else decided[::-1]
        out[:, a, b] = sig_a
        out[:, b, a] = sig_b
    return out


def column_variant_pvalues(
    values: np.ndarray,
    columns: np.ndarray,
    variants: np.ndarray,
    *,
    higher_is_better: bool = True,
    method: str = "approx",
) -> np.ndarray:
    """P-values of the pairs of one column, with that column replaced.

    Parameters
    ----------
    values : ndarray, shape (n_cases, m_algorithms)
    columns : ndarray of int, shape (V,)
        Variant ``v`` replaces column ``columns[v]``...
    variants : ndarray, shape (n_cases, V)
        ...by ``variants[:, v]`` (NaN: missing).

    Returns
    -------
    ndarray, shape (V, m, m)
        ``p[v]`` as :func:`pairwise_wilcoxon` gives it for ``values`` with
        column ``columns[v]`` replaced, in the row and column of that
        algorithm (the other tests are unchanged by the replacement: NaN).
        All variants' tests are computed together, each as in the whole
        family of pairs (same chunk, same normal tail).
    """
    x = np.asarray(values, dtype=np.float64)
    n, m = x.shape
    both = differences_safe(np.column_stack([x, variants]))  # halving is exact
    xt = np.ascontiguousarray(both.T) + 0.0
    missing = np.isnan(xt)
    ii, jj = _pair_index(m)
    step = max(1, _CHUNK_ELEMENTS // max(1, n))
    # One row per (variant, pair of its column), in the pair's orientation,
    # the variant standing in for its column.
    cols = np.asarray(columns, dtype=np.int64)
    q = [pairs_with(m, j) for j in cols.tolist()]
    out = np.full((cols.size, m, m), np.nan)
    if not q or not any(part.size for part in q):
        return out
    va = np.repeat(np.arange(cols.size), [part.size for part in q])
    q_all = np.concatenate(q)
    a, b = ii[q_all], jj[q_all]
    sa = np.where(a == cols[va], m + va, a)
    sb = np.where(b == cols[va], m + va, b)
    fam = np.minimum(step, ii.size - (q_all // step) * step)  # pairs in its chunk
    for family in np.unique(fam).tolist():
        sel = np.flatnonzero(fam == family)
        for r0 in range(0, sel.size, step):
            r = sel[r0 : r0 + step]
            d = xt[sa[r]] - xt[sb[r]]
            dropped = missing[sa[r]] | missing[sb[r]]
            d[dropped] = 0.0
            t2, n_eff, tie, n_zero = _signed_rank_single(d, dropped)
            total2 = n_eff * (n_eff + 1)
            p_a = _p_greater(t2, n_eff, tie, n_zero, method, family)[0]
            p_b = _p_greater(total2 - t2, n_eff, tie, n_zero, method, family)[0]
            if not higher_is_better:
                p_a, p_b = p_b, p_a
            out[va[r], a[r], b[r]] = p_a
            out[va[r], b[r], a[r]] = p_b
    return out


def adjust_pvalues(pvalues: np.ndarray, *, method: str = "none") -> np.ndarray:
    """Adjust the off-diagonal p-values of each (m x m) matrix for multiplicity.

    The family is the m(m - 1) ordered pairs of a task, as in challengeR.

    Parameters
    ----------
    pvalues : ndarray, shape (..., m, m)
    method : {"none", "holm", "bonferroni"}
    """
    p = np.array(pvalues, dtype=np.float64, copy=True)
    if method == "none":
        return p
    m = p.shape[-1]
    off = ~np.eye(m, dtype=bool)
    flat = p[..., off]  # (..., M)
    n_tests = flat.shape[-1]
    if n_tests == 0:
        return p
    if method == "bonferroni":
        adj = np.minimum(1.0, flat * n_tests)
    elif method == "holm":
        order = np.argsort(flat, axis=-1, kind="stable")
        sorted_p = np.take_along_axis(flat, order, axis=-1)
        factor = n_tests - np.arange(n_tests)
        stepped = np.maximum.accumulate(np.minimum(1.0, sorted_p * factor), axis=-1)
        adj = np.empty_like(flat)
        np.put_along_axis(adj, order, stepped, axis=-1)
    else:
        raise ValueError("p_adjust must be 'none', 'holm' or 'bonferroni'")
    p[..., off] = adj
    return p


def _decide(
    values: np.ndarray,
    counts: np.ndarray | None,
    *,
    alpha: float,
    p_adjust: str,
    method: str,
    higher_is_better: bool,
    pairs: PairedDifferences | None = None,
    pvalues: np.ndarray | None = None,
) -> tuple[np.ndarray | None, np.ndarray]:
    """(adjusted p-values, significant); resamples that the threshold of
    ``alpha`` decides come without p-values (None)."""
    if pvalues is None and counts is not None:
        m = np.shape(values)[1]
        threshold = _Threshold.of(alpha, p_adjust, m * (m - 1))
        if threshold is not None:
            significant = _resample_decisions(
                values,
                counts,
                threshold,
                higher_is_better=higher_is_better,
                method=method,
                pairs=pairs,
            )
            return None, significant
    if pvalues is None:
        pvalues = pairwise_wilcoxon(
            values,
            counts,
            higher_is_better=higher_is_better,
            method=method,
            pairs=pairs,
        )
    p = adjust_pvalues(pvalues, method=p_adjust)
    significant = np.nan_to_num(p, nan=1.0) <= alpha
    return p, significant


def significance_scores(
    values: np.ndarray,
    counts: np.ndarray | None = None,
    *,
    alpha: float = 0.05,
    p_adjust: str = "none",
    method: str = "approx",
    higher_is_better: bool = True,
    pairs: PairedDifferences | None = None,
    pvalues: np.ndarray | None = None,
) -> np.ndarray:
    """Number of algorithms each algorithm is significantly better than.

    Returns shape (m,), or (B, m) with counts (seed 003, "Significance scoring").
    ``pairs``: ``PairedDifferences(values)``, reused across calls;
    ``pvalues``: the unadjusted p-values of ``values``, if already known.
    """
    _, significant = _decide(
        values,
        counts,
        alpha=alpha,
        p_adjust=p_adjust,
        method=method,
        higher_is_better=higher_is_better,
        pairs=pairs,
        pvalues=pvalues,
    )
    return significant.sum(axis=-1).astype(np.float64)


def significance_ranking(
    values: np.ndarray,
    *,
    alpha: float = 0.05,
    p_adjust: str = "none",
    method: str = "approx",
    ties: str = "min",
    higher_is_better: bool = True,
) -> SignificanceResult:
    """Test-based ranking: rank by the number of significant one-sided wins.

    Seed 000, "Ranking methods" (test-based procedures); seed 003 (MSD);
    seed 004, Appendix A.2, Algorithm 3. Equal scores share a rank.

    Parameters
    ----------
    values : ndarray, shape (n_cases, m_algorithms)
        NaN marks a missing result (pairs use the cases both have).
    alpha : float
        Significance level; a test is significant when its (adjusted) p ≤ alpha.
    p_adjust : {"none", "holm", "bonferroni"}
    method : {"approx", "exact"}
    ties : {"min", "average", "max"}
    higher_is_better : bool

    Returns
    -------
    SignificanceResult
    """
    p, significant = _decide(
        values,
        None,
        alpha=alpha,
        p_adjust=p_adjust,
        method=method,
        higher_is_better=higher_is_better,
    )
    scores = significant.sum(axis=1).astype(np.float64)
    return SignificanceResult(
        pvalues=p,
        significant=significant,
        scores=scores,
        ranks=rank_rows(scores, ties=ties, higher_is_better=True),
    )


def significance_map(
    values: np.ndarray,
    *,
    alpha: float = 0.05,
    method: str = "approx",
    higher_is_better: bool = True,
    ties: str = "min",
) -> SignificanceResult:
    """The significance map of seed 000 (Fig. 7): one-sided Wilcoxon, Holm.

    ``significant[i, j]`` is True when algorithm i is significantly better
    than j after Holm's adjustment over all m(m - 1) ordered pairs: the
    test-based ranking (:func:`significance_ranking`) with ``p_adjust="holm"``.
    """
    return significance_ranking(
        values,
        alpha=alpha,
        p_adjust="holm",
        method=method,
        ties=ties,
        higher_is_better=higher_is_better,
    )
