"""Public results pages of registered challenges, their downloads and figures,
and the organizers' "publish this analysis" page (issue 27)."""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from analysis import plots
from analysis.access import visible_run
from analysis.present import run_figure
from registry.access import public_registration

from .publication import (
    EXPLORATORY,
    RESULT,
    can_publish,
    current_publication,
    publish_analysis,
)
from .results import (
    page_context,
    page_url,
    publication_or_404,
    published_output,
    reproducible_scheme,
)

DOWNLOADS = ("results.csv", "report.pdf", "output.json", "scheme.json")


def _page(request: HttpRequest, identifier: str, number: int | None) -> HttpResponse:
    registration = public_registration(identifier)
    publication = publication_or_404(request.user, registration, number)
    return render(
        request,
        "publicrecord/results.html",
        page_context(request.user, publication, absolute=request.build_absolute_uri),
    )


@require_GET
def results_page(request: HttpRequest, identifier: str) -> HttpResponse:
    """The latest published result of a registered challenge."""
    return _page(request, identifier, None)


@require_GET
def results_version(request: HttpRequest, identifier: str, number: int) -> HttpResponse:
    """One publication (a superseded one stays readable)."""
    return _page(request, identifier, number)


def _attachment(body: bytes | str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
def results_download(
    request: HttpRequest, identifier: str, number: int, name: str
) -> HttpResponse:
    """A published file, byte for byte what its printed SHA-256 hashes."""
    registration = public_registration(identifier)
    publication = publication_or_404(request.user, registration, number)
    if name not in DOWNLOADS:
        raise Http404("No such download.")
    prefix = f"{identifier}-results-{number}"
    run = publication.run
    if name == "results.csv":
        return _attachment(
            run.results.content.encode(),
            "text/csv; charset=utf-8",
            f"{prefix}.csv",
        )
    if name == "output.json":
        return _attachment(
            published_output(publication), "application/json", f"{prefix}-output.json"
        )
    if name == "scheme.json":
        scheme = reproducible_scheme(publication)
        if scheme is None:
            raise Http404("This analysis ranked its tasks with different schemes.")
        text = json.dumps(scheme, indent=2, sort_keys=True) + "\n"
        return _attachment(text.encode(), "application/json", f"{prefix}-scheme.json")
    try:
        report = run.report.open("rb")
    except OSError:  # verify_registrations names it for the operators
        raise Http404("The report file is missing.") from None
    return FileResponse(
        report,
        as_attachment=True,
        filename=f"{prefix}-report.pdf",
        content_type="application/pdf",
    )


@require_GET
def results_figure(request: HttpRequest, identifier: str, number: int) -> HttpResponse:
    """A figure of the published analysis as vector SVG, drawn on request."""
    registration = public_registration(identifier)
    publication = publication_or_404(request.user, registration, number)
    try:
        figure = run_figure(
            publication.run,
            request.GET.get("kind", ""),
            request.GET.get("key"),
            request.GET.get("task"),
        )
    except LookupError as exc:
        raise Http404(str(exc)) from exc
    return HttpResponse(plots.figure_svg(figure), content_type="image/svg+xml")


class PublishForm(forms.Form):
    public_from = forms.DateField(
        required=False,
        label="Public from (embargo, optional)",
        widget=forms.DateInput(attrs={"type": "date", "class": "form-control"}),
        help_text="Leave empty to publish now. The day is in UTC.",
    )
    note = forms.CharField(
        required=False,
        label="Note",
        widget=forms.Textarea(attrs={"rows": 3, "class": "form-control"}),
        help_text="Required for a correction: what it corrects and why.",
    )


@login_required
@require_http_methods(["GET", "POST"])
def publish_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Publish a finished analysis as the result (or alongside it, exploratory)."""
    run = visible_run(request, pk)
    registration = run.results.registration
    if not can_publish(request.user, registration):
        raise PermissionDenied(
            "Only the challenge's organizers and its call's chairs publish results."
        )
    publish_as = EXPLORATORY if run.exploratory else RESULT
    current = current_publication(registration, exploratory=run.exploratory)
    form = PublishForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            publication = publish_analysis(
                run=run,
                actor=request.user,
                publish_as=publish_as,
                public_from=form.cleaned_data["public_from"],
                supersedes=current.number if current and publish_as == RESULT else None,
                note=form.cleaned_data["note"],
            )
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                target = field if field in form.fields else None
                for error in errors:
                    form.add_error(target, error)
        else:
            messages.success(request, f"Published as publication {publication.number}.")
            return redirect(page_url(publication))
    return render(
        request,
        "publicrecord/publish.html",
        {
            "run": run,
            "registration": registration,
            "role": publish_as,
            "current": current if publish_as == RESULT else None,
            "form": form,
        },
    )
