"""Sign-in with ORCID: the one way an ORCID iD becomes verified (issue 30).

OAuth 2.0 authorization code flow with the `/authenticate` scope
(https://info.orcid.org/documentation/api-tutorials/api-tutorial-get-and-authenticated-orcid-id/):
the profile page sends the person to ORCID, ORCID sends them back with a code,
and the code is exchanged (server to server, with the client secret) for the
iD ORCID signed them in as. That iD is then theirs, verified
(`profiles.set_verified_orcid`).

Off unless `ORCID_CLIENT_ID` and `ORCID_CLIENT_SECRET` are set; `ORCID_URL`
(default https://orcid.org, https://sandbox.orcid.org for trials) is the only
host the secret is sent to, and no redirect is followed.
"""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from django.conf import settings
from django.urls import reverse

from config.site import absolute_url

SESSION_KEY = "orcid_signin_state"
TIMEOUT_SECONDS = 10
MAX_ANSWER_BYTES = 64 * 1024


class OrcidSigninError(Exception):
    """ORCID did not confirm an iD (refused, unreachable, or a bad answer)."""


def enabled() -> bool:
    return bool(
        getattr(settings, "ORCID_CLIENT_ID", "")
        and getattr(settings, "ORCID_CLIENT_SECRET", "")
    )


def _base() -> str:
    return (getattr(settings, "ORCID_URL", "") or "https://orcid.org").rstrip("/")


def redirect_uri() -> str:
    return absolute_url(reverse("publicrecord:orcid-return"))


def authorize_url(session) -> str:
    """Where to send the person; remembers a fresh `state` in their session."""
    state = secrets.token_urlsafe(24)
    session[SESSION_KEY] = state
    query = urllib.parse.urlencode(
        {
            "client_id": settings.ORCID_CLIENT_ID,
            "response_type": "code",
            "scope": "/authenticate",
            "redirect_uri": redirect_uri(),
            "state": state,
        }
    )
    return f"{_base()}/oauth/authorize?{query}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # the client secret never follows a redirect


def _post_token(url: str, body: bytes) -> dict[str, Any]:
    """The one network call: POST the form `body` to ORCID's token endpoint."""
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Accept": "application/json",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=TIMEOUT_SECONDS) as response:
            answer = response.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as exc:  # a refusal, or a redirect not followed
        raise OrcidSigninError(f"ORCID answered HTTP {exc.code}.") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise OrcidSigninError(f"ORCID could not be reached ({exc}).") from None
    if len(answer) > MAX_ANSWER_BYTES:
        raise OrcidSigninError("ORCID's answer was too long.")
    try:
        data = json.loads(answer)
    except ValueError:
        raise OrcidSigninError("ORCID's answer was not JSON.") from None
    if not isinstance(data, dict):
        raise OrcidSigninError("ORCID's answer was not a JSON object.")
    return data


def confirmed_orcid(session, *, state: str, code: str) -> str:
    """The iD ORCID signed the person in as, for the `code` and `state` ORCID
    sent back; raises `OrcidSigninError` otherwise. The state is used once."""
    expected = session.pop(SESSION_KEY, None)
    if not expected or not secrets.compare_digest(str(state), expected):
        raise OrcidSigninError(
            "This answer from ORCID does not belong to a sign-in started here; "
            "start again from your profile."
        )
    if not code:
        raise OrcidSigninError("ORCID sent no authorization code.")
    body = urllib.parse.urlencode(
        {
            "client_id": settings.ORCID_CLIENT_ID,
            "client_secret": settings.ORCID_CLIENT_SECRET,
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri(),
        }
    ).encode()
    data = _post_token(f"{_base()}/oauth/token", body)
    orcid = data.get("orcid")
    if not isinstance(orcid, str) or not orcid:
        raise OrcidSigninError("ORCID's answer named no iD.")
    return orcid
