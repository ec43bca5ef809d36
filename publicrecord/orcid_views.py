"""Sign-in with ORCID from the profile page (`orcid_signin`); 404 when off."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET, require_POST

from . import orcid_signin
from .profiles import set_verified_orcid

ERROR_TEXT_LIMIT = 300  # characters of ORCID's own error description shown


def _enabled() -> None:
    if not orcid_signin.enabled():
        raise Http404("Sign-in with ORCID is not configured here.")


@login_required
@require_POST
def orcid_start(request: HttpRequest) -> HttpResponse:
    _enabled()
    return redirect(orcid_signin.authorize_url(request.session))


@login_required
@require_GET
def orcid_return(request: HttpRequest) -> HttpResponse:
    _enabled()
    if error := request.GET.get("error"):
        said = request.GET.get("error_description") or error
        request.session.pop(orcid_signin.SESSION_KEY, None)
        messages.error(request, f"ORCID confirmed no iD: {said[:ERROR_TEXT_LIMIT]}")
        return redirect("publicrecord:profile")
    try:
        orcid = orcid_signin.confirmed_orcid(
            request.session,
            state=request.GET.get("state", ""),
            code=request.GET.get("code", ""),
        )
        set_verified_orcid(request.user, orcid)
    except orcid_signin.OrcidSigninError as exc:
        messages.error(request, f"Your ORCID iD is not verified: {exc}")
    except ValidationError as exc:
        messages.error(
            request, "Your ORCID iD is not verified: " + " ".join(exc.messages)
        )
    else:
        messages.success(request, f"ORCID confirmed that {orcid} is your iD.")
    return redirect("publicrecord:profile")
