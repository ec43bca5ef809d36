"""Render a `DesignDocument` as the design-document PDF (reportlab).

It never touches the database: everything comes in through the plain
`DesignDocument`.

Fonts and page: `registry.pdf_style`. Without DejaVu Sans the PDF falls back to
Helvetica and replaces characters Helvetica cannot show (≥ → >=, others → ?).
All user text is escaped for reportlab's Paragraph markup, so ``<b>`` or ``&``
in an answer prints literally and cannot inject markup.
"""

from __future__ import annotations

import io
import unicodedata
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import cm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    PageBreak,
    Paragraph,
    Preformatted,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from ..pdf_style import DEJAVU_DIR, Fonts, a4_page, load_fonts
from .design_document import DesignAnswer, DesignDocument

MISSING_COLOR = colors.HexColor("#b00020")
MUTED_COLOR = colors.HexColor("#555555")
CHANGED_COLOR = colors.HexColor("#8a4b00")
CHANGED_MARK = "Changed in this version"

# Replacements for characters outside Helvetica's WinAnsi (cp1252) encoding.
ASCII_FALLBACKS = {
    "≥": ">=",
    "≤": "<=",
    "≠": "!=",
    "≈": "~",
    "−": "-",
    "→": "->",
    "←": "<-",
    "∞": "inf",
    "✓": "v",
    "▶": ">",
}


def printable(text: str, *, unicode: bool) -> str:
    """Drop control characters and lone surrogates; fit Helvetica if needed."""
    out = []
    for char in str(text):
        if char in "\n\t":
            out.append(" " if char == "\t" else char)
            continue
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Co", "Cn"):
            continue
        if not unicode:
            char = ASCII_FALLBACKS.get(char, char)
            try:
                char.encode("cp1252")
            except UnicodeEncodeError:
                char = (
                    unicodedata.normalize("NFKD", char)
                    .encode("cp1252", "ignore")
                    .decode("cp1252")
                    or "?"
                )
        out.append(char)
    return "".join(out)


class _Styles:
    def __init__(self, fonts: Fonts):
        def style(name: str, **kw) -> ParagraphStyle:
            kw.setdefault("fontName", fonts.regular)
            kw.setdefault("fontSize", 10)
            kw.setdefault("leading", kw["fontSize"] * 1.3)
            return ParagraphStyle(name, **kw)

        self.title = style("title", fontName=fonts.bold, fontSize=20, spaceAfter=6)
        self.subtitle = style("subtitle", fontSize=12, textColor=MUTED_COLOR)
        self.h1 = style(
            "h1", fontName=fonts.bold, fontSize=15, spaceBefore=6, spaceAfter=8
        )
        self.h2 = style(
            "h2",
            fontName=fonts.bold,
            fontSize=12,
            spaceBefore=10,
            spaceAfter=4,
            keepWithNext=1,
        )
        self.parameter = style(
            "parameter", fontName=fonts.bold, spaceBefore=6, keepWithNext=1
        )
        self.body = style("body", leftIndent=12)
        self.muted = style("muted", leftIndent=12, textColor=MUTED_COLOR)
        self.missing = style(
            "missing", fontName=fonts.bold, leftIndent=12, textColor=MISSING_COLOR
        )
        self.changed = style(
            "changed",
            fontName=fonts.bold,
            leftIndent=12,
            textColor=CHANGED_COLOR,
            backColor=colors.HexColor("#fff3cd"),
            keepWithNext=1,
        )
        self.cell = style("cell", fontSize=9)
        self.cell_bold = style("cell_bold", fontName=fonts.bold, fontSize=9)
        self.cell_indent = style("cell_indent", fontSize=9, leftIndent=10)
        self.cell_right = style("cell_right", fontSize=9, alignment=TA_RIGHT)
        self.code = style("code", fontSize=8, leading=10, leftIndent=12)


class _Writer:
    """Turns the document into platypus flowables, escaping every user text."""

    def __init__(self, fonts: Fonts):
        self.fonts = fonts
        self.styles = _Styles(fonts)

    def text(self, value: str) -> str:
        """Escaped Paragraph markup for one line of user text."""
        return escape(printable(value, unicode=self.fonts.unicode))

    def para(self, value: str, style: ParagraphStyle) -> Paragraph:
        return Paragraph(self.text(value), style)

    def lines(self, value: str, style: ParagraphStyle) -> list:
        """One Paragraph per line (long answers split across pages)."""
        flowables: list = []
        for line in value.split("\n"):
            if line.strip():
                flowables.append(self.para(line, style))
            else:
                flowables.append(Spacer(1, 4))
        return flowables

    def cover(self, data: DesignDocument) -> list:
        s = self.styles
        status = data.status + (f" (revision {data.revision})" if data.revision else "")
        rows = [
            ("Call", data.call_title),
            ("Status", status),
            ("Organizers", "\n".join(data.organizers) or "—"),
            ("Generated on", data.generated_on.isoformat()),
            ("Registry", data.registry_url),
            *data.version_lines,
        ]
        table = Table(
            [
                [
                    self.para(label, s.cell_bold),
                    [self.para(line, s.cell) for line in value.split("\n")],
                ]
                for label, value in rows
            ],
            colWidths=[3.5 * cm, None],
        )
        table.setStyle(
            TableStyle(
                [
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LINEBELOW", (0, 0), (-1, -2), 0.25, colors.lightgrey),
                ]
            )
        )
        return [
            self.para(data.challenge_name, s.title),
            self.para("Challenge design document", s.subtitle),
            Spacer(1, 12),
            table,
        ]

    def completeness(self, data: DesignDocument) -> list:
        s = self.styles
        verdict = (
            "meets the call's threshold"
            if data.can_submit
            else "below the call's threshold or without tasks"
        )
        summary = (
            f"Overall: {data.overall_percent:g} % of all parameters answered. "
            f"Submission parameters: {data.submission_percent:g} % "
            f"(threshold {data.threshold_percent} %, {verdict})."
        )
        header = [
            self.para(label, s.cell_bold if i == 0 else s.cell_right)
            for i, label in enumerate(("Section", "Answered", "Of", "%"))
        ]
        body = []
        bold_rows = []
        for i, row in enumerate(data.completeness_rows, start=1):
            label_style = s.cell_bold if row.is_total else s.cell_indent
            if row.is_total:
                bold_rows.append(i)
            body.append(
                [
                    self.para(row.label, label_style),
                    self.para(str(row.done), s.cell_right),
                    self.para(str(row.total), s.cell_right),
                    self.para(f"{row.percent:g}", s.cell_right),
                ]
            )
        table = Table(
            [header, *body],
            colWidths=[None, 2.2 * cm, 1.6 * cm, 1.6 * cm],
            repeatRows=1,
        )
        commands = [
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LINEBELOW", (0, 0), (-1, 0), 0.75, colors.black),
            ("LINEBELOW", (0, 1), (-1, -1), 0.25, colors.lightgrey),
        ]
        commands += [
            ("BACKGROUND", (0, r), (-1, r), colors.HexColor("#eeeeee"))
            for r in bold_rows
        ]
        table.setStyle(TableStyle(commands))
        return [
            Spacer(1, 18),
            self.para("Completeness", s.h1),
            self.para(summary, s.body),
            Spacer(1, 6),
            table,
        ]

    def changes(self, data: DesignDocument) -> list:
        if not data.changes:
            return []
        s = self.styles
        flowables = [Spacer(1, 18), self.para("Changes in this version", s.h1)]
        flowables += [self.para(f"▶ {line}", s.changed) for line in data.changes]
        return flowables

    def planning(self, data: DesignDocument) -> list:
        if not data.planning:
            return []
        s = self.styles
        flowables = [Spacer(1, 18), self.para("Conference planning", s.h1)]
        for item in data.planning:
            flowables.append(self.para(item.label, s.parameter))
            if item.text.strip():
                flowables += self.lines(item.text, s.body)
            else:
                flowables.append(self.para("Not answered", s.muted))
        return flowables

    def answer(self, answer: DesignAnswer) -> list:
        s = self.styles
        flowables = [self.para(f"{answer.number}. {answer.name}", s.parameter)]
        if answer.changed:
            flowables.append(self.para(f"▶ {CHANGED_MARK}", s.changed))
        if answer.state == "answered":
            flowables += self.lines(answer.text, s.body)
        elif answer.state == "not_applicable":
            flowables += self.lines(f"Not applicable: {answer.text}", s.muted)
        elif answer.state == "unanswered":
            flowables += self.lines(answer.text, s.muted)
        else:
            flag = (
                "required for submission" if answer.required else "optional parameter"
            )
            flowables.append(self.para(f"MISSING ({flag})", s.missing))
        if answer.bias_items:
            items = ", ".join(answer.bias_items)
            label = "BIAS item" if len(answer.bias_items) == 1 else "BIAS items"
            flowables.append(self.para(f"{label}: {items}", s.muted))
        return flowables

    def sections(self, data: DesignDocument) -> list:
        s = self.styles
        flowables: list = []
        for section in data.sections:
            flowables += [PageBreak(), self.para(section.title, s.h1)]
            for group in section.groups:
                flowables.append(self.para(group.title, s.h2))
                for answer in group.answers:
                    flowables += self.answer(answer)
        return flowables

    def schemes(self, data: DesignDocument) -> list:
        """Appendix: the frozen ranking scheme of every task, as registered."""
        if not data.schemes:
            return []
        s = self.styles
        flowables: list = [
            PageBreak(),
            self.para("Appendix: registered ranking schemes (JSON)", s.h1),
        ]
        for task, text in data.schemes:
            flowables.append(self.para(f"Task {task}", s.h2))
            flowables.append(
                Preformatted(printable(text, unicode=self.fonts.unicode), s.code)
            )
        return flowables

    def plans(self, data: DesignDocument) -> list:
        """Appendix: each task's attached test-set plan (docs/test-set-planning.md)."""
        if not data.plans:
            return []
        s = self.styles
        flowables: list = [PageBreak(), self.para("Appendix: test-set plans", s.h1)]
        for plan in data.plans:
            flowables.append(self.para(f"Task {plan.task}", s.h2))
            flowables += [self.para(line, s.body) for line in plan.summary]
            flowables += [Spacer(1, 6), self._plan_table(plan), Spacer(1, 4)]
            flowables.append(self.para(plan.footnote, s.muted))
        return flowables

    def _plan_table(self, plan) -> Table:
        s = self.styles
        header = ["n", "P(best first)", "± SE", "Kendall's τ", "P(adjacent swap)"]
        if plan.interval_method:
            header.append("Interval width")
        body, marked = [], []
        for i, row in enumerate(plan.rows, start=1):
            label = str(row.n) + (" (chosen)" if row.chosen else "")
            label += " (recommended)" if row.recommended else ""
            cells = [
                label,
                f"{row.p_winner:.3f}",
                f"{row.p_winner_se:.3f}",
                f"{row.kendall_tau:.3f}",
                f"{row.p_adjacent_swap:.3f}",
            ]
            if plan.interval_method:
                width = row.rank_interval_width
                cells.append("—" if width is None else f"{width:.2f}")
            body.append(
                [self.para(cells[0], s.cell)]
                + [self.para(c, s.cell_right) for c in cells[1:]]
            )
            if row.chosen or row.recommended:
                marked.append(i)
        table = Table(
            [[self.para(h, s.cell_bold) for h in header], *body], repeatRows=1
        )
        commands = [
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LINEBELOW", (0, 0), (-1, 0), 0.75, colors.black),
            ("LINEBELOW", (0, 1), (-1, -1), 0.25, colors.lightgrey),
        ]
        commands += [
            ("BACKGROUND", (0, r), (-1, r), colors.HexColor("#eeeeee")) for r in marked
        ]
        table.setStyle(TableStyle(commands))
        return table


def _numbered_canvas(fonts: Fonts, footer: str):
    """A canvas class that writes "footer · Page n of N" once all pages exist."""

    class NumberedCanvas(Canvas):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._pages: list[dict] = []

        def showPage(self):  # noqa: N802 - reportlab's method name
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self):
            total = len(self._pages)
            for number, state in enumerate(self._pages, start=1):
                self.__dict__.update(state)
                self.setFont(fonts.regular, 8)
                self.setFillColor(MUTED_COLOR)
                width, _ = self._pagesize
                self.drawString(2 * cm, 1.2 * cm, footer)
                self.drawRightString(
                    width - 2 * cm, 1.2 * cm, f"Page {number} of {total}"
                )
                super().showPage()
            super().save()

    return NumberedCanvas


def render_design_pdf(data: DesignDocument, *, font_dir: Path = DEJAVU_DIR) -> bytes:
    """The design-document PDF of `data` as bytes."""
    fonts = load_fonts(font_dir)
    writer = _Writer(fonts)
    name = printable(data.challenge_name, unicode=fonts.unicode).replace("\n", " ")
    footer = name if len(name) <= 70 else name[:69] + "…"
    if not fonts.unicode:
        footer = printable(footer, unicode=False)
    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer,
        **a4_page(2 * cm),
        title=f"Design document: {name}",
        author="Challenge design registry",
        subject=data.call_title,
    )
    story = [
        *writer.cover(data),
        *writer.changes(data),
        *writer.completeness(data),
        *writer.planning(data),
        *writer.sections(data),
        *writer.schemes(data),
        *writer.plans(data),
    ]
    document.build(story, canvasmaker=_numbered_canvas(fonts, footer))
    return buffer.getvalue()
