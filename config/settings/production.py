"""Production: DEBUG off, secrets required, HTTPS everywhere."""

import os

# Production is never DEBUG, whatever the environment says (the Makefile's
# DEBUG=1 included): base then requires SECRET_KEY.
os.environ["DEBUG"] = "false"

from .base import *  # noqa: F403
from .base import DATABASES, env_bool

DEBUG = False
# No loopback default in production: unset, `check --deploy` says so.
SITE_URL = os.environ.get("SITE_URL", "").rstrip("/")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
# The orchestrator probes these over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^health/$", r"^ready/$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Off only for a local plain-HTTP trial (compose without a TLS proxy).
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "config.storage.StaticFilesStorage"},
}
# Persistent database connections, checked before reuse (a restarted PostgreSQL
# or a dropped connection costs one reconnect, not a failed request).
DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("CONN_MAX_AGE", "60"))
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
