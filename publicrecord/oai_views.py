"""The OAI-PMH endpoint `/oai` (GET, or POST with form-encoded arguments)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from .oai import oai_response


@csrf_exempt  # harvesters POST without a session; the endpoint changes nothing
@require_http_methods(["GET", "POST"])
def oai_endpoint(request: HttpRequest) -> HttpResponse:
    params = request.GET if request.method == "GET" else request.POST
    return HttpResponse(
        oai_response(dict(params.lists())), content_type="text/xml; charset=utf-8"
    )
