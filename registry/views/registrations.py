"""Registering an accepted proposal, and the public registry (no sign-in needed)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from config.site import absolute_url
from ranking.scheme import METHODS
from registry.pagination import html_page

from ..access import public_registration, visible_challenge
from ..chain_heads import chain_heads_text
from ..chain_signing import public_key_pem
from ..design import diff_designs
from ..models import (
    AmendmentStatus,
    Call,
    ChainHeadsList,
    FacetKind,
    RegistrationListing,
)
from ..outcome import outcome_answers, published_outcomes
from ..page_cache import cache_public_get
from ..parameters import OUTCOME_GROUP, get_parameter
from ..permissions import is_chair, is_organizer
from ..public import (
    design_parts,
    document_of,
    document_organizers,
    public_registrations,
    version_design,
    version_design_pdf,
)
from ..registration import register_challenge, registration_preview
from ..search import (
    CATEGORY_PARAMETER,
    MODALITY_PARAMETER,
    ListingFilters,
    facet_values,
)
from ..services import TransitionError


@login_required
@require_http_methods(["GET", "POST"])
def register(request, pk: int):
    """GET: what registering does, to confirm; POST: register."""
    challenge = visible_challenge(request, pk)
    try:
        if request.method != "POST":
            preview = registration_preview(challenge, request.user)
            return render(
                request,
                "registry/confirm_register.html",
                {"challenge": challenge, "preview": preview},
            )
        registration = register_challenge(challenge=challenge, actor=request.user)
    except TransitionError as exc:
        messages.error(request, str(exc))
        return redirect("registry:overview", challenge.pk)
    messages.success(request, f"Registered as {registration.identifier}.")
    return redirect("registry:public-detail", registration.identifier)


class RegistrySearchForm(forms.Form):
    q = forms.CharField(required=False, label="Text", max_length=200)
    call = forms.ChoiceField(required=False)
    # the year of registration, not the call's (MICCAI 2027 registers in 2026)
    year = forms.IntegerField(
        required=False, min_value=1900, max_value=9999, label="Year registered"
    )
    category = forms.ChoiceField(required=False, label="Task category")
    modality = forms.ChoiceField(required=False, label="Imaging modality")
    metric = forms.ChoiceField(required=False, label="Metric")
    method = forms.ChoiceField(required=False, label="Ranking method")
    tasks = forms.IntegerField(
        required=False, min_value=1, max_value=1000, label="Tasks"
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["call"].choices = [
            ("", "Any call"),
            *Call.objects.order_by("title").values_list("slug", "title"),
        ]
        for name, number in (
            ("category", CATEGORY_PARAMETER),
            ("modality", MODALITY_PARAMETER),
        ):
            self.fields[name].choices = [
                ("", "Any"),
                *((c, c) for c in get_parameter(number).choices),
            ]
        self.fields["metric"].choices = [
            ("", "Any"),
            *((m, m) for m in facet_values(FacetKind.METRIC)),
        ]
        self.fields["method"].choices = [
            ("", "Any"),
            *((m, m.replace("_", " ")) for m in METHODS),
        ]
        for field in self.fields.values():
            css = (
                "form-select"
                if isinstance(field.widget, forms.Select)
                else "form-control"
            )
            field.widget.attrs["class"] = css

    def filters(self) -> ListingFilters:
        data = dict(self.cleaned_data)
        return ListingFilters(text=data.pop("q"), **data)


@require_GET
def public_list(request):
    form = RegistrySearchForm(request.GET or None)
    entries = RegistrationListing.objects.none()
    if not form.is_bound:
        entries = public_registrations()
    elif form.is_valid():
        entries = public_registrations(form.filters())
    page = html_page(request, entries)
    published = published_outcomes(e.latest_id for e in page.object_list)
    return render(
        request,
        "registry/public_list.html",
        {
            "form": form,
            "entries": [(e, published.get(e.latest_id, [])) for e in page.object_list],
            "page": page,
        },
    )


@require_GET
def chain_heads_txt(request):
    """Every registration's chain head as text, for anyone to keep a copy."""
    return HttpResponse(chain_heads_text(), content_type="text/plain; charset=utf-8")


@require_GET
def chain_heads_list_txt(request, number: int):
    """A list published earlier, as it was served (each names the one before)."""
    published = get_object_or_404(ChainHeadsList, number=number)
    return HttpResponse(published.text, content_type="text/plain; charset=utf-8")


@require_GET
def chain_heads_public_key(request):
    """The public key that verifies the lists' signatures (PEM)."""
    return HttpResponse(public_key_pem(), content_type="text/plain; charset=utf-8")


def _number(raw: str | None) -> int | None:
    return int(raw) if raw and raw.isdigit() else None


@require_GET
@cache_public_get
def public_detail(request, identifier: str):
    registration = public_registration(identifier)
    versions = list(registration.versions.select_related("created_by"))
    by_number = {v.number: v for v in versions}
    latest = versions[-1]
    asked = request.GET.get("version")
    # `?version=abc` is no version at all, not the latest one
    shown = by_number.get(_number(asked)) if asked is not None else latest
    if shown is None:
        raise Http404(f"No version {asked!r}: choose one of 1–{len(versions)}.")
    document = document_of(shown)
    previous = by_number.get(shown.number - 1)
    design = version_design(shown)
    changes = diff_designs(version_design(previous), design) if previous else []
    compare = None
    if "from" in request.GET or "to" in request.GET:
        compare = _comparison(request, by_number)
    # comparing a version with its predecessor is the "changes since" section
    # again: show it once, as the comparison asked for
    repeats = bool(compare) and (compare.get("from"), compare.get("to")) == (
        shown.number - 1,
        shown.number,
    )
    user = request.user
    challenge = registration.challenge
    can_amend = is_organizer(user, challenge)
    can_decide = is_chair(user, challenge)
    pending = (
        registration.amendments.filter(status=AmendmentStatus.PENDING).count()
        if can_amend or can_decide
        else 0
    )
    # the public address, as in the design PDF and the citations
    canonical_url = absolute_url(
        reverse("api:registration-canonical", args=[identifier, shown.number])
    )
    context = {
        "registration": registration,
        "versions": versions,
        "shown": shown,
        "canonical_url": canonical_url,
        "organizers": document_organizers(document),
        "canonical_name": f"{identifier}-v{shown.number}.json",
        # results are published by a later amendment: every version's page
        # shows them as the latest version has them (the list does too)
        "outcome": outcome_answers(
            document if shown == latest else document_of(latest)
        ),
        "outcome_group": OUTCOME_GROUP,
        "public": True,
        "latest": latest,
        "document": document,
        "changes": changes,
        "changes_since": previous is not None and not repeats,
        "parts": design_parts(design, changes=changes),
        "compare": compare,
        "can_amend": can_amend,
        "can_decide": can_decide,
        "pending": pending,
    }
    return render(request, "registry/public_detail.html", context)


def _comparison(request, by_number) -> dict:
    numbers = {}
    for key in ("from", "to"):
        number = _number(request.GET.get(key))
        if number not in by_number:
            return {"error": f"{key}: {_version_choice(len(by_number))}"}
        numbers[key] = number
    changes = diff_designs(
        version_design(by_number[numbers["from"]]),
        version_design(by_number[numbers["to"]]),
    )
    to = by_number[numbers["to"]]
    # one step forward: that version's justification explains the changes
    adjacent = numbers["to"] == numbers["from"] + 1
    return {
        **numbers,
        "changes": changes,
        "justification": to.justification if adjacent else "",
    }


def _version_choice(count: int) -> str:
    if count == 1:
        return "this design has one version so far: 1."
    return f"choose one of the versions 1–{count}."


@require_GET
def version_pdf(request, identifier: str, number: int):
    registration = public_registration(identifier)
    version = get_object_or_404(registration.versions, number=number)
    url = absolute_url(
        reverse("registry:public-detail", args=[identifier]) + f"?version={number}"
    )
    pdf = version_design_pdf(version, registry_url=url)
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = (
        f'inline; filename="{identifier}-v{number}-design.pdf"'
    )
    return response
