"""Web pages of post-challenge reporting (results, uploads, analyses)."""

from .results import (
    cancel_upload,
    commit_upload,
    preview_upload,
    results_page,
    start_run,
    upload_results,
)
from .runs import (
    analysis_body,
    analysis_output,
    analysis_page,
    analysis_plot,
    analysis_table,
    retry_run,
)

__all__ = [
    "analysis_body",
    "analysis_output",
    "analysis_page",
    "analysis_plot",
    "analysis_table",
    "cancel_upload",
    "commit_upload",
    "preview_upload",
    "results_page",
    "retry_run",
    "start_run",
    "upload_results",
]
