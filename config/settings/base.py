"""Settings shared by every environment, read from the environment.

Defaults are safe for the local demo (SQLite, console e-mail, in-process jobs);
production overrides live in `config.settings.production`.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item]


# Off unless set: a deployment that forgets the variable must not show
# tracebacks (issue 30). `make demo` and the other make targets set DEBUG=1.
DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (on a development "
            "machine, set DEBUG=1 instead, as the Makefile does)."
        )
    SECRET_KEY = "insecure-demo-key-only-for-local-debug"

# The public base URL written into every citation, DataCite record, OAI-PMH
# record, sitemap and e-mail link (config/site.py); `check --deploy` warns when
# it is unset or loopback.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "crispy_forms",
    "crispy_bootstrap5",
    "accounts",
    "registry",
    "reviews",
    "analysis",
    "characteristics",
    "audit",
    "publicrecord",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.request_body.UploadClientMiddleware",  # whole bodies; client watched
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.json_input.JsonObjectBodyMiddleware",  # API writes: objects only
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.SecurityHeadersMiddleware",
    "config.middleware.RegisteredDataMiddleware",
    "config.middleware.ControlCharactersMiddleware",
    "config.unavailable.DatabaseUnavailableMiddleware",  # 503, not 500
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Django's widget templates with their nested includes inlined: same HTML,
# less CPU on pages of many widgets (config/form_renderer.py).
FORM_RENDERER = "config.form_renderer.FormRenderer"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
    )
}
# A PostgreSQL that accepts connections and answers nothing (hung, not stopped)
# costs a request at most this many seconds to connect (libpq connect_timeout;
# libpq's minimum is 2).
DATABASE_CONNECT_TIMEOUT = int(os.environ.get("DATABASE_CONNECT_TIMEOUT", "3"))
# A kept connection (CONN_MAX_AGE > 0 with CONN_HEALTH_CHECKS) that has not
# answered its health check within this many seconds is given up and a new one
# opened (config/postgresql/base.py): a request reaching a hung server answers
# 503 within about this + DATABASE_CONNECT_TIMEOUT seconds (docs/operations.md).
DATABASE_HEALTH_CHECK_SECONDS = float(
    os.environ.get("DATABASE_HEALTH_CHECK_SECONDS", "1")
)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["ENGINE"] = "config.postgresql"  # the bounded check
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        connect_timeout=DATABASE_CONNECT_TIMEOUT,
        # A server whose host vanished (no answer, not even from its kernel):
        # an idle kept connection is found dead after 10 + 3 x 5 s, one with
        # data in flight after 15 s, instead of the kernel's ~15 minutes.
        keepalives=1,
        keepalives_idle=10,
        keepalives_interval=5,
        keepalives_count=3,
        tcp_user_timeout=15000,
    )
# /ready/ runs its checks at once and fails the ones that have not answered
# within this many seconds (a hung server), so it answers within about 2 s.
READY_CHECK_SECONDS = float(os.environ.get("READY_CHECK_SECONDS", "1.5"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A shared cache (Redis) in production so every web process sees the same
# sign-in counts; the per-process memory cache otherwise.
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["CACHE_URL"],
            # A stopped or hung Redis costs a request at most a second, then
            # the site serves without its cache (registry/page_cache.py).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
        if os.environ.get("CACHE_URL")
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

_PASSWORD_CHECKS = "django.contrib.auth.password_validation"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"{_PASSWORD_CHECKS}.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
LOGIN_URL = "login"
# Sign-in throttling (accounts/throttle.py, docs/security.md): per username +
# address (refused), per address (refused), per username (only slowed).
SIGNIN_MAX_FAILURES = int(os.environ.get("SIGNIN_MAX_FAILURES", "5"))
SIGNIN_LOCK_SECONDS = int(os.environ.get("SIGNIN_LOCK_SECONDS", "900"))
SIGNIN_MAX_FAILURES_PER_ADDRESS = int(
    os.environ.get("SIGNIN_MAX_FAILURES_PER_ADDRESS", "100")
)
SIGNIN_ADDRESS_WINDOW_SECONDS = int(
    os.environ.get("SIGNIN_ADDRESS_WINDOW_SECONDS", "3600")
)
SIGNIN_USERNAME_SLOW_AFTER = int(os.environ.get("SIGNIN_USERNAME_SLOW_AFTER", "5"))
SIGNIN_USERNAME_WINDOW_SECONDS = int(
    os.environ.get("SIGNIN_USERNAME_WINDOW_SECONDS", "3600")
)
SIGNIN_MAX_DELAY_SECONDS = int(os.environ.get("SIGNIN_MAX_DELAY_SECONDS", "60"))
SIGNIN_KNOWN_ADDRESS_SECONDS = int(
    os.environ.get("SIGNIN_KNOWN_ADDRESS_SECONDS", str(30 * 24 * 3600))
)
# Sign-up (accounts/views.py, docs/security.md): accounts created per client
# address per window, how long an e-mail verification link stays valid, and how
# many verification mails one account may be sent per window.
SIGNUP_MAX_PER_ADDRESS = int(os.environ.get("SIGNUP_MAX_PER_ADDRESS", "5"))
SIGNUP_ADDRESS_WINDOW_SECONDS = int(
    os.environ.get("SIGNUP_ADDRESS_WINDOW_SECONDS", str(24 * 3600))
)
EMAIL_VERIFICATION_SECONDS = int(
    os.environ.get("EMAIL_VERIFICATION_SECONDS", str(3 * 24 * 3600))
)
EMAIL_VERIFICATION_MAX_SENDS = int(os.environ.get("EMAIL_VERIFICATION_MAX_SENDS", "3"))
# Reverse proxies whose X-Forwarded-For is believed (addresses or networks,
# comma-separated). Empty: the client address is REMOTE_ADDR, the header ignored.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", "")
# Each role lands on its own page (reviews.views.landing routes by role).
LOGIN_REDIRECT_URL = "reviews:landing"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))
MEDIA_URL = "media/"
# The Ed25519 private key (PEM) that signs the published chain-heads lists
# (registry/chain_heads.py, docs/security.md). Created on first use when
# missing; keep it outside the media folder and its backups, and keep it: lists
# signed with a lost key verify only with its public key saved elsewhere.
CHAIN_HEADS_SIGNING_KEY = Path(
    os.environ.get(
        "CHAIN_HEADS_SIGNING_KEY", BASE_DIR / "keys" / "chain-heads-ed25519.pem"
    )
)
# On SQLite, `manage.py flush` may empty the record's append-only tables
# (audit/record_guard.py) only where this is set: the test settings, whose
# test flush runs between transactional tests. Off: a flush is refused, as
# TRUNCATE is on PostgreSQL (`manage.py restore` lifts the guard itself).
RECORD_FLUSH_ALLOWED = False

# Uploads: results files are bounded; anything larger is refused, not truncated.
MAX_UPLOAD_BYTES = int(os.environ.get("MAX_UPLOAD_BYTES", str(50 * 1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# Sign-in with ORCID (publicrecord/orcid_signin.py): the only way an ORCID iD
# is verified and exported; off unless both the client id and secret are set.
ORCID_CLIENT_ID = os.environ.get("ORCID_CLIENT_ID", "")
ORCID_CLIENT_SECRET = os.environ.get("ORCID_CLIENT_SECRET", "")
ORCID_URL = os.environ.get("ORCID_URL", "https://orcid.org")
# Open feedback on registered challenges (issue 17, docs/public-record.md): the
# length of a comment, and comments + answers per person per window.
FEEDBACK_MAX_CHARS = int(os.environ.get("FEEDBACK_MAX_CHARS", "5000"))
FEEDBACK_RATE_LIMIT = int(os.environ.get("FEEDBACK_RATE_LIMIT", "5"))
FEEDBACK_RATE_WINDOW_SECONDS = int(
    os.environ.get("FEEDBACK_RATE_WINDOW_SECONDS", "3600")
)

# Published results (issue 27, docs/public-record.md): the longest embargo an
# organizer may set, and the longest note explaining a correction.
PUBLICATION_MAX_EMBARGO_DAYS = int(
    os.environ.get("PUBLICATION_MAX_EMBARGO_DAYS", "730")
)
PUBLICATION_NOTE_MAX_CHARS = int(os.environ.get("PUBLICATION_NOTE_MAX_CHARS", "2000"))

# Optional deposit of registered designs in a Zenodo-compatible repository
# (publicrecord/deposit.py): off while ZENODO_TOKEN is empty.
ZENODO_TOKEN = os.environ.get("ZENODO_TOKEN", "")
ZENODO_URL = os.environ.get("ZENODO_URL", "https://zenodo.org")
ZENODO_TIMEOUT_SECONDS = int(os.environ.get("ZENODO_TIMEOUT_SECONDS", "30"))

# OAI-PMH at /oai (publicrecord/oai.py, docs/public-record.md): records per
# response before a resumption token; the record sources, one OAI set each (a
# dotted path per source class); the repository identifier in every record's
# oai:<identifier>:… (default: SITE_URL's host when it is a domain name).
OAI_PAGE_SIZE = int(os.environ.get("OAI_PAGE_SIZE", "100"))
OAI_RECORD_SOURCES = [
    "publicrecord.oai_sources.RegisteredVersions",
    "publicrecord.oai_sources.PublishedResults",
]
OAI_REPOSITORY_IDENTIFIER = os.environ.get("OAI_REPOSITORY_IDENTIFIER", "")
OAI_ADMIN_EMAIL = os.environ.get("OAI_ADMIN_EMAIL", "")
# The DataCite repository ID ("client ID", formerly "datacentre symbol", e.g.
# "TIB.EXAMPLE") written as datacentreSymbol in OAI-PMH oai_datacite records;
# empty (the default) when the registry registers no DOIs with DataCite itself.
DATACITE_CLIENT_ID = os.environ.get("DATACITE_CLIENT_ID", "")
# Registered records per sitemap file (publicrecord/crawl.py; at most 50,000).
SITEMAP_PAGE_SIZE = min(int(os.environ.get("SITEMAP_PAGE_SIZE", "50000")), 50_000)

# Case-characteristics models (issue 16): bounds of a metadata table and a model.
CASE_METADATA_MAX_ROWS = int(os.environ.get("CASE_METADATA_MAX_ROWS", "200000"))
CASE_METADATA_MAX_COLUMNS = int(os.environ.get("CASE_METADATA_MAX_COLUMNS", "200"))
CASE_MODEL_MAX_TERMS = int(os.environ.get("CASE_MODEL_MAX_TERMS", "60"))
# levels of all groupings but the largest (factorised densely when crossed)
CASE_MODEL_MAX_CROSSED_LEVELS = int(
    os.environ.get("CASE_MODEL_MAX_CROSSED_LEVELS", "2000")
)
# Issue 30: a fit with 40 crossed groupings was at 0 % after 16.5 min. Groupings
# named by a specification (refused when it is sent), evaluations of each
# model's likelihood, and the wall time of one run's fits (then it fails with a
# message naming the model, its size and what to change).
CASE_MODEL_MAX_GROUPINGS = int(os.environ.get("CASE_MODEL_MAX_GROUPINGS", "10"))
CASE_MODEL_MAX_ITERATIONS = int(os.environ.get("CASE_MODEL_MAX_ITERATIONS", "20000"))
CASE_MODEL_MAX_SECONDS = float(os.environ.get("CASE_MODEL_MAX_SECONDS", "300"))


# Limits against hostile input and runaway work; each answers a threat listed in
# docs/security.md (the one table of limits, settings and defaults).
def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, str(default)))


# XLSX: the sum of the archive's *declared* uncompressed sizes (zip bombs).
MAX_XLSX_UNCOMPRESSED_BYTES = env_int("MAX_XLSX_UNCOMPRESSED_BYTES", 100 * 1024 * 1024)
# Results tables (CSV and XLSX): data rows, columns, and rows x columns.
MAX_RESULTS_ROWS = env_int("MAX_RESULTS_ROWS", 2_000_000)
MAX_RESULTS_COLUMNS = env_int("MAX_RESULTS_COLUMNS", 100)
MAX_RESULTS_CELLS = env_int("MAX_RESULTS_CELLS", 20_000_000)
# XLSX parses ~50 000 cells a second: a lower cell limit, and a time budget for
# any upload's parse; characters per cell (CSV and XLSX, shared strings too).
MAX_XLSX_CELLS = env_int("MAX_XLSX_CELLS", 2_000_000)
MAX_UPLOAD_PARSE_SECONDS = env_int("MAX_UPLOAD_PARSE_SECONDS", 45)
MAX_CELL_CHARS = env_int("MAX_CELL_CHARS", 10_000)
# Work admission: queued or running analyses and case-model fits, per user and
# in all; past either a new run is refused (429) with this Retry-After.
MAX_ACTIVE_RUNS_PER_USER = env_int("MAX_ACTIVE_RUNS_PER_USER", 3)
MAX_ACTIVE_RUNS = env_int("MAX_ACTIVE_RUNS", 20)
RUN_RETRY_AFTER_SECONDS = env_int("RUN_RETRY_AFTER_SECONDS", 30)
# Proposals one account may create in one call (proposal spam).
MAX_PROPOSALS_PER_CALL = env_int("MAX_PROPOSALS_PER_CALL", 20)
# Metric values beyond ±this are refused: sums and variances of 1e308 overflow.
MAX_RESULTS_ABS_VALUE = float(os.environ.get("MAX_RESULTS_ABS_VALUE", "1e100"))
# Error lists returned to the uploader: the first N, then "… and M more".
MAX_REPORTED_ERRORS = env_int("MAX_REPORTED_ERRORS", 100)
MAX_ERROR_MESSAGE_CHARS = env_int("MAX_ERROR_MESSAGE_CHARS", 2000)
# JSON bodies and imported documents: nesting depth and size.
MAX_JSON_DEPTH = env_int("MAX_JSON_DEPTH", 32)
MAX_JSON_BYTES = env_int("MAX_JSON_BYTES", 5 * 1024 * 1024)
# Ranking schemes: bootstrap replicates per scheme, and bootstrap work per run
# (replicates x cases x algorithms, summed over tasks and ranking keys).
MAX_BOOTSTRAP_REPLICATES = env_int("MAX_BOOTSTRAP_REPLICATES", 100_000)
MAX_RUN_BOOTSTRAP_WORK = env_int("MAX_RUN_BOOTSTRAP_WORK", 5_000_000_000)
# Test-set plans (issue 29; ranking/planner.py): values of n, largest n,
# simulations per n, algorithms, work (Σn x simulations x algorithms) per plan,
# and the simulations per n that also get rank intervals (the slowest part).
PLAN_MAX_N_VALUES = env_int("PLAN_MAX_N_VALUES", 20)
PLAN_MAX_N = env_int("PLAN_MAX_N", 5_000)
PLAN_MAX_SIMULATIONS = env_int("PLAN_MAX_SIMULATIONS", 2_000)
PLAN_MAX_ALGORITHMS = env_int("PLAN_MAX_ALGORITHMS", 50)
PLAN_MAX_WORK = env_int("PLAN_MAX_WORK", 50_000_000)
PLAN_INTERVAL_SIMULATIONS = env_int("PLAN_INTERVAL_SIMULATIONS", 100)
# A pilot results table uploaded to plan the test set (kept in the plan).
PLAN_PILOT_MAX_BYTES = env_int("PLAN_PILOT_MAX_BYTES", 1024 * 1024)
# A plan's figure, drawn once and kept in the cache (registry/plan_figure.py).
PLAN_FIGURE_CACHE_SECONDS = env_int("PLAN_FIGURE_CACHE_SECONDS", 7 * 24 * 3600)
# Staged previews of results uploads, per user (older ones are purged first);
# a preview's bytes are its normalised CSV and its `.lines` file: the disk used.
MAX_STAGED_UPLOADS_PER_USER = env_int("MAX_STAGED_UPLOADS_PER_USER", 5)
MAX_STAGED_BYTES_PER_USER = env_int("MAX_STAGED_BYTES_PER_USER", 100 * 1024 * 1024)
STAGED_UPLOAD_MAX_AGE_SECONDS = env_int("STAGED_UPLOAD_MAX_AGE_SECONDS", 24 * 3600)
# A second Commit of one upload (a double click) while the first is still
# storing it waits up to this many seconds for the stored version to show it.
UPLOAD_COMMIT_WAIT_SECONDS = env_int("UPLOAD_COMMIT_WAIT_SECONDS", 20)

EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend"
)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "registry@localhost")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

REST_FRAMEWORK = {
    # Token first: a request without credentials gets 401 with
    # `WWW-Authenticate: Token` (DRF asks the first class for the challenge).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # DRF's token authentication, remembering the tokens it saw for a
        # database outage (config/credentials.py, analysis/outage.py)
        "config.credentials.RememberingTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "registry.pagination.PageNumberPagination",
    "PAGE_SIZE": int(os.environ.get("API_PAGE_SIZE", "50")),
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # JSON only (415 otherwise); the upload operations name their own parsers.
    "DEFAULT_PARSER_CLASSES": ["config.json_input.BoundedJSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
# Lists: the page size a client may ask for (``page_size``) is capped here.
API_MAX_PAGE_SIZE = int(os.environ.get("API_MAX_PAGE_SIZE", "200"))
# Rows per page of the HTML lists (public registry, dashboards, review pages).
PAGE_SIZE = int(os.environ.get("PAGE_SIZE", "25"))
# PostgreSQL text-search configuration of the registry search (a language).
REGISTRY_SEARCH_CONFIG = os.environ.get("REGISTRY_SEARCH_CONFIG", "english")

SPECTACULAR_SETTINGS = {
    "TITLE": "Challenge design registry API",
    "DESCRIPTION": "Proposals, reviews, registrations and pre-registered analyses.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # A background run's status (plan runs), apart from a proposal's status.
    "ENUM_NAME_OVERRIDES": {
        "StatusEnum": "registry.enums.ChallengeStatus",
        "RunStatusEnum": "analysis.models.AnalysisStatus",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.api_schema.document_error_responses",
        "config.api_schema.drop_untyped_nullable",
        "config.api_schema.set_servers",
        "config.api_schema.integer_bounds_as_on_postgresql",
    ],
}

# A database outage (docs/operations.md "Starting an analysis while PostgreSQL
# is down"): an analysis start from an API token that authenticated within
# OUTAGE_CREDENTIAL_SECONDS is accepted provisionally (202) into a Redis spool
# (OUTAGE_SPOOL_URL; empty: the broker's Redis, else the cache's; none: 503 as
# for every other request) of at most OUTAGE_SPOOL_MAX entries,
# OUTAGE_SPOOL_MAX_PER_USER per user, and checked in full when it returns.
OUTAGE_CREDENTIAL_SECONDS = env_int("OUTAGE_CREDENTIAL_SECONDS", 900)
OUTAGE_SPOOL_URL = os.environ.get("OUTAGE_SPOOL_URL", "")
OUTAGE_SPOOL_MAX = env_int("OUTAGE_SPOOL_MAX", 200)
OUTAGE_SPOOL_MAX_PER_USER = env_int("OUTAGE_SPOOL_MAX_PER_USER", 3)

# Background jobs: Celery when a broker is configured, in-process threads otherwise.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # long jobs: a worker holds one at a time
# Run lifecycle (analysis/run_state.py, docs/operations.md): a running job
# beats every JOBS_HEARTBEAT_SECONDS; a run silent for JOBS_STALE_SECONDS is
# taken to be lost and claimed again (a re-delivered job, or the watchdog
# `resume_jobs`, every minute). A database error is retried after
# JOBS_RETRY_SECONDS, doubling; after JOBS_MAX_ATTEMPTS claims the run fails.
JOBS_HEARTBEAT_SECONDS = float(os.environ.get("JOBS_HEARTBEAT_SECONDS", "5"))
JOBS_STALE_SECONDS = int(os.environ.get("JOBS_STALE_SECONDS", "60"))
JOBS_RETRY_SECONDS = int(os.environ.get("JOBS_RETRY_SECONDS", "30"))
JOBS_MAX_ATTEMPTS = int(os.environ.get("JOBS_MAX_ATTEMPTS", "5"))
# A run still running this long after it started is failed (issue 12).
ANALYSIS_WALL_TIME_SECONDS = int(os.environ.get("ANALYSIS_WALL_TIME_SECONDS", "14400"))
# Unacknowledged jobs (their worker killed, or Redis lost while they ran) go
# back to the queue after this many seconds. A job delivered again while its
# run is still running or done does nothing (analysis.run_state.claim: the run's
# heartbeat, not the message, says whether it lives), so this need not exceed
# the wall time: minutes, not hours.
CELERY_VISIBILITY_TIMEOUT = int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300"))
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
# Sending a job fails fast when the broker is down (the run stays queued).
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# ... and when it hangs: the web stops waiting for a message after this many
# seconds and answers "queued"; the watchdog (resume_jobs) sends it later.
JOBS_PUBLISH_SECONDS = float(os.environ.get("JOBS_PUBLISH_SECONDS", "3"))
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # a worker waits for the broker
# A job that ends while Redis is away must not stop its worker when it is
# acknowledged (config/redis_transport.py).
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT = "config.redis_transport:Transport"
# The queue jobs (and the chunks a worker fans out) are sent to.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
# An analysis whose bootstrap work (replicates x cases x algorithms, summed over
# tasks and ranking keys) reaches this is split into chunks of about
# ANALYSIS_CHUNK_REPLICATES replicates (rounded up to the engine's blocks of 100):
# a Celery group over all workers, or one chunk after another without Celery.
ANALYSIS_CHUNK_THRESHOLD = int(os.environ.get("ANALYSIS_CHUNK_THRESHOLD", "200000000"))
ANALYSIS_CHUNK_REPLICATES = int(os.environ.get("ANALYSIS_CHUNK_REPLICATES", "200"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# In development whitenoise serves straight from the finders (no collectstatic).
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# Analysis reports: the PDF's figures are the slow part of a run.
ANALYSIS_REPORT_FIGURES = env_bool("ANALYSIS_REPORT_FIGURES", True)
