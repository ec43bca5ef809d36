"""Bounded JSON input: every JSON body and imported document passes here.

`json.loads` recurses once per nesting level, so a body of 100 000 "[" would
end in RecursionError (a 500); the depth is counted first, without recursion,
and anything deeper than `MAX_JSON_DEPTH` or larger than `MAX_JSON_BYTES` is
refused with a `ValueError` that says which limit and by how much.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from .text import control_character_problem

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class JSONLimitError(ValueError):
    """A JSON text over the depth or size limit."""


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in `text` (strings skipped)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def check_json_limits(text: str | bytes) -> None:
    size = len(text)
    if size > settings.MAX_JSON_BYTES:
        raise JSONLimitError(
            f"The JSON is {size:,} bytes; the limit is {settings.MAX_JSON_BYTES:,}."
        )
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    depth = json_depth(text)
    if depth > settings.MAX_JSON_DEPTH:
        raise JSONLimitError(
            f"The JSON is nested {depth} levels deep; the limit is "
            f"{settings.MAX_JSON_DEPTH}."
        )


def loads_bounded(text: str | bytes, **kwargs: Any) -> Any:
    """`json.loads` after `check_json_limits`, its strings free of control
    characters (``config.text``); raises ValueError either way."""
    check_json_limits(text)
    return _without_control_characters(json.loads(text, **kwargs))


def _without_control_characters(data: Any) -> Any:
    problem = control_character_problem(data)
    if problem:
        raise JSONLimitError(problem)
    return data


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser with the depth and size limits (400, not 500)."""

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read(settings.MAX_JSON_BYTES + 1) if stream is not None else b""
        try:
            check_json_limits(raw)
        except JSONLimitError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        data = super().parse(io.BytesIO(raw), media_type, parser_context)
        try:
            return _without_control_characters(data)
        except JSONLimitError as exc:
            raise ParseError(str(exc)) from None


WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON_KINDS = {
    list: "a list",
    str: "a string",
    bool: "true or false",
    type(None): "null",
}


def body_refusal(request: HttpRequest) -> str | None:
    """Why the JSON body of an API write is refused (None if it is an object,
    absent, not JSON, malformed or over a limit: the operation's own parser
    answers those, each with its reason). Every operation that reads a JSON
    body reads an object."""
    if request.method not in WRITES or request.content_type != "application/json":
        return None
    try:
        data = loads_bounded(request.body) if request.body.strip() else {}
    except (ValueError, RequestDataTooBig):
        return None
    if isinstance(data, dict):
        return None
    kind = JSON_KINDS.get(None if data is None else type(data), "a number")
    return f"The body must be a JSON object; this one is {kind}."


class JsonObjectBodyMiddleware:
    """Refuses (400, with the reason) a write under /api/ whose JSON body is not
    an object, before any view runs: one check for every operation, including
    those that read no body at all, so no work starts on garbage."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        if request.path.startswith("/api/"):
            reason = body_refusal(request)
            if reason is not None:
                return JsonResponse({"detail": reason}, status=400)
        return self.get_response(request)


def too_big() -> str:
    """The answer to a body over DATA_UPLOAD_MAX_MEMORY_SIZE."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return f"The body is larger than the limit ({limit:,} bytes)."
