"""The PDF report of an analysis run (reportlab platypus).

This is the only module under ``analysis/`` that imports reportlab. Every
piece of user text (challenge, task, algorithm and metric names, deviation
messages) is escaped before it enters Paragraph markup. Figures are embedded
as high-DPI PNG: no SVG-to-PDF converter (svglib) is installed, and adding one
would pull in binary dependencies.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import (
    BaseDocTemplate,
    Frame,
    Image,
    KeepTogether,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from ranking.output import scheme_groups

from .data import SECTIONS, ReportData, ReportFigure

__all__ = ["EXPLORATORY_BANNER", "render_report_pdf"]

EXPLORATORY_BANNER = "NOT PRE-REGISTERED — exploratory analysis"
NO_DEVIATIONS = "No deviations from the registered design were found."
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
_SEVERITY_COLOURS = {"critical": "#D55E00", "warning": "#E69F00", "info": "#0072B2"}


@functools.cache
def _fonts() -> tuple[str, str]:
    """(regular, bold): DejaVu Sans (Unicode) when installed, else Helvetica."""
    regular, bold = FONT_DIR / "DejaVuSans.ttf", FONT_DIR / "DejaVuSans-Bold.ttf"
    if not (regular.is_file() and bold.is_file()):
        return "Helvetica", "Helvetica-Bold"
    pdfmetrics.registerFont(TTFont("DejaVuSans", str(regular)))
    pdfmetrics.registerFont(TTFont("DejaVuSans-Bold", str(bold)))
    pdfmetrics.registerFontFamily(
        "DejaVuSans",
        normal="DejaVuSans",
        bold="DejaVuSans-Bold",
        italic="DejaVuSans",
        boldItalic="DejaVuSans-Bold",
    )
    return "DejaVuSans", "DejaVuSans-Bold"


@functools.cache
def _styles() -> dict[str, ParagraphStyle]:
    regular, bold = _fonts()
    base = ParagraphStyle("body", fontName=regular, fontSize=9.5, leading=12.5)
    return {
        "body": base,
        "title": ParagraphStyle("title", base, fontName=bold, fontSize=20, leading=25),
        "h1": ParagraphStyle(
            "h1",
            base,
            fontName=bold,
            fontSize=14,
            leading=18,
            spaceBefore=6,
            spaceAfter=6,
        ),
        "h2": ParagraphStyle(
            "h2",
            base,
            fontName=bold,
            fontSize=11.5,
            leading=15,
            spaceBefore=8,
            spaceAfter=4,
        ),
        "h3": ParagraphStyle(
            "h3", base, fontName=bold, fontSize=10, leading=13, spaceBefore=4
        ),
        "cell": ParagraphStyle("cell", base, fontSize=7.5, leading=9),
        "head": ParagraphStyle("head", base, fontName=bold, fontSize=7.5, leading=9),
        "caption": ParagraphStyle(
            "caption", base, fontSize=8, leading=10, textColor="#333333"
        ),
    }


def _p(text: Any, style: str = "body") -> Paragraph:
    """A paragraph of plain (escaped) text."""
    return Paragraph(escape(str(text)), _styles()[style])


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return str(int(x)) if x.is_integer() and abs(x) < 1e9 else f"{x:.{digits}f}"
    if isinstance(x, str):
        return x
    return json.dumps(x, sort_keys=True, ensure_ascii=False)


def _pct(x: Any) -> str:
    return "–" if x is None else f"{100 * float(x):.1f} %"


def _interval(lo: Any, hi: Any) -> str:
    return f"[{_fmt(lo)}, {_fmt(hi)}]"


class _Heading(Paragraph):
    """A heading that records the page it lands on (for the checklist)."""

    def __init__(self, text: str, style: str, section: str | None = None):
        super().__init__(escape(text), _styles()[style])
        self.section_key = section


def _table(
    rows: Sequence[Sequence[Any]],
    widths: Sequence[float],
    *,
    total: float,
    colours: Sequence[tuple[int, str]] = (),
) -> Table:
    """A table of escaped text; first row is the header (repeated on breaks)."""
    body = [
        [
            Paragraph(escape(_fmt(c)), _styles()["head" if i == 0 else "cell"])
            for c in row
        ]
        for i, row in enumerate(rows)
    ]
    scale = total / sum(widths)
    table = Table(body, colWidths=[w * scale for w in widths], repeatRows=1)
    style = [
        ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#999999")),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#E8EEF4")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
    ]
    style += [
        ("BACKGROUND", (0, row), (0, row), colors.HexColor(colour))
        for row, colour in colours
    ]
    table.setStyle(TableStyle(style))
    return table


class _Doc(BaseDocTemplate):
    def __init__(self, buf: io.BytesIO, data: ReportData):
        super().__init__(
            buf,
            pagesize=A4,
            leftMargin=18 * mm,
            rightMargin=18 * mm,
            topMargin=20 * mm,
            bottomMargin=18 * mm,
            title=f"Challenge report: {data.title.challenge_name}",
            author="challenge registry",
            invariant=1,
        )
        self.exploratory = data.title.exploratory
        self.section_pages: dict[str, int] = {}
        frame = Frame(
            self.leftMargin, self.bottomMargin, self.width, self.height, id="body"
        )
        self.addPageTemplates(
            [PageTemplate(id="page", frames=[frame], onPage=self._decorate)]
        )

    def afterFlowable(self, flowable) -> None:  # noqa: N802 (reportlab hook)
        key = getattr(flowable, "section_key", None)
        if key and key not in self.section_pages:
            self.section_pages[key] = self.page

    def _decorate(self, canvas, doc) -> None:
        regular, bold = _fonts()
        canvas.saveState()
        canvas.setFont(regular, 8)
        canvas.drawCentredString(A4[0] / 2, 9 * mm, f"Page {doc.page}")
        if self.exploratory:
            canvas.setFillColor(colors.HexColor("#D55E00"))
            canvas.setFont(bold, 11)
            canvas.drawCentredString(A4[0] / 2, A4[1] - 12 * mm, EXPLORATORY_BANNER)
        canvas.restoreState()


class _Builder:
    def __init__(
        self, data: ReportData, width: float, height: float, pages: Mapping[str, int]
    ):
        self.data = data
        self.width = width
        self.height = height
        self.pages = pages
        self.story: list[Any] = []

    def add(self, *flowables: Any) -> None:
        self.story.extend(flowables)

    def section(self, key: str) -> None:
        self.add(_Heading(SECTIONS[key], "h1", key))

    # -- title page -------------------------------------------------------
    def title_page(self) -> None:
        t = self.data.title
        self.add(Spacer(1, 25 * mm), _Heading("Challenge report", "title", "title"))
        self.add(Spacer(1, 4 * mm), _p(t.challenge_name, "h1"), Spacer(1, 6 * mm))
        kind = (
            EXPLORATORY_BANNER
            if t.exploratory
            else "Analysis under the registered ranking scheme"
        )
        rows = [
            ["Field", "Value"],
            ["Challenge", t.challenge_name],
            ["Registration identifier", t.registration_identifier],
            ["Registration version", t.registration_version],
            ["Registration hash", t.registration_hash],
            ["Results version", t.results_version],
            ["Results hash", t.results_hash],
            ["Ranking engine version", t.engine_version],
            ["Date", t.date],
            ["Random seed", t.seed],
            ["Analysis", kind],
        ]
        self.add(_table(rows, [1, 2.6], total=self.width), PageBreak())

    # -- summary ----------------------------------------------------------
    def summary(self) -> None:
        self.section("summary")
        deviations = self.data.sorted_deviations
        if not deviations:
            self.add(_p(NO_DEVIATIONS))
        else:
            counts = {
                s: sum(d.severity == s for d in deviations) for s in _SEVERITY_COLOURS
            }
            self.add(
                _p(
                    f"{len(deviations)} deviation(s) from the registered design were"
                    f" found: {counts['critical']} critical, {counts['warning']}"
                    f" warning(s), {counts['info']} for information."
                ),
                Spacer(1, 2 * mm),
            )
            rows = [["Severity / code", "Message", "Registered", "Observed"]]
            rows += [
                [f"{d.severity}\n{d.code}", d.message, d.registered, d.observed]
                for d in deviations
            ]
            colours = [
                (i + 1, _SEVERITY_COLOURS.get(d.severity, "#FFFFFF"))
                for i, d in enumerate(deviations)
            ]
            self.add(
                _table(rows, [2.6, 3.6, 1.4, 1.4], total=self.width, colours=colours)
            )
        self.add(Spacer(1, 3 * mm), _p("Main results", "h2"))
        for key, entry in self.data.output["rankings"].items():
            for task, block in entry["tasks"].items():
                winners = sorted(a for a, r in block["ranks"].items() if r == 1)
                text = f"{task} ({key}): ranked first: {', '.join(winners) or '–'}"
                if block.get("winner_stability") is not None:
                    text += f"; winner stability {_pct(block['winner_stability'])}"
                tau = (block.get("kendall_tau") or {}).get("median")
                if tau is not None:
                    text += f"; median Kendall's τ {_fmt(tau)}"
                self.add(_p(text + "."))
            consensus = entry.get("consensus")
            if consensus:
                first = sorted(a for a, r in consensus["ranks"].items() if r == 1)
                self.add(_p(f"Consensus ({key}): ranked first: {', '.join(first)}."))

    # -- design -----------------------------------------------------------
    def design(self) -> None:
        self.section("design")
        labels = {
            "metrics": "Metrics",
            "ranking": "Ranking method",
            "missing": "Missing results",
            "uncertainty": "Uncertainty analysis",
            "tests": "Statistical tests",
        }
        for key, sentence in self.data.design.items():
            self.add(_p(labels.get(key, key.capitalize()), "h3"), _p(sentence))
        for tasks, scheme in scheme_groups(self.data.output):
            u = scheme.get("uncertainty", {})
            self.add(
                Spacer(1, 2 * mm),
                _p(
                    f"As executed (tasks {', '.join(tasks)}): {u.get('bootstrap')}"
                    f" bootstrap samples, seed {u.get('seed')}, rank confidence"
                    f" level {_fmt(1 - (u.get('alpha') or 0.05))}."
                ),
            )

    # -- tasks ------------------------------------------------------------
    def figures(self, key: str, task: str | None) -> None:
        for figure in self.data.figures:
            if figure.key == key and figure.task == task:
                self.add(self.image(figure))

    def image(self, figure: ReportFigure) -> KeepTogether:
        w, h = ImageReader(io.BytesIO(figure.png)).getSize()
        scale = min(self.width / w, 0.47 * self.height / h, 72 / figure.dpi)
        img = Image(io.BytesIO(figure.png), width=w * scale, height=h * scale)
        return KeepTogether([Spacer(1, 2 * mm), img, _p(figure.title, "caption")])

    def ranking_table(self, block: Mapping[str, Any]) -> Table:
        ci = block.get("rank_ci") or {}
        boot = block.get("bootstrap") or {}
        head = ["Rank", "Algorithm", "Score"]
        widths = [0.6, 1.6, 1.0]
        if boot:
            head.append("Bootstrap median rank [95 %]")
            widths.append(1.4)
        for method in ci:
            head.append(f"Rank CI: {method}")
            widths.append(1.1)
        rows = [head]
        ranks = block["ranks"]
        for a in sorted(ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a)):
            row = [ranks[a], a, block["scores"].get(a)]
            if boot:
                b = boot.get(a) or {}
                interval = _interval(b.get("lower"), b.get("upper"))
                row.append(f"{_fmt(b.get('median'))} {interval}")
            for bounds in ci.values():
                lo, hi = bounds.get(a, [None, None])
                row.append(_interval(lo, hi))
            rows.append(row)
        return _table(rows, widths, total=self.width)

    def stability(self, block: Mapping[str, Any]) -> None:
        parts = []
        if block.get("winner_stability") is not None:
            parts.append(
                "Winner stability (share of bootstrap samples in which the winner"
                f" ranks first again): {_pct(block['winner_stability'])}."
            )
        tau = block.get("kendall_tau") or {}
        if tau.get("median") is not None:
            parts.append(
                "Kendall's τ between the full ranking and the bootstrap rankings:"
                f" median {_fmt(tau['median'])}, 95 % interval"
                f" {_interval(tau.get('lower'), tau.get('upper'))}."
            )
        loo = block.get("leave_one_out") or {}
        if loo:
            parts.append(
                "Leaving one case out: median τ"
                f" {_fmt(loo['kendall_tau'].get('median'))}, smallest τ"
                f" {_fmt(loo['kendall_tau'].get('min'))}, winner stability"
                f" {_pct(loo.get('winner_stability'))}."
            )
        for text in parts:
            self.add(_p(text))

    def tasks(self) -> None:
        self.add(PageBreak())
        self.section("tasks")
        for key, entry in self.data.output["rankings"].items():
            for task, block in entry["tasks"].items():
                self.add(_Heading(f"Task {task} — ranking {key}", "h2"))
                self.add(
                    _p(
                        f"{block.get('n_cases', '–')} test cases,"
                        f" {len(block['ranks'])} algorithms."
                    )
                )
                self.add(
                    Spacer(1, 1.5 * mm), self.ranking_table(block), Spacer(1, 2 * mm)
                )
                for target, t_block in (block.get("targets") or {}).items():
                    self.add(_p(f"Target {target}", "h3"), self.ranking_table(t_block))
                self.stability(block)
                self.figures(key, task)

    # -- consensus --------------------------------------------------------
    def consensus(self) -> None:
        self.add(PageBreak())
        self.section("consensus")
        for key, entry in self.data.output["rankings"].items():
            self.add(_Heading(f"Ranking {key}", "h2"))
            consensus = entry.get("consensus")
            if not consensus:
                self.add(_p("The scheme defines no consensus ranking across tasks."))
            else:
                ranks = consensus["ranks"]
                rows = [["Rank", "Algorithm", "Mean task rank"]]
                for a in sorted(
                    ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a)
                ):
                    rows.append([ranks[a], a, consensus["scores"].get(a)])
                self.add(_table(rows, [0.6, 2, 1.2], total=0.6 * self.width))
            self.figures(key, None)

    # -- audit ------------------------------------------------------------
    def audit(self) -> None:
        self.add(PageBreak())
        self.section("audit")
        self.add(
            _p(
                "Would another reasonable scheme crown someone else? Each task is"
                " re-ranked under every alternative scheme (aggregate-then-rank and"
                " rank-then-aggregate with mean and median, and test-then-rank) and"
                " compared with the registered ranking by Kendall's τ. Could a"
                " participant gain by withholding bad cases? Each algorithm in turn"
                " withholds its worst 5, 10 and 20 % of cases and is re-ranked, under"
                " the registered missing-result rule and when missing results are"
                " ignored (seed 004 §4.1)."
            )
        )
        for key, entry in self.data.output["rankings"].items():
            for task, block in entry["tasks"].items():
                audit = block.get("audit")
                if not audit:
                    continue
                self.add(_Heading(f"Task {task} — ranking {key}", "h2"))
                rows = [
                    [
                        "Metric",
                        "Method",
                        "Aggregate",
                        "Missing",
                        "Kendall's τ",
                        "Ranked first",
                        "Registered",
                    ]
                ]
                for alt in audit["alternatives"]:
                    first = sorted(a for a, r in alt["ranks"].items() if r == 1)
                    rows.append(
                        [
                            alt["metric"],
                            alt["method"],
                            alt["aggregate"],
                            alt["missing"],
                            alt["kendall_tau"],
                            ", ".join(first),
                            alt["registered"],
                        ]
                    )
                self.add(
                    _table(rows, [1, 1.6, 0.8, 0.8, 0.8, 1.6, 0.8], total=self.width)
                )
                self.selective(block, audit.get("selective_submission"))

    def selective(
        self, block: Mapping[str, Any], selective: Mapping[str, Any] | None
    ) -> None:
        if not selective:
            return
        percents = [str(p) for p in selective["percents"]]
        policies = [(n, selective.get(n)) for n in ("registered_policy", "ignore")]
        policies = [(n, v) for n, v in policies if v]
        if not policies:
            return
        head = ["Algorithm", "Rank"]
        for name, _ in policies:
            label = "registered rule" if name == "registered_policy" else "ignored"
            head += [f"withheld {p} % ({label})" for p in percents]
        rows = [head]
        ranks = block["ranks"]
        for a in sorted(ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a)):
            row = [a, ranks[a]]
            for _, table in policies:
                row += [table.get(a, {}).get(p) for p in percents]
            rows.append(row)
        self.add(
            Spacer(1, 2 * mm),
            _p("Selective submission: rank after withholding the worst cases", "h3"),
            _table(rows, [1.6, 0.6] + [0.9] * (len(head) - 2), total=self.width),
        )

    # -- checklist, appendix ---------------------------------------------
    def checklist(self) -> None:
        self.add(PageBreak())
        self.section("checklist")
        self.add(
            _p(
                "Items 1–42 of the BIAS reporting guideline (seed 004, Appendix A.8):"
                " the section and page of this report that covers each item, or"
                " what the organizers still have to report."
            ),
            Spacer(1, 2 * mm),
        )
        rows = [["Item", "Checklist item", "Reported in"]]
        for item in self.data.bias:
            where = item.covered_by
            if item.section and item.section in self.pages:
                where = f"{where} (page {self.pages[item.section]})"
            rows.append([item.item_id, item.text, where])
        self.add(_table(rows, [0.5, 4.2, 2], total=self.width))

    def appendix(self) -> None:
        self.add(PageBreak())
        self.section("appendix")
        stats = self.data.statistics
        if not stats:
            self.add(_p("No descriptive statistics were computed."))
            return
        has_target = any(s.target for s in stats)
        head = [
            "Task",
            *(["Target"] if has_target else []),
            "Metric",
            "Algorithm",
            "n",
            "Missing",
            "Mean",
            "SD",
            "Median",
            "IQR",
        ]
        rows = [head]
        for s in stats:
            rows.append(
                [
                    s.task,
                    *([s.target] if has_target else []),
                    s.metric,
                    s.algorithm,
                    s.n,
                    s.missing,
                    s.mean,
                    s.sd,
                    s.median,
                    s.iqr,
                ]
            )
        widths = [
            1.2,
            *([1] if has_target else []),
            1,
            1.4,
            0.5,
            0.6,
            0.8,
            0.8,
            0.8,
            0.8,
        ]
        self.add(
            _p(
                "Per-algorithm values as uploaded, before any missing-result rule;"
                " SD with n − 1, quartiles by linear interpolation (type 7)."
            ),
            Spacer(1, 2 * mm),
            _table(rows, widths, total=self.width),
        )

    def build(self) -> list[Any]:
        self.title_page()
        self.summary()
        self.design()
        self.tasks()
        self.consensus()
        self.audit()
        for further in self.data.further_analyses:  # hook: see ReportData
            self.add(PageBreak(), *further(self.width))
        self.checklist()
        self.appendix()
        return self.story


def _render(data: ReportData, pages: Mapping[str, int]) -> tuple[bytes, dict[str, int]]:
    buf = io.BytesIO()
    doc = _Doc(buf, data)
    story = _Builder(data, doc.width, doc.height, pages).build()
    doc.build(story)
    return buf.getvalue(), doc.section_pages


def render_report_pdf(data: ReportData) -> bytes:
    """The report as PDF bytes (byte-identical for equal data).

    Rendered twice: the first pass finds the page of every section, the
    second writes those pages into the BIAS checklist table.
    """
    saved = rl_config.useA85
    rl_config.useA85 = 0  # binary image streams: ASCII85 in pure Python is slow
    try:
        pdf, pages = _render(data, {})
        for _ in range(3):
            pdf, found = _render(data, pages)
            if found == pages:
                break
            pages = found
    finally:
        rl_config.useA85 = saved
    return pdf
