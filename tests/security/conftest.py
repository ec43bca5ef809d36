"""Shared pieces of the attack suite: a registered challenge and crafted files."""

import pytest

from tests.analysis.django.conftest import registration  # noqa: F401 (fixture)
from tests.security.crafted import xlsx_with_one_cell


@pytest.fixture(scope="session")
def xlsx_bomb() -> bytes:
    """Under 1 MB compressed, over 200 MB uncompressed (issue 12)."""
    data = xlsx_with_one_cell(210 * (1 << 20))
    assert len(data) < 1 << 20
    return data
