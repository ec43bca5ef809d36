"""Design checks: each fires on a crafted proposal and not on a clean one."""

import copy

import pytest

from registry.design import Design
from registry.parameters import PARAMETERS
from reviews.checks import checks_for
from tests.reviews.conftest import client_for
from tests.schemes import mean_scheme


def entry(number, value=None, *, not_applicable=""):
    """One answer of the canonical design form."""
    if not_applicable:
        return {"number": number, "name": "", "not_applicable": not_applicable}
    return {"number": number, "name": "", "value": value}


CLEAN_TASK_TEXT = {
    46: "Metric-based (aggregate then rank): algorithms are ranked per metric by "
    "the mean value over all test cases; the final rank is the mean of the "
    "per-metric ranks. Ties get the same (minimum) rank.",
    48: "Missing results are set to the worst possible value of the metric.",
    49: "Ranking stability is analysed with bootstrapping (1000 samples).",
    50: "Wilcoxon signed-rank tests between all pairs of algorithms.",
}


def _set(answers, number, value=None, *, not_applicable=""):
    """Set (or, with neither value nor reason, remove) one answer in place."""
    answers[:] = [a for a in answers if a["number"] != number]
    if value is not None or not_applicable:
        answers.append(entry(number, value, not_applicable=not_applicable))
        answers.sort(key=lambda a: a["number"])


def clean_snapshot():
    """Every parameter answered with its example, the prose answers sensible
    (a design in its canonical serialized form)."""
    answers, task = [], []
    for p in PARAMETERS:
        target = answers if p.level == "challenge" else task
        target.append(entry(p.number, p.example_value))
    for number, text in CLEAN_TASK_TEXT.items():
        _set(task, number, text)
    _set(task, 17, {"choices": ["segmentation"], "details": ""})
    _set(task, 38, {"count": 50, "details": ""})
    return {
        "call": "c",
        "name": "n",
        "answers": answers,
        "tasks": [{"name": "Brain", "answers": task, "scheme": mean_scheme()}],
    }


def without_scheme(snapshot):
    """The design as an organizer leaves it who wrote the ranking as prose only."""
    del snapshot["tasks"][0]["scheme"]
    return snapshot


def with_task_answer(number, value=None, *, not_applicable=""):
    snapshot = copy.deepcopy(clean_snapshot())
    _set(snapshot["tasks"][0]["answers"], number, value, not_applicable=not_applicable)
    return snapshot


def with_task_answers(values):
    snapshot = clean_snapshot()
    for number, value in values.items():
        _set(snapshot["tasks"][0]["answers"], number, value)
    return snapshot


def with_challenge_answer_removed(number):
    snapshot = clean_snapshot()
    _set(snapshot["answers"], number)
    return snapshot


def run(snapshot):
    return checks_for(Design.from_dict(snapshot))


def codes(snapshot):
    return [(c.code, c.parameter, c.task) for c in run(snapshot)]


def test_clean_proposal_has_no_findings():
    assert codes(clean_snapshot()) == []


DSC_ONLY = {
    "metrics": [
        {
            "name": "DSC",
            "higher_is_better": True,
            "worst_value": 0,
            "lower_bound": 0,
            "upper_bound": 1,
        }
    ],
    "details": "",
}


@pytest.mark.parametrize(
    ("snapshot", "expected"),
    [
        (
            with_task_answer(48, "Not discussed yet."),
            ("missing_data_rule_missing", 48, "Brain"),
        ),
        (
            with_task_answer(48, not_applicable="We expect no missing data."),
            ("missing_data_rule_missing", 48, "Brain"),
        ),
        (
            with_task_answer(
                46,
                CLEAN_TASK_TEXT[46].replace("mean value", "median value"),
            ),
            ("median_aggregation", 46, "Brain"),
        ),
        (
            with_task_answers(
                {49: "Annotators disagree sometimes.", 50: "None planned."}
            ),
            ("uncertainty_analysis_missing", 49, "Brain"),
        ),
        (
            with_task_answer(38, {"count": 8, "details": ""}),
            ("few_test_cases", 38, "Brain"),
        ),
        (
            with_challenge_answer_removed(10),
            ("organizer_participation_missing", 10, None),
        ),
        (
            without_scheme(clean_snapshot()),
            ("ranking_scheme_not_executable", 46, "Brain"),
        ),
        (
            with_task_answer(
                44,
                {
                    "metrics": [{**DSC_ONLY["metrics"][0], "worst_value": None}],
                    "details": "",
                },
            ),
            ("metric_incomplete", 44, "Brain"),
        ),
        (
            with_task_answer(
                46,
                "Metric-based: the mean over test cases, then ranked. "
                "Ties share a rank.",
            ),
            ("metrics_not_combined", 46, "Brain"),
        ),
        (
            with_challenge_answer_removed(11),
            ("training_data_policy_missing", 11, None),
        ),
    ],
    ids=lambda value: value[0] if isinstance(value, tuple) else "",
)
def test_check_fires_on_crafted_proposal(snapshot, expected):
    assert codes(snapshot) == [expected]


def test_dsc_for_detection_task_fires():
    snapshot = with_task_answer(44, DSC_ONLY)
    _set(snapshot["tasks"][0]["answers"], 17, {"choices": ["detection"], "details": ""})
    found = run(snapshot)
    assert [(c.code, c.parameter) for c in found] == [
        ("overlap_metric_for_detection", 44)
    ]
    assert found[0].seed_reference == "004 §4.2"
    assert "'DSC'" in found[0].message


def test_dsc_for_segmentation_task_does_not_fire():
    assert codes(with_task_answer(44, DSC_ONLY)) == []


def test_missing_ranking_is_an_error():
    found = run(without_scheme(with_task_answer(46)))
    assert [(c.code, c.severity) for c in found if c.parameter == 46] == [
        ("ranking_scheme_not_executable", "error"),
        ("metrics_not_combined", "warning"),
    ]
    assert found[0].message.endswith("is not described either.")


@pytest.mark.parametrize(
    ("prose", "ending"),
    [
        (CLEAN_TASK_TEXT[46], "(once registered, by an amendment)."),
        (
            "The mean of the per-metric ranks decides; ties share a rank.",
            "does not say the order (aggregate then rank, rank then aggregate "
            "or test-based).",
        ),
    ],
)
def test_prose_without_scheme_is_an_error_naming_what_prose_lacks(prose, ending):
    found = run(without_scheme(with_task_answer(46, prose)))
    assert [(c.code, c.severity) for c in found] == [
        ("ranking_scheme_not_executable", "error")
    ]
    assert found[0].message.startswith("The task has no executable ranking scheme")
    assert found[0].message.endswith(ending)


def test_a_scheme_makes_the_task_executable_whatever_its_prose():
    found = codes(with_task_answer(46, "Ranked by the registered scheme."))
    assert ("ranking_scheme_not_executable", 46, "Brain") not in found


def test_few_test_cases_message_names_the_count():
    found = run(with_task_answer(38, {"count": 3, "details": ""}))
    assert found[0].message.startswith("Only 3 test case(s)")


@pytest.mark.django_db
def test_checks_endpoint_lists_contract_fields(world):
    response = client_for(world.organizer).get(
        f"/api/v1/challenges/{world.challenge.pk}/checks/"
    )
    assert response.status_code == 200
    data = response.json()
    # The catalogue's example prose ("A free-text description.") says nothing
    # about missing data, uncertainty or how to rank.
    assert {c["code"] for c in data} >= {
        "missing_data_rule_missing",
        "uncertainty_analysis_missing",
        "ranking_scheme_not_executable",
        "metrics_not_combined",
    }
    assert {"code", "severity", "message", "parameter", "task"} <= set(data[0])
    assert all(c["task"] == "Brain" for c in data)
