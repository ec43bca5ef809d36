"""A request's body arrives whole, and its client is watched while an upload
is parsed.

Under gunicorn's sync workers a request cannot be told that its client went
away: the worker reads the body, runs the view, and only finds the socket
closed when it writes the answer. What can be done honestly (issue 30,
docs/security.md):

- **Cut short while uploading.** A client that closes the connection before
  its body is in makes the server's input stream end early; nothing marked
  that, so the multipart parser handed the view what had arrived: a results
  file whose ``teams`` part never came was stored without it (201).
  :class:`UploadClientMiddleware` makes the stream refuse to end before
  ``Content-Length`` (400, :class:`BodyCutShortError`) before any view or
  parser sees a byte of a partial body.
- **Gone while the upload is parsed.** The body is in, so the client's socket
  has nothing more to say; reading it returns end-of-file once the client has
  closed it. gunicorn puts the socket in the WSGI environ
  (``gunicorn.socket``); the middleware keeps it for this request, and the
  parse asks :func:`client_gone` between row batches
  (``analysis.xlsx.Deadline``), stopping at the first answer yes. Behind a
  proxy the socket is the proxy's: nginx closes it when its client goes
  (``proxy_ignore_client_abort off``, the default). Under another server
  (``runserver``, another WSGI server) nothing is watched, and the parse is
  bounded by ``MAX_UPLOAD_PARSE_SECONDS`` alone.
"""

from __future__ import annotations

import socket
from contextvars import ContextVar

from django.core.exceptions import BadRequest
from django.http import JsonResponse

_client: ContextVar[socket.socket | None] = ContextVar("client", default=None)


class BodyCutShortError(BadRequest):
    """The body ended before Content-Length: the client went away (400)."""


class _WholeBody:
    """The request's stream, refusing to end before ``expected`` bytes.

    A WSGI input returns fewer bytes than asked only at its end (gunicorn's
    and the standard library's readers both loop until then)."""

    def __init__(self, stream, expected: int):
        self._stream = stream
        self.expected = expected
        self.received = 0

    def _wanted(self, size) -> int:
        remaining = self.expected - self.received
        return remaining if size is None or size < 0 else min(size, remaining)

    def _count(self, data: bytes, *, short: bool) -> bytes:
        self.received += len(data)
        if short and self.received < self.expected:
            raise BodyCutShortError(
                f"The request body ended after {self.received} of "
                f"{self.expected} bytes (the client closed the connection)."
            )
        return data

    def read(self, size=-1, /) -> bytes:
        wanted = self._wanted(size)
        data = self._stream.read(size)
        return self._count(data, short=len(data) < wanted)

    def readline(self, size=-1, /) -> bytes:
        wanted = self._wanted(size)
        line = self._stream.readline(size)
        return self._count(line, short=len(line) < wanted and not line.endswith(b"\n"))

    def close(self) -> None:
        self._stream.close()


class UploadClientMiddleware:
    """Refuse a body cut short; keep the client's socket for the parse."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            expected = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            expected = 0
        stream = getattr(request, "_stream", None)  # WSGIRequest's input
        if expected > 0 and stream is not None:
            request._stream = _WholeBody(stream, expected)
        token = _client.set(request.META.get("gunicorn.socket"))
        try:
            return self.get_response(request)
        finally:
            _client.reset(token)

    def process_exception(self, request, exception):
        """The API's answer to a body cut short is JSON, as its other 400s
        (pages get Django's 400 page)."""
        if isinstance(exception, BodyCutShortError) and request.path.startswith(
            "/api/"
        ):
            message = str(exception)
            return JsonResponse({"detail": message, "errors": [message]}, status=400)
        return None


def client_gone() -> bool:
    """Whether this request's client has closed its connection (False when
    the server does not say, see the module's docstring)."""
    client = _client.get()
    return client is not None and connection_closed(client)


def connection_closed(client: socket.socket) -> bool:
    """Whether the peer of `client` has closed it: a peek at its next byte
    reads end-of-file (the request's body has been read, so a client still
    connected has nothing to say)."""
    try:
        return client.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False  # nothing to read: still connected
    except ValueError:
        return False  # a TLS socket takes no flags: cannot tell
    except OSError:
        return True  # reset by the peer, or closed
