"""Checks of the tables that stack into cards on phones (`.table-stack`,
static/css/site.css): each cell is shown under its `data-label`, which must be
its column's header, or a phone user reads a value under the wrong name."""

from __future__ import annotations

import lxml.html


def _text(element) -> str:
    return " ".join(element.text_content().split())


# The label of a row header (th scope=row): it is its card's title, unlabelled.
ROW_HEADER = "(row header)"


def _header_name(th) -> str:
    # A header with a short name for other places (abbr) is labelled by it.
    return th.get("abbr") or _text(th)


def stacked_table_labels(html: str) -> list[tuple[list[str], list[list[str]]]]:
    """Per `.table-stack` table of `html`: its column headers and, per body row
    of data cells (no colspan), each cell's data-label ("" when missing;
    ROW_HEADER for a row header)."""
    tables = []
    for table in lxml.html.fromstring(html).find_class("table-stack"):
        headers = [_header_name(th) for th in table.xpath("./thead/tr/th")]
        rows = [
            [
                ROW_HEADER if cell.tag == "th" else cell.get("data-label", "")
                for cell in tr.xpath("./th | ./td")
            ]
            for tr in table.xpath("./tbody/tr")
            if not tr.xpath("./td[@colspan]")
        ]
        tables.append((headers, rows))
    return tables


def assert_cells_labelled_by_headers(html: str, *, tables: int = 1) -> None:
    """`html` has `tables` stacked tables with at least one data row each, and
    every data cell's data-label is the header of its column (a row header
    needs none: it is its card's title)."""
    found = stacked_table_labels(html)
    assert len(found) == tables
    for headers, rows in found:
        assert rows, f"no data row under {headers}"
        for labels in rows:
            assert len(labels) == len(headers)
            expected = [
                ROW_HEADER if label == ROW_HEADER else header
                for header, label in zip(headers, labels, strict=True)
            ]
            assert labels == expected
