"""The report's deviations table: repeated deviations of one kind in one task
are one row (the RobustMIS demo's 20 rows of missing cases), every finding
still named in it."""

from __future__ import annotations

from analysis.deviations import missing_case_deviations
from analysis.reports.data import (
    GROUP_DEVIATIONS_FROM,
    Deviation,
    deviation_rows,
)
from demo import robustmis_cases


def test_robustmis_missing_cases_are_one_row_naming_every_algorithm():
    results, _ = robustmis_cases.simulate()
    deviations = missing_case_deviations(results)
    assert len(deviations) == 20  # ten teams x two metrics, one task

    (row,) = deviation_rows(deviations)

    assert row.count == 20
    assert row.code == "missing_cases"
    assert row.message.startswith("Task Multiple instance segmentation: 20 ")
    for d in deviations:
        e = d.evidence
        assert f"{e['algorithm']} {e['missing']}" in row.message
    assert "MI DSC (of 700 cases)" in row.message
    assert "MI NSD (of 700 cases)" in row.message
    assert row.observed == "0.3 % to 1.4 %"


def _deviation(task: str | None, n: int, code: str = "scheme_changed") -> Deviation:
    return Deviation(
        code, "warning", f"Task {task}: field {n} changed.", registered=1, task=task
    )


def test_fewer_than_the_threshold_or_other_tasks_stay_separate_rows():
    few = [_deviation("A", n) for n in range(GROUP_DEVIATIONS_FROM - 1)]
    others = [_deviation("B", 1), _deviation(None, 2), _deviation(None, 3)]
    rows = deviation_rows(few + others)
    assert [r.message for r in rows] == [d.message for d in few + others]
    assert all(r.count == 1 for r in rows)


def test_other_kinds_group_by_their_common_beginning_in_place_of_the_first():
    first = _deviation(None, 0, code="other")
    group = [_deviation("A", n) for n in range(4)]
    rows = deviation_rows([first, *group, _deviation("B", 9)])
    assert [r.count for r in rows] == [1, 4, 1]
    assert (
        rows[1].message == "4 findings: Task A: field 0 changed; 1 changed;"
        " 2 changed; 3 changed."
    )
    assert rows[1].registered == "1"
