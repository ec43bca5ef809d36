"""A registered one-task challenge with finished analyses, built through the
real services, for the publication tests."""

from __future__ import annotations

from analysis import ingest
from analysis.models import AnalysisRun
from analysis.services import start_analysis
from tests.analysis.django.conftest import small_results_csv
from tests.publicrecord.conftest import registered
from tests.schemes import msd_scheme

# Wilcoxon significance ranking with a small bootstrap and two kinds of rank
# intervals: every part of the results page has something to show.
SCHEME = msd_scheme(
    without=("targets", "consensus"),
    uncertainty={"bootstrap": 50, "seed": 7, "rank_ci": ["bootstrap", "id_nemenyi"]},
)
EXPLORATORY = {
    "metric": "DSC",
    "higher_is_better": True,
    "method": "aggregate_then_rank",
    "aggregate": "median",
    "uncertainty": {"bootstrap": 0, "seed": 3},
}


def analysed(call, organizer, chair, *, name="Brain challenge"):
    """(registration, finished run of the registered scheme) of a new challenge."""
    registration = registered(call, organizer, chair, name=name, scheme=SCHEME)
    raw = ingest.read_upload("results.csv", small_results_csv())
    results = ingest.commit_results(
        registration=registration,
        table=ingest.checked(raw),
        original_name="results.csv",
        actor=organizer,
    )
    run = start_analysis(results=results, actor=organizer)
    return registration, AnalysisRun.objects.get(pk=run.pk)


def exploratory_run(registration, organizer) -> AnalysisRun:
    results = registration.results_versions.get()
    run = start_analysis(results=results, actor=organizer, scheme=EXPLORATORY)
    return AnalysisRun.objects.get(pk=run.pk)
