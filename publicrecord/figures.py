"""Vector (SVG) figures of the registry statistics: horizontal bar charts.

Plain SVG text, built here (no plotting library), so a figure is small, sharp
at any size, and its labels are real text. Every label is XML-escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

ROW = 18  # px per bar
LABEL_WIDTH = 300
BAR_WIDTH = 360
VALUE_WIDTH = 90
TOP = 28
MAX_BARS = 20  # of a distribution figure
FONT = "font-family='system-ui, sans-serif' font-size='12'"


@dataclass(frozen=True)
class Bar:
    label: str
    value: float  # the bar's length as a share of the axis, 0..1
    text: str  # what is written after the bar
    second: float = 0.0  # a second, lighter segment after the first (0..1)


def _truncate(label: str, limit: int = 46) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def bar_chart(
    title: str, bars: Sequence[Bar], *, empty: str = "Nothing to show."
) -> str:
    """An SVG document: one labelled horizontal bar per entry."""
    width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH
    height = TOP + ROW * max(len(bars), 1) + 8
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' "
        # Scales to its container (phones), keeping its proportions; no style
        # attribute (the Content-Security-Policy allows no inline style).
        f"width='100%' role='img' "
        f"aria-label='{escape(title, {chr(39): '&#39;'})}'>",
        f"<title>{escape(title)}</title>",
        f"<text x='0' y='16' {FONT} font-weight='bold'>{escape(title)}</text>",
    ]
    if not bars:
        parts.append(f"<text x='0' y='{TOP + 12}' {FONT}>{escape(empty)}</text>")
    for i, bar in enumerate(bars):
        y = TOP + i * ROW
        length = max(0.0, min(1.0, bar.value)) * BAR_WIDTH
        second = max(0.0, min(1.0 - bar.value, bar.second)) * BAR_WIDTH
        parts += [
            f"<text x='{LABEL_WIDTH - 6}' y='{y + 12}' text-anchor='end' {FONT}>"
            f"<title>{escape(bar.label)}</title>{escape(_truncate(bar.label))}</text>",
            f"<rect x='{LABEL_WIDTH}' y='{y + 2}' width='{BAR_WIDTH}' "
            f"height='{ROW - 5}' fill='#e9ecef'/>",
            f"<rect x='{LABEL_WIDTH}' y='{y + 2}' width='{length:.1f}' "
            f"height='{ROW - 5}' fill='#0d6efd'/>",
            f"<rect x='{LABEL_WIDTH + length:.1f}' y='{y + 2}' width='{second:.1f}' "
            f"height='{ROW - 5}' fill='#fd9843'/>",
            f"<text x='{LABEL_WIDTH + BAR_WIDTH + 6}' y='{y + 12}' {FONT}>"
            f"{escape(bar.text)}</text>",
        ]
    parts.append("</svg>")
    return "".join(parts)


def completeness_figure(parameters: Sequence[dict]) -> str:
    """Share of registered designs answering each parameter (`004` Fig. 5.1),
    followed (orange) by the share marking it not applicable."""
    bars = [
        Bar(
            f"{p['number']}. {p['name']}",
            p["share"],
            f"{round(100 * p['share'])} % ({p['answered']}/{p['total']})",
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
    )


def distribution_figure(title: str, counts: dict[str, int]) -> str:
    """Counts of the values of one structured answer, largest first; beyond
    `MAX_BARS` values the rest is one "other" bar (the API and CSV keep all)."""
    items = list(counts.items())
    if len(items) > MAX_BARS:
        rest = items[MAX_BARS - 1 :]
        items = items[: MAX_BARS - 1]
        items.append((f"{len(rest)} other values", sum(c for _, c in rest)))
    top = max((c for _, c in items), default=0)
    bars = [
        Bar(label.replace("_", " "), count / top if top else 0.0, str(count))
        for label, count in items
    ]
    return bar_chart(title, bars, empty="No task states a value.")


FIGURE_TITLES = {
    "method": "Ranking method (tasks)",
    "metric": "Metrics (tasks)",
    "aggregate": "Aggregation over cases (tasks)",
    "missing_policy": "Missing-data rule (tasks)",
    "test_cases": "Number of test cases (tasks)",
    "bootstrap": "Bootstrap replicates (tasks)",
}


def figure(name: str, stats: dict) -> str | None:
    """The figure `name` ("completeness" or a distribution) of `stats`."""
    if name == "completeness":
        return completeness_figure(stats["parameters"])
    if name in FIGURE_TITLES:
        return distribution_figure(FIGURE_TITLES[name], stats["distributions"][name])
    return None
