"""The upload preview's counts agree with what the analysis will rank."""

import io

from analysis.design import RegisteredDesign, RegisteredMetric, RegisteredTask
from analysis.ingest import parse_upload, preview_results

DESIGN = RegisteredDesign(
    identifier="miccai-2027-001",
    version=1,
    sha256="0" * 64,
    tasks={
        "Brain": RegisteredTask(
            name="Brain",
            metrics={"DSC": RegisteredMetric("DSC", True, 0.0, 0.0, 1.0)},
            test_cases=4,
            scheme=None,
            missing_handling=None,
        )
    },
    organizer_institutions=(),
    organizer_participation=None,
    submission_limit=None,
)


def csv_bytes(rows) -> bytes:
    text = io.StringIO()
    text.write("task,target,case,algorithm,metric,value\n")
    for row in rows:
        text.write(",".join(row) + "\n")
    return text.getvalue().encode()


def preview_of(rows):
    return preview_results(parse_upload("r.csv", csv_bytes(rows)).frame, DESIGN)


def test_every_case_in_every_target_has_no_missing_cell():
    # BraTS-like: each case is segmented for every target (3 targets x 4 cases)
    rows = [
        ("Brain", target, f"c{case}", algorithm, "DSC", "0.8")
        for target in ("ET", "TC", "WT")
        for case in range(4)
        for algorithm in ("A", "B")
    ]
    counts = preview_of(rows).tasks["Brain"]
    assert counts["cases"] == 4
    assert counts["missing_cells"] == 0  # was -48: cases counted once, not per target


def test_missing_cells_are_counted_in_each_targets_cases():
    # Target ET has cases c0-c3, TC only c0-c1; B lacks ET c3 and TC c1 (rows
    # absent), and its TC c0 value is empty: 3 of the (4 + 2) x 2 = 12 cells.
    rows = [
        ("Brain", "ET", f"c{case}", algorithm, "DSC", "0.8")
        for case in range(4)
        for algorithm in ("A", "B")
        if (case, algorithm) != (3, "B")
    ] + [
        ("Brain", "TC", "c0", "A", "DSC", "0.7"),
        ("Brain", "TC", "c0", "B", "DSC", ""),
        ("Brain", "TC", "c1", "A", "DSC", "0.7"),
    ]
    counts = preview_of(rows).tasks["Brain"]
    assert counts["missing_cells"] == 3
    assert counts["algorithms"] == {"A": 6, "B": 3}


def test_missing_cells_without_targets_count_absent_rows_and_empty_values():
    rows = [
        ("Brain", "", f"c{case}", algorithm, "DSC", "" if case == 0 else "0.8")
        for case in range(4)
        for algorithm in ("A", "B")
        if (case, algorithm) != (3, "A")
    ]
    assert preview_of(rows).tasks["Brain"]["missing_cells"] == 3


def test_missing_values_finding_counts_absent_rows_too():
    # B has no row for c3 and an empty value for c0: 2 of 8 DSC cells are
    # missing (the finding said "1 missing DSC value(s) of 7", the rows).
    rows = [
        ("Brain", "", f"c{case}", algorithm, "DSC", "" if case == 0 else "0.8")
        for case in range(4)
        for algorithm in ("A", "B")
        if (case, algorithm) != (3, "B") and (case, algorithm) != (0, "A")
    ] + [("Brain", "", "c0", "A", "DSC", "0.9")]
    preview = preview_of(rows)
    (finding,) = [f for f in preview.findings if f.code == "missing_values"]
    assert finding.message == "2 missing DSC value(s) of 8."
    assert preview.tasks["Brain"]["missing_cells"] == 2
