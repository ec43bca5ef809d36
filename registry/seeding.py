"""Realistic registered designs in bulk, for benchmarks (`manage.py seed_registry`).

Every design answers all parameters (challenge level and 1-5 tasks) with values
validated by the catalogue (`services.clean_answer`), has an executable scheme
per task validated by the engine (`scheme_to_dict(parse_scheme(...))`) with the
prose parameters it determines (`describe_scheme`), and is registered by the
real `register_challenge` (canonical JSON, hash chain, listing, audit record).
Only the proposal rows are written in bulk: the rows and hashes are exactly
those the services would write, without their per-row round trips.

Seeded rows are recognisable: their calls' slugs start with ``seed-`` and one
user, ``SEED_USER``, owns and registers them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from audit.models import AuditEvent
from ranking import describe_scheme
from ranking.scheme import METHODS, parse_scheme, scheme_to_dict

from .enums import ChallengeStatus
from .models import (
    Answer,
    Call,
    Challenge,
    Registration,
    RegistrationFacet,
    RegistrationListing,
    RegistrationVersion,
    StatusChange,
    Task,
)
from .parameters import PARAMETERS, Role, get_parameter
from .registration import new_version, next_identifier
from .schemes import PROSE_FROM_SCHEME
from .search import (
    CATEGORY_PARAMETER,
    METRICS_PARAMETER,
    MODALITY_PARAMETER,
    TARGETS_PARAMETER,
    index_listings,
    listing_facts,
    new_facets,
    new_listing,
)
from .services import NAME_PARAMETER, clean_answer

SEED_PREFIX = "seed-"
SEED_USER = "seed-registrar"
CALLS = [f"{name}-{year}" for year in range(2019, 2028) for name in ("miccai", "isbi")]
METRICS = (  # name, higher is better, worst value, bounds
    ("DSC", True, 0, (0, 1)),
    ("NSD", True, 0, (0, 1)),
    ("HD95", False, 1000, (0, None)),
    ("AUC", True, 0, (0, 1)),
    ("F1", True, 0, (0, 1)),
    ("MAE", False, 1000, (0, None)),
)
STRUCTURES = (
    "liver", "kidney", "brain tumour", "retinal vessels", "lung nodules", "polyps",
    "prostate", "cardiac ventricles", "pancreas", "skin lesions", "cell nuclei",
)  # fmt: skip
BATCH = 100
DEFAULTED = ("not_applicable", "version")  # Answer fields the seeder leaves as is


class ForeignRegistrationsError(Exception):
    """The database holds registrations this seeder did not make."""


def foreign_registrations() -> int:
    return Registration.objects.exclude(call__slug__startswith=SEED_PREFIX).count()


def _cleaned(number: int, value: Any, *, task: bool) -> Any:
    # `task` only selects the level check; any truthy placeholder does.
    return clean_answer(
        number=number, task=_TASK if task else None, value=value, not_applicable=None
    )[0]


class _Placeholder:
    pk = None


_TASK = _Placeholder()


@cache
def _example(number: int, task: bool) -> Any:
    return _cleaned(number, get_parameter(number).example_value, task=task)


def _scheme(rng: random.Random, metric: tuple) -> dict[str, Any]:
    name, higher, worst, _ = metric
    method = rng.choice(METHODS)
    data = {
        "metric": name,
        "higher_is_better": higher,
        "missing": {"policy": "value", "value": worst},
        "method": method,
        "ties": "min",
        "uncertainty": {"bootstrap": 1000, "seed": 1, "rank_ci": ["bootstrap"]},
    }
    if method == "test_then_rank":
        data["test"] = {"name": "wilcoxon", "alpha": 0.05, "p_adjust": "none"}
    return scheme_to_dict(parse_scheme(data))


def _metric_answer(metric: tuple) -> dict[str, Any]:
    name, higher, worst, (low, high) = metric
    entry = {"name": name, "higher_is_better": higher, "worst_value": worst}
    entry["lower_bound"] = low
    if high is not None:
        entry["upper_bound"] = high
    return {"metrics": [entry], "details": ""}


def _task_answers(rng: random.Random, scheme: dict, metric: tuple) -> dict[int, Any]:
    categories = Role.TASK_CATEGORY.parameter.choices
    modalities = Role.IMAGING_MODALITY.parameter.choices
    answers: dict[int, Any] = {
        p.number: _example(p.number, True) for p in PARAMETERS if p.level == "task"
    }
    answers[CATEGORY_PARAMETER] = _cleaned(
        CATEGORY_PARAMETER,
        {"choices": rng.sample(categories, 1), "details": ""},
        task=True,
    )
    answers[MODALITY_PARAMETER] = _cleaned(
        MODALITY_PARAMETER,
        {"choices": rng.sample(modalities, rng.choice((1, 1, 2))), "details": ""},
        task=True,
    )
    answers[TARGETS_PARAMETER] = _cleaned(
        TARGETS_PARAMETER, f"Segmentation of the {rng.choice(STRUCTURES)}.", task=True
    )
    answers[METRICS_PARAMETER] = _cleaned(
        METRICS_PARAMETER, _metric_answer(metric), task=True
    )
    sentences = describe_scheme(scheme)
    for number, key in PROSE_FROM_SCHEME.items():
        answers[number] = _cleaned(number, sentences[key], task=True)
    return answers


def _seed_calls() -> list[Call]:
    calls = []
    for slug in CALLS:
        call, _ = Call.objects.get_or_create(
            slug=f"{SEED_PREFIX}{slug}",
            defaults={"title": f"Seeded {slug.replace('-', ' ').upper()}"},
        )
        calls.append(call)
    return calls


def _seed_user():
    user, _ = get_user_model().objects.get_or_create(
        username=SEED_USER, defaults={"email": f"{SEED_USER}@example.org"}
    )
    return user


@transaction.atomic
def _seed_batch(rng, start: int, size: int, calls: list[Call], user) -> None:
    challenges = Challenge.objects.bulk_create(
        Challenge(
            call=rng.choice(calls),
            name=f"Seeded challenge {n:06d} (SC{n:06d})",
            owner=user,
            status=ChallengeStatus.ACCEPTED,
            revision=1,
        )
        for n in range(start, start + size)
    )
    top = {
        p.number: _example(p.number, False)
        for p in PARAMETERS
        if p.level == "challenge" and p.number != NAME_PARAMETER
    }
    plans = []
    for challenge in challenges:
        for position in range(rng.randint(1, 5)):
            metric = rng.choice(METRICS)
            plans.append((challenge, position, metric, _scheme(rng, metric)))
    tasks = Task.objects.bulk_create(
        Task(challenge=c, name=f"Task {p + 1}", position=p, scheme=s)
        for c, p, _, s in plans
    )
    answers = [(c.pk, None, n, v) for c in challenges for n, v in top.items()]
    for task, (_, _, metric, scheme) in zip(tasks, plans, strict=True):
        answers += [
            (task.challenge_id, task.pk, n, v)
            for n, v in _task_answers(rng, scheme, metric).items()
        ]
    insert_answers(answers, user)
    _register_batch([c.pk for c in challenges], user)


def insert_answers(rows: list[tuple[int, int | None, int, Any]], user) -> None:
    """New answers (challenge id, task id, number, clean value) by `user`: the
    rows `Answer.objects.bulk_create` writes. On PostgreSQL through COPY: no
    model instances, no SQL text and no client-side quoting of ~80 rows per
    design (the bulk of the seeder's time otherwise)."""
    if connection.vendor != "postgresql":
        Answer.objects.bulk_create(
            Answer(challenge_id=c, task_id=t, number=n, value=v, updated_by=user)
            for c, t, n, v in rows
        )
        return
    now = timezone.now()
    defaults = [Answer._meta.get_field(f).get_default() for f in DEFAULTED]
    sql = (
        f"COPY {Answer._meta.db_table} (challenge_id, task_id, number, value, "
        f"{', '.join(DEFAULTED)}, updated, updated_by_id) FROM STDIN"
    )
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for challenge, task, number, value in rows:
            copy.write_row(
                (challenge, task, number, json.dumps(value), *defaults, now, user.pk)
            )


def _register_batch(ids: list[int], user) -> None:
    """`register_challenge` for many accepted challenges at once: the same
    documents, hashes, listings, status changes and audit events, written with
    a few bulk statements instead of ~30 round trips per design."""
    call_ids = set(
        Challenge.objects.filter(pk__in=ids).values_list("call_id", flat=True)
    )
    calls = list(Call.objects.select_for_update().filter(pk__in=call_ids))
    last = dict(
        Registration.objects.filter(call__in=calls)
        .values("call")
        .annotate(n=Max("sequence"))
        .values_list("call", "n")
    )
    challenges = list(
        Challenge.objects.filter(pk__in=ids, status=ChallengeStatus.ACCEPTED)
        .select_related("call", "owner__profile")
        .prefetch_related("answers", "tasks")
        .order_by("pk")
    )
    registrations = []
    for challenge in challenges:
        sequence, identifier = next_identifier(
            challenge.call, last.get(challenge.call_id)
        )
        last[challenge.call_id] = sequence
        registrations.append(
            Registration(
                challenge=challenge,
                call=challenge.call,
                sequence=sequence,
                identifier=identifier,
            )
        )
    Registration.objects.bulk_create(registrations)
    created = timezone.now().replace(microsecond=0)
    versions, facts = [], []
    for registration in registrations:
        version, document = new_version(
            registration=registration,
            actor=user,
            number=1,
            previous=None,
            created=created,
        )
        versions.append(version)
        facts.append(listing_facts(document))
    RegistrationVersion.objects.bulk_create(versions)
    listings = RegistrationListing.objects.bulk_create(
        new_listing(r, v, f)
        for r, v, f in zip(registrations, versions, facts, strict=True)
    )
    RegistrationFacet.objects.bulk_create(
        [
            x
            for listing, f in zip(listings, facts, strict=True)
            for x in new_facets(listing, f)
        ]
    )
    index_listings(RegistrationListing.objects.filter(pk__in=[x.pk for x in listings]))
    Challenge.objects.filter(pk__in=[c.pk for c in challenges]).update(
        status=ChallengeStatus.REGISTERED
    )
    StatusChange.objects.bulk_create(
        StatusChange(
            challenge=r.challenge,
            from_status=ChallengeStatus.ACCEPTED,
            to_status=ChallengeStatus.REGISTERED,
            actor=user,
            note=f"Registered as {r.identifier}.",
        )
        for r in registrations
    )
    AuditEvent.objects.bulk_create(
        AuditEvent(
            actor=user,
            actor_name=user.get_username(),
            action="registration.register",
            target_type=Registration._meta.label_lower,
            target_id=str(r.pk),
            details={},
        )
        for r in registrations
    )


def seed_registry(
    count: int,
    *,
    seed: int = 0,
    force: bool = False,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Register `count` more seeded designs; returns how many exist afterwards."""
    if not force and (foreign := foreign_registrations()):
        raise ForeignRegistrationsError(
            f"The database holds {foreign} registration(s) not made by the seeder; "
            "use --force to add seeded ones anyway."
        )
    calls = _seed_calls()
    user = _seed_user()
    for call in calls:
        call.chairs.add(user)
    start = Challenge.objects.filter(owner=user).count()
    rng = random.Random(f"{seed}:{start}")
    done = 0
    while done < count:
        size = min(BATCH, count - done)
        _seed_batch(rng, start + done, size, calls, user)
        done += size
        if progress:
            progress(done)
    if connection.vendor == "postgresql":
        # Fresh planner statistics: without them a bulk-loaded table looks
        # empty and facet filters get nested-loop plans (1 s instead of 7 ms).
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return Registration.objects.filter(call__slug__startswith=SEED_PREFIX).count()
