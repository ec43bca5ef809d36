"""The statistics figures have a phone layout (publicrecord.figures.NARROW): a
viewBox about as wide as a phone's column, so the text keeps about its size,
each label above its bar, and the same bars as the wide figure."""

import lxml.etree
import lxml.html
import pytest

from publicrecord.figures import (
    FIGURE_TITLES,
    NARROW,
    WIDE,
    Bar,
    bar_chart,
    completeness_figure,
    distribution_figure,
)

SVG = "{http://www.w3.org/2000/svg}"
PHONE_COLUMN = 342  # px: a figure's width on a 390 px wide phone
PARAMETERS = [
    {
        "number": n,
        "name": f"Parameter {n} with a rather long name",
        "share": n / 60,
        "answered": n,
        "total": 60,
        "not_applicable": 2,
    }
    for n in range(1, 54)
]


def parsed(svg: str):
    return lxml.etree.fromstring(svg.encode())


def view_width(svg) -> float:
    # An HTML parser lower-cases attribute names.
    box = svg.get("viewBox") or svg.get("viewbox")
    return float(box.split()[2])


def bars_of(svg) -> list[tuple[str, str]]:
    """(label, value text) per bar: a label carries its whole text in <title>."""
    texts = svg.findall(f"{SVG}text")
    labelled = [t for t in texts if t.find(f"{SVG}title") is not None]
    values = [t for t in texts if t.find(f"{SVG}title") is None][-len(labelled) :]
    return [
        (t.find(f"{SVG}title").text, v.text)
        for t, v in zip(labelled, values, strict=True)
    ]


def test_narrow_figure_keeps_its_text_near_12px_on_a_phone():
    svg = parsed(completeness_figure(PARAMETERS, layout=NARROW))
    rendered = 12 * PHONE_COLUMN / view_width(svg)  # the font is 12 user units
    assert rendered >= 11.5
    wide = parsed(completeness_figure(PARAMETERS))
    assert 12 * PHONE_COLUMN / view_width(wide) < 6  # what phones showed


def test_narrow_figure_puts_each_label_above_its_bar():
    svg = parsed(distribution_figure("Metrics", {"DSC": 3, "NSD": 2}, layout=NARROW))
    labels = [t for t in svg.iter(f"{SVG}text") if t.find(f"{SVG}title") is not None]
    tracks = [r for r in svg.iter(f"{SVG}rect") if r.get("fill") == "#e9ecef"]
    assert [t.get("text-anchor") for t in labels] == [None, None]
    assert [t.get("x") for t in labels] == ["0", "0"]
    pairs = zip(labels, tracks, strict=True)
    assert [float(t.get("y")) < float(r.get("y")) for t, r in pairs] == [True, True]


@pytest.mark.parametrize(
    "build",
    [
        lambda layout: completeness_figure(PARAMETERS, layout=layout),
        lambda layout: distribution_figure(
            FIGURE_TITLES["metric"], {f"m{i}": 30 - i for i in range(25)}, layout=layout
        ),
    ],
)
def test_narrow_and_wide_figures_show_the_same_bars(build):
    narrow, wide = parsed(build(NARROW)), parsed(build(WIDE))
    assert bars_of(narrow) == bars_of(wide)
    assert len(bars_of(narrow)) > 1


def test_narrow_title_wraps_inside_the_figure():
    title = "Share of registered designs answering each parameter (orange: n/a)"
    svg = parsed(bar_chart(title, [Bar("a", 0.5, "1")], layout=NARROW))
    lines = [t.text for t in svg.findall(f"{SVG}text") if t.get("font-weight")]
    assert " ".join(lines) == title
    assert len(lines) == 2
    assert max(len(line) for line in lines) <= NARROW.title_chars


def test_narrow_figure_labels_are_escaped():
    svg = bar_chart("<t>", [Bar("<script>x</script>", 0.5, "1 & 2")], layout=NARROW)
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg
    assert "1 &amp; 2" in svg


@pytest.mark.django_db
def test_statistics_page_has_a_phone_layout_of_every_figure(client):
    page = lxml.html.fromstring(client.get("/statistics/").text)
    narrow = page.xpath("//*[@data-layout='narrow']")
    assert len(narrow) == 1 + len(FIGURE_TITLES)
    assert [view_width(n.xpath(".//*[local-name()='svg']")[0]) for n in narrow] == [
        NARROW.label_width + NARROW.bar_width + NARROW.value_width
    ] * len(narrow)
