"""REST API for results and analysis runs (issue contract paths)."""

from __future__ import annotations

import uuid

import redis
from django.http import FileResponse, Http404, HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_schema import BUSY_RESPONSE
from config.json_input import BoundedJSONParser, loads_bounded
from registry.access import conflict, flag
from registry.serializers import RefusedSerializer
from registry.spreadsheet import csv_text

from . import ingest, outage, run_state, services, uploads
from .access import visible_registration, visible_results, visible_run
from .models import AnalysisRun, StartRequest
from .reports import descriptive_statistics, report_tables, table_columns
from .reports.data import EMPTY_TABLE_COLUMNS
from .serializers import (
    NOT_READY,
    RESULTS_UPLOAD,
    TABLES,
    AcceptedSerializer,
    AcceptedWhileDownSerializer,
    AnalysisRequestSerializer,
    AnalysisRunSerializer,
    DeviationSerializer,
    DuplicateResultsSerializer,
    KeyReusedSerializer,
    PreviewSerializer,
    ResultsStoredSerializer,
    StartRequestSerializer,
)

TABLE_NAMES = sorted([*EMPTY_TABLE_COLUMNS, "target_rankings"])


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
        "exploratory": run.exploratory,
        "seed": run.seed,
        "attempt": run.attempt,
        **run_state.run_fields(run),
    }


class ResultsUpload(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="Upload results: a preview, or with commit a new version",
        parameters=[
            OpenApiParameter("commit", bool),
            OpenApiParameter(
                "new_version",
                bool,
                description="Store a file identical to an earlier version anyway.",
            ),
            OpenApiParameter(
                "Idempotency-Key",
                str,
                location=OpenApiParameter.HEADER,
                description="A retry with the same key returns the version the "
                "first request stored (200) instead of storing another.",
            ),
        ],
        request={"multipart/form-data": RESULTS_UPLOAD},
        responses={
            200: OpenApiResponse(
                PolymorphicProxySerializer(
                    "UploadAnswer",
                    [PreviewSerializer, ResultsStoredSerializer],
                    resource_type_field_name=None,
                ),
                description="Without commit: the preview. With commit and a "
                "reused Idempotency-Key: the version stored the first time.",
            ),
            201: ResultsStoredSerializer,
            400: RefusedSerializer,
            409: DuplicateResultsSerializer,
            422: KeyReusedSerializer,
        },
    )
    def post(self, request: Request, identifier: str) -> Response:
        registration = visible_registration(request, identifier)
        uploads.require_uploader(request.user, registration)
        upload = request.FILES.get("file")
        if upload is None:
            return Response(
                {"detail": 'Send the results as multipart field "file".', "errors": []},
                status=400,
            )
        try:
            teams = parse_teams(request.data.get("teams"))
            table = ingest.parse_upload(upload.name, upload.read())
            if not flag(request, "commit"):
                return Response(uploads.preview(registration, table).to_dict())
            results = uploads.commit(
                registration=registration,
                table=table,
                name=upload.name,
                actor=request.user,
                teams=teams,
                idempotency_key=request.headers.get("Idempotency-Key", "").strip(),
                new_version=flag(request, "new_version"),
            )
        except ingest.UploadError as exc:
            return Response({"detail": REFUSED, "errors": exc.errors}, status=400)
        except ingest.DuplicateResultsError as exc:
            return Response(_duplicate_body(exc), status=status.HTTP_409_CONFLICT)
        except ingest.IdempotencyKeyReusedError as exc:
            return Response({"detail": str(exc), "version": exc.version.number}, 422)
        response = Response(
            {
                "id": results.pk,
                "sha256": results.sha256,
                "version": results.number,
                "rows": results.row_count,
            },
            status=status.HTTP_200_OK if results.replayed else status.HTTP_201_CREATED,
        )
        if results.replayed:
            response["Idempotent-Replayed"] = "true"
        return response


REFUSED = "The results file was refused; nothing was stored."


def _duplicate_body(exc: ingest.DuplicateResultsError) -> dict:
    return {
        "detail": str(exc),
        "version": exc.version.number,
        "id": exc.version.pk,
        "sha256": exc.version.sha256,
    }


class AnalysisCreate(APIView):
    parser_classes = [BoundedJSONParser]

    @extend_schema(
        summary="Start the registered (or an exploratory) analysis",
        description="While the database is down, a start from an API token "
        "that authenticated recently is accepted provisionally (202 with a "
        "request to check) and decided in full when the database is back "
        "(docs/operations.md); otherwise 503.",
        request=AnalysisRequestSerializer,
        responses={
            202: OpenApiResponse(
                PolymorphicProxySerializer(
                    "StartAnswer",
                    [AcceptedSerializer, AcceptedWhileDownSerializer],
                    resource_type_field_name=None,
                ),
                description="The run (queued); or, the database being down, "
                "the request to check (Location).",
            ),
            429: BUSY_RESPONSE,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        results = visible_results(request, pk)
        data = request.data  # an object: config.json_input refuses the rest
        run = services.start_analysis(
            results=results,
            actor=request.user,
            scheme=data.get("scheme"),
            schemes=data.get("schemes"),
        )
        run.refresh_from_db()  # the queue's answer is recorded after commit
        return Response(_accepted(run), status=status.HTTP_202_ACCEPTED)

    def handle_exception(self, exc: Exception) -> Response:
        """The database unreachable: accept provisionally when we can
        (analysis.outage); every other failure as usual (503 for this one)."""
        if outage.database_unreachable(exc):
            entry = outage.spool_start(self.request, results_pk=self.kwargs["pk"])
            if entry is not None:
                return _accepted_while_down(entry)
        return super().handle_exception(exc)


ACCEPTED_WHILE_DOWN = (
    "accepted while the database is unavailable; the run is created and "
    "checked when it returns"
)


def _accepted_while_down(entry: outage.SpooledStart) -> Response:
    check = reverse("api:analysis-request", args=[entry.request])
    body = {
        "status": "accepted",
        "request": str(entry.request),
        "detail": ACCEPTED_WHILE_DOWN,
        "check": check,
    }
    return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": check})


class StartRequestDetail(APIView):
    """What became of a start accepted while the database was down."""

    @extend_schema(
        summary="An analysis start accepted while the database was down",
        responses=StartRequestSerializer,
    )
    def get(self, request: Request, request_id: uuid.UUID) -> Response:
        decided = StartRequest.objects.filter(pk=request_id, user=request.user).first()
        if decided is not None:
            return Response(_start_request_data(decided))
        try:
            spooled = outage.pending(request.user.pk, request_id)
        except redis.RedisError:
            raise SpoolUnavailable from None
        if spooled is None:
            raise Http404("No such analysis request.")
        return Response(
            {
                "request": str(request_id),
                "status": "pending",
                "run": None,
                "detail": "waiting for the database; checked when it returns",
            }
        )


class SpoolUnavailable(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The spool of accepted requests does not answer; try again."


def _start_request_data(decided: StartRequest) -> dict:
    if decided.run_id is None:
        state, detail = "refused", decided.refusal
    else:
        state, detail = "started", f"analysis {decided.run_id} was started"
    return {
        "request": str(decided.pk),
        "status": state,
        "run": decided.run_id,
        "detail": detail,
    }


def _accepted(run: AnalysisRun) -> dict:
    body = {"id": run.pk, "status": run.status}
    if run.note == run_state.QUEUE_DOWN_NOTE:
        body["detail"] = "queued; it starts when the job queue is back"
    return body


class AnalysisRetry(APIView):
    """Queue a failed run again (organizers and chairs); 409 unless failed."""

    @extend_schema(
        summary="Queue a failed analysis again",
        request=None,
        responses={202: AcceptedSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        run = visible_run(request, pk)
        try:
            run = services.retry_analysis(run=run, actor=request.user)
        except services.NotRetryableError as exc:
            return conflict(exc)
        run.refresh_from_db()
        return Response(_accepted(run), status=status.HTTP_202_ACCEPTED)


class AnalysisDetail(APIView):
    @extend_schema(
        summary="An analysis run: status, progress and output",
        responses=AnalysisRunSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(run_data(visible_run(request, pk)))


class AnalysisDeviations(APIView):
    @extend_schema(
        summary="Deviations of the analysis from the registered design",
        responses=DeviationSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        run = visible_run(request, pk)
        return Response(run.deviations)


class AnalysisReport(APIView):
    @extend_schema(
        summary="The analysis report (PDF); 409 until it is ready",
        responses={(200, "application/pdf"): OpenApiTypes.BINARY, 409: NOT_READY},
    )
    def get(self, request: Request, pk: int) -> FileResponse | Response:
        run = visible_run(request, pk)
        if not run.report:
            return conflict(f"The report is not ready (status {run.status}).")
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
        summary="The report's tables: all as JSON, or one (`table`) as CSV",
        parameters=[
            OpenApiParameter(
                "table",
                str,
                enum=TABLE_NAMES,
                description="One table's name: that table as CSV.",
            )
        ],
        responses={
            (200, "application/json"): TABLES,
            (200, "text/csv"): OpenApiTypes.STR,
            409: NOT_READY,
        },
    )
    def get(self, request: Request, pk: int) -> HttpResponse | Response:
        run = visible_run(request, pk)
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
        response = HttpResponse(
            csv_text(tables[name], columns=table_columns(tables, name)),
            content_type="text/csv; charset=utf-8",
        )
        response["Content-Disposition"] = (
            f'attachment; filename="analysis-{run.pk}-{name}.csv"'
        )
        return response
