"""The ingestion benchmark stores the generated rows and leaves nothing behind."""

import pytest

from analysis.bench_ingest import generate_csv, main
from analysis.models import ResultsVersion
from registry.models import Registration


def test_generate_csv_has_the_requested_rows():
    lines = generate_csv(4321).decode().splitlines()
    assert len(lines) == 4322
    assert lines[0] == "task,case,algorithm,metric,value"


@pytest.mark.django_db
def test_bench_ingest_commits_then_rolls_back(capsys):
    main(["--rows", "2000"])
    out = capsys.readouterr().out
    assert "2,000 rows" in out
    assert "commit_results:" in out
    assert (Registration.objects.count(), ResultsVersion.objects.count()) == (0, 0)
