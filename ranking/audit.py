"""Robustness audit of a registered ranking (seed 004 §4.1 and §4.3).

Two questions a reviewer asks about a ranking scheme:

* *Would another reasonable scheme crown someone else?* — the task is ranked
  under every registered metric x {aggregate-then-rank, rank-then-aggregate}
  x {mean, median}, plus test-then-rank (the twelve schemes of §4.1 for the
  metrics the challenge registered), each compared with the registered ranking
  by Kendall's τ-b, with each algorithm's best and worst rank.
* *Could a participant gain by withholding bad cases?* — each algorithm in
  turn withholds its worst k % of cases (k = 5, 10, 20, §4.1 "exclusive
  submission of test cases") and is re-ranked, under the registered missing
  policy and under ``ignore``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from ._core import (
    MatrixRule,
    TaskData,
    combine_ranks,
    metric_task_ranking,
    rank_matrix,
)
from ._ranks import rank_rows
from .aggregate import aggregate_scores, case_ranks
from .bootstrap import kendall_tau_b
from .scheme import Scheme
from .significance import column_variant_pvalues, pairwise_wilcoxon

__all__ = ["DEFAULT_WITHHOLD_PERCENT", "audit_task", "withheld_ranks"]

DEFAULT_WITHHOLD_PERCENT: tuple[int, ...] = (5, 10, 20)
_VARIANT_CELLS = 2_000_000  # variants x m x m p-values ranked at once


def _json_rank(x: float) -> int | float | None:
    v = float(x)
    if math.isnan(v):
        return None
    return int(v) if v.is_integer() else v


def _alternative_rules(scheme: Scheme, metric: str) -> list[tuple[str, MatrixRule]]:
    base = MatrixRule.from_scheme(scheme, metric)
    rules = []
    for method in ("aggregate_then_rank", "rank_then_aggregate"):
        for agg, q in (("mean", None), ("median", 0.5)):
            policy = base.policy
            if policy == "last_rank" and method != "rank_then_aggregate":
                policy = "ignore"
            rules.append((agg, base.with_(method=method, q=q, policy=policy)))
    policy = "ignore" if base.policy == "last_rank" else base.policy
    rules.append(("none", base.with_(method="test_then_rank", policy=policy)))
    return rules


def _is_registered(scheme: Scheme, key: str, metric: str, rule: MatrixRule) -> bool:
    if key != metric or rule.method != scheme.method:
        return False
    return rule.method == "test_then_rank" or rule.q == scheme.aggregate_q


def _withheld_rows(column: np.ndarray, percent: float, hib: bool) -> np.ndarray:
    """Rows of the worst ``percent`` % of ``column``'s present cases."""
    rows = np.flatnonzero(~np.isnan(column))
    k = math.floor(percent / 100 * rows.size)
    order = np.argsort(column[rows] if hib else -column[rows], kind="stable")
    return rows[order[:k]]  # worst first


def _withhold(x: np.ndarray, column: int, percent: float, hib: bool) -> np.ndarray:
    """Copy of ``x`` with the worst ``percent`` % of column's present cases NaN."""
    out = x.copy()
    out[_withheld_rows(x[:, column], percent, hib), column] = np.nan
    return out


def withheld_ranks(
    task: TaskData,
    scheme: Scheme,
    metric: str,
    *,
    percents: tuple[int, ...] = DEFAULT_WITHHOLD_PERCENT,
    policy: str | None,
) -> dict[str, dict[str, int | float | None]] | None:
    """Each algorithm's task rank had it withheld its worst k % of cases.

    Parameters
    ----------
    policy : {"value", "ignore", "last_rank"} or None
        How the withheld results count (``None``: the scheme's policy).

    Returns
    -------
    dict or None
        ``{algorithm: {"5": rank, ...}}``; None when the policy cannot rank
        missing results (no rule, or ``last_rank`` outside rank-then-aggregate).
    """
    effective = scheme.missing.policy if policy is None and scheme.missing else policy
    if effective is None:
        return None
    if effective == "last_rank" and scheme.method != "rank_then_aggregate":
        return None
    if effective == "value" and (
        scheme.missing is None or scheme.missing.value is None
    ):
        return None
    rule = MatrixRule.from_scheme(scheme, metric).with_(policy=effective)
    substitute = (
        scheme.missing.value[metric]
        if effective == "value" and scheme.missing and scheme.missing.value
        else None
    )

    def after_policy(x: np.ndarray) -> np.ndarray:
        return x if substitute is None else np.where(np.isnan(x), substitute, x)

    if rule.method == "test_then_rank":
        ranks = _withheld_test_ranks(
            task, metric, rule, percents, after_policy, scheme.targets
        )
    else:
        ranks = _withheld_aggregate_ranks(
            task, metric, rule, percents, after_policy, scheme.targets
        )
    return {
        alg: {str(pct): _json_rank(ranks[j, k]) for k, pct in enumerate(percents)}
        for j, alg in enumerate(task.algorithms)
    }


def _withheld_test_ranks(
    task: TaskData,
    metric: str,
    rule: MatrixRule,
    percents: tuple[int, ...],
    after_policy: Callable[[np.ndarray], np.ndarray],
    targets_rule: str,
) -> np.ndarray:
    """:func:`withheld_ranks` under test-then-rank, as (algorithms x percents).

    Withholding changes one column, so only the tests of its pairs change:
    every (algorithm, percent) variant's tests are computed in one batch and
    the other tests keep the p-values of the unchanged data (the same bits as
    recomputing them). Variants are ranked in groups of bounded memory.
    """
    m, n_pct = len(task.algorithms), len(percents)
    hib = rule.higher_is_better
    columns = np.repeat(np.arange(m), n_pct)
    group = max(1, _VARIANT_CELLS // max(1, m * m))
    per_target: dict[str, np.ndarray] = {}
    for t in task.targets:
        raw = task.raw[metric][t]
        x = after_policy(raw)
        # each column's variants for every percent at once (one sort)
        withheld = lru_cache(maxsize=1)(
            lambda j, raw=raw: _withheld_columns(raw[:, j], percents, hib)
        )
        base = pairwise_wilcoxon(
            x, higher_is_better=rule.higher_is_better, method=rule.test_method
        )
        ranks_t = np.empty((columns.size, m))
        for g0 in range(0, columns.size, group):
            cols = columns[g0 : g0 + group]
            variants = after_policy(
                np.column_stack(
                    [withheld(j)[(g0 + i) % n_pct] for i, j in enumerate(cols.tolist())]
                )
            )
            redone = column_variant_pvalues(
                x,
                cols,
                variants,
                higher_is_better=rule.higher_is_better,
                method=rule.test_method,
            )
            p = np.broadcast_to(base, redone.shape).copy()
            v = np.arange(cols.size)
            p[v, cols, :] = redone[v, cols, :]
            p[v, :, cols] = redone[v, :, cols]
            ranks_t[g0 : g0 + group] = rank_matrix(x, None, rule, pvalues=p)[0]
        per_target[t] = ranks_t
    return _variant_ranks(task, per_target, columns, rule.ties, targets_rule, n_pct)


def _variant_ranks(
    task: TaskData,
    per_target: dict[str, np.ndarray],
    columns: np.ndarray,
    ties: str,
    targets_rule: str,
    n_pct: int,
) -> np.ndarray:
    """Each variant's rank of its own algorithm, as (algorithms x percents).

    ``per_target[t]`` holds every variant's ranking of target ``t`` (variant
    ``v`` withholds cases of algorithm ``columns[v]``); targets are combined
    per variant as the task ranking combines them.
    """
    if not task.has_targets:
        combined = per_target[""]
    else:
        combined = np.stack(
            [
                combine_ranks(
                    [per_target[t][v] for t in task.targets],
                    average_ties=targets_rule == "mean_average_rank",
                    ties=ties,
                )[0]
                for v in range(columns.size)
            ]
        )
    m = combined.shape[1]
    return combined[np.arange(columns.size), columns].reshape(m, n_pct)


def _withheld_aggregate_ranks(
    task: TaskData,
    metric: str,
    rule: MatrixRule,
    percents: tuple[int, ...],
    after_policy: Callable[[np.ndarray], np.ndarray],
    targets_rule: str,
) -> np.ndarray:
    """:func:`withheld_ranks` under aggregate-then-rank or rank-then-aggregate.

    Withholding changes one column, so the data's scores are updated rather
    than recomputed for every variant: under aggregate-then-rank only that
    column's score changes (exact means and quantiles are per column); under
    rank-then-aggregate only the withheld cases' per-case ranks change, and
    mean ranks are updated by the sums of those rows (sums of whole and half
    ranks are exact). Both give the same bits as ranking each variant anew.
    """
    m, n_pct = len(task.algorithms), len(percents)
    hib = rule.higher_is_better
    columns = np.repeat(np.arange(m), n_pct)
    per_target: dict[str, np.ndarray] = {}
    for t in task.targets:
        raw = task.raw[metric][t]
        scorer = _VariantScorer(after_policy(raw), rule)
        scores = np.empty((columns.size, m))
        if rule.method == "aggregate_then_rank":
            # only the variant's own column changes: its score is the
            # aggregate of that column, computed for many variants at once
            scores[:] = scorer.base
            group = max(1, _VARIANT_CELLS // max(1, raw.shape[0] * n_pct))
            for j0 in range(0, m, group):
                js = range(j0, min(m, j0 + group))
                variants = np.column_stack(
                    [
                        column
                        for j in js
                        for column in _withheld_columns(raw[:, j], percents, hib)
                    ]
                )
                own = aggregate_scores(after_policy(variants), q=rule.q)
                v = np.repeat(np.asarray(js), n_pct) * n_pct + np.tile(
                    np.arange(n_pct), len(js)
                )
                scores[v, np.repeat(np.asarray(js), n_pct)] = own
        else:
            for v, j in enumerate(columns.tolist()):
                rows = _withheld_rows(raw[:, j], percents[v % n_pct], hib)
                column = raw[:, j].copy()
                column[rows] = np.nan
                scores[v] = scorer.scores(j, rows, after_policy(column[:, None])[:, 0])
        per_target[t] = rank_rows(
            scores,
            ties=rule.ties,
            higher_is_better=hib if rule.method == "aggregate_then_rank" else False,
        )
    return _variant_ranks(task, per_target, columns, rule.ties, targets_rule, n_pct)


def _withheld_columns(
    column: np.ndarray, percents: tuple[int, ...], hib: bool
) -> list[np.ndarray]:
    """``column`` with its worst k % of present cases NaN, for each k (the
    rows of :func:`_withheld_rows`, sorted once)."""
    rows = np.flatnonzero(~np.isnan(column))
    order = np.argsort(column[rows] if hib else -column[rows], kind="stable")
    out = []
    for percent in percents:
        k = math.floor(percent / 100 * rows.size)
        variant = column.copy()
        variant[rows[order[:k]]] = np.nan
        out.append(variant)
    return out


class _VariantScorer:
    """Scores of a matrix in which one column has some cases withheld."""

    def __init__(self, x: np.ndarray, rule: MatrixRule):
        self.x, self.rule = x, rule
        if rule.method == "aggregate_then_rank":
            self.base = aggregate_scores(x, q=rule.q)
            return
        self.missing = "last_rank" if rule.policy == "last_rank" else "ignore"
        self.per_case = self._case_ranks(x)
        self.base = aggregate_scores(self.per_case, q=rule.q)
        present = ~np.isnan(self.per_case)
        self.sums = np.where(present, self.per_case, 0.0).sum(axis=0)
        self.counts = present.sum(axis=0)

    def _case_ranks(self, x: np.ndarray) -> np.ndarray:
        return case_ranks(
            x,
            ties=self.rule.ties,
            higher_is_better=self.rule.higher_is_better,
            missing=self.missing,
        )

    def scores(self, j: int, rows: np.ndarray, column: np.ndarray) -> np.ndarray:
        """Scores once column ``j`` is replaced by ``column`` (changed ``rows``)."""
        out = self.base.copy()
        if self.rule.method == "aggregate_then_rank":
            out[j] = aggregate_scores(column[:, None], q=self.rule.q)[0]
            return out
        if rows.size == 0:
            return out
        changed = self.x[rows].copy()
        changed[:, j] = column[rows]
        new = self._case_ranks(changed)
        if self.rule.q is not None:  # quantiles of ranks: recomputed
            per_case = self.per_case.copy()
            per_case[rows] = new
            return aggregate_scores(per_case, q=self.rule.q)
        old = self.per_case[rows]
        sums = (
            self.sums
            + np.where(np.isnan(new), 0.0, new).sum(axis=0)
            - np.where(np.isnan(old), 0.0, old).sum(axis=0)
        )
        counts = self.counts + (~np.isnan(new)).sum(axis=0) - (~np.isnan(old)).sum(0)
        out = np.full(sums.shape, np.nan)
        np.divide(sums, counts, out=out, where=counts > 0)
        return out


def audit_task(
    task: TaskData, scheme: Scheme, key: str, registered: np.ndarray
) -> dict[str, Any]:
    """The ``audit`` object of one task of one ranking key.

    Returns
    -------
    dict
        ``alternatives`` (list of {metric, method, aggregate, missing, ranks,
        kendall_tau, registered}), ``rank_range`` ({algorithm: {best, worst}}
        over the alternatives and the registered ranking) and
        ``selective_submission`` ({percents, registered_policy, ignore}; null
        for a combined ranking of several metrics).
    """
    algs = task.algorithms
    alternatives = []
    all_ranks = [np.asarray(registered, dtype=np.float64)]
    for metric in scheme.metrics:
        for agg, rule in _alternative_rules(scheme, metric):
            ranks, _, _ = metric_task_ranking(
                task, metric, rule, None, targets_rule=scheme.targets
            )
            all_ranks.append(ranks)
            tau = kendall_tau_b(registered, ranks)
            alternatives.append(
                {
                    "metric": metric,
                    "method": rule.method,
                    "aggregate": agg,
                    "missing": rule.policy,
                    "ranks": {
                        a: _json_rank(r) for a, r in zip(algs, ranks, strict=True)
                    },
                    "kendall_tau": None if math.isnan(tau) else float(tau),
                    "registered": _is_registered(scheme, key, metric, rule),
                }
            )
    stacked = np.stack(all_ranks, axis=0)
    rank_range = {
        a: {
            "best": _json_rank(stacked[:, j].min()),
            "worst": _json_rank(stacked[:, j].max()),
        }
        for j, a in enumerate(algs)
    }
    selective = None
    if key in scheme.metrics:
        selective = {
            "percents": list(DEFAULT_WITHHOLD_PERCENT),
            "registered_policy": withheld_ranks(task, scheme, key, policy=None),
            "ignore": withheld_ranks(task, scheme, key, policy="ignore"),
        }
    return {
        "alternatives": alternatives,
        "rank_range": rank_range,
        "selective_submission": selective,
    }
