import csv
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from registry.answer_kinds import KINDS
from registry.parameters import GROUPS, PARAMETERS, Role, _parameter, get_parameter

# The project keeps its own copy of the reference table so that the suite runs
# in a fresh clone with nothing beside it; the shared original is compared when
# it is there.
REFERENCE = Path(__file__).resolve().parents[1] / "data/bias_parameters_53.tsv"
SHARED_REFERENCE = (
    Path(__file__).resolve().parents[3] / "shared/reference/bias_parameters_53.tsv"
)


def reference_rows():
    with REFERENCE.open() as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_catalogue_matches_reference_table():
    rows = reference_rows()
    assert [
        (p.number, p.group, p.name, p.required_for_submission) for p in PARAMETERS
    ] == [
        (int(r["no"]), r["group"], r["parameter"], r["in_submission_system"] == "yes")
        for r in rows
    ]


@pytest.mark.skipif(not SHARED_REFERENCE.exists(), reason="no ../shared here")
def test_reference_copy_equals_the_shared_table():
    assert REFERENCE.read_bytes() == SHARED_REFERENCE.read_bytes()


def test_catalogue_requires_forty_parameters_for_submission():
    assert sum(p.required_for_submission for p in PARAMETERS) == 40


def test_groups_keep_table_order():
    assert GROUPS[0] == "Challenge organization"
    assert GROUPS[-1] == "Challenge outcome"
    assert len(GROUPS) == 7


@pytest.mark.parametrize("parameter", PARAMETERS, ids=lambda p: p.key)
def test_example_value_is_accepted_and_stable(parameter):
    cleaned = parameter.clean(parameter.example_value)
    assert parameter.clean(cleaned) == cleaned
    assert parameter.is_filled(cleaned)
    assert parameter.to_text(cleaned)


@pytest.mark.parametrize(
    ("kind", "main"),
    [
        ("choice", {"choice": ""}),
        ("multichoice", {"choices": []}),
        ("schedule", {"events": []}),
        ("institutions", {"institutions": []}),
        ("metrics", {"metrics": []}),
    ],
)
def test_an_answer_with_only_details_is_not_filled(kind, main):
    assert KINDS[kind].is_filled({**main, "details": "Some details."}) is False
    assert KINDS[kind].is_filled(None) is False


def test_unknown_parameter_number_names_the_range():
    with pytest.raises(KeyError, match="1–53"):
        get_parameter(54)


@pytest.mark.parametrize(
    ("number", "value", "message"),
    [
        (2, "not a url", "not an http"),
        (4, {"choice": "sometimes"}, "is not one of"),
        (4, {"choice": "other"}, "details: must not be empty"),
        (38, {"count": -1}, "whole number"),
        (38, {"count": True}, "whole number"),
        (6, {"events": [{"date": "2027-13-01", "event": "x"}]}, "YYYY-MM-DD"),
        (44, {"metrics": [{"name": "DSC"}]}, "higher_is_better"),
        (
            44,
            {
                "metrics": [
                    {
                        "name": "DSC",
                        "higher_is_better": True,
                        "lower_bound": 1,
                        "upper_bound": 0,
                    }
                ]
            },
            "exceeds",
        ),
        (
            44,
            {
                "metrics": [
                    {"name": "DSC", "higher_is_better": True},
                    {"name": "DSC", "higher_is_better": True},
                ]
            },
            "twice",
        ),
        (
            3,
            {"institutions": ["A"], "contact": {"name": "B", "email": "nope"}},
            "not valid",
        ),
        (17, {"choices": []}, "at least one"),
        (5, 42, "expected text"),
        (44, {"metrics": [], "colour": 1}, "unknown keys"),
    ],
)
def test_invalid_values_are_refused_with_specific_message(number, value, message):
    with pytest.raises(ValidationError, match=message):
        get_parameter(number).clean(value)


def test_metrics_keep_structure():
    value = get_parameter(44).clean(
        {"metrics": [{"name": "HD95", "higher_is_better": False, "worst_value": 373}]}
    )
    assert value["metrics"] == [
        {
            "name": "HD95",
            "higher_is_better": False,
            "worst_value": 373,
            "lower_bound": None,
            "upper_bound": None,
        }
    ]


def test_schedule_events_are_sorted_by_date():
    value = get_parameter(6).clean(
        {
            "events": [
                {"date": "2027-09-01", "event": "Results"},
                {"date": "2027-04-01", "event": "Training data"},
            ]
        }
    )
    assert [e["event"] for e in value["events"]] == ["Training data", "Results"]


def test_every_role_names_exactly_one_parameter():
    roles = [p.role for p in PARAMETERS if p.role is not None]
    assert sorted(roles) == sorted(Role)


def test_roles_point_at_the_table_4_5_numbers():
    # The public numbers (004 Table 4.5) the roles stand for.
    assert {role: role.number for role in Role} == {
        Role.CHALLENGE_NAME: 1,
        Role.ORGANIZING_INSTITUTIONS: 3,
        Role.SCHEDULE: 6,
        Role.ORGANIZER_PARTICIPATION: 10,
        Role.TRAINING_POLICY: 11,
        Role.PRE_EVALUATION: 12,
        Role.SUBMISSION_INSTRUCTIONS: 15,
        Role.FIELD_OF_APPLICATION: 16,
        Role.TASK_CATEGORY: 17,
        Role.CONTEXT_INFORMATION: 23,
        Role.IMAGING_MODALITY: 25,
        Role.ALGORITHM_TARGETS: 19,
        Role.TEST_CASES: 38,
        Role.TEST_CASE_CHARACTERISTICS: 39,
        Role.METRICS: 44,
        Role.RANKING_METHOD: 46,
        Role.MISSING_DATA: 48,
        Role.UNCERTAINTY: 49,
        Role.STATISTICAL_TESTS: 50,
    }
    assert Role.METRICS.parameter.kind == "metrics"


def test_every_parameter_has_a_definition_examples_and_bias_items():
    assert all(p.definition for p in PARAMETERS)
    assert all(p.examples for p in PARAMETERS)
    assert all(p.bias_items for p in PARAMETERS)


@pytest.mark.parametrize(
    "change",
    [{"kind": "prose"}, {"level": "call"}, {"role": "no_such_role"}, {"colour": 1}],
)
def test_the_data_file_refuses_an_entry_the_code_cannot_read(tmp_path, change):
    entry = {
        "number": 1,
        "group": "Challenge organization",
        "name": "Challenge name",
        "level": "challenge",
        "kind": "text",
        "required_for_submission": True,
        "reported_2004_2016_pct": 100,
        "definition": "The name.",
        "examples": ["MSD"],
        "bias_items": ["1"],
    }
    assert _parameter(entry).kind == "text"
    with pytest.raises((ValueError, TypeError)):
        _parameter(entry | change)
