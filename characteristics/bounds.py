"""The bounds of a case-model fit, from the settings (documented in
docs/case-models.md): the fit's job and ``manage.py casemodel`` use the same."""

from __future__ import annotations

from django.conf import settings


def case_model_bounds() -> dict[str, int | float]:
    """``fit_case_models``' keyword arguments for its five bounds."""
    return {
        "max_terms": settings.CASE_MODEL_MAX_TERMS,
        "max_crossed_levels": settings.CASE_MODEL_MAX_CROSSED_LEVELS,
        "max_groupings": settings.CASE_MODEL_MAX_GROUPINGS,
        "max_iterations": settings.CASE_MODEL_MAX_ITERATIONS,
        "max_seconds": settings.CASE_MODEL_MAX_SECONDS,
    }
