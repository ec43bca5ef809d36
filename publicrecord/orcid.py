"""ORCID iDs: format and ISO 7064 MOD 11-2 check digit (ORCID's own algorithm)."""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError

# ASCII digits only: `\d` would also take Arabic-Indic, Devanagari or
# full-width digits, which `int()` reads, so a look-alike iD passed the check.
PATTERN = re.compile(r"^([0-9]{4})-?([0-9]{4})-?([0-9]{4})-?([0-9]{3}[0-9X])$")
URL_PREFIXES = ("https://orcid.org/", "http://orcid.org/", "orcid.org/")


def check_digit(base: str) -> str:
    """The check character of the first 15 digits of an ORCID iD."""
    total = 0
    for digit in base:
        total = (total + int(digit)) * 2
    result = (12 - total % 11) % 11
    return "X" if result == 10 else str(result)


def clean_orcid(raw: object) -> str:
    """`0000-0002-1825-0097` from an iD typed with or without dashes or the
    orcid.org prefix; "" clears it. Raises a ValidationError naming `orcid`."""
    text = str(raw or "").strip()
    for prefix in URL_PREFIXES:
        if text.lower().startswith(prefix):
            text = text[len(prefix) :]
    if not text:
        return ""
    foreign = [c for c in text if c.isdigit() and c not in "0123456789"]
    if foreign:
        raise ValidationError(
            {
                "orcid": f"orcid: write the iD with the digits 0-9 only; {text!r} "
                f"contains {foreign[0]!r} ({unicodedata.name(foreign[0], 'a digit')})."
            }
        )
    match = PATTERN.match(text.upper())
    if match is None:
        raise ValidationError(
            {"orcid": f"orcid: {text!r} is not an ORCID iD (0000-0000-0000-000X)."}
        )
    digits = "".join(match.groups())
    expected = check_digit(digits[:15])
    if digits[15] != expected:
        raise ValidationError(
            {
                "orcid": f"orcid: the check digit of {text!r} is wrong "
                f"(ISO 7064 11,2 gives {expected}); check the iD for a typo."
            }
        )
    return "-".join(digits[i : i + 4] for i in range(0, 16, 4))
