"""Benchmark: ingest generated results rows through the upload path.

    python -m analysis.bench_ingest [--rows 1000000]   (or `make bench-ingest`)

Parses a generated CSV once with `parse_upload` (read, check, normalise: what
the API's preview does) and stores the table with `commit_results`, against
the database configured by DATABASE_URL, inside a transaction that is rolled
back at the end: the benchmark leaves nothing behind. Prints the time of every
step.
"""

from __future__ import annotations

import argparse
import os
import time
from contextlib import contextmanager


def generate_csv(rows: int) -> bytes:
    """`rows` result rows: 4 tasks x 20 algorithms x 5 metrics x cases."""
    import numpy as np

    tasks, algorithms, metrics = 4, 20, 5
    cases = max(1, -(-rows // (tasks * algorithms * metrics)))
    rng = np.random.default_rng(0)
    lines = ["task,case,algorithm,metric,value"]
    values = iter(rng.random(tasks * cases * algorithms * metrics).round(6).tolist())
    for t in range(tasks):
        for c in range(cases):
            for a in range(algorithms):
                for m in range(metrics):
                    lines.append(f"T{t},case{c:05d},alg{a:02d},M{m},{next(values)}")
    return ("\n".join(lines[: rows + 1]) + "\n").encode()


@contextmanager
def throwaway_registration():
    """A registration for the benchmark in a transaction that is rolled back."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from registry.models import Call, Challenge, Registration, RegistrationVersion

    with transaction.atomic():
        user = get_user_model().objects.create(username="bench-ingest")
        call = Call.objects.create(slug="bench-ingest", title="Benchmark")
        challenge = Challenge.objects.create(call=call, owner=user, name="Bench")
        registration = Registration.objects.create(
            challenge=challenge, call=call, sequence=1, identifier="bench-ingest-001"
        )
        RegistrationVersion.objects.create(
            registration=registration,
            number=1,
            canonical="{}",
            sha256="0" * 64,
            created=timezone.now(),
            created_by=user,
        )
        try:
            yield registration, user
        finally:
            transaction.set_rollback(True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    from analysis import ingest

    data = generate_csv(args.rows)
    settings.MAX_UPLOAD_BYTES = max(settings.MAX_UPLOAD_BYTES, len(data))
    print(
        f"{args.rows:,} rows, {len(data) / 1e6:.1f} MB CSV, "
        f"database {connection.vendor} {connection.settings_dict['NAME']}"
    )
    timings: dict[str, float] = {}
    with throwaway_registration() as (registration, user):
        start = time.perf_counter()
        table = ingest.parse_upload("bench.csv", data)
        timings["parse_upload"] = time.perf_counter() - start
        mark = time.perf_counter()
        results = ingest.commit_results(
            registration=registration,
            table=table,
            original_name="bench.csv",
            actor=user,
        )
        timings["commit_results"] = time.perf_counter() - mark
        timings["total"] = time.perf_counter() - start
        assert results.row_count == args.rows
    for step, seconds in timings.items():
        print(f"{step:>15}: {seconds:6.2f} s")


if __name__ == "__main__":
    main()
