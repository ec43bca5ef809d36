"""REST API: case metadata versions and case-characteristics model runs."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis import run_state
from analysis.access import visible_results
from analysis.serializers import NOT_READY, TABLE_UPLOAD
from analysis.services import can_upload_results
from config.api_schema import BUSY_RESPONSE
from config.json_input import BoundedJSONParser
from registry.access import conflict, flag
from registry.serializers import RefusedSerializer

from . import files, services
from .access import visible_metadata, visible_run
from .models import CaseMetadataVersion, CaseModelFileKind, CaseModelRun
from .serializers import (
    CaseModelAcceptedSerializer,
    CaseModelRunSerializer,
    MetadataPreviewSerializer,
    MetadataVersionSerializer,
)


def _version_data(version: CaseMetadataVersion) -> dict:
    return {
        "id": version.pk,
        "results": version.results_id,
        "version": version.number,
        "sha256": version.sha256,
        "rows": version.row_count,
        "original_name": version.original_name,
        "checks": version.checks,
        "created": version.created.isoformat(),
    }


def _run_data(run: CaseModelRun) -> dict:
    return {
        "id": run.pk,
        "metadata": run.metadata_id,
        "exploratory": run.exploratory,
        "announcement": run.announcement,
        "spec": run.spec,
        **run_state.run_fields(run),
    }


def _refused(exc: ValidationError) -> Response:
    return Response(
        {"detail": "Refused; nothing was stored.", "errors": exc.messages},
        status=status.HTTP_400_BAD_REQUEST,
    )


class CaseMetadata(APIView):
    """GET: the metadata versions of a results version. POST (multipart
    ``file``): the checks (preview); with ``?commit=true`` a new version."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="The case metadata versions of a results version",
        responses=MetadataVersionSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        results = visible_results(request, pk)
        versions = results.case_metadata_versions.order_by("number")
        return Response([_version_data(v) for v in versions])

    @extend_schema(
        summary="Upload case metadata: the checks, or with commit a version",
        parameters=[OpenApiParameter("commit", bool)],
        request={"multipart/form-data": TABLE_UPLOAD},
        responses={
            200: OpenApiResponse(
                MetadataPreviewSerializer, description="The checks; nothing stored."
            ),
            201: MetadataVersionSerializer,
            400: RefusedSerializer,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        results = visible_results(request, pk)
        if not can_upload_results(request.user, results.registration):
            raise PermissionDenied("Only the organizers upload case metadata.")
        upload = request.FILES.get("file")
        if upload is None:
            return _refused(
                ValidationError('Send the table as multipart field "file".')
            )
        try:
            frame = services.read_metadata_upload(upload.name, upload.read())
        except ValidationError as exc:
            return _refused(exc)
        if not flag(request, "commit"):
            return Response(services.preview_metadata(results, frame))
        version = services.commit_metadata(
            results=results, frame=frame, original_name=upload.name, actor=request.user
        )
        return Response(_version_data(version), status=status.HTTP_201_CREATED)


class CaseModelCreate(APIView):
    """POST a specification (contract §2) as the JSON body: queues the fit."""

    parser_classes = [BoundedJSONParser]  # 100 000-deep JSON had been a 500

    @extend_schema(
        summary="Fit a case characteristics model (docs/case-models.md §2)",
        request=OpenApiTypes.OBJECT,
        responses={
            202: CaseModelAcceptedSerializer,
            400: RefusedSerializer,
            429: BUSY_RESPONSE,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        version = visible_metadata(request, pk)
        try:
            run = services.start_case_model_run(
                metadata=version, spec=request.data, actor=request.user
            )
        except ValidationError as exc:
            return _refused(exc)
        return Response(
            {"id": run.pk, "status": run.status, "exploratory": run.exploratory},
            status=status.HTTP_202_ACCEPTED,
        )


class CaseModelDetail(APIView):
    @extend_schema(
        summary="A case-characteristics model run", responses=CaseModelRunSerializer
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(_run_data(visible_run(request, pk)))


class CaseModelReport(APIView):
    @extend_schema(
        summary="The model run's report (PDF); 409 until there is output",
        responses={(200, "application/pdf"): OpenApiTypes.BINARY, 409: NOT_READY},
    )
    def get(self, request: Request, pk: int) -> FileResponse | Response:
        run = visible_run(request, pk)
        if not run.output:
            return conflict(f"The run has no output (status {run.status}).")
        return files.file_response(
            run,
            CaseModelFileKind.REPORT,
            as_attachment=True,
            filename=f"case-models-{run.pk}.pdf",
        )
