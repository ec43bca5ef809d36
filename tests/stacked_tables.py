"""Checks of the tables that stack into cards on phones (`.table-stack`,
static/css/site.css): each cell is shown under its `data-label`, which must be
its column's header, or a phone user reads a value under the wrong name."""

from __future__ import annotations

import lxml.html


def _text(element) -> str:
    return " ".join(element.text_content().split())


def stacked_table_labels(html: str) -> list[tuple[list[str], list[list[str]]]]:
    """Per `.table-stack` table of `html`: its column headers and, per body row
    of data cells (no colspan), each cell's data-label ("" when missing)."""
    tables = []
    for table in lxml.html.fromstring(html).find_class("table-stack"):
        headers = [_text(th) for th in table.xpath("./thead/tr/th")]
        rows = [
            [td.get("data-label", "") for td in tr.xpath("./td")]
            for tr in table.xpath("./tbody/tr")
            if not tr.xpath("./td[@colspan]")
        ]
        tables.append((headers, rows))
    return tables


def assert_cells_labelled_by_headers(html: str, *, tables: int = 1) -> None:
    """`html` has `tables` stacked tables with at least one data row each, and
    every data cell's data-label is the header of its column."""
    found = stacked_table_labels(html)
    assert len(found) == tables
    for headers, rows in found:
        assert rows, f"no data row under {headers}"
        for labels in rows:
            assert labels == headers
