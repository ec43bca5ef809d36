"""Rank confidence intervals (seed 001).

Implements the five procedures of the supplement of Foucart, Elskens and
Decaestecker, "Ranking the scores of algorithms with confidence" (ESANN 2025),
as fixed by the ranking-scheme contract (section 2, "Rank confidence
intervals follow seed 001 exactly"):

``"bootstrap"`` / ``"bootstrap_unpaired"``
    Paired (unpaired: per algorithm) bootstrap of the cases; the interval of
    algorithm ``i`` runs between the ranks (of the mean score) at the
    ``alpha/2`` and ``1 - alpha/2`` shares of the bootstrap samples.
``"id_nemenyi"``
    Iman-Davenport gate on per-case ranks, then Nemenyi's test (studentized
    range with infinite degrees of freedom) on the mean ranks.
``"id_wilcoxon_two_sided"`` / ``"id_wilcoxon_one_sided"``
    Iman-Davenport gate, then pairwise Wilcoxon signed-rank tests with Holm's
    adjustment per algorithm (per row; per row *and* per side for one-sided).
``"anova_tukey"``
    Rank transform of all scores, one-way repeated-measures ANOVA gate, then
    Tukey's HSD on the rank groups as independent groups.

For the test-based methods the interval of algorithm ``i`` is
``[1 + #significantly better, m - #significantly worse]`` (Al Mohamad et al.,
2022), and ``[1, m]`` for every algorithm when the omnibus test is not rejected
(p >= alpha). Rank 1 is the best algorithm.

The seed's *tables* depart from its *text*: the bootstrap rows of the seed's
FWTI and power tables are reproduced by resampling the cases independently for
each algorithm, not by the paired resampling the seed describes. The contract
keeps ``"bootstrap"`` paired and adds ``"bootstrap_unpaired"`` for the
resampling behind the published figures (the paired bootstrap has a much
higher family-wise type I error and power on the seed's synthetic data).

Bootstrap interval bounds are ranks that occur (contract §2): integers under
``ties`` ``"min"``/``"max"``, no interpolation.

This module is plain Python (numpy/scipy); it never imports Django.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._exact import differences_safe, exact_means
from ._ranks import rank_rows
from .scheme import RANK_CI_METHODS

__all__ = [
    "RANK_CI_METHODS",
    "RankIntervalResult",
    "bootstrap_rank_bounds",
    "generate_synthetic_results",
    "holm_adjust",
    "iman_davenport_test",
    "nemenyi_critical_difference",
    "nemenyi_minimum_sample_size",
    "pairwise_wilcoxon_pvalues",
    "rank_confidence_intervals",
    "rank_intervals_detailed",
    "rank_transform_anova_test",
]

#: Largest number of cases for which the exact Wilcoxon null distribution is used.
WILCOXON_EXACT_MAX_N = 50
_BOOTSTRAP_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True, eq=False)
class RankIntervalResult:
    """Rank confidence intervals and the evidence they were built from.

    Attributes
    ----------
    method : str
        One of `RANK_CI_METHODS`.
    alpha : float
        Significance level (the intervals have level ``1 - alpha``).
    intervals : tuple of (float, float)
        One ``(lower, upper)`` per algorithm column; 1 is the best rank.
    omnibus_statistic, omnibus_pvalue : float or None
        Iman-Davenport ``F_F`` (``id_*`` methods) or repeated-measures ANOVA
        ``F`` on the global ranks (``anova_tukey``); ``None`` for the bootstrap.
    gate_rejected : bool or None
        Whether the omnibus null hypothesis was rejected (``p < alpha``);
        ``None`` for the bootstrap. When ``False`` no post-hoc test is run and
        every interval is ``[1, m]``.
    pvalues : ndarray or None
        Raw pairwise p-values, shape ``(m, m)``, NaN on the diagonal. For the
        one-sided Wilcoxon method ``pvalues[i, k]`` is the p-value of the
        alternative "``i`` is better than ``k``"; otherwise the matrix is
        symmetric. ``None`` when no post-hoc test was run.
    pvalues_better, pvalues_worse : ndarray or None
        The p-values (Holm-adjusted per row for the Wilcoxon methods) that were
        compared with ``alpha`` to fill `better` and `worse`.
    better : ndarray of bool or None
        ``better[i, k]`` is True when algorithm ``k`` was found significantly
        better than algorithm ``i`` in the comparisons of row ``i``.
        ``lower[i] = 1 + better[i].sum()``.
    worse : ndarray of bool or None
        ``worse[i, k]`` is True when ``k`` was found significantly worse than
        ``i`` in row ``i``; ``upper[i] = m - worse[i].sum()``. With per-row
        adjustments ``worse`` need not be the transpose of ``better``.
    bootstrap_ranks : ndarray or None
        Shape ``(n_boot, m)``: the rank of every algorithm in every bootstrap
        sample (``ties`` for tied means); only for the bootstrap kinds.
    """

    method: str
    alpha: float
    intervals: tuple[tuple[float, float], ...]
    omnibus_statistic: float | None = None
    omnibus_pvalue: float | None = None
    gate_rejected: bool | None = None
    pvalues: np.ndarray | None = None
    pvalues_better: np.ndarray | None = None
    pvalues_worse: np.ndarray | None = None
    better: np.ndarray | None = None
    worse: np.ndarray | None = None
    bootstrap_ranks: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name in (
            "pvalues",
            "pvalues_better",
            "pvalues_worse",
            "better",
            "worse",
            "bootstrap_ranks",
        ):
            array = getattr(self, name)
            if array is not None:
                array.setflags(write=False)


# --------------------------------------------------------------------------- API


def rank_confidence_intervals(
    values: np.ndarray,
    *,
    method: str,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    n_boot: int = 1000,
    seed: int | None = None,
    ties: str = "min",
) -> list[tuple[float, float]]:
    """Confidence intervals for the ranks of algorithms (seed 001).

    Parameters
    ----------
    values : array_like, shape (n_cases, m_algorithms)
        Scores, one column per algorithm, no NaN (the caller applies the
        missing-result policy first).
    method : str
        One of ``"bootstrap"``, ``"bootstrap_unpaired"``, ``"id_nemenyi"``,
        ``"id_wilcoxon_two_sided"``,
        ``"id_wilcoxon_one_sided"``, ``"anova_tukey"``.
    alpha : float, optional
        Significance level, in (0, 1). Default 0.05.
    higher_is_better : bool, optional
        Direction of the metric. Default True.
    n_boot : int, optional
        Number of bootstrap samples (``method="bootstrap"`` only). Default 1000.
    seed : int or None, optional
        Seed of ``np.random.default_rng`` for the bootstrap.
    ties : {"min", "average", "max"}, optional
        Rank given to tied mean scores in a bootstrap sample (the scheme's
        ``ties``). Default "min".

    Returns
    -------
    list of (float, float)
        One ``(lower, upper)`` per algorithm column, ``1 <= lower <= upper <= m``,
        1 = best.

    See Also
    --------
    rank_intervals_detailed : the same intervals with p-values and decisions.

    Notes
    -----
    Seed 001, section 1 ("Methods for computing confidence intervals for
    ranks"); see the module docstring and `rank_intervals_detailed`.
    """
    result = rank_intervals_detailed(
        values,
        method=method,
        alpha=alpha,
        higher_is_better=higher_is_better,
        n_boot=n_boot,
        seed=seed,
        ties=ties,
    )
    return list(result.intervals)


def rank_intervals_detailed(
    values: np.ndarray,
    *,
    method: str,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    n_boot: int = 1000,
    seed: int | None = None,
    ties: str = "min",
) -> RankIntervalResult:
    """Rank confidence intervals with the tests that produced them (seed 001).

    Parameters are those of `rank_confidence_intervals`.

    Returns
    -------
    RankIntervalResult

    Notes
    -----
    Per method (seed 001 section 1; contract section 2):

    * ``bootstrap``: ``n_boot`` samples of ``n`` cases drawn with replacement,
      the same draws for every algorithm; in each sample the algorithms are
      ranked by mean score (1 = best, ``ties`` for exact ties); the interval
      runs from the smallest rank whose share of samples with a rank at most
      as large is ``>= alpha/2`` to the smallest whose share is
      ``>= 1 - alpha/2`` (contract §2; :func:`bootstrap_rank_bounds`).
    * ``bootstrap_unpaired``: the same, but each algorithm's ``n`` cases are
      drawn independently of the other algorithms' (the resampling that
      reproduces the bootstrap figures published in seed 001).
    * ``id_*``: algorithms are ranked within each case (average ranks for
      ties, 1 = best); Iman-Davenport ``F_F = (n-1)Q / (n(m-1) - Q)`` with
      Friedman's ``Q`` (no tie correction, as in the seed) against
      ``F(m-1, (m-1)(n-1))``. If ``p >= alpha`` every interval is ``[1, m]``.
    * ``id_nemenyi``: ``Y = sqrt(2) |R_i - R_k| / sqrt(m(m+1)/(6n))`` on mean
      ranks, ``p = P(q_{m, inf} >= Y)`` (``scipy.stats.studentized_range``); no
      further adjustment; the lower mean rank is the better algorithm.
    * ``id_wilcoxon_two_sided``: two-sided signed-rank test for every pair;
      in row ``i`` the ``m - 1`` p-values are Holm-adjusted; a significant pair
      counts as better or worse by the sign of the difference of mean scores.
    * ``id_wilcoxon_one_sided``: for every ordered pair, the one-sided test of
      "``i`` better than ``k``"; Holm is applied per row and per side: the
      ``m - 1`` tests "``k`` better than ``i``" give ``better[i]``, the
      ``m - 1`` tests "``i`` better than ``k``" give ``worse[i]``.
    * Wilcoxon p-values use the exact null distribution when the pair has at
      most 50 cases and neither zero nor tied absolute differences, otherwise
      the normal approximation (zero differences discarded, tie-corrected
      variance, no continuity correction: scipy's ``method="asymptotic"``).
      A pair whose differences are all zero gets ``p = 1`` without a test.
    * ``anova_tukey``: all ``n m`` scores are ranked together
      (``scipy.stats.rankdata``, average ties); a one-way repeated-measures
      ANOVA (cases as subjects) on these ranks is the gate; then
      ``scipy.stats.tukey_hsd`` on the ``m`` rank columns as independent
      groups. When the pooled within-group variance is zero the Tukey p-value
      is 0 for different means and 1 for equal means.

    A post-hoc test is significant when its (adjusted) p-value is ``<= alpha``.
    """
    scores, alpha = _validate(values, method, alpha, n_boot)
    if ties not in ("min", "average", "max"):
        raise ValueError(f"ties must be 'min', 'average' or 'max', got {ties!r}.")
    # Orient the scores so that larger is always better.
    s = scores if higher_is_better else -scores
    if method in ("bootstrap", "bootstrap_unpaired"):
        return _bootstrap(
            s, alpha, n_boot, seed, paired=method == "bootstrap", ties=ties
        )
    if method == "anova_tukey":
        return _anova_tukey(s, alpha)
    return _iman_davenport_posthoc(s, alpha, method)


# ------------------------------------------------------------------- validation


def _validate(
    values: np.ndarray, method: str, alpha: float, n_boot: int
) -> tuple[np.ndarray, float]:
    if method not in RANK_CI_METHODS:
        allowed = ", ".join(repr(name) for name in RANK_CI_METHODS)
        raise ValueError(f"Unknown method {method!r}; allowed: {allowed}.")
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}.")
    if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}.")
    scores = np.asarray(values, dtype=float)
    if scores.ndim != 2:
        raise ValueError(
            "values must be a 2-D array (n_cases x m_algorithms), "
            f"got {scores.ndim} dimension(s)."
        )
    n, m = scores.shape
    if m < 2:
        raise ValueError(f"At least 2 algorithms (columns) are needed, got {m}.")
    if n < 2:
        raise ValueError(f"At least 2 cases (rows) are needed, got {n}.")
    nan_cells = np.argwhere(np.isnan(scores))
    if nan_cells.size:
        rows, cols = nan_cells[:, 0], nan_cells[:, 1]
        raise ValueError(
            f"values contains {len(nan_cells)} NaN(s) (first at case row "
            f"{rows[0]}, algorithm column {cols[0]}); apply the missing-result "
            "policy before computing rank confidence intervals."
        )
    if not np.isfinite(scores).all():
        raise ValueError("values contains infinite scores; use finite values.")
    return scores, alpha


# ---------------------------------------------------------------- shared pieces


def _stats():
    """``scipy.stats``, imported by the methods that use it: importing it
    costs more CPU (about 0.5 s) than the bootstrap intervals of a typical
    challenge, which do without it."""
    from scipy import stats

    return stats


def _per_case_ranks(s: np.ndarray) -> np.ndarray:
    """Rank the algorithms within each case: 1 = best, average ranks for ties."""
    return _stats().rankdata(-s, axis=1, method="average")


def _intervals_from(better: np.ndarray, worse: np.ndarray) -> tuple:
    m = better.shape[0]
    lower = 1 + better.sum(axis=1)
    upper = m - worse.sum(axis=1)
    return tuple((float(lo), float(up)) for lo, up in zip(lower, upper, strict=True))


def _not_rejected(
    method: str, alpha: float, m: int, statistic: float, pvalue: float
) -> RankIntervalResult:
    return RankIntervalResult(
        method=method,
        alpha=alpha,
        intervals=tuple((1.0, float(m)) for _ in range(m)),
        omnibus_statistic=statistic,
        omnibus_pvalue=pvalue,
        gate_rejected=False,
    )


def _rejected(
    method: str,
    alpha: float,
    statistic: float,
    pvalue: float,
    raw: np.ndarray,
    p_better: np.ndarray,
    p_worse: np.ndarray,
    better: np.ndarray,
    worse: np.ndarray,
) -> RankIntervalResult:
    """The result when the omnibus gate rejects: intervals from the post-hoc test."""
    return RankIntervalResult(
        method=method,
        alpha=alpha,
        intervals=_intervals_from(better, worse),
        omnibus_statistic=statistic,
        omnibus_pvalue=pvalue,
        gate_rejected=True,
        pvalues=raw,
        pvalues_better=np.array(p_better),
        pvalues_worse=np.array(p_worse),
        better=better,
        worse=worse,
    )


def holm_adjust(pvalues: np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values of one family.

    Parameters
    ----------
    pvalues : array_like, 1-D
        Raw p-values of the family (NaN entries are ignored and stay NaN).

    Returns
    -------
    ndarray
        Adjusted p-values ``min(1, max_{j <= r} (k - j + 1) p_(j))`` for the
        value of rank ``r`` among the ``k`` non-NaN p-values (ties keep their
        input order). A test is significant when its adjusted p-value is
        ``<= alpha``; this is the sequential procedure of seed 001 (multiply
        the smallest by ``k``, the next by ``k - 1``..., stop at the first
        non-significant test).
    """
    p = np.asarray(pvalues, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    present = np.flatnonzero(~np.isnan(p))
    k = present.size
    if k == 0:
        return adjusted
    order = present[np.argsort(p[present], kind="stable")]
    stepped = p[order] * np.arange(k, 0, -1)
    adjusted[order] = np.minimum(np.maximum.accumulate(stepped), 1.0)
    return adjusted


def _holm_rows(pvalues: np.ndarray) -> np.ndarray:
    """Holm adjustment applied separately to every row (diagonal = NaN)."""
    return np.vstack([holm_adjust(row) for row in pvalues])


# ---------------------------------------------------------- Iman-Davenport gate


def iman_davenport_test(
    values: np.ndarray, *, higher_is_better: bool = True
) -> tuple[float, float]:
    """Iman-Davenport correction of Friedman's test (seed 001, section 1.2).

    Parameters
    ----------
    values : array_like, shape (n_cases, m_algorithms)
        Scores without NaN.
    higher_is_better : bool, optional
        Direction (does not change the result; kept for symmetry).

    Returns
    -------
    statistic, pvalue : float
        ``F_F = (n-1) Q / (n(m-1) - Q)`` with
        ``Q = 12n/(m(m+1)) (sum_i R_i^2 - m(m+1)^2/4)`` on per-case average
        ranks, and its p-value under ``F(m-1, (m-1)(n-1))``. When every case
        ranks the algorithms identically without ties (``Q = n(m-1)``),
        ``F_F = inf`` and ``p = 0``; when all ranks are tied, ``p = 1``.
    """
    s = np.asarray(values, dtype=float)
    s = s if higher_is_better else -s
    return _iman_davenport(_per_case_ranks(s))


def _iman_davenport(ranks: np.ndarray) -> tuple[float, float]:
    n, m = ranks.shape
    mean_ranks = ranks.mean(axis=0)
    q = 12.0 * n / (m * (m + 1)) * (np.sum(mean_ranks**2) - m * (m + 1) ** 2 / 4)
    q = max(float(q), 0.0)
    denominator = n * (m - 1) - q
    if denominator <= 1e-9 * n * (m - 1):
        # Perfect concordance of all cases: F_F is infinite.
        return math.inf, 0.0
    statistic = (n - 1) * q / denominator
    pvalue = float(_stats().f.sf(statistic, m - 1, (m - 1) * (n - 1)))
    return float(statistic), pvalue


def _iman_davenport_posthoc(
    s: np.ndarray, alpha: float, method: str
) -> RankIntervalResult:
    m = s.shape[1]
    ranks = _per_case_ranks(s)
    statistic, pvalue = _iman_davenport(ranks)
    if not pvalue < alpha:
        return _not_rejected(method, alpha, m, statistic, pvalue)

    if method == "id_nemenyi":
        raw = _nemenyi_pvalues(ranks)
        mean_ranks = ranks.mean(axis=0)
        # k better than i  <=>  k has the lower mean rank.
        k_better = mean_ranks[np.newaxis, :] < mean_ranks[:, np.newaxis]
        k_worse = mean_ranks[np.newaxis, :] > mean_ranks[:, np.newaxis]
        significant = raw <= alpha
        p_better = p_worse = raw
        better, worse = significant & k_better, significant & k_worse
    elif method == "id_wilcoxon_two_sided":
        raw = pairwise_wilcoxon_pvalues(s, alternative="two-sided")
        adjusted = _holm_rows(raw)
        means = exact_means(s)  # equal means are equal whatever the case order
        k_better = means[np.newaxis, :] > means[:, np.newaxis]
        k_worse = means[np.newaxis, :] < means[:, np.newaxis]
        significant = adjusted <= alpha
        p_better = p_worse = adjusted
        better, worse = significant & k_better, significant & k_worse
    else:  # id_wilcoxon_one_sided
        # raw[i, k]: p-value of "i is better than k".
        raw = pairwise_wilcoxon_pvalues(s, alternative="greater")
        p_worse = _holm_rows(raw)  # row i: is k worse than i?
        p_better = _holm_rows(raw.T)  # row i: is k better than i?
        better, worse = p_better <= alpha, p_worse <= alpha

    return _rejected(
        method, alpha, statistic, pvalue, raw, p_better, p_worse, better, worse
    )


# ---------------------------------------------------------------------- Nemenyi


def _nemenyi_pvalues(ranks: np.ndarray) -> np.ndarray:
    n, m = ranks.shape
    mean_ranks = ranks.mean(axis=0)
    scale = math.sqrt(m * (m + 1) / (6.0 * n))
    pvalues = np.full((m, m), np.nan)
    for i in range(m):
        for k in range(i + 1, m):
            y = math.sqrt(2.0) * abs(mean_ranks[i] - mean_ranks[k]) / scale
            p = float(_stats().studentized_range.sf(y, m, np.inf)) if y > 0 else 1.0
            pvalues[i, k] = pvalues[k, i] = p
    return pvalues


def nemenyi_critical_difference(m: int, n: int, *, alpha: float = 0.05) -> float:
    """Smallest mean-rank difference Nemenyi's test declares significant.

    ``CD = q_{m, inf, alpha} / sqrt(2) * sqrt(m (m+1) / (6 n))`` (Demšar 2006,
    as used in seed 001 section 1.2).
    """
    q = float(_stats().studentized_range.isf(alpha, m, np.inf))
    return q / math.sqrt(2.0) * math.sqrt(m * (m + 1) / (6.0 * n))


def nemenyi_minimum_sample_size(m: int, *, alpha: float = 0.05) -> int:
    """Fewest cases for which Nemenyi can separate perfectly ordered algorithms.

    Seed 001, "Why Nemenyi lacks power at high separation levels": when every
    case ranks the algorithms identically, successive algorithms differ by
    exactly 1 in mean rank, and they are significantly different iff
    ``n >= m (m+1) / 12 * q_{m, inf, alpha}^2`` (equivalently, the critical
    difference is ``<= 1``). For ``alpha = 0.05`` this is 38 for ``m = 5`` and
    184 for ``m = 10``.

    Parameters
    ----------
    m : int
        Number of algorithms, ``>= 2``.
    alpha : float, optional
        Significance level. Default 0.05.

    Returns
    -------
    int
        ``ceil(m (m+1) q^2 / 12)``.
    """
    if int(m) != m or m < 2:
        raise ValueError(f"m must be an integer >= 2, got {m!r}.")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}.")
    q = float(_stats().studentized_range.isf(alpha, m, np.inf))
    return math.ceil(m * (m + 1) / 12.0 * q * q)


# --------------------------------------------------------------------- Wilcoxon


def pairwise_wilcoxon_pvalues(
    values: np.ndarray, *, alternative: str = "two-sided", higher_is_better: bool = True
) -> np.ndarray:
    """Raw Wilcoxon signed-rank p-values for every pair of algorithms.

    Parameters
    ----------
    values : array_like, shape (n_cases, m_algorithms)
        Scores without NaN.
    alternative : {"two-sided", "greater"}
        ``"greater"``: entry ``[i, k]`` is the p-value of the one-sided
        alternative "``i`` is better than ``k``" (so ``[k, i]`` is the other
        side of the same pair). ``"two-sided"``: a symmetric matrix.
    higher_is_better : bool, optional
        Direction of the scores. Default True.

    Returns
    -------
    ndarray, shape (m, m)
        NaN on the diagonal.

    Notes
    -----
    Contract section 2 / seed 001: the exact null distribution
    (``scipy.stats.wilcoxon(method="exact")``) when the pair has at most
    `WILCOXON_EXACT_MAX_N` cases and no zero or tied absolute differences;
    otherwise the normal approximation (``method="asymptotic"``, scipy's
    defaults: zero differences discarded, tie-corrected variance, no
    continuity correction). If all differences are zero, ``p = 1`` and no test
    is run.
    """
    if alternative not in ("two-sided", "greater"):
        raise ValueError(
            f"alternative must be 'two-sided' or 'greater', got {alternative!r}."
        )
    s = np.asarray(values, dtype=float)
    s = differences_safe(s if higher_is_better else -s)
    m = s.shape[1]
    first, second = np.triu_indices(m, k=1)
    differences = (s[:, first] - s[:, second]).T  # one row per pair (i < k)
    pvalues = np.full((m, m), np.nan)
    if alternative == "two-sided":
        p = _wilcoxon_rows(differences, "two-sided")
        pvalues[first, second] = pvalues[second, first] = p
    else:
        pvalues[first, second] = _wilcoxon_rows(differences, "greater")
        pvalues[second, first] = _wilcoxon_rows(differences, "less")
    return pvalues


def _wilcoxon_rows(differences: np.ndarray, alternative: str) -> np.ndarray:
    """One p-value per row of paired differences, batched by test method."""
    methods = np.array([_wilcoxon_method(d) for d in differences])
    pvalues = np.ones(len(differences))  # all-zero rows: p = 1, no test
    for method in ("exact", "asymptotic"):
        rows = methods == method
        if rows.any():
            result = _stats().wilcoxon(
                differences[rows],
                alternative=alternative,
                method=method,
                zero_method="wilcox",
                axis=1,
            )
            pvalues[rows] = result.pvalue
    return pvalues


def _wilcoxon_method(d: np.ndarray) -> str:
    """The contract's test for one pair: "none", "exact" or "asymptotic"."""
    absolute = np.abs(d)
    if not np.any(absolute > 0):
        return "none"
    has_zero = bool(np.any(absolute == 0))
    has_ties = np.unique(absolute).size < absolute.size
    if d.size <= WILCOXON_EXACT_MAX_N and not has_zero and not has_ties:
        return "exact"
    return "asymptotic"


# ----------------------------------------------------------------- ANOVA-Tukey


def rank_transform_anova_test(
    values: np.ndarray, *, higher_is_better: bool = True
) -> tuple[float, float]:
    """Repeated-measures ANOVA on globally rank-transformed scores (seed 001).

    Parameters are those of :func:`iman_davenport_test`.

    Returns
    -------
    statistic, pvalue : float
        ``F = MS_algorithms / MS_error`` with ``m - 1`` and ``(m-1)(n-1)``
        degrees of freedom, computed on the ranks of all ``n m`` scores
        (average ranks for ties). A zero error sum of squares gives
        ``(inf, 0)`` when the algorithms differ and ``(0, 1)`` otherwise.
    """
    s = np.asarray(values, dtype=float)
    s = s if higher_is_better else -s
    return _rm_anova(_global_ranks(s))


def _global_ranks(s: np.ndarray) -> np.ndarray:
    """Rank transform of all scores together (larger rank = better)."""
    return _stats().rankdata(s, method="average").reshape(s.shape)


def _rm_anova(g: np.ndarray) -> tuple[float, float]:
    n, m = g.shape
    grand = g.mean()
    ss_total = float(np.sum((g - grand) ** 2))
    ss_algorithms = float(n * np.sum((g.mean(axis=0) - grand) ** 2))
    ss_cases = float(m * np.sum((g.mean(axis=1) - grand) ** 2))
    ss_error = max(ss_total - ss_algorithms - ss_cases, 0.0)
    df_algorithms, df_error = m - 1, (m - 1) * (n - 1)
    tolerance = 1e-12 * max(ss_total, 1.0)
    if ss_error <= tolerance:
        if ss_algorithms <= tolerance:
            return 0.0, 1.0
        return math.inf, 0.0
    statistic = (ss_algorithms / df_algorithms) / (ss_error / df_error)
    return float(statistic), float(_stats().f.sf(statistic, df_algorithms, df_error))


def _tukey_pvalues(g: np.ndarray) -> np.ndarray:
    if np.all(g.var(axis=0) == 0):
        # tukey_hsd would divide by a zero pooled variance.
        means = g.mean(axis=0)
        pvalues = np.where(means[:, None] == means[None, :], 1.0, 0.0)
    else:
        pvalues = np.array(_stats().tukey_hsd(*g.T).pvalue, dtype=float)
    np.fill_diagonal(pvalues, np.nan)
    return pvalues


def _anova_tukey(s: np.ndarray, alpha: float) -> RankIntervalResult:
    method = "anova_tukey"
    m = s.shape[1]
    g = _global_ranks(s)
    statistic, pvalue = _rm_anova(g)
    if not pvalue < alpha:
        return _not_rejected(method, alpha, m, statistic, pvalue)
    raw = _tukey_pvalues(g)
    means = g.mean(axis=0)
    significant = raw <= alpha
    better = significant & (means[np.newaxis, :] > means[:, np.newaxis])
    worse = significant & (means[np.newaxis, :] < means[:, np.newaxis])
    return _rejected(method, alpha, statistic, pvalue, raw, raw, raw, better, worse)


# -------------------------------------------------------------------- bootstrap


def _bootstrap(
    s: np.ndarray,
    alpha: float,
    n_boot: int,
    seed: int | None,
    *,
    paired: bool = True,
    ties: str = "min",
) -> RankIntervalResult:
    n, m = s.shape
    rng = np.random.default_rng(seed)
    biggest = float(np.abs(s).max(initial=0.0))
    if biggest * n >= 2.0**1000:  # keep the resampled sums finite (exact scaling)
        s = s * 2.0 ** -(int(np.ceil(np.log2(n))) + 2)
    # Samples are drawn in chunks of about _BOOTSTRAP_CHUNK_CELLS case draws to
    # bound memory; every sample draws n cases, the same rows for all columns
    # (paired) or independently for each column (unpaired).
    per_sample = n if paired else n * m
    chunk = max(1, _BOOTSTRAP_CHUNK_CELLS // per_sample)
    sums = np.empty((n_boot, m))
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        if paired:
            draws = rng.integers(0, n, size=(size, n))
            # counts[b, j]: how often case j was drawn in sample b.
            offsets = np.arange(size)[:, np.newaxis] * n
            counts = np.bincount((draws + offsets).ravel(), minlength=size * n)
            sums[start : start + size] = counts.reshape(size, n).astype(float) @ s
        else:
            draws = rng.integers(0, n, size=(size, n, m))
            sums[start : start + size] = np.take_along_axis(
                s[np.newaxis], draws, axis=1
            ).sum(axis=1)
    ranks = rank_rows(sums, ties=ties, higher_is_better=True)
    intervals = bootstrap_rank_bounds(ranks, alpha)
    return RankIntervalResult(
        method="bootstrap" if paired else "bootstrap_unpaired",
        alpha=alpha,
        intervals=intervals,
        bootstrap_ranks=ranks,
    )


def bootstrap_rank_bounds(
    ranks: np.ndarray, alpha: float
) -> tuple[tuple[float, float], ...]:
    """Rank interval of each column of bootstrap ranks (contract §2).

    Lower bound: the smallest rank ``r`` whose share of ranks ``<= r`` is at
    least ``alpha / 2``; upper bound: the smallest ``r`` whose share is at
    least ``1 - alpha / 2``. Both are ranks that occur (no interpolation).
    The shares are compared with a relative tolerance of 1e-9, so that e.g.
    25 of 1000 samples count as the 2.5 % that 0.05 / 2 asks for.
    """
    b = ranks.shape[0]
    ordered = np.sort(ranks, axis=0)
    k_lo = max(1, math.ceil(alpha / 2 * b * (1 - 1e-9)))
    k_hi = max(1, math.ceil((1 - alpha / 2) * b * (1 - 1e-9)))
    return tuple(
        (float(lo), float(hi))
        for lo, hi in zip(ordered[k_lo - 1], ordered[k_hi - 1], strict=True)
    )


# ------------------------------------------------------------ synthetic results


def generate_synthetic_results(
    n_cases: int,
    n_algorithms: int,
    *,
    separability: float,
    kappa: float = 2.0,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Synthetic challenge results of seed 001 ("Synthetic distribution").

    ``s_ij = d_j + e_ij`` with case difficulty ``d_j`` drawn from
    ``scipy.stats.laplace_asymmetric(kappa)`` and
    ``e_ij ~ Normal(i f sigma_N, sigma_N)`` for algorithm ``i = 1..m``, where
    ``sigma_N = sqrt(sigma_D)`` and ``sigma_D`` is the standard deviation of the
    difficulty distribution (the seed's definition), ``f`` = `separability`.

    Parameters
    ----------
    n_cases, n_algorithms : int
        Shape of the result, ``(n_cases, n_algorithms)``.
    separability : float
        ``f`` (the seed uses 0, 0.25, 0.5, 1 and 2). With ``f > 0``, higher
        scores are better and the last column is the best algorithm.
    kappa : float, optional
        Asymmetry of the difficulty distribution. Default 2.
    seed : int, Generator or None, optional
        Passed to ``np.random.default_rng``.

    Returns
    -------
    ndarray, shape (n_cases, n_algorithms)
    """
    if int(n_cases) != n_cases or n_cases < 1:
        raise ValueError(f"n_cases must be a positive integer, got {n_cases!r}.")
    if int(n_algorithms) != n_algorithms or n_algorithms < 1:
        raise ValueError(
            f"n_algorithms must be a positive integer, got {n_algorithms!r}."
        )
    rng = np.random.default_rng(seed)
    difficulty = _stats().laplace_asymmetric(kappa)
    sigma_n = math.sqrt(float(difficulty.std()))
    d = difficulty.rvs(size=n_cases, random_state=rng)
    centres = np.arange(1, n_algorithms + 1) * separability * sigma_n
    noise = rng.normal(loc=centres, scale=sigma_n, size=(n_cases, n_algorithms))
    return d[:, np.newaxis] + noise
