"""The report of an analysis run: plain data (:class:`ReportData`), its tables
for CSV/JSON downloads, and the PDF (:func:`render_report_pdf`). No ORM here:
the Django side builds the data from its models and calls these functions.
"""

from .bias_items import BIAS_ITEMS, ChecklistItem
from .build import build_report_data, build_report_figures, draw_case_figures
from .data import (
    ORGANIZERS,
    RANK_CI_MEANINGS,
    SECTIONS,
    AlgorithmStatistics,
    BiasCoverage,
    Deviation,
    ReportData,
    ReportFigure,
    TitleInfo,
    audit_findings,
    bias_coverage,
    descriptive_statistics,
    deviation_value_text,
    readable,
    report_tables,
    table_columns,
)
from .pdf import EXPLORATORY_BANNER, NO_DEVIATIONS, render_report_pdf

__all__ = [
    "BIAS_ITEMS",
    "EXPLORATORY_BANNER",
    "NO_DEVIATIONS",
    "ORGANIZERS",
    "RANK_CI_MEANINGS",
    "SECTIONS",
    "AlgorithmStatistics",
    "BiasCoverage",
    "ChecklistItem",
    "Deviation",
    "ReportData",
    "ReportFigure",
    "TitleInfo",
    "audit_findings",
    "bias_coverage",
    "build_report_data",
    "build_report_figures",
    "descriptive_statistics",
    "deviation_value_text",
    "draw_case_figures",
    "readable",
    "render_report_pdf",
    "report_tables",
    "table_columns",
]
