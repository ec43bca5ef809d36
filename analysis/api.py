"""REST API for results and analysis runs (issue contract paths)."""

from __future__ import annotations

import io

import pandas as pd
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.json_input import BoundedJSONParser, loads_bounded
from registry.models import Registration

from . import ingest, run_state, services
from .models import AnalysisRun, ResultsVersion
from .reports import descriptive_statistics, report_tables


def get_registration_for_results(request: Request, identifier: str) -> Registration:
    registration = get_object_or_404(
        Registration.objects.select_related("challenge"), identifier=identifier
    )
    if not services.can_see_results(request.user, registration):
        raise Http404
    return registration


def get_results(request: Request, pk: int) -> ResultsVersion:
    results = get_object_or_404(
        ResultsVersion.objects.select_related("registration__challenge"), pk=pk
    )
    if not services.can_see_results(request.user, results.registration):
        raise Http404
    return results


def get_run(request: Request, pk: int) -> AnalysisRun:
    run = get_object_or_404(
        AnalysisRun.objects.select_related("results__registration__challenge"), pk=pk
    )
    if not services.can_see_results(request.user, run.results.registration):
        raise Http404
    return run


def parse_teams(raw) -> dict[str, str]:
    """Team affiliations: a JSON object {team: institution} (form field or body)."""
    if raw in (None, ""):
        return {}
    if isinstance(raw, str):
        try:
            raw = loads_bounded(raw)
        except ValueError:
            raise ingest.UploadError(['"teams" must be a JSON object.']) from None
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
    ):
        raise ingest.UploadError(['"teams" must map team names to institutions.'])
    return {k.strip(): v.strip() for k, v in raw.items()}


def run_data(run: AnalysisRun) -> dict:
    return {
        "id": run.pk,
        "results": run.results_id,
        "status": run.status,
        "progress": run.progress,
        "exploratory": run.exploratory,
        "seed": run.seed,
        "engine_version": run.engine_version,
        "error": run.error or None,
        "note": run.note or None,
        "attempt": run.attempt,
        "created": run.created.isoformat(),
        "output": run.output,
    }


class ResultsUpload(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        parameters=[OpenApiParameter("commit", bool)],
        request={"multipart/form-data": OpenApiTypes.OBJECT},
        responses={
            200: OpenApiTypes.OBJECT,
            201: OpenApiTypes.OBJECT,
            400: OpenApiTypes.OBJECT,
        },
    )
    def post(self, request: Request, identifier: str) -> Response:
        registration = get_registration_for_results(request, identifier)
        if not services.can_upload_results(request.user, registration):
            raise PermissionDenied("Only the organizers upload results.")
        upload = request.FILES.get("file")
        if upload is None:
            return Response(
                {"detail": 'Send the results as multipart field "file".', "errors": []},
                status=400,
            )
        try:
            teams = parse_teams(request.data.get("teams"))
            raw = ingest.read_upload(upload.name, upload.read())
            frame = ingest.validated(raw)
        except ingest.UploadError as exc:
            return Response(
                {
                    "detail": "The results file was refused; nothing was stored.",
                    "errors": exc.errors,
                },
                status=400,
            )
        if request.query_params.get("commit", "").lower() not in ("1", "true", "yes"):
            design = services.latest_design(registration)
            return Response(ingest.preview_results(frame, design).to_dict())
        results = ingest.commit_results(
            registration=registration,
            raw=raw,
            original_name=upload.name,
            actor=request.user,
            teams=teams,
        )
        return Response(
            {
                "id": results.pk,
                "sha256": results.sha256,
                "version": results.number,
                "rows": results.row_count,
            },
            status=status.HTTP_201_CREATED,
        )


class AnalysisCreate(APIView):
    parser_classes = [BoundedJSONParser]

    @extend_schema(request=OpenApiTypes.OBJECT, responses={202: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        results = get_results(request, pk)
        data = request.data if isinstance(request.data, dict) else {}
        run = services.start_analysis(
            results=results,
            actor=request.user,
            scheme=data.get("scheme"),
            schemes=data.get("schemes"),
        )
        run.refresh_from_db()  # the queue's answer is recorded after commit
        return Response(_accepted(run), status=status.HTTP_202_ACCEPTED)


def _accepted(run: AnalysisRun) -> dict:
    body = {"id": run.pk, "status": run.status}
    if run.note == run_state.QUEUE_DOWN_NOTE:
        body["detail"] = "queued; it starts when the job queue is back"
    return body


class AnalysisRetry(APIView):
    """Queue a failed run again (organizers and chairs); 409 unless failed."""

    @extend_schema(request=None, responses={202: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        run = get_run(request, pk)
        try:
            run = services.retry_analysis(run=run, actor=request.user)
        except services.NotRetryableError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        run.refresh_from_db()
        return Response(_accepted(run), status=status.HTTP_202_ACCEPTED)


class AnalysisDetail(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, pk: int) -> Response:
        return Response(run_data(get_run(request, pk)))


class AnalysisDeviations(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, pk: int) -> Response:
        run = get_run(request, pk)
        return Response(run.deviations)


class AnalysisReport(APIView):
    @extend_schema(responses={(200, "application/pdf"): OpenApiTypes.BINARY})
    def get(self, request: Request, pk: int) -> FileResponse | Response:
        run = get_run(request, pk)
        if not run.report:
            return Response(
                {"detail": f"The report is not ready (status {run.status})."},
                status=status.HTTP_409_CONFLICT,
            )
        name = f"{run.results.registration.identifier}-analysis-{run.pk}.pdf"
        return FileResponse(
            run.report.open("rb"),
            as_attachment=True,
            filename=name,
            content_type="application/pdf",
        )


class AnalysisTables(APIView):
    """The report's numbers: JSON (all tables) or CSV (`?table=<name>`)."""

    @extend_schema(
        parameters=[OpenApiParameter("table", str), OpenApiParameter("format", str)],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, pk: int) -> HttpResponse | Response:
        run = get_run(request, pk)
        if run.output is None:
            return Response({"detail": "The analysis has no output yet."}, status=409)
        tables = report_tables(
            run.output,
            statistics=descriptive_statistics(services.results_frame(run.results)),
        )
        name = request.query_params.get("table")
        if name is None:
            return Response(tables)
        if name not in tables:
            return Response({"table": [f"Choose one of {sorted(tables)}."]}, status=400)
        rows = tables[name]
        buffer = io.StringIO()
        pd.DataFrame(rows).to_csv(buffer, index=False, lineterminator="\n")
        response = HttpResponse(buffer.getvalue(), content_type="text/csv")
        response["Content-Disposition"] = (
            f'attachment; filename="analysis-{run.pk}-{name}.csv"'
        )
        return response
