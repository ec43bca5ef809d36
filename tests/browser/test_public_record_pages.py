"""The public-record pages (statistics, quality card, citations, profile) work
in the browser under the Content-Security-Policy, on a phone-sized screen too."""

import pytest

from tests.browser.helpers import assert_on_screen, csp_violations
from tests.browser.test_open_feedback import registered_challenge, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_public_record_pages_raise_no_csp_violation(page):
    registration = registered_challenge()
    violations = csp_violations(page)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/statistics/")
    assert page.locator("#stat-challenges").inner_text() == "1"
    figure = page.locator("#completeness svg:visible")  # the phone's layout
    assert figure.bounding_box()["width"] <= 390  # scales to the phone's width
    # ... and its text (12 units of the viewBox) stays readable.
    assert figure.evaluate("svg => 12 * svg.getScreenCTM().a") >= 11
    # The table beside the figure: each parameter a card, its counts on screen.
    page.locator("#completeness summary").click()
    assert_on_screen(page.locator("#parameters tr[data-parameter='3'] td"))
    page.goto(f"/registry/{registration.identifier}/")
    assert page.locator("[data-criterion]").count() == 6
    bibtex = page.request.get(page.locator("#cite-bibtex").get_attribute("href"))
    assert bibtex.text().startswith("@misc{miccai2027001v1,")
    sign_in(page, "olga")
    page.goto("/profile/")
    page.fill("#id_orcid", "0000-0002-1825-0097")
    page.click("#profile-form button[type=submit]")
    page.wait_for_selector(".alert-success")
    page.goto(f"/registry/{registration.identifier}/feedback/")
    page.wait_for_load_state("networkidle")
    assert violations == []


@pytest.mark.parametrize("layout", ["WIDE", "NARROW"])
def test_statistics_figure_values_fit_in_the_figure(browser, layout):
    """At 10 000 designs a value reads "99.9 % (9990/10000)": the browser draws
    every text of the figure inside its viewBox (an SVG clips what is outside)."""
    from publicrecord import figures

    parameters = [
        {
            "number": n,
            "name": f"Parameter {n}",
            "share": (10_000 - n) / 10_000,
            "answered": 10_000 - n,
            "total": 10_000,
            "not_applicable": n,
        }
        for n in (1, 2, 53)
    ]
    svg = figures.completeness_figure(parameters, layout=getattr(figures, layout))
    page = browser.new_page()
    page.set_content(f"<div style='width: 342px'>{svg}</div>")
    overflow = page.evaluate(
        """() => {
            const svg = document.querySelector("svg");
            const width = svg.viewBox.baseVal.width;
            return [...svg.querySelectorAll("text")]
                .map((t) => [t.textContent, t.getBBox().x + t.getBBox().width - width])
                .filter(([, over]) => over > 0);
        }"""
    )
    page.close()
    assert overflow == []
