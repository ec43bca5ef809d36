"""When the registered design announces a case-characteristics analysis."""

import json

from characteristics.design import (
    RegisteredAnswer,
    announcement,
    characteristics_answers,
    named_columns,
)

ANSWERS = [
    RegisteredAnswer(
        39,
        "Characteristics of test cases",
        "Smoke, motion artifacts and the patient are annotated per frame.",
        "Seg",
    ),
]


def test_columns_are_named_as_words_with_underscores_read_as_spaces():
    columns = ["smoke", "motion_artifacts", "patient", "blur", "moke"]
    assert named_columns(ANSWERS, columns) == ["smoke", "motion_artifacts", "patient"]


def test_a_model_is_announced_only_when_every_column_is_named():
    assert announcement(ANSWERS, ["smoke", "patient"])[0] is False
    exploratory, reason = announcement(ANSWERS, ["smoke", "blur"])
    assert exploratory is True
    assert reason == (
        "The registered design does not name 'blur' in the registered context "
        "information and test case characteristics."
    )
    assert announcement([], ["smoke"])[0] is True


def test_answers_are_read_per_task_from_the_registered_document():
    canonical = json.dumps(
        {
            "design": {
                "answers": [{"number": 1, "value": "Name"}],
                "tasks": [
                    {"name": "A", "answers": [{"number": 39, "value": "blur"}]},
                    {"name": "B", "answers": [{"number": 23, "value": "scanner"}]},
                ],
            }
        }
    )
    assert [
        (a.number, a.task, a.text) for a in characteristics_answers(canonical, "B")
    ] == [(23, "B", "scanner")]
    assert len(characteristics_answers(canonical, None)) == 2
