"""The app adds its section to the analysis report through the report hooks."""

from analysis.report_hooks import report_sections
from characteristics.services import report_section_for


def test_the_case_characteristics_section_is_a_report_hook():
    assert report_sections().count(report_section_for) == 1
