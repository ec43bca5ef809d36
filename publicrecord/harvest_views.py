"""Endpoints for machines: OAI-PMH (`/oai`, GET or POST with form-encoded
arguments), the sitemaps and robots.txt (`crawl.py`)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from .crawl import (
    pages_sitemap,
    registrations_sitemap,
    results_sitemap,
    robots_txt,
    sitemap_index,
)
from .oai import oai_response

XML = "application/xml; charset=utf-8"


@csrf_exempt  # harvesters POST without a session; the endpoint changes nothing
@require_http_methods(["GET", "POST"])
def oai_endpoint(request: HttpRequest) -> HttpResponse:
    params = request.GET if request.method == "GET" else request.POST
    return HttpResponse(
        oai_response(dict(params.lists())), content_type="text/xml; charset=utf-8"
    )


@require_GET
def sitemap(request: HttpRequest) -> HttpResponse:
    return HttpResponse(sitemap_index(), content_type=XML)


@require_GET
def sitemap_pages(request: HttpRequest) -> HttpResponse:
    return HttpResponse(pages_sitemap(), content_type=XML)


def _sitemap_page(data: bytes | None) -> HttpResponse:
    if data is None:
        raise Http404("No such sitemap page.")
    return HttpResponse(data, content_type=XML)


@require_GET
def sitemap_registrations(request: HttpRequest, page: int) -> HttpResponse:
    return _sitemap_page(registrations_sitemap(page))


@require_GET
def sitemap_results(request: HttpRequest, page: int) -> HttpResponse:
    return _sitemap_page(results_sitemap(page))


@require_GET
def robots(request: HttpRequest) -> HttpResponse:
    return HttpResponse(robots_txt(), content_type="text/plain; charset=utf-8")
