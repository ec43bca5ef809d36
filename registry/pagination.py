"""API pagination: every list answers ``{count, next, previous, results}``.

Page-number pagination (``?page=``) for lists bounded by a person's work
(challenges, reviews, analyses); keyset pagination (``?cursor=``) for lists
that grow with the registry's age (registrations, audit events), so that the
last page costs what the first costs. ``page_size`` may be asked for, up to
``settings.API_MAX_PAGE_SIZE``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import pagination, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response


def _positive_int(request: Request, name: str) -> None:
    """400 unless the query parameter is absent or a whole number from 1."""
    raw = request.query_params.get(name)
    if raw is not None and not (raw.isascii() and raw.isdigit() and int(raw) >= 1):
        raise ValidationError({name: f"{raw[:20]!r} is not a whole number from 1."})


class _PageSize:
    page_size_query_param = "page_size"

    @property
    def max_page_size(self) -> int:
        return settings.API_MAX_PAGE_SIZE

    def get_page_size(self, request):
        # DRF falls back to the default on a bad value; the schema promises 400
        for name in ("page", "page_size"):
            _positive_int(request, name)
        return super().get_page_size(request)


class PageNumberPagination(_PageSize, pagination.PageNumberPagination):
    """``?page=N&page_size=M``; the default for every API list."""


class KeysetPagination(_PageSize, pagination.CursorPagination):
    """``?cursor=…``: a position in ``ordering``, never an offset into the table.

    The response keeps the shape of the other lists (with ``count``).
    """

    ordering: Sequence[str] = ("-created", "-id")

    def __init__(self, ordering: Sequence[str] | None = None):
        if ordering is not None:
            self.ordering = tuple(ordering)

    def paginate_queryset(self, queryset, request, view=None):
        self.count = queryset.order_by().count()
        return super().paginate_queryset(queryset, request, view)

    def get_paginated_response(self, data):
        return Response(
            {
                "count": self.count,
                "next": self.get_next_link(),
                "previous": self.get_previous_link(),
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema):
        response = super().get_paginated_response_schema(schema)
        response["properties"] = {
            "count": {"type": "integer", "example": 123},
            **response["properties"],
        }
        response["required"] = ["count", *response.get("required", [])]
        return response


def paginated(
    request: Request,
    items: QuerySet | list,
    render: Callable[[list], list[dict[str, Any]]],
    *,
    paginator: pagination.BasePagination | None = None,
    view=None,
) -> Response:
    """One page of `items` as ``{count, next, previous, results}``.

    `render` turns the page's objects into JSON data, all at once, so that it
    can fetch what the page needs in a constant number of queries.
    """
    paginator = paginator or PageNumberPagination()
    page = paginator.paginate_queryset(items, request, view=view)
    return paginator.get_paginated_response(render(list(page)))


def html_page(
    request: HttpRequest, items: QuerySet | list, per_page: int | None = None
):
    """The requested page (``?page=``) of an HTML list; out-of-range pages clamp.

    `templates/includes/_pagination.html` renders it (numbered, elided pages
    that keep the current filters).
    """
    paginator = Paginator(items, per_page or settings.PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    page.numbers = list(
        paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1)
    )
    return page


PAGE_PARAMETERS = [
    OpenApiParameter(
        "page",
        {"type": "integer", "minimum": 1},
        description="page number (from 1); past the last page: 404",
    ),
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1},
        description="rows per page; larger values are capped at API_MAX_PAGE_SIZE",
    ),
]
CURSOR_PARAMETER = OpenApiParameter(
    "cursor", str, description="keyset position (from `next` / `previous`)"
)


def paginated_schema(name: str, item: serializers.Serializer | None = None):
    """The OpenAPI shape of a page: ``{count, next, previous, results}``."""
    results = (
        item.__class__(many=True)
        if item is not None
        else serializers.ListField(child=serializers.DictField())
    )
    return inline_serializer(
        name=name,
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": results,
        },
    )
