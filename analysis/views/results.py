"""Results page of a registration: versions, runs, upload with preview, run."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from .. import ingest, services, staging, uploads
from ..access import visible_registration, visible_results
from ..admission import BusyError
from ..forms import (
    ExploratorySchemeBuilder,
    ExploratorySchemeForm,
    ResultsUploadForm,
    registered_metrics_of,
)
from ..models import AnalysisRun


def _registered_scheme(registration) -> dict | None:
    design = services.latest_design(registration)
    return next((t.scheme for t in design.tasks.values() if t.scheme), None)


def _exploratory_forms(version, metrics, scheme, posted=None):
    """(builder, JSON form) of a results version, unbound and starting from
    the registered scheme, unless `posted` = (version pk, bound form) names it."""
    prefix = f"v{version.pk}"
    builder = ExploratorySchemeBuilder(registered=metrics, prefix=prefix)
    builder.set_scheme_initial(scheme)
    example = json.dumps(scheme, indent=2) if scheme else ""
    json_form = ExploratorySchemeForm(initial={"scheme": example}, prefix=prefix)
    if posted and posted[0] == version.pk:
        if isinstance(posted[1], ExploratorySchemeBuilder):
            builder = posted[1]
        else:
            json_form = posted[1]
    return builder, json_form


def _render_results_page(request, registration, *, exploratory=None, status=200):
    """`exploratory` = (results pk, bound form) to show a refused scheme again."""
    versions = registration.results_versions.select_related(
        "uploaded_by"
    ).prefetch_related(
        Prefetch(
            "analyses",
            queryset=AnalysisRun.objects.select_related("requested_by").order_by(
                "-created"
            ),
        )
    )
    scheme = _registered_scheme(registration)
    metrics = registered_metrics_of(registration.challenge)
    rows = [
        (
            version,
            *_exploratory_forms(version, metrics, scheme, exploratory),
        )
        for version in versions.order_by("-number")
    ]
    context = {
        "registration": registration,
        "challenge": registration.challenge,
        "versions": rows,
        "can_upload": services.can_upload_results(request.user, registration),
        "upload_form": ResultsUploadForm(),
    }
    return render(request, "analysis/results.html", context, status=status)


@login_required
def results_page(request, identifier: str):
    return _render_results_page(request, visible_registration(request, identifier))


@login_required
def upload_results(request, identifier: str):
    """Step 1: read and check the file; keep its table and show the preview."""
    registration = visible_registration(request, identifier)
    uploads.require_uploader(request.user, registration)
    form = ResultsUploadForm(request.POST or None, request.FILES or None)
    errors: list[str] = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            token = uploads.stage(
                session=request.session,
                user=request.user,
                registration=registration,
                name=upload.name,
                data=upload.read(),
                teams=form.cleaned_data["teams"],
            )
        except ingest.UploadError as exc:
            errors = exc.errors
        except staging.StagingError as exc:
            errors = [str(exc)]
        else:
            return redirect("analysis:preview", registration.identifier, token)
    return _render_upload_page(request, registration, form, errors)


def _render_upload_page(request, registration, form, errors: list[str]):
    return render(
        request,
        "analysis/upload.html",
        {"registration": registration, "form": form, "errors": errors},
        status=400 if errors or form.errors else 200,
    )


@login_required
def preview_upload(request, identifier: str, token: str):
    registration = visible_registration(request, identifier)
    uploads.require_uploader(request.user, registration)
    shown = uploads.staged_preview(
        session=request.session,
        user=request.user,
        registration=registration,
        token=token,
    )
    if shown is None:
        raise Http404(NOT_WAITING)
    return render(
        request,
        "analysis/preview.html",
        {
            "registration": registration,
            "staged": shown.staged,
            "preview": shown.preview,
            "identical": shown.identical,
            "findings": [
                (f, SEVERITY_CSS.get(f.severity, "info"))
                for f in shown.preview.findings
            ],
        },
    )


NOT_WAITING = "This upload is no longer waiting; upload the file again."

# The preview's colour for a finding's severity.
SEVERITY_CSS = {"problem": "danger", "warning": "warning"}


@login_required
@require_POST
def commit_upload(request, identifier: str, token: str):
    """Step 2: store the staged table, once (a resent form finds it stored)."""
    registration = visible_registration(request, identifier)
    uploads.require_uploader(request.user, registration)
    try:
        results = uploads.commit_staged(
            session=request.session,
            user=request.user,
            registration=registration,
            token=token,
            new_version=request.POST.get("new_version") == "on",
            accept_problems=request.POST.get("accept_problems") == "on",
        )
    except ingest.DuplicateResultsError as exc:
        messages.error(request, str(exc).replace("(new_version=true)", "below"))
        return redirect("analysis:preview", registration.identifier, token)
    except uploads.UnacceptedProblemsError as exc:
        messages.error(request, str(exc))
        return redirect("analysis:preview", registration.identifier, token)
    except ingest.UploadError as exc:
        return _render_upload_page(
            request, registration, ResultsUploadForm(), exc.errors
        )
    if results is None:
        if staging.staged_upload(
            session=request.session,
            user=request.user,
            registration=registration,
            token=token,
        ):  # the first Commit was refused and gave the upload back: its reason
            return redirect("analysis:preview", registration.identifier, token)
        raise Http404(NOT_WAITING)
    if results.replayed:
        messages.info(request, f"These results are stored as version {results.number}.")
    else:
        messages.success(
            request,
            f"Stored results version {results.number} ({results.row_count} rows).",
        )
    return redirect("analysis:results", registration.identifier)


@login_required
@require_POST
def cancel_upload(request, identifier: str, token: str):
    registration = visible_registration(request, identifier)
    uploads.require_uploader(request.user, registration)
    uploads.cancel(
        session=request.session,
        user=request.user,
        registration=registration,
        token=token,
    )
    messages.info(request, "Upload cancelled; nothing was stored.")
    return redirect("analysis:results", registration.identifier)


def _posted_exploratory_form(request, results):
    """The JSON form when its text was posted (the advanced way), else the
    option-by-option builder."""
    prefix = f"v{results.pk}"
    if f"{prefix}-scheme" in request.POST:
        return ExploratorySchemeForm(request.POST, prefix=prefix)
    metrics = registered_metrics_of(results.registration.challenge)
    return ExploratorySchemeBuilder(request.POST, registered=metrics, prefix=prefix)


@login_required
@require_POST
def start_run(request, pk: int):
    """Run the registered analysis, or (with a scheme) an exploratory one."""
    results = visible_results(request, pk)
    registration = results.registration
    scheme = None
    if "exploratory" in request.POST:
        form = _posted_exploratory_form(request, results)
        if not form.is_valid():
            return _render_results_page(
                request, registration, exploratory=(results.pk, form), status=400
            )
        scheme = (
            form.cleaned_scheme
            if isinstance(form, ExploratorySchemeBuilder)
            else form.cleaned_data["scheme"]
        )
    try:
        run = services.start_analysis(
            results=results, actor=request.user, scheme=scheme
        )
    except ValidationError as exc:
        if scheme is None:
            messages.error(request, " ".join(exc.messages))
            return redirect("analysis:results", registration.identifier)
        form.add_error(
            None if isinstance(form, ExploratorySchemeBuilder) else "scheme",
            exc.messages,
        )
        return _render_results_page(
            request, registration, exploratory=(results.pk, form), status=400
        )
    except BusyError as exc:
        messages.error(request, str(exc))
        busy = _render_results_page(request, registration, status=429)
        busy["Retry-After"] = str(exc.retry_after)
        return busy
    run.refresh_from_db()  # the queue's answer is recorded after commit
    if run.note:
        messages.warning(request, run.note)
    return redirect("analysis:run", run.pk)
