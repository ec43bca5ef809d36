"""API-wide behaviour: one error shape for every endpoint, and the API root."""

from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from django.urls import reverse
from django.views.defaults import page_not_found
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from analysis.admission import BusyError
from config.json_input import too_big
from registry.lock import RegisteredDataError, record_refusal


def exception_handler(exc, context):
    """Turn model/service `ValidationError`s into 400s instead of 500s, a body
    over the size limit into a JSON 413, a refused change to registered data
    into an audited 409, and a run refused for want of capacity into a 429
    with Retry-After."""
    if isinstance(exc, RegisteredDataError):
        request = context.get("request")
        record_refusal(exc, actor=getattr(request, "user", None))
        return Response({"detail": str(exc)}, status=409)
    if isinstance(exc, BusyError):  # too much work queued (analysis.admission)
        return Response(
            {"detail": str(exc)},
            status=429,
            headers={"Retry-After": str(exc.retry_after)},
        )
    if isinstance(exc, RequestDataTooBig):
        # Django's own answer would be an HTML 400; the schema promises JSON
        return Response({"detail": too_big()}, status=413)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        exc = exceptions.ValidationError(detail)
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(response.data, list):
        # one error shape: an object, never a bare list of messages
        response.data = {"detail": [str(message) for message in response.data]}
    return response


def not_found(request, exception=None):
    """404 for an unknown URL: JSON under /api/, the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "No such resource."}, status=404)
    return page_not_found(request, exception)


# The entry points of /api/v1/ (every other resource is reached from these).
ENTRY_POINTS = {
    "registrations": "api:registrations",
    "challenges": "api:challenges",
    "parameters": "api:parameters",
    "statistics": "api:statistics",
    "conflicts": "api:conflicts",
    "me": "api:me",
    "schema": "schema",
}


class ApiRoot(APIView):
    """`GET /api/v1/`: where to start, as absolute URLs (no login)."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="The API's entry points",
        responses=inline_serializer(
            "EntryPoints", {name: serializers.URLField() for name in ENTRY_POINTS}
        ),
    )
    def get(self, request: Request) -> Response:
        return Response(
            {
                name: request.build_absolute_uri(reverse(route))
                for name, route in ENTRY_POINTS.items()
            }
        )
