"""Plain words for every code the engine, the checks and the analysis emit.

One place for the label and one-line explanation of each code a person might
otherwise read: ranking-scheme options (methods, missing-data rules, ties,
aggregates, adjustments, rank-interval methods), deviation and preview finding
codes, design-check ids, the preview's simulated data sets and the result
tables offered for download. Pages (the ``plain`` template filter), PDFs,
e-mails and people-facing CSV headers all read it; machine formats (JSON, the
API, CSV column names read back by tools) keep the codes.

It lives in the engine package because the engine's own prose
(`ranking.scheme.describe_scheme`) uses it too, and it is plain Python like the
rest of the engine, so every app may import it.
"""

from __future__ import annotations

from typing import NamedTuple


class Term(NamedTuple):
    label: str
    explanation: str


# Ranking-scheme options (ranking.scheme): what the form offers and the audit shows.
SCHEME_TERMS = {
    "aggregate_then_rank": Term(
        "Aggregate then rank",
        "Each algorithm's values are aggregated over the test cases, then ranked.",
    ),
    "rank_then_aggregate": Term(
        "Rank then aggregate",
        "Algorithms are ranked within each test case; the ranks are aggregated.",
    ),
    "test_then_rank": Term(
        "Test then rank (Wilcoxon significance)",
        "Pairwise Wilcoxon tests count how many algorithms each one beats.",
    ),
    "value": Term(
        "Replace by a fixed value",
        "A missing result counts as a fixed value (usually the metric's worst).",
    ),
    "ignore": Term(
        "Leave out (use the cases an algorithm has)",
        "A missing result is skipped; the algorithm is judged on its other cases.",
    ),
    "last_rank": Term(
        "Rank last within the case (rank then aggregate only)",
        "A missing result is ranked below every present result of that case.",
    ),
    "mean": Term("Mean", "The arithmetic mean over the test cases."),
    "median": Term("Median", "The middle value over the test cases."),
    "quantile": Term("Quantile q", "A chosen quantile of the values, e.g. 5 %."),
    "min": Term("Minimum rank (1, 1, 3)", "Tied algorithms share the best rank."),
    "average": Term(
        "Average rank (1.5, 1.5, 3)", "Tied algorithms share their average rank."
    ),
    "max": Term("Maximum rank (2, 2, 3)", "Tied algorithms share the worst rank."),
    "mean_rank": Term(
        "Mean of ranks", "Each part is ranked; the mean ranks are ranked again."
    ),
    "mean_average_rank": Term(
        "Mean of ranks, ties as average ranks first",
        "As mean of ranks, with ties turned into average ranks before averaging.",
    ),
    "none": Term("None", "No multiplicity adjustment of the p-values."),
    "holm": Term("Holm", "Holm's step-down adjustment of the p-values."),
    "bonferroni": Term("Bonferroni", "Bonferroni's adjustment of the p-values."),
    "wilcoxon": Term(
        "Wilcoxon signed-rank test", "A paired test on the per-case differences."
    ),
    "approx": Term(
        "Normal approximation (as R's wilcox.test, exact=FALSE)",
        "p-values from the normal approximation with continuity correction.",
    ),
    "exact": Term(
        "Exact null distribution", "p-values from the exact null distribution."
    ),
    "bootstrap": Term(
        "Bootstrap percentile interval",
        "Rank interval from the ranks over bootstrap samples of the cases.",
    ),
    "bootstrap_unpaired": Term(
        "Bootstrap, cases drawn per algorithm (Foucart et al., 2025)",
        "As the bootstrap interval, with each algorithm's cases drawn separately.",
    ),
    "id_nemenyi": Term(
        "Iman–Davenport + Nemenyi",
        "Rank interval from the Nemenyi post-hoc test after an Iman–Davenport gate.",
    ),
    "id_wilcoxon_two_sided": Term(
        "Iman–Davenport + two-sided Wilcoxon (Holm)",
        "Rank interval from two-sided pairwise Wilcoxon tests, Holm per row.",
    ),
    "id_wilcoxon_one_sided": Term(
        "Iman–Davenport + one-sided Wilcoxon (Holm)",
        "Rank interval from one-sided pairwise Wilcoxon tests, Holm per row.",
    ),
    "anova_tukey": Term(
        "Rank-transform ANOVA + Tukey HSD",
        "Rank interval from Tukey's test on rank-transformed values.",
    ),
}

# Deviations from the registered design (analysis.deviations) and what the
# results preview finds (analysis.ingest).
DEVIATION_TERMS = {
    "scheme_changed": Term(
        "Ranking scheme changed",
        "The scheme that ran differs from the registered one.",
    ),
    "task_without_results": Term(
        "Task without results",
        "A registered task has no results, so it is not ranked.",
    ),
    "unregistered_metric": Term(
        "Metric not registered", "The results use a metric the design does not name."
    ),
    "missing_metric": Term(
        "Registered metric missing",
        "A metric the design names has no results.",
    ),
    "value_out_of_bounds": Term(
        "Value outside the metric's range",
        "Some values lie outside the metric's registered range.",
    ),
    "case_count_mismatch": Term(
        "Number of test cases differs",
        "The results hold another number of test cases than registered.",
    ),
    "missing_cases": Term(
        "Missing results",
        "An algorithm has no result for some test cases.",
    ),
    "missing_values": Term(
        "Missing results", "Some algorithms have no result for some test cases."
    ),
    "selective_submission_suspected": Term(
        "Selective submission suspected",
        "An algorithm's missing cases are harder than its present ones (p ≤ 0.05).",
    ),
    "missing_handling_unregistered": Term(
        "Missing-data rule not registered",
        "Results are missing but the design states no rule for them.",
    ),
    "organizer_participation": Term(
        "Organizer participation",
        "A team shares an institution with the organizers against the policy.",
    ),
    "submission_limit_exceeded": Term(
        "Too many submissions",
        "A team submitted more algorithms than the design allows.",
    ),
    "post_hoc_amendment": Term(
        "Amended after the results",
        "A registration version was approved after the first results came in.",
    ),
    "unstable_winner": Term(
        "Unstable winner",
        "The winner changes under bootstrap samples or alternative schemes.",
    ),
    "unknown_task": Term(
        "Task not registered", "The results name a task the design does not have."
    ),
    "unknown_metric": Term(
        "Metric not registered", "The results use a metric the design does not name."
    ),
}

# Automatic design checks on a proposal (reviews.checks).
CHECK_TERMS = {
    "organizer_participation_missing": Term(
        "Organizer participation policy missing",
        "The design does not say whether organizers may take part.",
    ),
    "training_data_policy_missing": Term(
        "Training-data policy missing",
        "The design does not say which training data may be used.",
    ),
    "missing_data_rule_missing": Term(
        "Missing-data rule missing",
        "The design does not say how missing results are handled.",
    ),
    "median_aggregation": Term(
        "Median aggregation",
        "Rankings by the median are less robust than by the mean.",
    ),
    "uncertainty_analysis_missing": Term(
        "Uncertainty analysis missing",
        "The design does not say how ranking uncertainty is assessed.",
    ),
    "few_test_cases": Term(
        "Few test cases", "Too few test cases for a stable ranking."
    ),
    "ranking_scheme_not_executable": Term(
        "Ranking scheme not executable",
        "The task has no ranking scheme the engine can run.",
    ),
    "metric_incomplete": Term(
        "Metric incomplete", "A metric lacks its direction or worst value."
    ),
    "overlap_metric_for_detection": Term(
        "Overlap metric for detection",
        "A pixel-overlap metric on a detection task; detection metrics fit.",
    ),
    "metrics_not_combined": Term(
        "Metrics not combined",
        "Several metrics without a rule for combining their rankings.",
    ),
}

# The scheme preview's simulated data sets (ranking.simulate, seed 000).
DATA_SET_TERMS = {
    "c_ideal": Term(
        "Clear differences (simulated)",
        "Five algorithms whose values lie in disjoint ranges (A1 always best, A5"
        " always worst): a sound scheme ranks A1 first and A5 last, with narrow"
        " intervals.",
    ),
    "c_random": Term(
        "No real differences (simulated)",
        "Five algorithms drawing their values from the same distribution: any"
        " ranking is chance, so wide intervals and an unstable winner are expected.",
    ),
}

# Result tables offered for download (analysis.reports.report_tables).
TABLE_TERMS = {
    "rankings": Term("Rankings", "Rank, score and interval of every algorithm."),
    "target_rankings": Term(
        "Rankings per target", "The rankings of each target of a task."
    ),
    "consensus": Term("Consensus ranking", "One ranking over all tasks."),
    "descriptive_statistics": Term(
        "Summary statistics", "Mean, median and spread of every algorithm's values."
    ),
}

# Fields of the ranking-scheme JSON (dotted as in the engine's messages).
FIELD_TERMS = {
    "metric": Term("Metrics", "The registered metrics the ranking uses."),
    "combine": Term(
        "Combining metrics", "How the rankings of several metrics become one."
    ),
    "higher_is_better": Term("Higher is better", "Each metric's direction."),
    "missing.policy": Term("Missing-data rule", "What happens to a missing result."),
    "missing.value": Term(
        "Value for a missing result", "The value a missing result counts as."
    ),
    "method": Term("Ranking method", "How values become ranks."),
    "aggregate": Term("Aggregate over cases", "How values over cases are summarised."),
    "aggregate.quantile": Term("Quantile", "The quantile used as the aggregate."),
    "test.name": Term("Statistical test", "The pairwise test of test-based ranking."),
    "test.alpha": Term("Test level (α)", "The significance level of the test."),
    "test.p_adjust": Term(
        "Multiplicity adjustment", "How p-values are adjusted for many tests."
    ),
    "test.method": Term("Test p-values", "How the test's p-values are computed."),
    "ties": Term("Ties", "The rank tied algorithms receive."),
    "targets": Term(
        "Combining targets", "How the rankings of a task's targets become one."
    ),
    "consensus": Term("Consensus over tasks", "How task rankings become one."),
    "uncertainty.bootstrap": Term(
        "Bootstrap samples", "How many bootstrap samples assess stability."
    ),
    "uncertainty.seed": Term("Random seed", "Makes the bootstrap repeatable."),
    "uncertainty.rank_ci": Term(
        "Rank confidence intervals", "The methods giving intervals for ranks."
    ),
    "uncertainty.alpha": Term(
        "Interval level (α)", "One minus the confidence level of rank intervals."
    ),
}

# Columns of the result tables (analysis.reports.report_tables): the headers of
# the CSV files offered to people; the API's CSV keeps these names.
COLUMN_TERMS = {
    "ranking": Term("Ranking", "The ranking (metric or combination) the row is of."),
    "task": Term("Task", "The challenge task."),
    "target": Term("Target", "The target (structure) of the task."),
    "metric": Term("Metric", "The metric the values are of."),
    "algorithm": Term("Algorithm", "The participating algorithm."),
    "rank": Term("Rank", "The rank under the registered scheme."),
    "score": Term("Score", "The value the rank is computed from."),
    "bootstrap_median_rank": Term(
        "Median rank over bootstrap samples",
        "The median of the algorithm's ranks over the bootstrap samples.",
    ),
    "bootstrap_lower": Term(
        "Bootstrap rank, 2.5th percentile", "Lower end of the bootstrap ranks."
    ),
    "bootstrap_upper": Term(
        "Bootstrap rank, 97.5th percentile", "Upper end of the bootstrap ranks."
    ),
    "winner_stability": Term(
        "Share of bootstrap samples with the same winner",
        "How often the first-ranked algorithm stays first over bootstrap samples.",
    ),
    "kendall_tau_median": Term(
        "Kendall's tau to the full ranking, median",
        "Median agreement of bootstrap rankings with the full ranking.",
    ),
    "kendall_tau_lower": Term(
        "Kendall's tau, 2.5th percentile", "Lower end of the agreement."
    ),
    "kendall_tau_upper": Term(
        "Kendall's tau, 97.5th percentile", "Upper end of the agreement."
    ),
    "n": Term("Cases with a result", "Test cases the algorithm has a value for."),
    "missing": Term("Missing results", "Test cases without a value."),
    "mean": Term("Mean", "The arithmetic mean over the test cases."),
    "sd": Term("Standard deviation", "The sample standard deviation."),
    "median": Term("Median", "The middle value over the test cases."),
    "q1": Term("First quartile", "The 25th percentile of the values."),
    "q3": Term("Third quartile", "The 75th percentile of the values."),
    "iqr": Term("Interquartile range", "Third minus first quartile."),
}


def column_label(name: str) -> str:
    """The plain header of a result-table column ("bootstrap_lower" → "Bootstrap
    rank, 2.5th percentile"); a rank-interval column names its method and end
    ("rank_ci_id_nemenyi_lower" → "Rank interval (Iman–Davenport + Nemenyi),
    lower"). An unknown column comes back unchanged."""
    if name in COLUMN_TERMS:
        return COLUMN_TERMS[name].label
    if name.startswith("rank_ci_") and name.endswith(("_lower", "_upper")):
        method, _, end = name.removeprefix("rank_ci_").rpartition("_")
        if method in SCHEME_TERMS:
            return f"Rank interval ({SCHEME_TERMS[method].label}), {end}"
    return name


TERMS: dict[str, Term] = {
    **SCHEME_TERMS,
    **DEVIATION_TERMS,
    **CHECK_TERMS,
    **DATA_SET_TERMS,
    **TABLE_TERMS,
}


def field_label(name: str) -> str:
    """The label of a dotted scheme field ("test.p_adjust" → "Multiplicity
    adjustment"); a per-metric leaf ("missing.value.DSC") names its metric."""
    if name in FIELD_TERMS:
        return FIELD_TERMS[name].label
    parent, _, leaf = name.rpartition(".")
    if parent in FIELD_TERMS:
        return f"{FIELD_TERMS[parent].label}: {leaf}"
    return name


# What stands for "no value" (e.g. no missing-data rule), as the PDFs print None.
NOTHING = "–"


def label(code: str | None) -> str:
    """The plain label of `code`; an unknown code comes back unchanged."""
    if code is None:
        return NOTHING
    term = TERMS.get(code)
    return term.label if term else code


def explanation(code: str | None) -> str:
    """The one-line explanation of `code`; empty for an unknown code."""
    term = TERMS.get(code) if code is not None else None
    return term.explanation if term else ""


def short_label(code: str | None) -> str:
    """The label without its parenthesised example or source: for narrow table
    cells ("Minimum rank (1, 1, 3)" → "Minimum rank")."""
    return label(code).split(" (", 1)[0]
