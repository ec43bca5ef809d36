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
