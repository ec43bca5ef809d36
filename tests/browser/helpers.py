"""Steps the browser tests share."""

from collections.abc import Iterator
from contextlib import contextmanager

PASSWORD = "pw-for-tests-1"  # tests.factories.UserFactory


def sign_in(page, username: str, password: str = PASSWORD) -> None:
    """Sign `page` in as `username` (any earlier session is dropped) and wait
    until the role's landing page (`reviews:landing`) is reached."""
    page.context.clear_cookies()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def csp_violations(page) -> list[str]:
    """The Content-Security-Policy violations `page` reports on its console from
    now on (the list grows as they come)."""
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text)
            if "Content Security Policy" in message.text
            else None
        ),
    )
    return violations


PHONE = {"width": 390, "height": 844}


@contextmanager
def phone_sized(page) -> Iterator[None]:
    """`page` at a phone's size (390 × 844) inside the block, then back at
    its own size."""
    own = page.viewport_size
    page.set_viewport_size(PHONE)
    try:
        yield
    finally:
        page.set_viewport_size(own)


def assert_on_screen(*locators) -> None:
    """Every element matched by `locators` lies within the page's viewport
    width: on a phone, not in a column scrolled off to the right."""
    for locator in locators:
        elements = locator.all()
        assert elements, f"nothing matches {locator}"
        for element in elements:
            box = element.bounding_box()
            width = element.page.viewport_size["width"]
            assert box is not None, element
            assert box["x"] >= 0, box
            assert box["x"] + box["width"] <= width, box
