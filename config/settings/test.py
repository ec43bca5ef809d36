"""Test settings: fast hashing, in-memory mail, synchronous jobs."""

import os
import tempfile
from pathlib import Path

from .base import *  # noqa: F403

SECRET_KEY = "test-only-key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# The real-worker tests start workers with JOBS_SYNCHRONOUS=0 so they fan out.
JOBS_SYNCHRONOUS = env_bool("JOBS_SYNCHRONOUS", True)  # noqa: F405
ANALYSIS_REPORT_FIGURES = False  # tests that check figures switch them on
# The fault suite shares one media directory with its worker processes.
MEDIA_ROOT = Path(
    os.environ.get("TEST_MEDIA_ROOT") or tempfile.mkdtemp(prefix="registry-test-media-")
)
