"""Vector (SVG) figures of the registry statistics: horizontal bar charts.

Plain SVG text, built here (no plotting library), so a figure is small, sharp
at any size, and its labels are real text. Every label is XML-escaped.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from ranking import vocabulary
from registry.numbers import percent_text

MAX_BARS = 20  # of a distribution figure
FONT = "font-family='system-ui, sans-serif' font-size='12'"


@dataclass(frozen=True)
class Layout:
    """Where a chart puts each row's label, bar and value (SVG user units)."""

    label_width: int  # the label column left of the bars; 0: the label above
    bar_width: int
    value_width: int
    row: int  # height of one row
    bar_top: int  # of the bar within its row
    label_chars: int  # longer labels are cut (the whole label is in <title>)
    title_chars: int  # the title wraps at this many characters; 0: one line


# The page's and the download's layout: one row per bar, the label beside it.
WIDE = Layout(
    label_width=300,
    bar_width=360,
    value_width=90,
    row=18,
    bar_top=2,
    label_chars=46,
    title_chars=0,
)
# Phones: a viewBox about as wide as the screen (text keeps about its 12 px)
# with each label above its bar, rather than 750 units shrunk to half.
NARROW = Layout(
    label_width=0,
    bar_width=236,
    value_width=84,
    row=34,
    bar_top=16,
    label_chars=46,
    title_chars=44,
)
BAR_HEIGHT = 13
TITLE_LINE = 16  # of the title's lines
TOP = 28  # where the rows start below a one-line title


@dataclass(frozen=True)
class Bar:
    label: str
    value: float  # the bar's length as a share of the axis, 0..1
    text: str  # what is written after the bar
    second: float = 0.0  # a second, lighter segment after the first (0..1)


def _truncate(label: str, limit: int = 46) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _title_lines(title: str, layout: Layout) -> list[str]:
    return textwrap.wrap(title, layout.title_chars) if layout.title_chars else [title]


def _bar_row(bar: Bar, y: int, layout: Layout) -> list[str]:
    """One row at height `y`: the label, the bar (track, value, second
    segment) and the value written after it."""
    x = layout.label_width
    bar_y = y + layout.bar_top
    height = BAR_HEIGHT
    length = max(0.0, min(1.0, bar.value)) * layout.bar_width
    second = max(0.0, min(1.0 - bar.value, bar.second)) * layout.bar_width
    if x:  # beside the bar, right-aligned
        label_at = f"x='{x - 6}' y='{y + 12}' text-anchor='end'"
    else:  # above it
        label_at = f"x='0' y='{y + 12}'"
    return [
        f"<text {label_at} {FONT}>"
        f"<title>{escape(bar.label)}</title>"
        f"{escape(_truncate(bar.label, layout.label_chars))}</text>",
        f"<rect x='{x}' y='{bar_y}' width='{layout.bar_width}' "
        f"height='{height}' fill='#e9ecef'/>",
        f"<rect x='{x}' y='{bar_y}' width='{length:.1f}' "
        f"height='{height}' fill='#0d6efd'/>",
        f"<rect x='{x + length:.1f}' y='{bar_y}' width='{second:.1f}' "
        f"height='{height}' fill='#fd9843'/>",
        f"<text x='{x + layout.bar_width + 6}' y='{bar_y + 10}' {FONT}>"
        f"{escape(bar.text)}</text>",
    ]


# At most the width of one character of the 12-unit font in the values
# (digits, "%", "/", brackets, spaces): a safe estimate, not a measurement.
VALUE_CHAR_WIDTH = 7.5


def _value_room(bars: Sequence[Bar], layout: Layout) -> int:
    """The value column's width: the layout's, or more for the longest value
    ("99.5 % (9950/10000)" at 10 000 designs), which the SVG would clip."""
    longest = max((len(bar.text) for bar in bars), default=0)
    return max(layout.value_width, 6 + math.ceil(VALUE_CHAR_WIDTH * longest))


def bar_chart(
    title: str,
    bars: Sequence[Bar],
    *,
    empty: str = "Nothing to show.",
    layout: Layout = WIDE,
) -> str:
    """An SVG document: one labelled horizontal bar per entry."""
    width = layout.label_width + layout.bar_width + _value_room(bars, layout)
    lines = _title_lines(title, layout)
    top = TOP + TITLE_LINE * (len(lines) - 1)
    height = top + layout.row * max(len(bars), 1) + 8
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' "
        # Scales to its container (phones), keeping its proportions; no style
        # attribute (the Content-Security-Policy allows no inline style).
        f"width='100%' role='img' "
        f"aria-label='{escape(title, {chr(39): '&#39;'})}'>",
        f"<title>{escape(title)}</title>",
        *(
            f"<text x='0' y='{16 + TITLE_LINE * i}' {FONT} font-weight='bold'>"
            f"{escape(line)}</text>"
            for i, line in enumerate(lines)
        ),
    ]
    if not bars:
        parts.append(f"<text x='0' y='{top + 12}' {FONT}>{escape(empty)}</text>")
    for i, bar in enumerate(bars):
        parts += _bar_row(bar, top + i * layout.row, layout)
    parts.append("</svg>")
    return "".join(parts)


def share_text(done: int, total: int) -> str:
    """`done` of `total` as a percentage: whole when it is ("50 %"), else with
    one decimal, never rounded to 100 % or 0 % (199 of 200 read "100 %")."""
    if not total:
        return "–"
    if (100 * done) % total == 0:
        return f"{100 * done // total} %"
    return percent_text(min(max(done / total, 0.001), 0.999))


def completeness_figure(parameters: Sequence[dict], *, layout: Layout = WIDE) -> str:
    """Share of registered designs answering each parameter (`004` Fig. 5.1),
    followed (orange) by the share marking it not applicable."""
    bars = [
        Bar(
            f"{p['number']}. {p['name']}",
            p["share"],
            f"{share_text(p['answered'], p['total'])} ({p['answered']}/{p['total']})",
            p["not_applicable"] / p["total"] if p["total"] else 0.0,
        )
        for p in parameters
    ]
    if parameters and not parameters[0]["total"]:
        bars = []
    return bar_chart(
        "Share of registered designs answering each parameter (orange: not applicable)",
        bars,
        empty="No registered designs in this selection.",
        layout=layout,
    )


def distribution_figure(
    title: str, counts: dict[str, int], *, layout: Layout = WIDE
) -> str:
    """Counts of the values of one structured answer, largest first; beyond
    `MAX_BARS` values the rest is one "other" bar (the API and CSV keep all)."""
    items = list(counts.items())
    if len(items) > MAX_BARS:
        rest = items[MAX_BARS - 1 :]
        items = items[: MAX_BARS - 1]
        items.append((f"{len(rest)} other values", sum(c for _, c in rest)))
    top = max((c for _, c in items), default=0)
    bars = [
        Bar(vocabulary.short_label(label), count / top if top else 0.0, str(count))
        for label, count in items
    ]
    return bar_chart(title, bars, empty="No task states a value.", layout=layout)


FIGURE_TITLES = {
    "method": "Ranking method (tasks)",
    "metric": "Metrics (tasks)",
    "aggregate": "Aggregation over cases (tasks)",
    "missing_policy": "Missing-data rule (tasks)",
    "test_cases": "Number of test cases (tasks)",
    "bootstrap": "Bootstrap replicates (tasks)",
}


def figure(name: str, stats: dict, *, layout: Layout = WIDE) -> str | None:
    """The figure `name` ("completeness" or a distribution) of `stats`."""
    if name == "completeness":
        return completeness_figure(stats["parameters"], layout=layout)
    if name in FIGURE_TITLES:
        counts = stats["distributions"][name]
        return distribution_figure(FIGURE_TITLES[name], counts, layout=layout)
    return None
