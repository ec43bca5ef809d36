"""Test settings: fast hashing, in-memory mail, synchronous jobs."""

import os
import tempfile
from pathlib import Path

# base.py refuses to start without a key when DEBUG is off (its default)
os.environ.setdefault("SECRET_KEY", "test-only-key")

from .base import *  # noqa: F403

SECRET_KEY = "test-only-key"
# Static files from the apps' folders, as under DEBUG (no collectstatic in tests).
WHITENOISE_USE_FINDERS = WHITENOISE_AUTOREFRESH = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# The real-worker tests start workers with JOBS_SYNCHRONOUS=0 so they fan out.
JOBS_SYNCHRONOUS = env_bool("JOBS_SYNCHRONOUS", True)  # noqa: F405
# Tests that check figures switch them on (the fault suite: in its workers).
ANALYSIS_REPORT_FIGURES = env_bool("ANALYSIS_REPORT_FIGURES", False)  # noqa: F405
# The fault suite shares one media directory with its worker processes.
MEDIA_ROOT = Path(
    os.environ.get("TEST_MEDIA_ROOT") or tempfile.mkdtemp(prefix="registry-test-media-")
)
# A signing key of the test run's own (created on first use).
CHAIN_HEADS_SIGNING_KEY = (
    Path(tempfile.mkdtemp(prefix="registry-test-keys-")) / "chain-heads.pem"
)
# SQLite: a file test database rather than Django's shared-cache in-memory one.
# Shared-cache connections lock whole tables and fail at once ("database table
# is locked") where a file database waits its busy timeout — the behaviour of
# the demo, whose in-process job threads write while the page reads. Without
# durability the file costs little (nothing survives the test run anyway).
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": str(Path(tempfile.mkdtemp(prefix="registry-test-db-")) / "test.sqlite3")
    }
    DATABASES["default"].setdefault("OPTIONS", {})["init_command"] = (  # noqa: F405
        "PRAGMA synchronous=OFF; PRAGMA journal_mode=WAL;"
    )

# SQLite: Django's test flush empties the append-only tables with DELETE FROM,
# which their triggers refuse unless the flush lifts the guard
# (audit/management/commands/flush.py; tests/security/
# test_record_rewrite_sqlite.py checks the refusal without it).
RECORD_FLUSH_ALLOWED = True

# PostgreSQL: the append-only tables refuse TRUNCATE (audit, registry
# migrations), which Django's test flush uses between transactional tests;
# test connections say they may (tests/security/test_truncate.py turns it off).
if DATABASES["default"]["ENGINE"] == "config.postgresql":  # noqa: F405
    _options = DATABASES["default"].setdefault("OPTIONS", {})  # noqa: F405
    _options["options"] = (
        _options.get("options", "") + " -c registry.test_flush=on"
    ).strip()
