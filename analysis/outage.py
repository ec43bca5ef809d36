"""Analysis starts accepted while PostgreSQL is down, and decided when it is back.

HTTP 202 means "accepted for processing; processing may still be refused".
When a start (``POST /api/v1/results/<pk>/analyses/``) fails because the
database cannot be reached, and its API token authenticated recently
(``config.credentials``), the request is written to a spool in Redis and
answered 202 with a request id to check. Nothing is decided then: the
watchdog (``manage.py resume_jobs``) drains the spool once the database
answers and gives every entry the normal path — user active, token still
theirs, then :func:`analysis.services.start_analysis` with its visibility,
validation, work caps and identical-run idempotency.

The spool is one Redis hash (not a cache key: nothing evicts it; compose's
Redis keeps it on disk with appendonly), fields ``"<user id>:<request id>"``,
bounded to ``OUTAGE_SPOOL_MAX`` entries and ``OUTAGE_SPOOL_MAX_PER_USER`` per
user, both checked and written by one script (atomic across web processes).
Delivery is at least once: an entry leaves Redis only after the transaction
that decided it committed, and that transaction created a
:class:`~analysis.models.StartRequest` keyed by the request id, so a second
pass over the same entry changes nothing.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import uuid
from datetime import datetime

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    ValidationError,
)
from django.db import (
    DEFAULT_DB_ALIAS,
    DatabaseError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    connections,
    transaction,
)
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import APIException

from config import credentials

from . import services
from .admission import BusyError
from .models import ResultsVersion, StartRequest

logger = logging.getLogger(__name__)

SPOOL_KEY = "registry:outage-spool:analysis-starts"
REDIS_SECONDS = 1  # a hung Redis costs the 202 at most this per round trip

# Checked and written in one step, so concurrent web processes cannot pass a
# bound together. ARGV: field, entry, max total, max per user, user prefix.
_APPEND = """
local fields = redis.call('HKEYS', KEYS[1])
if #fields >= tonumber(ARGV[3]) then return 0 end
local mine = 0
for _, field in ipairs(fields) do
  if string.sub(field, 1, #ARGV[5]) == ARGV[5] then mine = mine + 1 end
end
if mine >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

INACTIVE = "The account is no longer active."
REVOKED = "The API token of the request was revoked before the database returned."
NO_RESULTS = "No such results version."
UNDECIDABLE = (
    "The start could not be decided because of an error on the site; "
    "nothing was started. Send the start again."
)


@dataclasses.dataclass(frozen=True)
class SpooledStart:
    """One accepted start as the spool keeps it."""

    request: uuid.UUID
    user: int
    credential: str  # config.credentials.fingerprint of the token
    results: int
    body: dict
    received_at: datetime

    @property
    def field(self) -> str:
        return _field(self.user, self.request)

    def to_json(self) -> str:
        fields = dataclasses.asdict(self)
        fields["request"] = str(self.request)
        fields["received_at"] = self.received_at.isoformat()
        return json.dumps(fields, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> SpooledStart:
        fields = json.loads(text)
        fields["request"] = uuid.UUID(fields["request"])
        fields["received_at"] = datetime.fromisoformat(fields["received_at"])
        return cls(**fields)


def _field(user_id: int, request_id: uuid.UUID) -> str:
    return f"{user_id}:{request_id}"


def spool_url() -> str:
    """``OUTAGE_SPOOL_URL``, else the broker's Redis, else the cache's; "" when
    there is no Redis (then nothing is spooled: 503 as before)."""
    candidates = [settings.OUTAGE_SPOOL_URL, settings.CELERY_BROKER_URL]
    candidates.append(settings.CACHES["default"].get("LOCATION", ""))
    for url in candidates:
        if isinstance(url, str) and url.startswith(("redis://", "rediss://")):
            return url
    return ""


def _redis() -> redis.Redis:
    return redis.Redis.from_url(
        spool_url(),
        socket_connect_timeout=REDIS_SECONDS,
        socket_timeout=REDIS_SECONDS,
    )


def database_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database could not be reached at all (no
    connection could be opened, or the one in use was lost) — not a refused
    statement, a lock timeout or a serialization failure, which a database
    that answers reports with a connection still usable."""
    if not isinstance(exc, OperationalError | InterfaceError):
        return False
    raw = connections[DEFAULT_DB_ALIAS].connection
    return raw is None or bool(
        getattr(raw, "closed", False) or getattr(raw, "broken", False)
    )


def spool_start(request, *, results_pk: int) -> SpooledStart | None:
    """Spool the analysis start ``request`` (its database just failed), or
    None when it cannot be accepted: no token remembered, a body that is not a
    JSON object, no spool, the spool full or not answering."""
    key = credentials.token_key_of(request)
    if key is None or not spool_url():
        return None
    user_id = credentials.remembered_user_id(key)
    body = _body_of(request)
    if user_id is None or body is None:
        return None
    entry = SpooledStart(
        request=uuid.uuid4(),
        user=user_id,
        credential=credentials.fingerprint(key),
        results=results_pk,
        body=body,
        received_at=timezone.now(),
    )
    try:
        appended = _redis().eval(
            _APPEND,
            1,
            SPOOL_KEY,
            entry.field,
            entry.to_json(),
            settings.OUTAGE_SPOOL_MAX,
            settings.OUTAGE_SPOOL_MAX_PER_USER,
            f"{user_id}:",
        )
    except redis.RedisError:
        logger.warning("the outage spool does not answer", exc_info=True)
        return None
    if not appended:
        logger.warning("the outage spool is full (user %s)", user_id)
        return None
    logger.warning("analysis start %s spooled during a database outage", entry.request)
    return entry


def _body_of(request) -> dict | None:
    """The request's JSON object (within the parser's bounds), or None."""
    try:
        data = request.data
    except (APIException, RequestDataTooBig):  # malformed, too big, not JSON
        return None
    if hasattr(data, "dict"):  # an empty body parses to an empty QueryDict
        data = data.dict()
    return data if isinstance(data, dict) else None


def pending(user_id: int, request_id: uuid.UUID) -> SpooledStart | None:
    """The spooled entry of ``user_id``'s request, if still undecided
    (redis.RedisError when the spool does not answer)."""
    if not spool_url():
        return None
    text = _redis().hget(SPOOL_KEY, _field(user_id, request_id))
    return None if text is None else SpooledStart.from_json(text)


@dataclasses.dataclass
class DrainReport:
    started: list[uuid.UUID] = dataclasses.field(default_factory=list)
    refused: list[uuid.UUID] = dataclasses.field(default_factory=list)
    spool_error: str = ""  # the spool stopped answering: the rest waits


def drain_spool() -> DrainReport:
    """Decide every spooled start, oldest first; each entry leaves the spool
    after its decision has committed. A spool that does not answer ends the
    pass (what is left is decided next time) without failing the caller: the
    watchdog has other runs to resume. An entry that cannot be read is set
    aside under ``<SPOOL_KEY>:unreadable`` so it cannot block the others."""
    report = DrainReport()
    if not spool_url():
        return report
    client = _redis()
    try:
        entries = _readable_entries(client)
        for entry in sorted(entries, key=lambda e: e.received_at):
            decision = decide(entry)
            client.hdel(SPOOL_KEY, entry.field)
            decided = report.refused if decision.refusal else report.started
            decided.append(entry.request)
    except redis.RedisError as exc:
        logger.warning("the outage spool does not answer: %s", exc)
        report.spool_error = str(exc)
    return report


def _readable_entries(client: redis.Redis) -> list[SpooledStart]:
    entries = []
    for field, text in client.hgetall(SPOOL_KEY).items():
        try:
            entries.append(SpooledStart.from_json(text))
        except (ValueError, KeyError, TypeError):
            logger.error("unreadable outage spool entry %r set aside", field)
            client.hset(f"{SPOOL_KEY}:unreadable", field, text)
            client.hdel(SPOOL_KEY, field)
    return entries


def decide(entry: SpooledStart) -> StartRequest:
    """The decision on ``entry``, taken once: an earlier one is returned."""
    earlier = StartRequest.objects.filter(pk=entry.request).first()
    if earlier is not None:
        return earlier
    try:
        with transaction.atomic():
            return _decide(entry)
    except IntegrityError:  # decided meanwhile by another pass
        return StartRequest.objects.get(pk=entry.request)


def _decide(entry: SpooledStart) -> StartRequest:
    user = get_user_model().objects.filter(pk=entry.user).first()
    decision = StartRequest(
        id=entry.request,
        user=user,
        results_id_requested=entry.results,
        received_at=entry.received_at,
    )
    try:
        with transaction.atomic():  # a failed start leaves nothing behind
            decision.run = _start(entry, user)
    except (PermissionDenied, ValidationError, BusyError) as exc:
        decision.refusal = _reason(exc)
    except DatabaseError:
        raise  # the database went away again: the entry waits for next pass
    except Exception:
        # Decided once, as a refusal, rather than retried every pass forever.
        logger.exception("spooled start %s could not be decided", entry.request)
        decision.refusal = UNDECIDABLE
    decision.save(force_insert=True)
    return decision


def _start(entry: SpooledStart, user):
    """The normal start, on behalf of ``user`` as checked now."""
    if user is None or not user.is_active:
        raise PermissionDenied(INACTIVE)
    if not _token_still_theirs(user, entry.credential):
        raise PermissionDenied(REVOKED)
    results = (
        ResultsVersion.objects.select_related("registration__challenge")
        .filter(pk=entry.results)
        .first()
    )
    if results is None or not services.can_see_results(user, results.registration):
        raise PermissionDenied(NO_RESULTS)  # the 404's words: no existence leak
    return services.start_analysis(
        results=results,
        actor=user,
        scheme=entry.body.get("scheme"),
        schemes=entry.body.get("schemes"),
    )


def _token_still_theirs(user, credential: str) -> bool:
    keys = Token.objects.filter(user=user).values_list("key", flat=True)
    return any(credentials.fingerprint(key) == credential for key in keys)


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(exc.messages)
    return str(exc)
