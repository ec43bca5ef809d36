"""API-wide behaviour: one error shape for every endpoint."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from django.views.defaults import page_not_found
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from registry.lock import RegisteredDataError, record_refusal


def exception_handler(exc, context):
    """Turn model/service `ValidationError`s into 400s instead of 500s, and a
    refused change to registered data into an audited 409."""
    if isinstance(exc, RegisteredDataError):
        request = context.get("request")
        record_refusal(exc, actor=getattr(request, "user", None))
        return Response({"detail": str(exc)}, status=409)
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
