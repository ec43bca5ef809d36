"""The PDF report of an analysis run, built from the stored run (ORM → plain data)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pandas as pd
from django.utils import timezone

from .design import RegisteredDesign
from .models import AnalysisRun
from .reports import Deviation, TitleInfo, build_report_data, render_report_pdf

# Further analyses that add a report section (hook; apps append in ready()):
# each gets the run and returns a section builder (width -> flowables) or None.
FURTHER_ANALYSES: list[Callable[[AnalysisRun], Callable[[float], list] | None]] = []


def title_of(run: AnalysisRun, design: RegisteredDesign) -> TitleInfo:
    results = run.results
    registration = results.registration
    return TitleInfo(
        challenge_name=registration.challenge.name,
        registration_identifier=registration.identifier,
        registration_version=str(design.version),
        registration_hash=design.sha256,
        results_version=str(results.number),
        results_hash=results.sha256,
        engine_version=run.engine_version,
        date=timezone.localdate(run.finished or run.created).isoformat(),
        seed=run.seed,
        exploratory=run.exploratory,
    )


def render_run_report(
    run: AnalysisRun,
    *,
    frame: pd.DataFrame,
    design: RegisteredDesign,
    figures: bool = True,
) -> bytes:
    """Render the report of a run whose output is stored (deterministic)."""
    deviations = [
        Deviation(
            d["code"],
            d["severity"],
            d["message"],
            d.get("registered"),
            d.get("observed"),
        )
        for d in run.deviations
    ]
    data = build_report_data(
        frame,
        run.output,
        title=title_of(run, design),
        deviations=deviations,
        figures=figures,
    )
    sections = tuple(s for s in (f(run) for f in FURTHER_ANALYSES) if s is not None)
    data = dataclasses.replace(data, further_analyses=sections)
    return render_report_pdf(data)
