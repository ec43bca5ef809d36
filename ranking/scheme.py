"""The ranking scheme (contract §2): parsing, normalising and describing it.

A scheme is validated field by field; every :class:`SchemeError` message
starts with the dotted name of the offending field (``"aggregate.quantile:
must be between 0 and 1"``) so a form can attach it to the right input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from . import vocabulary

__all__ = [
    "AGGREGATES",
    "METHODS",
    "MISSING_POLICIES",
    "RANK_CI_METHODS",
    "TIES",
    "Missing",
    "Scheme",
    "SchemeError",
    "TestSpec",
    "Uncertainty",
    "describe_scheme",
    "parse_scheme",
    "scheme_to_dict",
]

METHODS = ("aggregate_then_rank", "rank_then_aggregate", "test_then_rank")
AGGREGATES = ("mean", "median")
MISSING_POLICIES = ("value", "ignore", "last_rank")
TIES = ("min", "average", "max")
TARGET_RULES = ("mean_rank", "mean_average_rank")
CONSENSUS_RULES = ("mean_rank", "mean_average_rank")
P_ADJUST = ("none", "holm", "bonferroni")
TEST_METHODS = ("approx", "exact")
RANK_CI_METHODS = (
    "bootstrap",
    "bootstrap_unpaired",
    "id_nemenyi",
    "id_wilcoxon_two_sided",
    "id_wilcoxon_one_sided",
    "anova_tukey",
)
_TOP_FIELDS = (
    "metric",
    "combine",
    "higher_is_better",
    "missing",
    "method",
    "aggregate",
    "test",
    "ties",
    "targets",
    "consensus",
    "uncertainty",
)


class SchemeError(ValueError):
    """A ranking scheme is invalid; the message starts with the field name."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(f"{field_name}: {message}")


@dataclass(frozen=True)
class Missing:
    """Missing-result rule: ``policy`` and, for ``"value"``, the substitute.

    ``value`` maps every metric to its substitute value (normalised from a
    single number when the scheme gives one).
    """

    policy: str
    value: dict[str, float] | None = None


@dataclass(frozen=True)
class TestSpec:
    """The pairwise test (contract ``test.*``)."""

    __test__ = False  # not a pytest test class

    name: str = "wilcoxon"
    alpha: float = 0.05
    p_adjust: str = "none"
    method: str = "approx"


@dataclass(frozen=True)
class Uncertainty:
    """Bootstrap size, seed, rank-CI methods and their level."""

    bootstrap: int = 1000
    seed: int | None = None
    rank_ci: tuple[str, ...] = ()
    alpha: float = 0.05


@dataclass(frozen=True)
class Scheme:
    """A validated ranking scheme (contract §2); build it with :func:`parse_scheme`.

    ``metrics`` is always a tuple, ``higher_is_better`` always a mapping
    metric → bool, ``aggregate`` is ``"mean"``, ``"median"`` or ``"quantile"``
    with ``quantile`` holding q (0.5 for the median).
    """

    metrics: tuple[str, ...]
    higher_is_better: dict[str, bool]
    method: str
    missing: Missing | None = None
    combine: str | None = None
    aggregate: str = "mean"
    quantile: float | None = None
    test: TestSpec = field(default_factory=TestSpec)
    ties: str = "min"
    targets: str = "mean_rank"
    consensus: str | None = None
    uncertainty: Uncertainty = field(default_factory=Uncertainty)
    _metric_as_list: bool = field(default=False, repr=False, compare=False)

    @property
    def aggregate_q(self) -> float | None:
        """The quantile of the aggregate (None for the mean)."""
        if self.aggregate == "mean":
            return None
        return 0.5 if self.aggregate == "median" else self.quantile


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _did_you_mean(value: Any, options: tuple[str, ...] | list[str]) -> str:
    if not isinstance(value, str):
        return ""
    import difflib

    close = difflib.get_close_matches(value, list(options), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _choice(value: Any, options: tuple[str, ...], name: str) -> str:
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise SchemeError(
            name,
            f"must be one of {listed}, got {value!r}{_did_you_mean(value, options)}",
        )
    return value


def _fields(obj: Any, name: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise SchemeError(name, f"must be an object, got {type(obj).__name__}")
    for key in obj:
        if key not in allowed:
            prefix = f"{name}.{key}" if name else str(key)
            listed = ", ".join(allowed)
            raise SchemeError(
                prefix,
                f"unknown field; expected one of {listed}{_did_you_mean(key, allowed)}",
            )
    return obj


def parse_scheme(data: dict[str, Any] | Scheme) -> Scheme:
    """Validate a scheme given as a JSON object and fill in the defaults.

    Parameters
    ----------
    data : dict
        The scheme JSON (contract §2). A :class:`Scheme` is returned unchanged.

    Returns
    -------
    Scheme

    Raises
    ------
    SchemeError
        The first problem found; the message starts with the field name, e.g.
        ``"missing.value: required when missing.policy is 'value'"``.
    """
    if isinstance(data, Scheme):
        return data
    data = _fields(data, "", _TOP_FIELDS)

    if "metric" not in data:
        raise SchemeError("metric", "required")
    raw_metric = data["metric"]
    as_list = isinstance(raw_metric, list)
    metric_list = raw_metric if as_list else [raw_metric]
    if not metric_list:
        raise SchemeError("metric", "must name at least one metric")
    for m in metric_list:
        if not isinstance(m, str) or not m.strip():
            raise SchemeError(
                "metric", f"metric names must be non-empty text, got {m!r}"
            )
    if len(set(metric_list)) != len(metric_list):
        raise SchemeError("metric", "lists a metric twice")
    metrics = tuple(metric_list)

    combine = data.get("combine")
    if combine is not None:
        combine = _choice(combine, ("mean_rank",), "combine")

    if "higher_is_better" not in data:
        raise SchemeError("higher_is_better", "required (the direction of the metric)")
    hib = data["higher_is_better"]
    if isinstance(hib, bool):
        directions = dict.fromkeys(metrics, hib)
    elif isinstance(hib, dict):
        directions = {}
        for key in hib:
            if key not in metrics:
                raise SchemeError(
                    f"higher_is_better.{key}", "not a metric of the scheme"
                )
        for m in metrics:
            if m not in hib:
                raise SchemeError("higher_is_better", f"no direction for metric {m!r}")
            if not isinstance(hib[m], bool):
                raise SchemeError(f"higher_is_better.{m}", "must be true or false")
            directions[m] = hib[m]
    else:
        raise SchemeError("higher_is_better", "must be true/false or {metric: bool}")

    if "method" not in data:
        raise SchemeError("method", "required")
    method = _choice(data["method"], METHODS, "method")

    aggregate, quantile = "mean", None
    raw_agg = data.get("aggregate", "mean")
    if isinstance(raw_agg, dict):
        _fields(raw_agg, "aggregate", ("quantile",))
        if "quantile" not in raw_agg:
            raise SchemeError("aggregate.quantile", "required")
        q = raw_agg["quantile"]
        if not _is_number(q) or not 0 <= q <= 1:
            raise SchemeError("aggregate.quantile", "must be between 0 and 1")
        aggregate, quantile = "quantile", float(q)
    else:
        aggregate = _choice(raw_agg, AGGREGATES, "aggregate")
        if aggregate == "median":
            quantile = 0.5

    missing = None
    if data.get("missing") is not None:
        raw_missing = _fields(data["missing"], "missing", ("policy", "value"))
        if "policy" not in raw_missing:
            raise SchemeError("missing.policy", "required")
        policy = _choice(raw_missing["policy"], MISSING_POLICIES, "missing.policy")
        values = None
        if policy == "value":
            if raw_missing.get("value") is None:
                raise SchemeError(
                    "missing.value", "required when missing.policy is 'value'"
                )
            raw_value = raw_missing["value"]
            if _is_number(raw_value):
                values = dict.fromkeys(metrics, float(raw_value))
            elif isinstance(raw_value, dict):
                values = {}
                for m in metrics:
                    v = raw_value.get(m)
                    if not _is_number(v):
                        raise SchemeError(
                            "missing.value", f"no finite number for metric {m!r}"
                        )
                    values[m] = float(v)
                for key in raw_value:
                    if key not in metrics:
                        raise SchemeError(
                            f"missing.value.{key}", "not a metric of the scheme"
                        )
            else:
                raise SchemeError("missing.value", "must be a finite number")
        elif raw_missing.get("value") is not None:
            raise SchemeError(
                "missing.value", "only used when missing.policy is 'value'"
            )
        if policy == "last_rank" and method != "rank_then_aggregate":
            raise SchemeError(
                "missing.policy", "'last_rank' only applies to rank_then_aggregate"
            )
        missing = Missing(policy=policy, value=values)

    raw_test = _fields(
        data.get("test") or {}, "test", ("name", "alpha", "p_adjust", "method")
    )
    name = _choice(raw_test.get("name", "wilcoxon"), ("wilcoxon",), "test.name")
    alpha = raw_test.get("alpha", 0.05)
    if not _is_number(alpha) or not 0 < alpha < 1:
        raise SchemeError("test.alpha", "must be a number between 0 and 1")
    test = TestSpec(
        name=name,
        alpha=float(alpha),
        p_adjust=_choice(raw_test.get("p_adjust", "none"), P_ADJUST, "test.p_adjust"),
        method=_choice(raw_test.get("method", "approx"), TEST_METHODS, "test.method"),
    )

    ties = _choice(data.get("ties", "min"), TIES, "ties")
    targets = _choice(data.get("targets", "mean_rank"), TARGET_RULES, "targets")
    consensus = data.get("consensus")
    if consensus is not None:
        consensus = _choice(consensus, CONSENSUS_RULES, "consensus")

    raw_unc = _fields(
        data.get("uncertainty") or {},
        "uncertainty",
        ("bootstrap", "seed", "rank_ci", "alpha"),
    )
    n_boot = raw_unc.get("bootstrap", 1000)
    if not _is_int(n_boot) or n_boot < 0:
        raise SchemeError("uncertainty.bootstrap", "must be an integer ≥ 0")
    seed = raw_unc.get("seed")
    if seed is not None and (not _is_int(seed) or seed < 0):
        raise SchemeError("uncertainty.seed", "must be a non-negative integer or null")
    rank_ci = raw_unc.get("rank_ci") or []
    if not isinstance(rank_ci, list):
        raise SchemeError("uncertainty.rank_ci", "must be a list of method names")
    for item in rank_ci:
        _choice(item, RANK_CI_METHODS, "uncertainty.rank_ci")
    if len(set(rank_ci)) != len(rank_ci):
        raise SchemeError("uncertainty.rank_ci", "lists a method twice")
    unc_alpha = raw_unc.get("alpha", 0.05)
    if not _is_number(unc_alpha) or not 0 < unc_alpha < 1:
        raise SchemeError("uncertainty.alpha", "must be a number between 0 and 1")
    uncertainty = Uncertainty(
        bootstrap=int(n_boot),
        seed=None if seed is None else int(seed),
        rank_ci=tuple(rank_ci),
        alpha=float(unc_alpha),
    )
    return Scheme(
        metrics=metrics,
        higher_is_better=directions,
        method=method,
        missing=missing,
        combine=combine,
        aggregate=aggregate,
        quantile=quantile if aggregate == "quantile" else None,
        test=test,
        ties=ties,
        targets=targets,
        consensus=consensus,
        uncertainty=uncertainty,
        _metric_as_list=as_list,
    )


def scheme_to_dict(scheme: Scheme) -> dict[str, Any]:
    """The normalised scheme "as executed": every field present, defaults filled.

    ``metric`` stays a string for one metric given as a string;
    ``higher_is_better`` and ``missing.value`` are single values when they are
    the same for every metric, else ``{metric: ...}`` objects.
    """
    metrics = list(scheme.metrics)
    directions = set(scheme.higher_is_better.values())
    hib: bool | dict[str, bool] = (
        directions.pop() if len(directions) == 1 else dict(scheme.higher_is_better)
    )
    missing: dict[str, Any] | None = None
    if scheme.missing is not None:
        missing = {"policy": scheme.missing.policy}
        if scheme.missing.value is not None:
            distinct = set(scheme.missing.value.values())
            missing["value"] = (
                distinct.pop() if len(distinct) == 1 else dict(scheme.missing.value)
            )
    aggregate: str | dict[str, float] = (
        {"quantile": scheme.quantile}
        if scheme.aggregate == "quantile"
        else scheme.aggregate
    )
    return {
        "metric": metrics
        if (scheme._metric_as_list or len(metrics) > 1)
        else metrics[0],
        "combine": scheme.combine,
        "higher_is_better": hib,
        "missing": missing,
        "method": scheme.method,
        "aggregate": aggregate,
        "test": {
            "name": scheme.test.name,
            "alpha": scheme.test.alpha,
            "p_adjust": scheme.test.p_adjust,
            "method": scheme.test.method,
        },
        "ties": scheme.ties,
        "targets": scheme.targets,
        "consensus": scheme.consensus,
        "uncertainty": {
            "bootstrap": scheme.uncertainty.bootstrap,
            "seed": scheme.uncertainty.seed,
            "rank_ci": list(scheme.uncertainty.rank_ci),
            "alpha": scheme.uncertainty.alpha,
        },
    }


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _fmt(x: float) -> str:
    return f"{x:g}"


_AGG_WORDS = {"mean": "mean", "median": "median"}
_TIE_WORDS = {
    "min": "tied algorithms share the best (minimum) of their ranks",
    "average": "tied algorithms receive the average of their ranks",
    "max": "tied algorithms share the worst (maximum) of their ranks",
}


def describe_scheme(scheme: Scheme | dict[str, Any]) -> dict[str, str]:
    """Plain-English sentences describing a scheme, for the registry's prose.

    Returns
    -------
    dict
        Keys ``"metrics"``, ``"ranking"``, ``"missing"``, ``"uncertainty"``,
        ``"tests"``: the metrics, rank computation, missing data, uncertainty and
        statistical-test answers of a design.
    """
    s = parse_scheme(scheme)
    parts = [
        f"{m} ({'higher' if s.higher_is_better[m] else 'lower'} is better)"
        for m in s.metrics
    ]
    metrics = f"Algorithms are ranked on {_join(parts)}."
    if len(s.metrics) > 1:
        metrics += (
            " Each metric is ranked separately, the per-metric ranks are averaged and"
            " the averages are ranked."
            if s.combine == "mean_rank"
            else " Each metric gives a separate ranking."
        )

    if s.aggregate == "quantile":
        agg = f"the {_fmt(100 * (s.quantile or 0))}% quantile (linear interpolation)"
    else:
        agg = f"the {_AGG_WORDS[s.aggregate]}"
    if s.method == "aggregate_then_rank":
        ranking = (
            f"Aggregate then rank: each algorithm's metric values are aggregated over"
            f" the test cases with {agg}, and the algorithms are ranked by this score."
        )
    elif s.method == "rank_then_aggregate":
        ranking = (
            f"Rank then aggregate: the algorithms are ranked within every test case,"
            f" each algorithm's per-case ranks are aggregated with {agg}, and a"
            f" smaller aggregate rank is better."
        )
    else:
        ranking = (
            "Test then rank: every algorithm is compared with every other one in a"
            " one-sided paired Wilcoxon signed-rank test; its score is the number of"
            " algorithms it is significantly better than, and a higher score is better."
        )
    ranking += f" On ties, {_TIE_WORDS[s.ties]}."
    average_first = " (ties turned into average ranks first)"
    target_note = average_first if s.targets == "mean_average_rank" else ""
    ranking += (
        " Where the results split a task into several targets (structures such"
        " as tumour sub-regions, not metrics), the per-target rankings are"
        f" combined by averaging the target ranks{target_note} and ranking the"
        " averages."
    )
    if s.consensus is not None:
        consensus_note = average_first if s.consensus == "mean_average_rank" else ""
        ranking += (
            " A consensus ranking over tasks averages each algorithm's task"
            f" ranks{consensus_note} and ranks the averages."
        )

    if s.missing is None:
        missing = (
            "No rule for missing results is defined; results with missing values"
            " cannot be ranked."
        )
    elif s.missing.policy == "value":
        vals = s.missing.value or {}
        given = _join([f"{_fmt(vals[m])} for {m}" for m in s.metrics])
        missing = f"A missing result is replaced by a fixed value: {given}."
    elif s.missing.policy == "ignore":
        missing = (
            "Missing results are left out: aggregates use the cases an algorithm has,"
            " and pairwise tests use the cases both algorithms have."
        )
    else:
        missing = (
            "Within a test case, a missing result is ranked below every present"
            " result (missing results tie among themselves)."
        )

    u = s.uncertainty
    if u.bootstrap > 0:
        uncertainty = (
            f"Ranking stability is assessed with {u.bootstrap} bootstrap samples of the"
            " test cases (drawn with replacement, the same draws for every algorithm),"
            " reporting rank distributions, Kendall's tau-b to the full ranking and"
            " the winner's stability"
        )
        uncertainty += f" (seed {u.seed})." if u.seed is not None else "."
    else:
        uncertainty = "No bootstrap analysis is performed."
    if u.rank_ci:
        names = _join([vocabulary.short_label(m) for m in u.rank_ci])
        uncertainty += (
            f" Rank confidence intervals ({names}) are given at level"
            f" {_fmt(100 * (1 - u.alpha))}%."
        )

    adjust = {
        "none": "without multiplicity adjustment",
        "holm": "with Holm's adjustment over all ordered pairs",
        "bonferroni": "with Bonferroni's adjustment over all ordered pairs",
    }[s.test.p_adjust]
    approx = (
        "the normal approximation with continuity and tie correction"
        if s.test.method == "approx"
        else "the exact null distribution where possible"
    )
    if s.method == "test_then_rank":
        tests = (
            f"One-sided paired Wilcoxon signed-rank tests ({approx}) at level"
            f" {_fmt(s.test.alpha)}, {adjust}, decide which algorithm is"
            " significantly better than which."
        )
    else:
        tests = (
            "The ranking itself uses no statistical test. A significance map reports"
            f" one-sided paired Wilcoxon signed-rank tests ({approx}) with Holm's"
            f" adjustment at level {_fmt(u.alpha)}."
        )
        # The map's adjustment is fixed (ranking.run._significance); a scheme's
        # own adjustment applies to test-based ranking only. Say so, or "Holm"
        # reads as contradicting a scheme whose adjustment is "none".
        if s.test.p_adjust != "holm":
            tests += (
                " The scheme's multiplicity adjustment"
                f" ({vocabulary.label(s.test.p_adjust)}) applies to test-based"
                " ranking only."
            )
    return {
        "metrics": metrics,
        "ranking": ranking,
        "missing": missing,
        "uncertainty": uncertainty,
        "tests": tests,
    }
