"""Security headers Django does not set itself: a Content-Security-Policy
(no inline scripts or styles: the templates load everything from /static/) and
a Permissions-Policy switching off browser features the registry never uses."""

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render

from registry.lock import RegisteredDataError, record_refusal

from .text import form_problem

DEFAULT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.csp = getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_CSP)

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", self.csp)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        return response


class RegisteredDataMiddleware:
    """A refused change to registered data (admin, pages) answers 409 and is
    written to the audit log once the refused transaction has rolled back."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, RegisteredDataError):
            return None
        record_refusal(exception, actor=getattr(request, "user", None))
        return HttpResponse(str(exception), status=409, content_type="text/plain")


class ControlCharactersMiddleware:
    """Form fields and query strings with a control character (NUL had been a
    500 on PostgreSQL) are refused with 400 and the field, before any view
    stores them (``config.text``). API bodies are checked by their parsers
    (``config.json_input``), so API requests are left to them, and so is the
    OAI-PMH endpoint, whose protocol answers a bad argument with its own error
    (``badArgument``, HTTP 200)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problem = None
        if not request.path.startswith(("/api/", "/oai")):
            problem = form_problem(request.GET)
            if problem is None and request.method == "POST":
                problem = form_problem(request.POST)
        if problem:
            return render(request, "400.html", {"problem": problem}, status=400)
        return self.get_response(request)
