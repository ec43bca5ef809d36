"""Automatic design checks of a proposal, computed from the catalogue answers.

`checks_for(design)` is pure: it reads a `registry.design.Design` (so it works on
any frozen revision too) and names only the parameter
numbers each check needs. Checks advise; they never block a submission.

Answers given as prose (rank computation method, missing data handling,
uncertainty handling, statistical tests) are read with simple keyword rules:
case-insensitive, hyphens read as spaces ("per-metric" == "per metric"), on the
text of the answer (value and details; a "not applicable" reason counts as no
text):

* missing-data rule (missing data handling or rank computation): one of
  MISSING_RULE_WORDS, e.g. "worst value", "set to 0", "penalised", "imputed",
  "last rank", "excluded";
* median aggregation (rank computation): the word "median";
* uncertainty analysis (uncertainty handling or statistical tests): one of
  UNCERTAINTY_WORDS, e.g. "bootstrap", "confidence interval", "leave-one-out",
  "stability", "significance";
* executable ranking scheme: every task needs a structured scheme (its prose is
  then derived from it); without one the check is an error that also says what
  the rank computation prose lacks: how to aggregate (AGGREGATION_WORDS), in
  which order or by which method (ORDER_WORDS), how ties are ranked (TIE_WORDS);
* test-set plan (issue 29): when a task has an attached plan and its test-cases answer
  gives its number of test cases, the plan's P(winner correct) at that number
  (interpolated between the planned n) below 0.8 is a warning — under the
  organizer's own expectations the challenge would often crown the wrong
  winner; a plan computed for another scheme than the task's is a warning too;
* combining several metrics (rank computation or the details of the metrics):
  one of COMBINE_WORDS, e.g. "mean rank", "combined", "weighted", "per metric",
  "across metrics".
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Literal

from registry.design import Design, DesignAnswer
from registry.parameters import BY_NUMBER, Role
from registry.test_set_plans import WEAK_PLAN_P_WINNER, chosen_test_cases, p_winner_at

Severity = Literal["error", "warning", "info"]

ORGANIZER_POLICY = Role.ORGANIZER_PARTICIPATION.number
TRAINING_POLICY = Role.TRAINING_POLICY.number
TASK_CATEGORY = Role.TASK_CATEGORY.number
TEST_CASES = Role.TEST_CASES.number
METRICS = Role.METRICS.number
RANKING = Role.RANKING_METHOD.number
MISSING_DATA = Role.MISSING_DATA.number
UNCERTAINTY = Role.UNCERTAINTY.number
STATISTICAL_TESTS = Role.STATISTICAL_TESTS.number
MIN_TEST_CASES = 10

MISSING_RULE_WORDS = (
    "worst",
    "set to",
    "zero",
    "penal",
    "imput",
    "last rank",
    "ranked last",
    "rank last",
    "lowest rank",
    "exclud",
    "replace",
    "assigned the",
    "counts as",
)
UNCERTAINTY_WORDS = (
    "bootstrap",
    "confidence interval",
    "credible interval",
    "leave-one-out",
    "leave one out",
    "stability",
    "uncertainty analysis",
    "sensitivity analysis",
    "significan",
    "permutation",
    "wilcoxon",
    "ranking robustness",
)
AGGREGATION_WORDS = ("mean", "median", "average", "sum", "percentile", "aggregat")
ORDER_WORDS = (
    "aggregate-then-rank",
    "aggregate then rank",
    "rank-then-aggregate",
    "rank then aggregate",
    "metric-based",
    "case-based",
    "test-based",
    "significance",
    "wilcoxon",
    "per case",
    "per test case",
    "then rank",
    "then ranked",
)
TIE_WORDS = ("tie", "tied", "same rank", "equal rank")
COMBINE_WORDS = (
    "mean rank",
    "average rank",
    "sum of ranks",
    "rank sum",
    "combine",
    "combination",
    "weighted",
    "per metric",
    "each metric",
    "across metrics",
    "over metrics",
    "over all metrics",
    "final rank",
)
OVERLAP_METRICS = re.compile(r"\b(dsc|dice)\b", re.IGNORECASE)


# The literature behind the checks. `seed_reference` keeps the project's short
# codes (stable for the API); people read `source`, the citation.
SOURCES = {
    "000": "Wiesenfarth et al., Sci Rep 2021 (challengeR)",
    "001": "Foucart et al., ESANN 2025",
    "002": "Maier-Hein et al., Nat Commun 2018",
    "003": "the MSD 2018 ranking scheme",
    "004": "Reinke, PhD thesis, Heidelberg University",
}
SOURCE_CODE = re.compile(r"\b(00[0-4])\b")


def readable_source(reference: str) -> str:
    """'002 Fig. 3; 004 §4.1' → 'Maier-Hein et al., Nat Commun 2018, Fig. 3; …'."""
    text = SOURCE_CODE.sub(lambda m: SOURCES[m.group(1)] + ",", reference)
    text = text.replace(", (", " (").replace("§", "section ")
    return re.sub(r",(?=;|$)", "", text)


@dataclass(frozen=True)
class Check:
    code: str
    severity: Severity
    message: str
    seed_reference: str
    parameter: int | None
    task: str | None

    @property
    def source(self) -> str:
        return readable_source(self.seed_reference)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "source": self.source}


Answers = dict[int, DesignAnswer]


def _value(answers: Answers, number: int) -> Any:
    """The value of an applicable answer; None if absent or not applicable."""
    entry = answers.get(number)
    return entry.value if entry and entry.applies else None


def _missing(answers: Answers, number: int) -> bool:
    """Not answered at all, or marked not applicable."""
    return not BY_NUMBER[number].is_filled(_value(answers, number))


def _text(answers: Answers, number: int) -> str:
    value = _value(answers, number)
    if isinstance(value, str):
        return value.lower()
    if isinstance(value, dict):
        return " ".join(str(v) for v in value.values() if isinstance(v, str)).lower()
    return ""


def _plain(text: str) -> str:
    """Lower case, hyphens as spaces: "Rank-then-aggregate" → "rank then aggregate"."""
    return " ".join(text.lower().replace("-", " ").split())


def _mentions(text: str, words: tuple[str, ...]) -> bool:
    text = _plain(text)
    return any(_plain(word) in text for word in words)


def _metrics(answers: Answers) -> list[dict]:
    value = _value(answers, METRICS)
    return list(value.get("metrics") or []) if isinstance(value, dict) else []


def _choices(answers: Answers, number: int) -> list[str]:
    value = _value(answers, number)
    return list(value.get("choices") or []) if isinstance(value, dict) else []


def _name(number: int) -> str:
    return BY_NUMBER[number].name.lower()


def _challenge_checks(answers: Answers) -> list[Check]:
    checks = []
    if _missing(answers, ORGANIZER_POLICY):
        checks.append(
            Check(
                "organizer_participation_missing",
                "warning",
                "The organizer participation policy is missing: say whether "
                "members of the organizers' institutes may participate and be "
                "ranked (reported by only 6 % of tasks in 2004–2016).",
                "002 Table 1 (participation conditions)",
                ORGANIZER_POLICY,
                None,
            )
        )
    if _missing(answers, TRAINING_POLICY):
        checks.append(
            Check(
                "training_data_policy_missing",
                "warning",
                "The training data policy is missing: say whether participants "
                "may use data beyond the provided training data (85 % of tasks "
                "did not say).",
                "002 Results (reporting of parameters)",
                TRAINING_POLICY,
                None,
            )
        )
    return checks


def _no_scheme_message(ranking: str) -> str:
    """Why the task cannot be ranked as registered, and what its prose lacks."""
    message = (
        "The task has no executable ranking scheme, so its registered ranking "
        "could not be run: set one on its ranking scheme page (once registered, "
        "by an amendment)"
    )
    lacking = [
        label
        for label, words in (
            ("how values are aggregated (mean, median, ...)", AGGREGATION_WORDS),
            (
                "the order (aggregate then rank, rank then aggregate or test-based)",
                ORDER_WORDS,
            ),
            ("how ties are ranked", TIE_WORDS),
        )
        if not _mentions(ranking, words)
    ]
    if not ranking:
        return f"{message}; the rank computation method is not described either."
    if lacking:
        return f"{message}; its rank computation does not say {', '.join(lacking)}."
    return f"{message}."


def _plan_check(
    task: str, answers: Answers, plan: dict[str, Any], scheme: dict[str, Any] | None
) -> list[Check]:
    if plan.get("scheme") != scheme:
        # Numbers of another scheme would mislead more than no plan at all.
        return [
            Check(
                "test_set_plan_outdated",
                "warning",
                "The attached test-set plan was computed for another ranking "
                "scheme than the task's current one: plan the test set again.",
                "004 §4.1 (the scheme decides the ranking)",
                TEST_CASES,
                task,
            )
        ]
    chosen = chosen_test_cases(_value(answers, TEST_CASES))
    if chosen is None:
        return []
    reading = p_winner_at(plan, chosen)
    if reading.p_winner >= WEAK_PLAN_P_WINNER:
        return []
    message = (
        f"With {chosen} test cases the attached test-set plan gives the truly best "
        f"algorithm only about {100 * reading.p_winner:.0f} % chance to rank first "
        f"(below {100 * WEAK_PLAN_P_WINNER:.0f} %), under the organizers' own "
        "expected performances; more test cases make the winner more certain"
    )
    if plan.get("recommended_n") is not None:
        message += f" (the plan recommends at least {plan['recommended_n']})"
    return [
        Check(
            "test_set_plan_weak",
            "warning",
            message + ".",
            "004 §6 (sample size); 002 (rankings change with the test cases)",
            TEST_CASES,
            task,
        )
    ]


def _task_checks(
    task: str,
    answers: Answers,
    scheme: dict[str, Any] | None,
    plan: dict[str, Any] | None = None,
) -> list[Check]:
    checks: list[Check] = []
    ranking = _text(answers, RANKING)
    metrics = _metrics(answers)

    def add(code, severity, message, seed, parameter):
        checks.append(Check(code, severity, message, seed, parameter, task))

    if metrics and not (
        _mentions(_text(answers, MISSING_DATA), MISSING_RULE_WORDS)
        or _mentions(ranking, MISSING_RULE_WORDS)
    ):
        add(
            "missing_data_rule_missing",
            "warning",
            "The ranking uses metric values but no rule says what happens to "
            "missing results (e.g. set to the worst value); leaving out difficult "
            "cases could then improve a rank.",
            "002 Discussion (missing data); 004 §4.1",
            MISSING_DATA,
        )
    if re.search(r"\bmedian\b", ranking):
        add(
            "median_aggregation",
            "warning",
            "The ranking aggregates with the median: single-metric rankings are "
            "significantly less robust with the median than with the mean.",
            "002 Fig. 3",
            RANKING,
        )
    if not (
        _mentions(_text(answers, UNCERTAINTY), UNCERTAINTY_WORDS)
        or _mentions(_text(answers, STATISTICAL_TESTS), UNCERTAINTY_WORDS)
    ):
        add(
            "uncertainty_analysis_missing",
            "warning",
            "No uncertainty analysis of the ranking is planned (e.g. bootstrap "
            "or leave-one-out stability, significance tests).",
            "002 Fig. 4 (ranking robustness); 000 (bootstrap stability)",
            UNCERTAINTY,
        )
    cases = _value(answers, TEST_CASES)
    count = cases.get("count") if isinstance(cases, dict) else None
    if isinstance(count, int) and count < MIN_TEST_CASES:
        add(
            "few_test_cases",
            "warning",
            f"Only {count} test case(s): with fewer than {MIN_TEST_CASES} test "
            "cases ranks will be unstable.",
            "002 Fig. 4 (robustness to the test data)",
            TEST_CASES,
        )
    if plan is not None:
        checks += _plan_check(task, answers, plan, scheme)
    if scheme is None:
        add(
            "ranking_scheme_not_executable",
            "error",
            _no_scheme_message(ranking),
            "004 §4.1 (changing the ranking scheme); 003 (an executable scheme)",
            RANKING,
        )
    for i, metric in enumerate(metrics, start=1):
        name = metric.get("name") or f"metric {i}"
        lacking = []
        if not isinstance(metric.get("higher_is_better"), bool):
            lacking.append("direction")
        if metric.get("worst_value") is None:
            lacking.append("worst value")
        if lacking:
            add(
                "metric_incomplete",
                "warning",
                f"Metric {name!r} has no {' and no '.join(lacking)}; both are "
                "needed to rank and to fill in missing results.",
                "003 (N/A → worst value); 000 (ranking direction)",
                METRICS,
            )
    if "detection" in _choices(answers, TASK_CATEGORY):
        for metric in metrics:
            if OVERLAP_METRICS.search(str(metric.get("name", ""))):
                add(
                    "overlap_metric_for_detection",
                    "warning",
                    f"{metric['name']!r} is a pixel-overlap metric but the task is "
                    "a detection task: use detection metrics (e.g. F1 score, "
                    "average precision) on matched objects.",
                    "004 §4.2",
                    METRICS,
                )
    if len(metrics) > 1 and not (
        _mentions(ranking, COMBINE_WORDS)
        or _mentions(_text(answers, METRICS), COMBINE_WORDS)
    ):
        add(
            "metrics_not_combined",
            "warning",
            f"{len(metrics)} metrics are listed but no rule says how they are "
            "combined into one ranking (e.g. mean of the per-metric ranks).",
            "002 Results (8 % did not report the rank aggregation method)",
            RANKING,
        )
    return checks


def checks_for(design: Design) -> list[Check]:
    """All design checks of a design, challenge-level first."""
    checks = _challenge_checks({a.number: a for a in design.answers})
    for task in design.tasks:
        answers = {a.number: a for a in task.answers}
        checks += _task_checks(task.name, answers, task.scheme, task.plan)
    return checks
