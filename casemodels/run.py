"""From a results table, a metadata table and a specification to the output
JSON of the contract (§3): the global model first, then one per algorithm."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ranking import validate_results

from ._budget import (
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_MAX_SECONDS,
    BudgetExceeded,
    FitBudget,
)
from ._fit import SINGULAR_TOL, FitResult, fit_binomial, fit_linear, separated
from ._system import Structure
from .errors import CaseModelError
from .metadata import column_kind, sorted_levels, validate_metadata
from .spec import ModelSpec, parse_spec

__all__ = ["ModelData", "fit_case_models", "prepare_model_data"]

ENGINE_VERSION = "casemodels 1"

# The structural bounds of a specification and its data (the Django side passes
# its settings, CASE_MODEL_MAX_TERMS and so on, documented in case-models.md).
DEFAULT_MAX_TERMS = 60  # fixed effects
DEFAULT_MAX_CROSSED_LEVELS = 2000  # levels of all groupings but the largest
DEFAULT_MAX_GROUPINGS = 10


@dataclass(frozen=True)
class ModelData:
    """The long table the models are fitted on, one row per (case, algorithm).

    ``X`` holds the fixed-effects design (intercept first) with ``terms`` its
    column names; ``groups`` maps each grouping (spec order) to its labels.
    """

    spec: ModelSpec
    task: str
    algorithms: list[str]
    cases: np.ndarray
    algorithm: np.ndarray
    y: np.ndarray
    X: np.ndarray
    terms: list[str]
    groups: dict[str, np.ndarray]
    characteristic_values: dict[str, np.ndarray]
    characteristic_kinds: dict[str, str]
    excluded: dict[str, Any]


def _select_task(results: pd.DataFrame, spec: ModelSpec) -> tuple[str, pd.DataFrame]:
    tasks = sorted(results["task"].unique())
    if spec.task is None:
        if len(tasks) != 1:
            raise CaseModelError(
                f"the results hold {len(tasks)} tasks; name one in 'task' "
                f"({', '.join(tasks[:5])})"
            )
        task = tasks[0]
    elif spec.task not in tasks:
        raise CaseModelError(
            f"unknown task {spec.task!r} (the results have: {', '.join(tasks[:10])})"
        )
    else:
        task = spec.task
    rows = results[results["task"] == task]
    targets = sorted(t for t in rows["target"].unique() if t)
    if spec.target is not None:
        if spec.target not in targets:
            raise CaseModelError(f"unknown target {spec.target!r} in task {task!r}")
        rows = rows[rows["target"] == spec.target]
    elif len(targets) > 1:
        raise CaseModelError(
            f"task {task!r} has {len(targets)} targets; name one in 'target'"
        )
    metrics = sorted(rows["metric"].unique())
    if spec.metric not in metrics:
        raise CaseModelError(
            f"unknown metric {spec.metric!r} in task {task!r} "
            f"(the results have: {', '.join(metrics[:10])})"
        )
    return task, rows[rows["metric"] == spec.metric]


def _ranking_order(
    results: pd.DataFrame, scheme: dict[str, Any], task: str, metric: str
) -> list[str]:
    """The algorithms of `task` best first under the registered scheme."""
    from ranking import run_analysis  # the engine, only when a ranking is needed

    output = run_analysis(
        results[results["task"] == task],  # the scheme is the task's own
        scheme,
        bootstrap=0,
        seed=1,
        leave_one_out=False,
        audit=False,
    ).to_json_dict()
    rankings = output.get("rankings", {})
    key = metric if metric in rankings else next(iter(rankings), None)
    ranks = rankings.get(key, {}).get("tasks", {}).get(task, {}).get("ranks")
    if not ranks:
        raise CaseModelError(f"the ranking scheme does not rank task {task!r}")
    return sorted(ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a))


def _choose_algorithms(
    spec: ModelSpec,
    rows: pd.DataFrame,
    results: pd.DataFrame,
    scheme: dict[str, Any] | None,
    task: str,
) -> list[str]:
    present = sorted(rows["algorithm"].unique())
    order = (
        _ranking_order(results, scheme, task, spec.metric)
        if scheme is not None
        else present
    )
    order = [a for a in order if a in present] + [a for a in present if a not in order]
    if spec.algorithms == "all":
        return order
    if isinstance(spec.algorithms, int):
        if scheme is None:
            raise CaseModelError(
                'algorithms {"top": k} needs the ranking scheme (--scheme)'
            )
        return order[: spec.algorithms]
    unknown = [a for a in spec.algorithms if a not in present]
    if unknown:
        raise CaseModelError(f"unknown algorithm {unknown[0]!r} in task {task!r}")
    chosen = set(spec.algorithms)
    return [a for a in order if a in chosen]


def prepare_model_data(
    results: pd.DataFrame,
    metadata: pd.DataFrame,
    spec: dict[str, Any] | ModelSpec,
    *,
    scheme: dict[str, Any] | None = None,
    max_terms: int = DEFAULT_MAX_TERMS,
    max_groupings: int = DEFAULT_MAX_GROUPINGS,
) -> ModelData:
    """Join results and metadata as the contract says (§§1-2).

    Raises :class:`CaseModelError` naming the first problem: more groupings
    than ``max_groupings``; unknown task, metric, algorithm or column; a
    reference level that does not occur; a characteristic with one level.
    """
    spec = spec if isinstance(spec, ModelSpec) else parse_spec(spec)
    if len(spec.groups) > max_groupings:
        raise CaseModelError(
            f"the specification names {len(spec.groups)} grouping"
            f"{'s' if len(spec.groups) != 1 else ''}; the limit is "
            f"{max_groupings} (each grouping is a crossed random intercept and the "
            "fit's cost grows steeply with their number: use fewer grouping factors)"
        )
    if "line" not in results.columns:
        results = validate_results(results)
    metadata = validate_metadata(metadata)
    task, rows = _select_task(results, spec)
    algorithms = _choose_algorithms(spec, rows, results, scheme, task)
    cases = sorted(rows["case"].unique())

    if "task" in metadata.columns:
        metadata = metadata[metadata["task"] == task]
    for column in spec.columns:
        if column not in metadata.columns:
            raise CaseModelError(f"unknown column {column!r} in the metadata")
    meta = metadata.set_index("case")
    case_set = set(cases)
    matched = [c for c in cases if c in meta.index]
    excluded: dict[str, Any] = {
        "cases_without_metadata": [c for c in cases if c not in meta.index],
        "metadata_without_results": sorted(c for c in meta.index if c not in case_set),
    }
    used = meta.loc[matched, spec.columns]
    complete = ~(used == "").any(axis=1)
    excluded["rows_with_empty_cells"] = int((~complete).sum())
    kept = used[complete]

    terms = ["(Intercept)"]
    columns = [np.ones(len(kept))]
    values: dict[str, np.ndarray] = {}
    kinds: dict[str, str] = {}
    for characteristic in spec.characteristics:
        name = characteristic.column
        raw = kept[name]
        kind = column_kind(used[name])
        kinds[name] = kind
        if kind == "binary":
            numbers = raw.str.lower().isin(["1", "true"]).to_numpy(float)
        elif kind == "numeric":
            numbers = raw.astype(float).to_numpy()
        else:
            numbers = None
        if numbers is not None:
            if characteristic.reference is not None:
                raise CaseModelError(
                    f"characteristic {name!r} is {kind}; a reference level applies "
                    "only to categorical columns"
                )
            if len(np.unique(numbers)) < 2:
                raise CaseModelError(
                    f"characteristic {name!r} has one level in the modelled cases"
                )
            terms.append(name)
            columns.append(numbers)
            values[name] = raw.to_numpy(str) if kind != "numeric" else numbers
            if kind == "binary":
                values[name] = numbers
            continue
        levels = sorted_levels(raw)
        if characteristic.reference is not None:
            if characteristic.reference not in levels:
                raise CaseModelError(
                    f"reference level {characteristic.reference!r} does not occur "
                    f"in column {name!r}"
                )
            levels = [characteristic.reference] + [
                lv for lv in levels if lv != characteristic.reference
            ]
        if len(levels) < 2:
            raise CaseModelError(
                f"characteristic {name!r} has one level in the modelled cases"
            )
        labels = raw.to_numpy(str)
        values[name] = labels
        for level in levels[1:]:
            terms.append(f"{name}={level}")
            columns.append((labels == level).astype(float))
    if len(terms) > max_terms:
        raise CaseModelError(
            f"the characteristics make {len(terms)} fixed effects; the limit is "
            f"{max_terms} (merge rare levels or choose fewer characteristics)"
        )
    case_X = np.column_stack(columns)
    case_groups = {g: kept[g].to_numpy(str) for g in spec.groups}
    kept_cases = kept.index.to_numpy(str)

    # The long table: every kept case × every chosen algorithm.
    lookup = {
        (c, a): v
        for c, a, v in zip(rows["case"], rows["algorithm"], rows["value"], strict=True)
    }
    n_cases = len(kept_cases)
    case_idx = np.tile(np.arange(n_cases), len(algorithms))
    alg = np.repeat(np.array(algorithms, dtype=object), n_cases)
    value = np.array(
        [
            lookup.get((kept_cases[i], a), math.nan)
            for i, a in zip(case_idx, alg, strict=True)
        ],
        dtype=float,
    )
    if spec.outcome == "failure":
        missing = np.isnan(value)
        failed = np.zeros(len(value))
        present = ~missing
        failed[present] = [spec.failed(v) for v in value[present]]
        if spec.missing == "failure":
            failed[missing] = 1.0
            keep = np.ones(len(value), bool)
        else:
            keep = present
        y = failed
    else:
        keep = ~np.isnan(value)
        y = value
    excluded["missing_results"] = int(np.isnan(value).sum())
    excluded["missing_results_handling"] = spec.missing
    case_idx, alg, y = case_idx[keep], alg[keep], y[keep]
    return ModelData(
        spec=spec,
        task=task,
        algorithms=algorithms,
        cases=kept_cases[case_idx],
        algorithm=alg.astype(str),
        y=y,
        X=case_X[case_idx],
        terms=terms,
        groups={g: labels[case_idx] for g, labels in case_groups.items()},
        characteristic_values={k: v[case_idx] for k, v in values.items()},
        characteristic_kinds=kinds,
        excluded=excluded,
    )


def _number(x: Any) -> float | None:
    if x is None:
        return None
    value = float(x)
    return value if math.isfinite(value) else None


def _fit_one(
    data: ModelData,
    mask: np.ndarray,
    scope: str,
    algorithm: str | None,
    budget: FitBudget,
) -> dict[str, Any]:
    spec = data.spec
    names = list(spec.groups) + (["algorithm"] if scope == "global" else [])
    labels = {g: data.groups[g][mask] for g in spec.groups}
    if scope == "global":
        labels["algorithm"] = data.algorithm[mask]
    y, X = data.y[mask], data.X[mask]
    binomial = spec.outcome == "failure"
    codes, sizes = {}, {}
    for g in names:
        _, inverse = np.unique(labels[g], return_inverse=True)
        codes[g], sizes[g] = inverse, int(inverse.max() + 1) if len(inverse) else 0
    model: dict[str, Any] = {
        "scope": scope,
        "algorithm": algorithm,
        "family": "binomial" if binomial else "gaussian",
        "n_obs": len(y),
        "n_groups": {g: sizes[g] for g in names},
    }
    if binomial:
        model["n_failures"] = int(y.sum())
    problem = _non_estimable(y, X, sizes, binomial)
    fit: FitResult | None = None
    variances: dict[str, float] = {}
    if problem is None:
        order = sorted(names, key=lambda g: -sizes[g])  # largest grouping first
        structure = Structure(
            tuple(codes[g] for g in order), tuple(sizes[g] for g in order), X
        )
        budget.new_model()
        try:
            fit = (fit_binomial if binomial else fit_linear)(
                structure, y, budget=budget
            )
        except BudgetExceeded as exc:
            raise CaseModelError(
                _over_budget(exc, model, names, data.spec.groups, X.shape[1])
            ) from None
        variances = dict(zip(order, fit.variances, strict=True))
        relative = {
            g: math.sqrt(variances[g] / (fit.residual_variance or 1.0)) for g in order
        }
        singular = [g for g in order if relative[g] < SINGULAR_TOL]
        if singular:
            problem = (
                "Singular fit: the variance of the random intercept for "
                f"{', '.join(singular)} is estimated as zero, so the model cannot be "
                "estimated as specified (drop that grouping or add data)."
            )
        elif not fit.converged:
            problem = "; ".join(fit.warnings)
    model.update(_estimates(data, fit if problem is None else None, names, variances))
    model["converged"] = problem is None
    # lme4's logLik(): −½ REML criterion (gaussian) or −½ Laplace deviance
    # (binomial), so a fit lme4 flags as not converged can be compared with ours.
    model["log_likelihood"] = (
        _number(-fit.deviance / 2) if problem is None and fit and fit.deviance else None
    )
    model["warnings"] = (
        [problem] if problem is not None else list(fit.warnings if fit else [])
    )
    return model


def _over_budget(
    exc: BudgetExceeded,
    model: dict[str, Any],
    names: list[str],
    spec_groups: tuple[str, ...],
    n_fixed: int,
) -> str:
    """One line: which model stopped, at which bound, its size, what to change."""
    which = (
        "the global model"
        if model["scope"] == "global"
        else f"the model of algorithm {model['algorithm']!r}"
    )
    if exc.kind == "iterations":
        bound = f"in {exc.limit} iterations (the iteration limit; {exc.elapsed:.1f} s)"
    else:
        bound = (
            f"within {exc.limit:g} s (the time limit; {exc.iterations} iterations "
            "of this model)"
        )
    sizes = model["n_groups"]
    levels = sum(sizes.values())
    crossed = f"{len(names)} crossed grouping{'s' if len(names) != 1 else ''}"
    shown = names if len(names) <= 6 else [*names[:4], "…", names[-1]]
    advice = (
        "use fewer grouping factors (each is a crossed random intercept; "
        f"{len(spec_groups)} named now), fewer characteristics or fewer algorithms"
        if len(names) > 2
        else "use fewer characteristics, merge rare levels or model fewer algorithms"
    )
    return (
        f"{crossed} ({', '.join(shown)}; {levels} levels), {model['n_obs']} "
        f"observations, {n_fixed} fixed effects: {which} did not converge {bound}; "
        f"{advice}"
    )


def _non_estimable(
    y: np.ndarray, X: np.ndarray, sizes: dict[str, int], binomial: bool
) -> str | None:
    """A plain-language reason why a model cannot be fitted, or None."""
    n, p = X.shape
    if n <= p:
        return f"Too few observations ({n}) for {p} fixed effects."
    if np.linalg.matrix_rank(X) < p:
        return (
            "The characteristics are collinear in these cases (a column is a "
            "combination of others), so their effects cannot be separated."
        )
    few = [g for g, size in sizes.items() if size < 2]
    if few:
        return f"The grouping {few[0]!r} has a single level here."
    if binomial:
        if y.min() == y.max():
            which = "a failure" if y[0] == 1 else "a success"
            return f"Every observation is {which}: the odds cannot be estimated."
        if separated(X, y):
            return (
                "Perfect separation: some characteristic (or combination) predicts "
                "failure or success without exception, so its odds ratio is "
                "infinite and cannot be estimated."
            )
    return None


def _estimates(
    data: ModelData,
    fit: FitResult | None,
    names: list[str],
    variances: dict[str, float],
) -> dict[str, Any]:
    z = stats.norm.ppf(1.0 - data.spec.alpha / 2.0)
    binomial = data.spec.outcome == "failure"
    fixed = []
    for j, term in enumerate(data.terms):
        entry: dict[str, Any] = {"term": term}
        if fit is None:
            entry.update(estimate=None, se=None, ci_low=None, ci_high=None, p=None)
            if binomial and j > 0:
                entry.update(odds_ratio=None, or_ci_low=None, or_ci_high=None)
            fixed.append(entry)
            continue
        estimate = float(fit.beta[j])
        se = math.sqrt(float(fit.vcov[j, j]))
        low, high = estimate - z * se, estimate + z * se
        p = 2.0 * stats.norm.sf(abs(estimate) / se) if se > 0 else None
        entry.update(
            estimate=_number(estimate),
            se=_number(se),
            ci_low=_number(low),
            ci_high=_number(high),
            p=_number(p),
        )
        if binomial and j > 0:
            entry.update(
                odds_ratio=_number(_exp(estimate)),
                or_ci_low=_number(_exp(low)),
                or_ci_high=_number(_exp(high)),
            )
        fixed.append(entry)
    out: dict[str, Any] = {"fixed": fixed}
    if fit is None:
        out["random"] = dict.fromkeys(names)
    else:
        out["random"] = {g: _number(variances[g]) for g in names}
    if not binomial:
        out["residual_variance"] = _number(fit.residual_variance) if fit else None
    if fit is not None:
        out["se_method"] = (
            "sigma2 (X'V^-1 X)^-1"
            if not binomial
            else (
                "fixed-effects block"
                if any("Hessian" in w for w in fit.warnings)
                else "Hessian of the Laplace deviance"
            )
        )
    return out


def _exp(x: float) -> float:
    return math.exp(x) if x < 700 else math.inf


def fit_case_models(
    results: pd.DataFrame,
    metadata: pd.DataFrame,
    spec: dict[str, Any] | ModelSpec,
    *,
    scheme: dict[str, Any] | None = None,
    progress: Callable[[float], None] | None = None,
    max_terms: int = DEFAULT_MAX_TERMS,
    max_crossed_levels: int = DEFAULT_MAX_CROSSED_LEVELS,
    max_groupings: int = DEFAULT_MAX_GROUPINGS,
    max_iterations: int | None = DEFAULT_MAX_ITERATIONS,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
    interrupt: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Fit the models of a specification (contract §2) and return the output
    JSON (contract §3): the global model first, then one per algorithm in
    ranking order, plus the failure rates per characteristic level.

    ``max_terms`` bounds the fixed effects, ``max_groupings`` the groupings of
    the specification and ``max_crossed_levels`` the levels of all groupings
    but the largest (a dense block of the factorisation). ``max_iterations``
    bounds the evaluations of each model's criterion and ``max_seconds`` the
    wall time of the whole call (None: unbounded); past either the fit stops
    with a :class:`CaseModelError` naming the model, its size and what to
    change. ``interrupt``, called between units of work, may raise to stop the
    fit from outside.
    """
    budget = FitBudget(
        max_iterations=max_iterations, max_seconds=max_seconds, interrupt=interrupt
    )
    data = prepare_model_data(
        results,
        metadata,
        spec,
        scheme=scheme,
        max_terms=max_terms,
        max_groupings=max_groupings,
    )
    levels = sorted(
        [len(set(labels.tolist())) for labels in data.groups.values()]
        + [len(data.algorithms)]
    )
    if sum(levels[:-1]) > max_crossed_levels:
        raise CaseModelError(
            f"the groupings other than the largest have {sum(levels[:-1])} levels; "
            f"the limit is {max_crossed_levels}"
        )
    scopes: list[tuple[str, str | None, np.ndarray]] = [
        ("global", None, np.ones(len(data.y), bool))
    ]
    if data.spec.per_algorithm:
        scopes += [("algorithm", a, data.algorithm == a) for a in data.algorithms]
    models = []
    for i, (scope, algorithm, mask) in enumerate(scopes):
        models.append(_fit_one(data, mask, scope, algorithm, budget))
        if progress is not None:
            progress((i + 1) / len(scopes))
    spec_out = data.spec.to_dict()
    spec_out["task"] = data.task
    spec_out["algorithms_modelled"] = data.algorithms
    return {
        "spec": spec_out,
        "excluded": data.excluded,
        "terms": data.terms,
        "models": models,
        "levels": level_summary(data),
        "engine": ENGINE_VERSION,
    }


def level_summary(data: ModelData) -> list[dict[str, Any]]:
    """Failure rates (or mean values) per characteristic level and algorithm.

    Numeric characteristics are split at their median (below / at or above).
    """
    out = []
    for name, values in data.characteristic_values.items():
        kind = data.characteristic_kinds[name]
        if kind == "numeric":
            median = float(np.median(values))
            labels = np.where(values < median, f"< {median:.3g}", f"≥ {median:.3g}")
            levels = [f"< {median:.3g}", f"≥ {median:.3g}"]
        elif kind == "binary":
            labels = np.where(values > 0.5, "1", "0")
            levels = ["0", "1"]
        else:
            labels = values
            levels = sorted(set(values.tolist()))
        for level in levels:
            in_level = labels == level
            row = {"characteristic": name, "level": level, "by_algorithm": {}}
            for algorithm in ["all", *data.algorithms]:
                mask = (
                    in_level
                    if algorithm == "all"
                    else in_level & (data.algorithm == algorithm)
                )
                n = int(mask.sum())
                row["by_algorithm"][algorithm] = {
                    "n": n,
                    "rate": _number(data.y[mask].mean()) if n else None,
                }
            out.append(row)
    return out
