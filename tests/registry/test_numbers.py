"""Numbers as readers see them (registry/numbers.py), pages and PDFs alike."""

import pytest

from registry.numbers import number_text, percent_text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "–"),
        (4, "4"),
        (4.0, "4"),
        (-2.0, "-2"),
        (4.025000000000006, "4.025"),  # a quantile's float noise
        (0.1 + 0.2, "0.300"),
        (2.5, "2.500"),
        (12_345_678_901, "12345678901"),
        (1e12, "1000000000000.000"),
    ],
)
def test_number_text(value, text):
    assert number_text(value) == text


def test_number_text_digits_and_percent_text():
    assert number_text(1 / 3, digits=2) == "0.33"
    assert percent_text(0.955) == "95.5 %"
    assert percent_text(None) == "–"
