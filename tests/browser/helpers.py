"""Steps the browser tests share."""

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
