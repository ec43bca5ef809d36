"""Test settings: fast hashing, in-memory mail, synchronous jobs."""

from .base import *  # noqa: F403

SECRET_KEY = "test-only-key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
JOBS_SYNCHRONOUS = True
