"""API v1: JSON export/import and the design-document PDF of a proposal."""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import reverse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.json_input import BoundedJSONParser
from config.site import absolute_url

from .access import get_challenge
from .exports import (
    MAX_IMPORT_BYTES,
    ImportRefusedError,
    build_design_data,
    export_json_text,
    import_challenge,
    parse_document,
    render_design_pdf,
)
from .exports.proposal_json import too_big_message
from .models import Call, Challenge
from .serializers import DesignDocumentSerializer, ImportedSerializer, RefusedSerializer


def download_name(challenge: Challenge, extension: str) -> str:
    stem = slugify(challenge.name)[:60] or "proposal"
    return f"challenge-{challenge.pk}-{stem}.{extension}"


def json_download(challenge: Challenge) -> HttpResponse:
    response = HttpResponse(
        export_json_text(challenge), content_type="application/json; charset=utf-8"
    )
    name = download_name(challenge, "json")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def pdf_download(challenge: Challenge, *, registry_url: str) -> HttpResponse:
    data = build_design_data(challenge, registry_url=registry_url)
    response = HttpResponse(render_design_pdf(data), content_type="application/pdf")
    name = download_name(challenge, "pdf")
    response["Content-Disposition"] = f'inline; filename="{name}"'
    return response


def design_pdf_url(challenge: Challenge) -> str:
    """The registry address printed on the cover (this document's own URL)."""
    return absolute_url(reverse("registry:design-pdf", args=[challenge.pk]))


def refused(errors: list[str], *, code: int = status.HTTP_400_BAD_REQUEST):
    detail = str(ImportRefusedError(errors))
    return Response({"detail": detail, "errors": errors}, status=code)


class ChallengeExportJson(APIView):
    permission_classes = [AllowAny]  # visibility is checked per object

    @extend_schema(
        summary="The proposal as a canonical JSON document (download)",
        responses={(200, "application/json"): DesignDocumentSerializer},
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        return json_download(get_challenge(request, pk))


class ChallengeDesignPdf(APIView):
    permission_classes = [AllowAny]  # visibility is checked per object

    @extend_schema(
        summary="The design-document PDF of the proposal",
        responses={(200, "application/pdf"): OpenApiTypes.BINARY},
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        challenge = get_challenge(request, pk)
        return pdf_download(challenge, registry_url=design_pdf_url(challenge))


def declared_length(request) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class ChallengeImport(APIView):
    """POST an export document (JSON body, or multipart field ``file``).

    Creates a new draft owned by the caller, in the document's call or in the
    call given as ``?call=<slug>``. 201 with the new challenge's ``id``; 400
    ``{"detail", "errors"}`` naming every bad field; 413 above 5 MB.
    """

    parser_classes = [BoundedJSONParser, MultiPartParser]

    @extend_schema(
        summary="Import an exported proposal as a new draft",
        parameters=[
            OpenApiParameter(
                "call", str, description="Slug of the call to import into."
            )
        ],
        request={
            "application/json": OpenApiTypes.OBJECT,
            "multipart/form-data": {
                "type": "object",
                "properties": {"file": {"type": "string", "format": "binary"}},
            },
        },
        responses={
            (201, "application/json"): ImportedSerializer,
            (400, "application/json"): RefusedSerializer,
            (413, "application/json"): RefusedSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        too_big = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
        if declared_length(request) > MAX_IMPORT_BYTES + 64 * 1024:
            return refused([too_big_message()], code=too_big)
        call = None
        slug = request.query_params.get("call")
        if slug:
            call = Call.objects.filter(slug=slug).first()
            if call is None:
                return refused([f"call: there is no call {slug!r} in this registry."])
        if (request.content_type or "").startswith("multipart/form-data"):
            upload = request.FILES.get("file")
            if upload is None:
                return refused(
                    ['file: attach the exported proposal as multipart field "file".']
                )
            if upload.size > MAX_IMPORT_BYTES:
                return refused([too_big_message()], code=too_big)
            raw = upload.read()
        else:
            stream = request.stream
            raw = stream.read(MAX_IMPORT_BYTES + 1) if stream is not None else b""
            if len(raw) > MAX_IMPORT_BYTES:
                return refused([too_big_message()], code=too_big)
        try:
            data = parse_document(raw)
            challenge = import_challenge(data, owner=request.user, call=call)
        except ImportRefusedError as exc:
            return refused(exc.errors)
        return Response(
            {
                "id": challenge.pk,
                "name": challenge.name,
                "call": challenge.call.slug,
                "status": challenge.status,
            },
            status=status.HTTP_201_CREATED,
        )
