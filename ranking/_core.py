"""From a validated results table and a scheme to (cases x algorithms)
matrices, and from matrices plus case counts to task rankings.

Every ranking below takes an optional (samples x cases) counts matrix so the
same code ranks the full data (``counts=None``), bootstrap samples and
leave-one-case-out samples.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ._bounded import PValueBounds, significant_pairs
from ._exact import canonical_row_order, exact_means
from ._ranks import average_ranks, rank_rows
from ._validation import ResultsTable, dense_unique, validate_table
from .aggregate import aggregate_scores, case_ranks, leave_one_out_means
from .bootstrap import leave_one_out_counts, resampled
from .scheme import Scheme
from .significance import PairedDifferences, significance_scores

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MatrixRule", "MissingResultsError", "TaskData", "build_tasks"]

_TEST_CHUNK = 2_000_000
_LOO_CELLS = 1_000_000  # leave-one-out samples x algorithms ranked at once


class MissingResultsError(ValueError):
    """Results are missing and the scheme has no rule for them."""

    def __init__(self, affected: dict[str, list[str]]):
        self.affected = affected
        parts = [
            f"task {task!r}: {', '.join(repr(a) for a in algs)}"
            for task, algs in sorted(affected.items())
        ]
        algorithms = sorted({a for algs in affected.values() for a in algs})
        super().__init__(
            "missing results but the scheme has no 'missing' rule; affected "
            f"algorithms: {', '.join(algorithms)} ({'; '.join(parts)})"
        )


@dataclass(frozen=True)
class MatrixRule:
    """How one (cases x algorithms) matrix of one metric is ranked."""

    method: str
    q: float | None
    ties: str
    higher_is_better: bool
    policy: str | None
    alpha: float
    p_adjust: str
    test_method: str

    @classmethod
    def from_scheme(cls, scheme: Scheme, metric: str) -> MatrixRule:
        return cls(
            method=scheme.method,
            q=scheme.aggregate_q,
            ties=scheme.ties,
            higher_is_better=scheme.higher_is_better[metric],
            policy=None if scheme.missing is None else scheme.missing.policy,
            alpha=scheme.test.alpha,
            p_adjust=scheme.test.p_adjust,
            test_method=scheme.test.method,
        )

    def with_(self, **changes: object) -> MatrixRule:
        return replace(self, **changes)


def rank_matrix(
    x: np.ndarray,
    counts: np.ndarray | None,
    rule: MatrixRule,
    pairs: PairedDifferences | None = None,
    pvalues: np.ndarray | None = None,
    bounds: PValueBounds | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Ranks and scores of one matrix: shapes (m,) or (B, m) with counts.

    test_then_rank only: ``pairs`` is ``PairedDifferences(x)`` shared across
    calls; ``pvalues`` the data's unadjusted p-values, if already known;
    ``bounds`` the data's shared :class:`PValueBounds` (without counts).
    """
    if rule.method == "aggregate_then_rank":
        scores = aggregate_scores(x, counts, q=rule.q)
        ranks = rank_rows(
            scores, ties=rule.ties, higher_is_better=rule.higher_is_better
        )
        return ranks, scores
    if rule.method == "rank_then_aggregate":
        policy = "last_rank" if rule.policy == "last_rank" else "ignore"
        per_case = case_ranks(
            x, ties=rule.ties, higher_is_better=rule.higher_is_better, missing=policy
        )
        scores = aggregate_scores(per_case, counts, q=rule.q)
        return rank_rows(scores, ties=rule.ties, higher_is_better=False), scores
    if rule.method == "test_then_rank":
        kwargs = {
            "alpha": rule.alpha,
            "p_adjust": rule.p_adjust,
            "method": rule.test_method,
            "higher_is_better": rule.higher_is_better,
            "pairs": pairs,
        }
        if counts is None and pvalues is None:
            significant = significant_pairs(
                x,
                alpha=rule.alpha,
                p_adjust=rule.p_adjust,
                method=rule.test_method,
                higher_is_better=rule.higher_is_better,
                bounds=bounds,
            )
            scores = significant.sum(axis=-1).astype(np.float64)
        elif counts is None:
            scores = significance_scores(x, None, pvalues=pvalues, **kwargs)
        else:
            m = x.shape[1]
            step = max(1, _TEST_CHUNK // max(1, m * m))
            scores = np.concatenate(
                [
                    significance_scores(x, counts[s : s + step], **kwargs)
                    for s in range(0, counts.shape[0], step)
                ],
                axis=0,
            )
        return rank_rows(scores, ties=rule.ties, higher_is_better=True), scores
    raise ValueError(f"unknown method {rule.method!r}")


def combine_ranks(
    rank_list: list[np.ndarray], *, average_ties: bool, ties: str
) -> tuple[np.ndarray, np.ndarray]:
    """Average several rankings (targets, metrics or tasks) and rank the means."""
    parts = [average_ranks(r) if average_ties else r for r in rank_list]
    stacked = np.stack(parts, axis=0)
    if stacked.ndim == 2:
        scores = exact_means(stacked)
    else:  # (B, m) rankings of resamples: sums of whole and half ranks are exact
        scores = stacked.sum(axis=0) / stacked.shape[0]
    return rank_rows(scores, ties=ties, higher_is_better=False), scores


@dataclass
class TaskData:
    """The matrices of one task.

    ``values[metric][target]`` is an (n_cases x m) float matrix after the
    ``value`` policy (NaN where a result stays missing); rows follow
    ``cases`` and columns ``algorithms`` (sorted by name). ``cases`` are in a
    canonical order given by their values (:func:`canonical_row_order`), so
    that the case names and the row order of the file cannot change a
    bootstrap draw, a leave-one-out sample or a tie-break. ``raw`` keeps the
    matrices before any substitution (for the audit).

    A target's cases are the cases that have a row for that target: targets
    such as the organs of one phase need not share cases. ``target_rows[t]``
    holds the indices (into ``cases``) of target ``t``'s matrix rows, so a
    bootstrap draw over the task's cases applies to every target alike.
    """

    name: str
    cases: list[str]
    algorithms: list[str]
    targets: list[str]
    values: dict[str, dict[str, np.ndarray]]
    raw: dict[str, dict[str, np.ndarray]]
    target_rows: dict[str, np.ndarray] = field(default_factory=dict)
    _pairs: dict[tuple[str, str], PairedDifferences] = field(
        default_factory=dict, repr=False, compare=False
    )
    _bounds: dict[tuple[str, str, bool, str], PValueBounds] = field(
        default_factory=dict, repr=False, compare=False
    )

    def pairs(self, metric: str, target: str) -> PairedDifferences:
        """The Wilcoxon pairs of ``values[metric][target]``, sorted once and
        shared by the bootstrap, leave-one-case-out and the audit."""
        key = (metric, target)
        if key not in self._pairs:
            self._pairs[key] = PairedDifferences(self.values[metric][target])
        return self._pairs[key]

    def pvalue_bounds(
        self, metric: str, target: str, higher_is_better: bool, method: str
    ) -> PValueBounds:
        """The p-value bounds of ``values[metric][target]``'s Wilcoxon tests,
        shared by its test-based ranking, significance map and audit."""
        key = (metric, target, higher_is_better, method)
        if key not in self._bounds:
            self._bounds[key] = PValueBounds()
        return self._bounds[key]

    def release(self) -> None:
        """Drop the shared Wilcoxon pairs and p-value bounds (memory) once the
        task is ranked."""
        self._pairs.clear()
        self._bounds.clear()

    def rows_of(self, target: str, counts: np.ndarray | None) -> np.ndarray | None:
        """Bootstrap counts restricted to the target's cases (None stays None)."""
        rows = self.target_rows.get(target)
        if counts is None or rows is None:
            return counts
        return counts[..., rows]

    @property
    def has_targets(self) -> bool:
        return self.targets != [""]


def _absent_metrics_message(absent: list[str], known: list[str]) -> str:
    import difflib

    listed = ", ".join(repr(m) for m in known) or "none"
    hints = []
    for metric in absent:
        close = difflib.get_close_matches(metric, known, n=1, cutoff=0.6)
        close = close or [k for k in known if k.casefold() == metric.casefold()]
        if close:
            hints.append(f"did you mean {close[0]!r} for {metric!r}?")
    names = ", ".join(repr(m) for m in absent)
    noun = "metric" if len(absent) == 1 else "metrics"
    message = (
        f"scheme field 'metric': {noun} {names} of the scheme has no row in the "
        f"results (column 'metric'); the results have the metrics {listed}"
    )
    fix = " ".join(hints) or (
        "rename the metric in the scheme or in the results so that they match"
    )
    return f"{message}; {fix}"


def _rows(column: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``column[rows]``, without the copy when ``rows`` is every row in order."""
    if rows.size == column.size and (rows.size == 0 or rows[-1] == rows.size - 1):
        return column
    return column[rows]


def build_tasks(results: pd.DataFrame | ResultsTable, scheme: Scheme) -> list[TaskData]:
    """Split a results table into per-task matrices.

    Parameters
    ----------
    results : ResultsTable or pandas.DataFrame
        Checked here unless it is a :class:`ResultsTable` or the unmodified
        output of :func:`validate_results`.

    Raises
    ------
    ValueError
        A metric of the scheme has no row in the results.
    MissingResultsError
        Results are missing and the scheme has no missing rule.
    """
    table = validate_table(results)
    codes, cats = table.codes, table.categories
    used_metrics = dense_unique(codes["metric"], len(cats["metric"]))[0]
    known = sorted(cats["metric"][int(k)] for k in used_metrics)
    absent = [m for m in scheme.metrics if m not in known]
    if absent:
        where = f"{table.source}: " if table.source else ""
        raise ValueError(where + _absent_metrics_message(absent, known))
    metric_code = {cats["metric"].index(m): m for m in scheme.metrics}
    tasks: list[TaskData] = []
    affected: dict[str, set[str]] = {}
    task_codes = codes["task"]
    task_list = dense_unique(task_codes, len(cats["task"]))[0].tolist()
    for t_code in task_list:
        task_name = cats["task"][t_code]
        # Selections copy millions of rows: skipped when they keep every row.
        rows = (
            np.arange(task_codes.size)
            if len(task_list) == 1
            else np.flatnonzero(task_codes == t_code)
        )
        case_u, case_pos = dense_unique(_rows(codes["case"], rows), len(cats["case"]))
        alg_u, alg_pos = dense_unique(
            _rows(codes["algorithm"], rows), len(cats["algorithm"])
        )
        cases = [cats["case"][int(k)] for k in case_u]
        algorithms = [cats["algorithm"][int(k)] for k in alg_u]
        in_scheme = np.isin(_rows(codes["metric"], rows), list(metric_code))
        every = bool(in_scheme.all())
        sub = rows if every else rows[in_scheme]
        case_code = case_pos if every else case_pos[in_scheme]
        alg_code = alg_pos if every else alg_pos[in_scheme]
        metric_col = _rows(codes["metric"], sub)
        target_codes = _rows(codes["target"], sub)
        target_names = {
            int(k): cats["target"][int(k)]
            for k in dense_unique(target_codes, len(cats["target"]))[0]
        }
        targets = sorted(target_names.values()) or [""]
        target_code = {name: k for k, name in target_names.items()}
        value_col = _rows(table.value, sub)
        full: dict[tuple[str, str], np.ndarray] = {}
        for m_code, metric in metric_code.items():
            for target in targets:
                sel = metric_col == m_code
                if len(targets) > 1:
                    sel &= target_codes == target_code[target]
                x = np.full((len(cases), len(algorithms)), np.nan)
                if sel.all():
                    x[case_code, alg_code] = value_col
                else:
                    x[case_code[sel], alg_code[sel]] = value_col[sel]
                full[(metric, target)] = x
        in_target: dict[str, np.ndarray] = {}
        if targets != [""]:
            for target in targets:
                flags = np.zeros(len(cases), dtype=bool)
                flags[case_code[target_codes == target_code[target]]] = True
                if not flags.all():
                    in_target[target] = flags
        # Cases in an order given by their values, not their names or rows
        order = canonical_row_order(
            np.column_stack(
                [f.astype(np.float64) for f in in_target.values()] + list(full.values())
            )
        )
        cases = [cases[i] for i in order]
        target_rows = {t: np.flatnonzero(f[order]) for t, f in in_target.items()}
        values: dict[str, dict[str, np.ndarray]] = {}
        raw: dict[str, dict[str, np.ndarray]] = {}
        for metric in scheme.metrics:
            values[metric], raw[metric] = {}, {}
            for target in targets:
                x = full[(metric, target)][order]
                if target in target_rows:
                    x = x[target_rows[target]]
                raw[metric][target] = x
                missing = np.isnan(x)
                if missing.any():
                    if scheme.missing is None:
                        cols = np.flatnonzero(missing.any(axis=0))
                        affected.setdefault(task_name, set()).update(
                            algorithms[j] for j in cols
                        )
                    elif scheme.missing.policy == "value":
                        assert scheme.missing.value is not None
                        x = np.where(missing, scheme.missing.value[metric], x)
                values[metric][target] = x
        tasks.append(
            TaskData(
                name=str(task_name),
                cases=[str(c) for c in cases],
                algorithms=[str(a) for a in algorithms],
                targets=[str(t) for t in targets],
                values=values,
                raw=raw,
                target_rows=target_rows,
            )
        )
    if affected:
        raise MissingResultsError({t: sorted(a) for t, a in affected.items()})
    return tasks


def metric_task_ranking(
    task: TaskData,
    metric: str,
    rule: MatrixRule,
    counts: np.ndarray | None,
    *,
    targets_rule: str,
    values: dict[str, np.ndarray] | None = None,
    pvalues: dict[str, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Task ranking for one metric; targets combined by ``targets_rule``.

    ``values`` replaces the task's matrices; ``pvalues`` gives their
    unadjusted p-values per target (test_then_rank, full data), if known.
    Returns task ranks, task scores and {target: (ranks, scores)}.
    """
    mats = values if values is not None else task.values[metric]
    tested = values is None and rule.method == "test_then_rank"
    shared = tested and counts is not None
    bounded = tested and counts is None and pvalues is None
    hib, test = rule.higher_is_better, rule.test_method
    per_target = {
        t: rank_matrix(
            mats[t],
            task.rows_of(t, counts),
            rule,
            task.pairs(metric, t) if shared else None,
            None if pvalues is None else pvalues[t],
            task.pvalue_bounds(metric, t, hib, test) if bounded else None,
        )
        for t in task.targets
    }
    if not task.has_targets:
        ranks, scores = per_target[""]
        return ranks, scores, {}
    ranks, scores = combine_ranks(
        [per_target[t][0] for t in task.targets],
        average_ties=targets_rule == "mean_average_rank",
        ties=rule.ties,
    )
    return ranks, scores, per_target


def key_task_ranking(
    task: TaskData,
    scheme: Scheme,
    key: str,
    counts: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Task ranking for a ranking key: a metric, or ``"combined"``."""
    if key != "combined" or scheme.combine is None:
        rule = MatrixRule.from_scheme(scheme, key)
        return metric_task_ranking(task, key, rule, counts, targets_rule=scheme.targets)
    rank_list = []
    for metric in scheme.metrics:
        rule = MatrixRule.from_scheme(scheme, metric)
        ranks, _, _ = metric_task_ranking(
            task, metric, rule, counts, targets_rule=scheme.targets
        )
        rank_list.append(ranks)
    ranks, scores = combine_ranks(rank_list, average_ties=False, ties=scheme.ties)
    return ranks, scores, {}


def leave_one_out_ranks(task: TaskData, scheme: Scheme, key: str) -> np.ndarray:
    """Task ranks of every leave-one-case-out sample, shape (n_cases, m):
    row i leaves out case i.

    ``key_task_ranking`` with the counts of :func:`leave_one_out_counts`;
    for a mean of one matrix (values or per-case ranks) the samples' means
    are the column totals less one row, the same bits without any counts.
    """
    n = len(task.cases)
    single = key != "combined" or scheme.combine is None
    rule = MatrixRule.from_scheme(scheme, key) if single else None
    if (
        rule is not None
        and not task.has_targets
        and rule.q is None
        and rule.method in ("aggregate_then_rank", "rank_then_aggregate")
    ):
        x = task.values[key][""]
        hib = rule.higher_is_better
        if rule.method == "rank_then_aggregate":
            policy = "last_rank" if rule.policy == "last_rank" else "ignore"
            x = case_ranks(x, ties=rule.ties, higher_is_better=hib, missing=policy)
            hib = False
        step = max(1, _LOO_CELLS // max(1, x.shape[1]))
        return np.concatenate(
            [
                rank_rows(
                    leave_one_out_means(x, np.arange(s, min(n, s + step))),
                    ties=rule.ties,
                    higher_is_better=hib,
                )
                for s in range(0, n, step)
            ]
        )
    return resampled(
        lambda c: key_task_ranking(task, scheme, key, c)[0], leave_one_out_counts(n)
    )
