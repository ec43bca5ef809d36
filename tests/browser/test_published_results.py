"""Published results in the browser: the results page, the record, the list,
the statistics and the publish page pass the page checks (no horizontal scroll
at 1366 and 390 px, axe-core clean, unique ids) under the CSP."""

import pytest

from publicrecord.publication import publish_analysis
from tests.browser.helpers import csp_violations
from tests.browser.pagecheck import PageCheck
from tests.browser.test_open_feedback import sign_in
from tests.publicrecord.publishing import analysed, exploratory_run

pytestmark = pytest.mark.django_db(transaction=True)


def test_published_results_pages_pass_the_page_checks(page, call, organizer, chair):
    registration, run = analysed(call, organizer, chair)
    publish_analysis(run=run, actor=organizer)
    exploratory = exploratory_run(registration, organizer)
    publish_analysis(run=exploratory, actor=organizer, publish_as="exploratory")
    unpublished = exploratory_run(registration, organizer)
    violations = csp_violations(page)
    checker = PageCheck("published-results")
    identifier = registration.identifier
    for path in (
        f"/registry/{identifier}/results/",
        f"/registry/{identifier}/results/2/",
        f"/registry/{identifier}/",
        "/registry/",
        "/statistics/",
        "/statistics/?results=published&deviation=none",
    ):
        page.goto(path)
        page.wait_for_load_state("networkidle")
        checker.check(page)
    page.goto(f"/registry/{identifier}/results/")
    figures = page.locator("figure img")
    assert figures.count() > 0
    for index in range(figures.count()):  # every SVG figure loads (lazily)
        figure = figures.nth(index)
        figure.scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete", arg=figure.element_handle())
        assert figure.evaluate("img => img.naturalWidth") > 0
    sign_in(page, organizer.username)
    page.goto(f"/analyses/{unpublished.pk}/publish/")
    checker.check(page)
    checker.assert_clean()
    assert violations == []
