"""The PDF report of an analysis run (reportlab platypus).

This is the only module under ``analysis/`` that imports reportlab. Every
piece of user text (challenge, task, algorithm and metric names, deviation
messages) is escaped before it enters Paragraph markup. Figures are vector
PDFs drawn as Form XObjects into slots the layout leaves for them
(:mod:`.vector` cuts them into objects).
"""

from __future__ import annotations

import functools
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfdoc import PDFObject, xObjectName
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from analysis.output import AnalysisOutput
from analysis.plots import MIN_PRINT_PT, rank_percentiles
from ranking import vocabulary
from registry.numbers import number_text, percent_text
from registry.pdf_style import a4_page, load_fonts

from .data import (
    FIGURE_TOP_K,
    RANK_CI_MEANINGS,
    SECTIONS,
    ReportData,
    ReportFigure,
    audit_findings,
    deviation_rows,
    readable,
)
from .vector import REFERENCE, FigurePage, figure_page, form_head, smallest_text

__all__ = ["EXPLORATORY_BANNER", "render_report_pdf"]

# The ranking table's column of challengeR's bootstrap summary: its own kind
# of interval, named so it is not read as one more rank confidence interval.
BOOTSTRAP_RANKS_HEAD = (
    "bootstrap ranks: median [2.5 %, 97.5 %] of the ranks the scheme gives on"
    " each bootstrap sample"
)

EXPLORATORY_BANNER = "NOT PRE-REGISTERED — exploratory analysis"
NO_DEVIATIONS = "No deviations from the registered design were found."
NOT_CHECKED = (
    "Not registered: there is no registered design to compare with, so"
    " deviations were not checked."
)
# A deviation's severity cell: the Okabe-Ito vermillion, orange and blue mixed
# one part in four with white, so the black text on it stays readable (on the
# full blue, 4:1; "info" rows were solid blue blocks).
_SEVERITY_COLOURS = {"critical": "#F5D7BF", "warning": "#F9E7BF", "info": "#BFDCEC"}


@functools.cache
def _fonts() -> tuple[str, str]:
    """(regular, bold): DejaVu Sans (Unicode) when installed, else Helvetica."""
    fonts = load_fonts()
    return fonts.regular, fonts.bold


@functools.cache
def _styles() -> dict[str, ParagraphStyle]:
    regular, bold = _fonts()
    base = ParagraphStyle("body", fontName=regular, fontSize=9.5, leading=12.5)
    strong = functools.partial(ParagraphStyle, parent=base, fontName=bold)
    # headings keep with what follows: none ends a page, its table on the next
    heading = functools.partial(strong, keepWithNext=1)
    return {
        "body": base,
        "title": strong("title", fontSize=20, leading=25),
        "h1": heading("h1", fontSize=14, leading=18, spaceBefore=6, spaceAfter=6),
        "h2": heading("h2", fontSize=11.5, leading=15, spaceBefore=8, spaceAfter=4),
        "h3": heading("h3", fontSize=10, leading=13, spaceBefore=4),
        "cell": ParagraphStyle("cell", base, fontSize=7.5, leading=9),
        "head": strong("head", fontSize=7.5, leading=9),
        "caption": ParagraphStyle(
            "caption", base, fontSize=8, leading=10, textColor="#333333"
        ),
        # a line introducing the table below it, kept on its page
        "lead": ParagraphStyle("lead", base, spaceAfter=1.5 * mm, keepWithNext=1),
    }


def _p(text: Any, style: str = "body") -> Paragraph:
    """A paragraph of plain (escaped) text."""
    return Paragraph(escape(str(text)), _styles()[style])


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int | float):
        return number_text(x, digits)
    if isinstance(x, str):
        return x
    return json.dumps(x, sort_keys=True, ensure_ascii=False)


def _interval(lo: Any, hi: Any) -> str:
    return f"[{_fmt(lo)}, {_fmt(hi)}]"


class _Copied(PDFObject):
    """An object of a figure PDF, written as it was; references to the
    figure's other objects take the numbers reportlab gives them."""

    def __init__(self, head: bytes, tail: bytes, family: dict[int, _Copied]):
        self.head, self.tail, self.family = head, tail, family

    def format(self, document) -> bytes:
        def number(match) -> bytes:
            return document.Reference(self.family[int(match[1])]).format(document)

        return REFERENCE.sub(number, self.head) + self.tail


def _register_form(document, name: str, page: FigurePage) -> None:
    """Make the figure ``page`` the Form XObject ``name`` of a reportlab
    document (once per document)."""
    internal = xObjectName(name)
    if internal in document.idToObject:
        return
    family: dict[int, _Copied] = {}
    for number, (head, tail) in page.objects.items():
        family[number] = _Copied(head, tail, family)
    tail = page.objects[page.contents][1]
    document.Reference(_Copied(form_head(page), tail, family), internal)


class FigureSlot(Flowable):
    """A vector figure (one-page PDF) drawn as a form, scaled to the slot."""

    def __init__(
        self, index: int, page: FigurePage, width: float, height: float
    ) -> None:
        super().__init__()
        self.index = index
        self.page = page
        self.width = width
        self.height = height

    def wrap(self, available_width, available_height):
        return self.width, self.height

    def draw(self) -> None:
        name = f"Fig{self.index}"
        _register_form(self.canv._doc, name, self.page)
        sx, sy = self.width / self.page.width, self.height / self.page.height
        x0, y0 = self.page.box[:2]
        self.canv.saveState()
        self.canv.transform(sx, 0, 0, sy, -sx * x0, -sy * y0)
        self.canv.doForm(name)
        self.canv.restoreState()


# A figure that does not fit the rest of a page may shrink to fit it, down
# to this share of its size and never below 6 pt of printed text, rather
# than leave the rest of the page empty (the MSD report had 12 pages less
# than half used).
SHRINK_TO_FIT = 0.7
# Beyond FIGURE_TOP_K algorithms, the selective-submission table lists those
# ranked in or reaching the top SELECTIVE_TOP_K (where a withholding changes
# who is read as leading); the others are counted in a sentence.
SELECTIVE_TOP_K = 10
FIGURE_GAP = 2 * mm


def _gains(rank: Any, withheld: Sequence[Any]) -> bool:
    """Whether some withheld rank is better than ``rank`` (unknown: yes,
    so that the row is shown)."""
    if rank is None:
        return True
    return any(r is None or r < rank for r in withheld)


class FigureBlock(Flowable):
    """A figure with its caption below, kept together: at its size where it
    fits, else shrunk to the space left down to ``least`` of its size (its
    text stays ≥ MIN_PRINT_PT), else on the next page."""

    def __init__(self, slot: FigureSlot, caption: Paragraph, least: float) -> None:
        super().__init__()
        self.slot = slot
        self.caption = caption
        self.least = least
        self.full = (slot.width, slot.height)
        self.caption_height = 0.0

    def wrap(self, available_width, available_height):
        self.caption_height = self.caption.wrap(available_width, available_height)[1]
        width, height = self.full
        room = available_height - FIGURE_GAP - self.caption_height
        scale = 1.0 if room >= height else room / height
        if scale < self.least:
            scale = 1.0  # does not fit: the frame moves it to the next page
        self.slot.width, self.slot.height = width * scale, height * scale
        self.width = available_width
        self.height = FIGURE_GAP + self.slot.height + self.caption_height
        return self.width, self.height

    def split(self, available_width, available_height):
        return []

    def draw(self) -> None:
        self.slot.drawOn(self.canv, 0, self.caption_height)
        self.caption.drawOn(self.canv, 0, 0)


class _Heading(Paragraph):
    """A heading that records the page it lands on (for the checklist)."""

    def __init__(self, text: str, style: str, section: str | None = None):
        super().__init__(escape(text), _styles()[style])
        self.section_key = section


def _cell(text: str, width: float, header: bool) -> str | Paragraph:
    """Plain text when it fits on one line (fast to lay out), else a wrapping
    paragraph of escaped text."""
    regular, bold = _fonts()
    font = bold if header else regular
    if "\n" not in text and pdfmetrics.stringWidth(text, font, 7.5) <= width - 4:
        return text
    return Paragraph(escape(text), _styles()["head" if header else "cell"])


def _header_words_fitted(widths: list[float], header: Sequence[Any]) -> list[float]:
    """Column widths that hold each header's longest word on one line (a
    narrow column printed "Missin" over "g"), the width taken from columns
    with room to spare; as given when there is not enough room."""
    _, bold = _fonts()
    need = [
        max((pdfmetrics.stringWidth(w, bold, 7.5) for w in _fmt(h).split()), default=0)
        + 4.5  # the cell's padding, and a little for rounding
        for h in header
    ]
    short = sum(max(0.0, n - w) for n, w in zip(need, widths, strict=True))
    spare = sum(max(0.0, w - n) for n, w in zip(need, widths, strict=True))
    if not short or spare < short:
        return widths
    return [
        n if w <= n else w - (w - n) * short / spare
        for n, w in zip(need, widths, strict=True)
    ]


def _table(
    rows: Sequence[Sequence[Any]],
    widths: Sequence[float],
    *,
    total: float,
    colours: Sequence[tuple[int, str]] = (),
    padding: float = 1.5,
) -> Table:
    """A table of escaped text; first row is the header (repeated on breaks);
    ``padding``: above and below each cell's text (points)."""
    scale = total / sum(widths)
    col_widths = _header_words_fitted([w * scale for w in widths], rows[0])
    body = [
        [_cell(_fmt(c), w, i == 0) for c, w in zip(row, col_widths, strict=True)]
        for i, row in enumerate(rows)
    ]
    table = Table(body, colWidths=col_widths, repeatRows=1)
    regular, bold = _fonts()
    style = [
        ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#999999")),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#E8EEF4")),
        ("FONT", (0, 0), (-1, 0), bold, 7.5, 9),
        ("FONT", (0, 1), (-1, -1), regular, 7.5, 9),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), padding),
        ("BOTTOMPADDING", (0, 0), (-1, -1), padding),
        ("LEFTPADDING", (0, 0), (-1, -1), 2),
        ("RIGHTPADDING", (0, 0), (-1, -1), 2),
    ]
    style += [
        ("BACKGROUND", (0, row), (0, row), colors.HexColor(colour))
        for row, colour in colours
    ]
    table.setStyle(TableStyle(style))
    return table


# Tables of more rows than this are set denser (a 40-algorithm ranking table
# and the blob plot that follows it share a page).
DENSE_ROWS = 21


def _padding(rows: int) -> float:
    """Cell padding (points) of a table of ``rows`` rows."""
    return 0.75 if rows > DENSE_ROWS else 1.5


# Algorithm names longer than this are shortened in tables and sentences of
# the report ("Very long name… (1)") and printed in full in the appendix: a
# 3 000-character name made a table row taller than a page (issue 30).
NAME_CHARS = 40


def shortened_names(data: ReportData) -> dict[str, str]:
    """Full name -> the numbered short form the report prints, for every
    algorithm name longer than NAME_CHARS (in name order)."""
    names: set[str] = {s.algorithm for s in data.statistics}
    output = AnalysisOutput.of(data.output)
    for key in output.keys:
        for block in output.tasks(key).values():
            names.update(block["ranks"])
    long = sorted(n for n in names if len(n) > NAME_CHARS)
    return {n: f"{n[: NAME_CHARS - 10].rstrip()}… ({i})" for i, n in enumerate(long, 1)}


class _Doc(BaseDocTemplate):
    def __init__(self, buf: io.BytesIO, data: ReportData):
        super().__init__(
            buf,
            **a4_page(18 * mm, top=20 * mm),
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
        self,
        data: ReportData,
        width: float,
        height: float,
        pages: Mapping[str, int],
        figure_pages: Sequence[FigurePage],
    ):
        self.data = data
        self.output = AnalysisOutput.of(data.output)
        self.width = width
        self.height = height
        self.pages = pages
        self.figure_pages = figure_pages  # data.figures, cut into objects
        self.alpha: float | None = None
        self.story: list[Any] = []
        self.names = shortened_names(data)

    def name(self, algorithm: str) -> str:
        """An algorithm's name as tables print it (long ones shortened)."""
        return self.names.get(algorithm, algorithm)

    def names_of(self, algorithms: Sequence[str]) -> str:
        return ", ".join(self.name(a) for a in algorithms)

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
            if t.registered
            else "Ranking scheme given with the results (not registered)"
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
        self.add(_table(rows, [1, 2.6], total=self.width))
        if t.registration_note:
            self.add(Spacer(1, 3 * mm), _p(t.registration_note))
        self.add(PageBreak())

    # -- summary ----------------------------------------------------------
    def summary(self) -> None:
        self.section("summary")
        deviations = self.data.sorted_deviations
        if not deviations:
            self.add(_p(NO_DEVIATIONS if self.data.title.registered else NOT_CHECKED))
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
            grouped = deviation_rows(deviations)
            rows = [["Severity / kind", "Message", "Registered", "Observed / evidence"]]
            rows += [
                [
                    f"{r.severity}: {vocabulary.label(r.code)}",
                    r.message,
                    r.registered,
                    r.observed,
                ]
                for r in grouped
            ]
            colours = [
                (i + 1, _SEVERITY_COLOURS.get(r.severity, "#FFFFFF"))
                for i, r in enumerate(grouped)
            ]
            self.add(
                _table(rows, [1.9, 3.6, 1.1, 2.4], total=self.width, colours=colours)
            )
        self.add(Spacer(1, 3 * mm), _p("Main results", "h2"))
        for key in self.output.keys:
            for task, block in self.output.tasks(key).items():
                winners = sorted(a for a, r in block["ranks"].items() if r == 1)
                text = f"{task} ({key}): ranked first: {self.names_of(winners) or '–'}"
                stability = block.get("winner_stability")
                if stability is not None:
                    text += f"; winner stability {percent_text(stability)}"
                tau = (block.get("kendall_tau") or {}).get("median")
                if tau is not None:
                    text += f"; median Kendall's τ {_fmt(tau)}"
                self.add(_p(text + "."))
            consensus = self.output.consensus(key)
            if consensus:
                first = sorted(a for a, r in consensus["ranks"].items() if r == 1)
                self.add(
                    _p(f"Consensus ({key}): ranked first: {self.names_of(first)}.")
                )

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
        if any(self.data.registered_schemes.values()):
            self.add(_p("The registered ranking scheme, in words:"))
        for key, sentence in self.data.design.items():
            self.add(_p(labels.get(key, key.capitalize()), "h3"), _p(sentence))
        self.scheme_comparison()
        for tasks, scheme in self.output.scheme_groups():
            u = scheme.get("uncertainty", {})
            self.add(
                Spacer(1, 2 * mm),
                _p(
                    f"As executed (tasks {', '.join(tasks)}): {u.get('bootstrap')}"
                    f" bootstrap samples, seed {u.get('seed')}, rank confidence"
                    f" level {_fmt(1 - (u.get('alpha') or 0.05))}."
                ),
            )

    def scheme_comparison(self) -> None:
        """Registered and executed scheme side by side where they differ: each
        differing field (dotted path) as the registry's differ finds it."""
        registered = self.data.registered_schemes
        if not any(registered.values()):
            return
        # imported here: registry.design brings its models, and a report
        # without a registration renders without Django set up (the benchmark)
        from registry.design import field_diff

        rows = [["Task", "Field", "Registered", "Executed"]]
        for tasks, scheme in self.output.scheme_groups():
            for task in tasks:
                rows += [
                    [task, path, readable(before), readable(after)]
                    for path, before, after in field_diff(
                        dict(registered.get(task) or {}), dict(scheme)
                    )
                ]
        self.add(Spacer(1, 2 * mm), _p("Registered and executed scheme", "h3"))
        if len(rows) == 1:
            self.add(_p("The analysis executed the registered scheme unchanged."))
        else:
            self.add(
                _p(
                    "The executed scheme differs from the registered one in these"
                    " fields (the results below follow the executed scheme):"
                ),
                # fields are dotted paths (uncertainty.bootstrap): room for one
                _table(rows, [1.1, 1.7, 1.9, 1.9], total=self.width),
            )

    # -- tasks ------------------------------------------------------------
    def figures(self, key: str, task: str | None, *, targets: bool = False) -> None:
        """The figures of a task (or across tasks when task is None); with
        ``targets``, its per-target figures."""
        for index, figure in enumerate(self.data.figures):
            if (
                figure.key == key
                and figure.task == task
                and bool(figure.targets) == targets
            ):
                self.add(self.image(index, figure))

    def image(self, index: int, figure: ReportFigure) -> FigureBlock:
        scale = min(1.0, self.width / figure.width, 0.75 * self.height / figure.height)
        page = self.figure_pages[index]
        slot = FigureSlot(index, page, figure.width * scale, figure.height * scale)
        caption = (
            f"{figure.title}. {figure.caption}" if figure.caption else figure.title
        )
        printed = smallest_text(page) * scale
        least = max(SHRINK_TO_FIT, MIN_PRINT_PT / printed if printed else 1.0)
        return FigureBlock(slot, _p(caption, "caption"), min(1.0, least))

    def ranking_table(self, block: Mapping[str, Any], *, what: str) -> None:
        """Rank, score, one interval column per registered rank_ci method and,
        with a bootstrap, challengeR's summary of the bootstrap ranks: each
        column names the kind of its interval (one table, so no algorithm has
        two unnamed intervals on one page); a cell is marked † where the rank
        lies outside the interval."""
        ci = block.get("rank_ci") or {}
        boot = block.get("bootstrap") or {}
        head = ["Rank", "Algorithm", "Score"]
        widths = [0.5, 1.6, 0.9]
        for method in ci:
            meaning = RANK_CI_MEANINGS.get(method, "")
            head.append(f"{method}: {meaning}" if meaning else method)
            widths.append(1.5)
        if boot:
            head.append(BOOTSTRAP_RANKS_HEAD)
            widths.append(1.5)
        rows = [head]
        ranks = block["ranks"]
        outside = False
        for a in sorted(ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a)):
            row = [ranks[a], self.name(a), block["scores"].get(a)]
            for bounds in ci.values():
                lo, hi = bounds.get(a, [None, None])
                cell = _interval(lo, hi)
                if None not in (lo, hi, ranks[a]) and not lo <= ranks[a] <= hi:
                    cell += " †"
                    outside = True
                row.append(cell)
            if boot:
                b = boot.get(a) or {}
                lower, upper = rank_percentiles(b.get("freq") or {})
                spread = _interval(lower, upper)
                row.append(f"{_fmt(b.get('median'))} {spread}")
            rows.append(row)
        self.add(_table(rows, widths, total=self.width, padding=_padding(len(rows))))
        if ci or boot:
            self.add(_p(self._interval_note(ci, boot, what, outside), "caption"))

    def _interval_note(
        self, ci: Mapping[str, Any], boot: Mapping[str, Any], what: str, outside: bool
    ) -> str:
        level = _fmt(1 - (self.alpha or 0.05))
        note = (
            f"Rank intervals of the {what} at level {level}, one per method"
            " registered; each is an individual interval for one algorithm,"
            " not a simultaneous one for all algorithms."
            if ci
            else ""
        )
        if boot:
            note += (
                " The last column summarises the ranks the registered scheme gives"
                " on each bootstrap sample (challengeR's blob plot below): median"
                " and 2.5 / 97.5 % percentiles, each the smallest rank that this"
                " share of the samples reach or better; it describes stability, not a"
                " confidence interval, and may differ from the intervals before it."
            )
        if outside:
            note += (
                " † The rank lies outside this interval: the interval concerns"
                " another ranking than the one ranked here (mean scores for the"
                " bootstrap kinds, pairwise tests for the others), so it need"
                " not contain the registered rank."
            )
        return note.strip()

    def stability(self, block: Mapping[str, Any]) -> None:
        parts = []
        if block.get("winner_stability") is not None:
            parts.append(
                "Winner stability (share of bootstrap samples in which the winner"
                f" ranks first again): {percent_text(block['winner_stability'])}."
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
                f" {percent_text(loo.get('winner_stability'))}."
            )
        if parts:
            self.add(_p("Stability", "h3"), *(_p(text) for text in parts))

    def tasks(self) -> None:
        self.add(PageBreak())
        self.section("tasks")
        for key in self.output.keys:
            for task, block in self.output.tasks(key).items():
                self.alpha = (
                    self.output.scheme_of(task).get("uncertainty", {}).get("alpha")
                )
                targets = block.get("targets") or {}
                self.add(_Heading(f"Task {task} — ranking {key}", "h2"))
                self.add(
                    _p(
                        f"{block.get('n_cases', '–')} test cases,"
                        f" {len(block['ranks'])} algorithms"
                        + (
                            f", {len(targets)} targets ranked separately and"
                            " combined into the task ranking."
                            if targets
                            else "."
                        ),
                        "lead",
                    ),
                )
                self.ranking_table(block, what="task ranking")
                for target, t_block in targets.items():
                    self.add(_Heading(f"Target {target}", "h3"))
                    self.ranking_table(t_block, what=f"target {target}")
                self.figures(key, task, targets=True)
                self.stability(block)
                self.figures(key, task)

    # -- consensus --------------------------------------------------------
    def consensus(self) -> None:
        self.add(PageBreak())
        self.section("consensus")
        for key in self.output.keys:
            self.add(_Heading(f"Ranking {key}", "h2"))
            consensus = self.output.consensus(key)
            if not consensus:
                self.add(_p("The scheme defines no consensus ranking across tasks."))
            else:
                ranks = consensus["ranks"]
                rows = [["Rank", "Algorithm", "Mean task rank"]]
                for a in sorted(
                    ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a)
                ):
                    rows.append([ranks[a], self.name(a), consensus["scores"].get(a)])
                self.add(_table(rows, [0.6, 2, 1.2], total=0.6 * self.width))
            self.figures(key, None)

    # -- audit ------------------------------------------------------------
    def audit(self) -> None:
        self.add(PageBreak())
        self.section("audit")
        findings = audit_findings(self.data.output, self.data.deviations)
        if findings:
            self.add(_p("Conclusions", "h2"))
            for sentence in findings:
                self.add(_p(f"• {sentence}"))
            self.add(Spacer(1, 2 * mm), _p("Method", "h2"))
        self.add(
            _p(
                "Would another reasonable scheme crown someone else? Each task is"
                " re-ranked under every alternative scheme (aggregate-then-rank and"
                " rank-then-aggregate with mean and median, and test-then-rank) and"
                " compared with the registered ranking by Kendall's τ. Could a"
                " participant gain by withholding bad cases? Each algorithm in turn"
                " withholds its worst 5, 10 and 20 % of cases and is re-ranked, under"
                " the registered missing-result rule and when missing results are"
                " ignored (Reinke, PhD thesis, Heidelberg University, section 4.1)."
            )
        )
        for key in self.output.keys:
            for task, block in self.output.tasks(key).items():
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
                            vocabulary.short_label(alt["method"]),
                            vocabulary.short_label(alt["aggregate"]),
                            vocabulary.short_label(alt["missing"]),
                            alt["kendall_tau"],
                            self.names_of(first),
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
        steady = []  # no withholding improves their rank: one line, not a row each
        # beyond FIGURE_TOP_K algorithms, rows only for those ranked in or
        # reaching (under the registered rule) the top SELECTIVE_TOP_K; the
        # others that gain are summed up per rule
        top = SELECTIVE_TOP_K if len(ranks) > FIGURE_TOP_K else None
        below: list[str] = []
        for a in sorted(ranks, key=lambda a: (ranks[a] is None, ranks[a] or 0, a)):
            withheld = [t.get(a, {}).get(p) for _, t in policies for p in percents]
            if not _gains(ranks[a], withheld):
                steady.append(a)
                continue
            reached = withheld[: len(percents)]  # the first rule: registered
            if (
                top
                and ranks[a] is not None
                and ranks[a] > top
                and all(r is not None and r > top for r in reached)
            ):
                below.append(a)
                continue
            rows.append([self.name(a), ranks[a], *withheld])
        self.add(
            Spacer(1, 2 * mm),
            _p("Selective submission: rank after withholding the worst cases", "h3"),
        )
        if len(rows) > 1:
            self.add(
                _table(rows, [1.6, 0.6] + [0.9] * (len(head) - 2), total=self.width)
            )
        for name, table in policies if below else ():
            self.gains_below(ranks, below, table, percents, top, name)
        if steady:
            self.add(
                _p(
                    f"{len(steady)} of {len(ranks)} algorithms improve their rank"
                    " by none of these withholdings"
                    + (" (not listed above)" if len(rows) > 1 else "")
                    + f": {self.names_of(steady)}.",
                    "caption",
                )
            )

    def gains_below(
        self,
        ranks: Mapping[str, Any],
        below: Sequence[str],
        table: Mapping[str, Any],
        percents: Sequence[str],
        top: int,
        policy: str,
    ) -> None:
        """One sentence on the algorithms ranked below ``top`` that gain by a
        withholding under ``policy`` but are not listed in the table."""
        gains = []  # (gain, rank, name, best)
        for a in below:
            best = min(
                (r for p in percents if (r := table.get(a, {}).get(p)) is not None),
                default=None,
            )
            if best is not None and best < ranks[a]:
                gains.append((ranks[a] - best, -ranks[a], a, best))
        if not gains:
            return
        rule = (
            "under the registered rule"
            if policy == "registered_policy"
            else "when missing results are ignored"
        )
        reach = sum(g[3] <= top for g in gains)
        _gain, rank, name, best = max(gains)
        self.add(
            _p(
                f"Not listed: {len(gains)} of the algorithms ranked below {top}"
                f" {'improves' if len(gains) == 1 else 'improve'} by withholding"
                f" cases {rule}"
                + (f", {reach} of them into the top {top}" if reach else "")
                + f"; the largest gain: {self.name(name)} from rank"
                f" {_fmt(-rank)} to {_fmt(best)}.",
                "caption",
            )
        )

    # -- checklist, appendix ---------------------------------------------
    def checklist(self) -> None:
        self.add(PageBreak())
        self.section("checklist")
        self.add(
            _p(
                "Items 1–42 of the BIAS reporting guideline (Maier-Hein et al., 2020):"
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
        elif self.data.statistics_summarised:
            self.appendix_summary(stats)
        else:
            self.statistics_table(stats)
        self.full_names()

    def full_names(self) -> None:
        """The full names of the algorithms the report shortened."""
        if not self.names:
            return
        self.add(
            Spacer(1, 3 * mm),
            _p("Algorithm names in full", "h2"),
            _p(
                f"Names longer than {NAME_CHARS} characters are shortened in this"
                " report and numbered; in full:"
            ),
        )
        for full, short in self.names.items():
            number = short.rsplit("(", 1)[1].rstrip(")")
            self.add(_p(f"({number}) {full}", "cell"))

    def statistics_table(self, stats: Sequence[Any]) -> None:
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
                    self.name(s.algorithm),
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

    def appendix_summary(self, stats: Sequence[Any]) -> None:
        """Instead of a table of many pages: where the full table is, and per
        task and metric how many values each algorithm was missing."""
        self.add(
            _p(
                f"The descriptive statistics of every algorithm ({len(stats)} rows:"
                " n, missing, mean, SD, median and IQR of its values as uploaded,"
                " before any missing-result rule) would fill"
                f" {math.ceil(len(stats) / 60)} pages here."
                f" {self.data.statistics_download}"
                " Per task and metric, the values missing:"
            ),
            Spacer(1, 2 * mm),
        )
        groups: dict[tuple[str, str], dict[str, int]] = {}
        cases: dict[tuple[str, str], int] = {}
        for s in stats:
            missing = groups.setdefault((s.task, s.metric), {})
            missing[s.algorithm] = missing.get(s.algorithm, 0) + s.missing
            cases[(s.task, s.metric)] = cases.get((s.task, s.metric), 0) + s.n
        rows = [["Task", "Metric", "Algorithms", "Values", "Missing", "Missing by"]]
        for (task, metric), missing in groups.items():
            lacking = sorted(
                ((n, a) for a, n in missing.items() if n), key=lambda x: (-x[0], x[1])
            )
            rows.append(
                [
                    task,
                    metric,
                    len(missing),
                    cases[(task, metric)],
                    sum(missing.values()),
                    ", ".join(f"{self.name(a)} ({n})" for n, a in lacking) or "–",
                ]
            )
        self.add(_table(rows, [1.1, 0.9, 0.8, 0.6, 0.6, 4.0], total=self.width))

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


class _LayoutOnly(Canvas):
    """A canvas that lays the pages out but writes no file: the first pass
    only finds the page of every section. Where text goes on a page never
    moves a page break, so the strings of table cells (most of the text) and
    finished text objects are not formatted into PDF operators."""

    def save(self) -> None:
        pass

    def _skip(self, *args: Any, **kwargs: Any) -> None:
        pass

    drawString = drawRightString = drawCentredString = drawText = _skip  # noqa: N815


def _render(
    data: ReportData,
    pages: Mapping[str, int],
    figures: Sequence[FigurePage],
    *,
    write: bool = True,
) -> tuple[bytes, dict[str, int]]:
    buf = io.BytesIO()
    doc = _Doc(buf, data)
    story = _Builder(data, doc.width, doc.height, pages, figures).build()
    doc.build(story, canvasmaker=Canvas if write else _LayoutOnly)
    return buf.getvalue(), doc.section_pages


def render_report_pdf(data: ReportData) -> bytes:
    """The report as PDF bytes (byte-identical for equal data).

    Laid out until the page of every section is known and written into the
    BIAS checklist table; the vector figures are drawn as forms (:mod:`.vector`).
    """
    figures = [figure_page(f.pdf) for f in data.figures]
    saved = rl_config.useA85
    rl_config.useA85 = 0  # binary streams: ASCII85 in pure Python is slow
    try:
        pdf, pages = _render(data, {}, figures, write=False)
        for _ in range(3):
            pdf, found = _render(data, pages, figures)
            if found == pages:
                break
            pages = found
    finally:
        rl_config.useA85 = saved
    return pdf
