"""Pages: metadata upload (preview → commit), model specification, runs."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from analysis.access import visible_results
from analysis.admission import BusyError
from analysis.ingest import CheckedResults
from analysis.models import AnalysisStatus
from analysis.services import can_upload_results, results_table

from . import files, services
from .access import visible_metadata, visible_run
from .design import named_columns
from .forms import MetadataCommitForm, MetadataUploadForm, ModelSpecForm
from .models import CaseModelFileKind, CaseModelRun
from .summary import failure_rate_table, findings

PLOTS = (CaseModelFileKind.GLOBAL, CaseModelFileKind.PER_ALGORITHM)


def spec_form(
    results, version, data=None, *, table: CheckedResults | None = None
) -> ModelSpecForm:
    frame = results_table(results, in_hand=table).frame
    metadata = services.metadata_frame(version)
    columns = [c for c in metadata.columns if c not in ("case", "task")]
    answers = services.registered_answers(results)
    return ModelSpecForm(
        data,
        tasks=sorted(frame["task"].unique()),
        metrics=sorted(frame["metric"].unique()),
        columns=columns,
        metadata=metadata,
        prefill=named_columns(answers, columns),
        prefix="spec",
    )


def _page(request, results, *, upload_form=None, errors=(), form=None, status=200):
    versions = list(results.case_metadata_versions.order_by("-number"))
    latest = versions[0] if versions else None
    context = {
        "registration": results.registration,
        "results": results,
        "versions": versions,
        "latest": latest,
        "answers": services.registered_answers(results),
        "can_upload": can_upload_results(request.user, results.registration),
        "upload_form": upload_form or MetadataUploadForm(),
        "errors": list(errors),
        "spec_form": form or (spec_form(results, latest) if latest else None),
        "runs": services.runs_of(results),
        "crumb": f"Case characteristics · results v{results.number}",
    }
    return render(request, "characteristics/page.html", context, status=status)


@login_required
@require_GET
def page(request, pk: int):
    return _page(request, visible_results(request, pk))


def _require_uploader(request, results) -> None:
    if not can_upload_results(request.user, results.registration):
        raise PermissionDenied("Only the organizers upload case metadata.")


@login_required
@require_POST
def upload(request, pk: int):
    """Step 1: read and check the table; show the checks, store nothing."""
    results = visible_results(request, pk)
    _require_uploader(request, results)
    form = MetadataUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, results, upload_form=form, status=400)
    file = form.cleaned_data["file"]
    try:
        frame = services.read_metadata_upload(file.name, file.read())
    except ValidationError as exc:
        return _page(
            request, results, upload_form=form, errors=exc.messages, status=400
        )
    commit = MetadataCommitForm(
        initial={
            "content": frame.to_csv(index=False, lineterminator="\n"),
            "name": file.name,
        }
    )
    context = {
        "registration": results.registration,
        "results": results,
        "name": file.name,
        "checks": services.preview_metadata(results, frame),
        "commit_form": commit,
        "crumb": "Preview of case metadata",
    }
    return render(request, "characteristics/preview.html", context)


@login_required
@require_POST
def commit(request, pk: int):
    """Step 2: check the previewed table again and store it as a new version."""
    results = visible_results(request, pk)
    _require_uploader(request, results)
    form = MetadataCommitForm(request.POST)
    if not form.is_valid():
        return _page(
            request, results, errors=["The preview expired; upload again."], status=400
        )
    name = form.cleaned_data["name"]
    try:
        frame = services.read_metadata_upload(
            "preview.csv", form.cleaned_data["content"].encode("utf-8")
        )
        version = services.commit_metadata(
            results=results, frame=frame, original_name=name, actor=request.user
        )
    except ValidationError as exc:
        return _page(request, results, errors=exc.messages, status=400)
    messages.success(
        request,
        f"Stored case metadata version {version.number} ({version.row_count} rows).",
    )
    return redirect("characteristics:page", results.pk)


@login_required
@require_POST
def start(request, pk: int):
    version = visible_metadata(request, pk)
    results = version.results
    table = results_table(results)  # read once: the form, the checks, the fit
    form = spec_form(results, version, request.POST, table=table)
    if not form.is_valid():
        return _page(request, results, form=form, status=400)
    try:
        run = services.start_case_model_run(
            metadata=version, spec=form.spec(), actor=request.user, table=table
        )
    except ValidationError as exc:
        form.add_error(None, exc.messages)
        return _page(request, results, form=form, status=400)
    except BusyError as exc:
        form.add_error(None, str(exc))
        busy = _page(request, results, form=form, status=429)
        busy["Retry-After"] = str(exc.retry_after)
        return busy
    return redirect("characteristics:run", run.pk)


def _body(run) -> dict:
    output = run.output
    context = {"run": run}
    if output:
        global_model = output["models"][0]
        context.update(
            global_findings=findings(output, global_model),
            global_model=global_model,
            per_algorithm=[
                (m, findings(output, m))
                for m in output["models"]
                if m["scope"] == "algorithm"
            ],
            rates=failure_rate_table(output),
            failure=output["spec"]["outcome"]["type"] == "failure",
        )
    return context


@login_required
@require_GET
def run_page(request, pk: int):
    run = visible_run(request, pk)
    context = {
        "registration": run.metadata.results.registration,
        "finished": run.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED),
        "crumb": f"Case characteristics run {run.pk}",
        "status_url": reverse("api:case-model", args=[run.pk]),
        **_body(run),
    }
    return render(request, "characteristics/run.html", context)


@login_required
@require_GET
def run_body(request, pk: int):
    return render(
        request, "characteristics/_run_body.html", _body(visible_run(request, pk))
    )


@login_required
@require_GET
def run_plot(request, pk: int, kind: str):
    """A forest plot, as stored (drawn once: ``characteristics.files``)."""
    run = visible_run(request, pk)
    if kind not in PLOTS or not run.output or kind not in files.kinds_of(run):
        raise Http404("No such figure.")
    response = files.file_response(run, kind)
    response["Cache-Control"] = "private, max-age=3600"
    return response


def _finished_run(request, pk: int) -> CaseModelRun:
    """A visible run that has an output (the downloads need one)."""
    run = visible_run(request, pk)
    if not run.output:
        raise Http404("The run has no output yet.")
    return run


@login_required
@require_GET
def run_output(request, pk: int):
    run = _finished_run(request, pk)
    body = json.dumps(run.output, indent=2, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="case-models-{run.pk}.json"'
    )
    return response


@login_required
@require_GET
def run_report(request, pk: int):
    run = _finished_run(request, pk)
    name = f"{run.metadata.results.registration.identifier}-case-models-{run.pk}.pdf"
    return files.file_response(
        run, CaseModelFileKind.REPORT, as_attachment=True, filename=name
    )
