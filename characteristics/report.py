"""The case-characteristics report as its own PDF (plain data in, bytes out).

:func:`section_flowables` is the section itself; the analysis report reuses it
through its appendix hook, :func:`render_case_model_pdf` wraps it in a document.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.platypus import (
    Image,
    LongTable,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    TableStyle,
)

from analysis.plots import figure_png
from registry.pdf_style import a4_page

from .plots import forest_global, forest_per_algorithm
from .summary import failure_rate_table, findings

__all__ = ["CaseModelReport", "render_case_model_pdf", "section_flowables"]

FIGURE_DPI = 170
METHOD = (
    "Models as in R's lme4 at default settings (contract case-models.md): failure "
    "is modelled by a binomial generalised linear mixed model fitted by maximum "
    "likelihood with the Laplace approximation (glmer), a metric value by a linear "
    "mixed model fitted by REML (lmer); each grouping is a random intercept, and "
    "the global model adds a random intercept per algorithm. Intervals are Wald "
    "intervals; standard errors of binomial models come from the Hessian of the "
    "Laplace deviance in the variance parameters and fixed effects together."
)


@dataclass(frozen=True)
class CaseModelReport:
    """Everything the PDF needs (built from the stored run by the caller)."""

    challenge: str
    registration: str
    results_version: int
    metadata_version: int
    metadata_sha256: str
    run_id: int
    date: str
    output: Mapping[str, Any]


def _styles() -> dict[str, ParagraphStyle]:
    sheet = getSampleStyleSheet()
    body = ParagraphStyle("cm-body", sheet["BodyText"], fontSize=9, leading=12)
    return {
        "title": ParagraphStyle("cm-title", sheet["Title"], fontSize=16, leading=20),
        "h2": ParagraphStyle("cm-h2", sheet["Heading2"], fontSize=12, leading=15),
        "h3": ParagraphStyle("cm-h3", sheet["Heading3"], fontSize=10, leading=13),
        "body": body,
        "cell": ParagraphStyle("cm-cell", body, fontSize=7, leading=8.5),
        "banner": ParagraphStyle(
            "cm-banner",
            body,
            backColor=colors.HexColor("#fff3cd"),
            borderColor=colors.HexColor("#b58100"),
            borderWidth=0.8,
            borderPadding=4,
            spaceAfter=8,
        ),
    }


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(str(text)), style)


def _num(x: Any) -> str:
    if x is None:
        return "–"
    if abs(x) >= 1000 or (0 < abs(x) < 0.001):
        return f"{x:.2e}"
    return f"{x:.3f}"


def _table(header: list[str], rows: list[list[str]], style: ParagraphStyle, width):
    data = [[_p(h, style) for h in header]] + [[_p(c, style) for c in r] for r in rows]
    table = LongTable(data, repeatRows=1, colWidths=width)
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eeeeee")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ]
        )
    )
    return table


def _image(fig, max_width: float) -> Image:
    png = figure_png(fig, dpi=FIGURE_DPI)
    width, height = fig.get_size_inches()
    scale = min(1.0, max_width / (width * 72))
    return Image(io.BytesIO(png), width=width * 72 * scale, height=height * 72 * scale)


def _fixed_table(model: Mapping[str, Any], level: int, style, width):
    binomial = model["family"] == "binomial"
    header = ["Term", "Estimate", "SE", f"{level} % CI", "p"]
    if binomial:
        header += ["Odds ratio", f"OR {level} % CI"]
    rows = []
    for e in model["fixed"]:
        row = [
            e["term"],
            _num(e["estimate"]),
            _num(e["se"]),
            f"{_num(e['ci_low'])} to {_num(e['ci_high'])}",
            _num(e["p"]),
        ]
        if binomial:
            row += (
                ["", ""]
                if e["term"] == "(Intercept)"
                else [
                    _num(e.get("odds_ratio")),
                    f"{_num(e.get('or_ci_low'))} to {_num(e.get('or_ci_high'))}",
                ]
            )
        rows.append(row)
    return _table(header, rows, style, None if width is None else width)


def section_flowables(output: Mapping[str, Any], *, width: float = 17 * cm) -> list:
    """The report section: words first, then tables and forest plots."""
    s = _styles()
    spec = output["spec"]
    level = round(100 * (1 - spec["alpha"]))
    flow: list = [_p("Strengths and weaknesses: case characteristics", s["h2"])]
    if output.get("exploratory"):
        flow.append(
            _p(
                "EXPLORATORY — not announced in the registered design. "
                + output.get("announcement", ""),
                s["banner"],
            )
        )
    elif output.get("announcement"):
        flow.append(_p(output["announcement"], s["body"]))
    outcome = spec["outcome"]
    if outcome["type"] == "failure":
        side = "below" if "below" in outcome else "above"
        what = (
            f"failure ({spec['metric']} {side} {outcome[side]}; a missing result "
            + ("counts as a failure" if spec["missing"] == "failure" else "is dropped")
            + ")"
        )
    else:
        what = f"the value of {spec['metric']} (missing results dropped)"
    characteristics = ", ".join(
        c if isinstance(c, str) else f"{c['column']} (reference {c['reference']})"
        for c in spec["characteristics"]
    )
    flow.append(
        _p(
            f"Task {spec['task']}: models of {what} with the characteristics "
            f"{characteristics}; random intercepts for "
            f"{', '.join(spec['groups']) or 'no grouping'}"
            " (and for the algorithm in the global model); algorithms: "
            f"{', '.join(spec['algorithms_modelled'])}.",
            s["body"],
        )
    )
    excluded = output["excluded"]
    flow.append(
        _p(
            f"Excluded: {len(excluded['cases_without_metadata'])} result case(s) "
            f"without metadata, {len(excluded['metadata_without_results'])} metadata "
            f"row(s) without results, {excluded['rows_with_empty_cells']} case(s) "
            f"with an empty cell; {excluded.get('missing_results', 0)} missing "
            "result(s).",
            s["body"],
        )
    )
    global_model = output["models"][0]
    flow.append(_p("Across the modelled algorithms (global model)", s["h3"]))
    for finding in findings(output, global_model):
        flow.append(_p("• " + finding.sentence, s["body"]))
    flow.append(Spacer(1, 4))
    flow.append(_fixed_table(global_model, level, s["cell"], None))
    random = ", ".join(
        f"{g}: {_num(v)}" for g, v in (global_model.get("random") or {}).items()
    )
    flow.append(_p(f"Random-intercept variances — {random}.", s["body"]))
    flow.append(_image(forest_global(output), width))
    per_algorithm = [m for m in output["models"] if m["scope"] == "algorithm"]
    if per_algorithm:
        flow.append(_p("Per algorithm", s["h3"]))
        for model in per_algorithm:
            sentences = "; ".join(
                f.sentence.rstrip(".") for f in findings(output, model)
            )
            flow.append(_p(f"{model['algorithm']}: {sentences}.", s["body"]))
        flow.append(_image(forest_per_algorithm(output), width))
    header, rows = failure_rate_table(output)
    title = (
        "Failure rate per characteristic level and algorithm"
        if outcome["type"] == "failure"
        else f"Mean {spec['metric']} per characteristic level and algorithm"
    )
    flow.append(_p(title, s["h3"]))
    flow.append(_table(header, rows, s["cell"], None))
    flow.append(Spacer(1, 6))
    flow.append(_p(METHOD, s["body"]))
    return flow


def render_case_model_pdf(report: CaseModelReport) -> bytes:
    """The run's own PDF."""
    s = _styles()
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer,
        **a4_page(2 * cm, top=1.8 * cm, bottom=1.8 * cm),
        title="Case characteristics",
        author="Challenge registry",
        invariant=True,
    )
    flow = [
        _p(f"{report.challenge}: case characteristics", s["title"]),
        _p(
            f"Registration {report.registration} · results version "
            f"{report.results_version} · case metadata version "
            f"{report.metadata_version} (SHA-256 {report.metadata_sha256[:16]}…) · "
            f"run {report.run_id} · {report.output.get('engine', '')} · {report.date}",
            s["body"],
        ),
        Spacer(1, 8),
        *section_flowables(report.output, width=doc.width),
    ]
    doc.build(flow)
    return buffer.getvalue()
