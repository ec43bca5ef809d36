"""The PDF report of an analysis run, built from the stored run (ORM → plain data)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable

import pandas as pd
from django.utils import timezone

from registry.design import Design, DesignAnswer
from registry.parameters import get_parameter

from .design import RegisteredDesign
from .models import AnalysisRun
from .report_hooks import report_sections
from .reports import Deviation, TitleInfo, build_report_data, render_report_pdf


def later_versions_note(run: AnalysisRun, design: RegisteredDesign) -> str:
    """What the report says about registration versions after the one it
    speaks for (empty when it speaks for the latest)."""
    later = run.results.registration.versions.filter(number__gt=design.version)
    parts = [
        f"version {v.number}"
        + (" (approved after results were uploaded)" if v.post_hoc else "")
        for v in later.order_by("number")
    ]
    if not parts:
        return ""
    return (
        f"This report speaks for registration version {design.version}; later"
        f" versions exist: {', '.join(parts)}."
    )


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
        registration_note=later_versions_note(run, design),
    )


def _answered(answers: Iterable[DesignAnswer]) -> set[int]:
    return {
        a.number for a in answers if not a.applies or a.value not in (None, "", [], {})
    }


def design_answers(canonical: str) -> dict[str, str]:
    """BIAS item → the registered design's parameters answering it."""
    design = Design.from_dict(json.loads(canonical)["design"])
    numbers = _answered(design.answers)
    for task in design.tasks:
        numbers |= _answered(task.answers)
    by_item: dict[str, list[str]] = {}
    for number in sorted(numbers):
        try:
            parameter = get_parameter(number)
        except KeyError:  # a number the catalogue no longer has
            continue
        for item in parameter.bias_items:
            by_item.setdefault(item, []).append(
                f"parameter {number} ({parameter.name})"
            )
    return {item: ", ".join(names) for item, names in by_item.items()}


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
            d.get("task"),
            d.get("evidence"),
        )
        for d in run.deviations
    ]
    data = build_report_data(
        frame,
        run.output,
        title=title_of(run, design),
        deviations=deviations,
        figures=figures,
        registered_schemes={t.name: t.scheme for t in design.tasks.values()},
        design_answers=design_answers(run.results.registration_version.canonical),
    )
    sections = tuple(s for s in (f(run) for f in report_sections()) if s is not None)
    data = dataclasses.replace(data, further_analyses=sections)
    return render_report_pdf(data)
