"""What the project's PDFs share: their fonts and their A4 page (reportlab).

The design document (`registry.exports.design_pdf`), the analysis report
(`analysis.reports.pdf`) and the case-characteristics report
(`characteristics.report`) lay out their own pages; they take the fonts and the
page size and margins from here.

Fonts: DejaVu Sans (Debian ``fonts-dejavu-core``) when its TTF files exist, so
≥, –, umlauts and most scripts print as typed; else Helvetica, whose WinAnsi
(cp1252) encoding the caller must respect (`Fonts.unicode` is False).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont

__all__ = ["DEJAVU_DIR", "Fonts", "a4_page", "load_fonts"]

DEJAVU_DIR = Path("/usr/share/fonts/truetype/dejavu")


@dataclass(frozen=True)
class Fonts:
    regular: str
    bold: str
    unicode: bool  # False: Helvetica fallback, text must fit cp1252


def load_fonts(font_dir: Path = DEJAVU_DIR) -> Fonts:
    """DejaVu Sans from `font_dir` if it is there, else Helvetica.

    DejaVu Sans is registered once, as a family too, so that ``<b>`` in
    Paragraph markup picks the bold face.
    """
    regular, bold = font_dir / "DejaVuSans.ttf", font_dir / "DejaVuSans-Bold.ttf"
    if regular.is_file() and bold.is_file():
        registered = set(pdfmetrics.getRegisteredFontNames())
        try:
            for name, path in (("DejaVuSans", regular), ("DejaVuSans-Bold", bold)):
                if name not in registered:
                    pdfmetrics.registerFont(TTFont(name, str(path)))
        except (TTFError, OSError):
            pass
        else:
            pdfmetrics.registerFontFamily(
                "DejaVuSans",
                normal="DejaVuSans",
                bold="DejaVuSans-Bold",
                italic="DejaVuSans",
                boldItalic="DejaVuSans-Bold",
            )
            return Fonts("DejaVuSans", "DejaVuSans-Bold", unicode=True)
    return Fonts("Helvetica", "Helvetica-Bold", unicode=False)


def a4_page(
    margin: float, *, top: float | None = None, bottom: float | None = None
) -> dict[str, Any]:
    """The page arguments of a reportlab document template: A4 portrait,
    `margin` left and right, and `top` and `bottom` (default: `margin`)."""
    return {
        "pagesize": A4,
        "leftMargin": margin,
        "rightMargin": margin,
        "topMargin": margin if top is None else top,
        "bottomMargin": margin if bottom is None else bottom,
    }
