"""Report fixtures: engine output of c_ideal x 3 tasks (no database)."""

from __future__ import annotations

import pytest
from pypdf import PdfReader

from ranking import run_analysis
from tests.analysis.plots.conftest import SCHEME, ideal_three_tasks


@pytest.fixture(scope="session")
def ideal_run():
    results = ideal_three_tasks()
    return results, run_analysis(results, SCHEME).to_json_dict()


def pdf_pages(pdf: bytes) -> list[str]:
    """Text of every page, whitespace collapsed."""
    import io

    reader = PdfReader(io.BytesIO(pdf))
    return [" ".join(page.extract_text().split()) for page in reader.pages]
