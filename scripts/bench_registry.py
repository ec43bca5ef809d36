"""The registry's list pages at N registrations: latency, queries and size.

    python scripts/bench_registry.py prepare PLAN.json   # Django side (in-process)
    python scripts/bench_registry.py measure PLAN.json --base http://127.0.0.1:8766

`prepare` (against the seeded database, `manage.py seed_registry`) creates a
reviewer with 200 assignments and signed-in sessions for the seeded organizer
(who owns and chairs everything seeded, the worst case for the dashboard and
the chair's overview) and the reviewer, counts each page's SQL queries and
bytes once in-process, and writes the plan. `measure` requests every page over
HTTP, first one client at a time, then with 8 concurrent clients, and prints
one table row per page: p50/p95/p99, queries per request, response size,
errors. Loops are bounded (`--repeat`) and only 127.0.0.1 is accepted.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
REVIEWER = "bench-reviewer"


def prepare(plan_path: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from registry.models import Call, Challenge, RegistrationListing
    from registry.seeding import SEED_USER
    from reviews.models import Assignment

    user_model = get_user_model()
    organizer = user_model.objects.get(username=SEED_USER)
    reviewer, _ = user_model.objects.get_or_create(username=REVIEWER)
    if not Assignment.objects.filter(reviewer=reviewer).exists():
        Assignment.objects.bulk_create(
            Assignment(
                challenge=c, reviewer=reviewer, role="technical", status="submitted"
            )
            for c in Challenge.objects.filter(owner=organizer).order_by("pk")[:200]
        )
    call = Call.objects.filter(slug__startswith="seed-").order_by("slug").first()
    count = RegistrationListing.objects.count()
    newest = RegistrationListing.objects.order_by("-registered").first()
    oldest = RegistrationListing.objects.order_by("registered", "id").first()
    # A keyset position 50 rows before the end: the last full page.
    near_end = RegistrationListing.objects.order_by("registered", "id")[50]
    last_page = -(-count // 25)
    deep = base64.b64encode(
        urlencode({"p": str(near_end.registered)}).encode()
    ).decode()
    pages = [
        ("public list, first page", "/registry/", None),
        ("public list, last page", f"/registry/?page={last_page}", None),
        ("filter modality=OCT", "/registry/?modality=OCT", None),
        ("filter category=tracking", "/registry/?category=tracking", None),
        ("filter call", f"/registry/?call={call.slug}", None),
        ("filter year", f"/registry/?year={newest.year}", None),
        ("filter metric=HD95", "/registry/?metric=HD95", None),
        ("filter method", "/registry/?method=test_then_rank", None),
        ("filter tasks=3", "/registry/?tasks=3", None),
        ("filters combined", "/registry/?modality=CT&tasks=2&metric=DSC", None),
        ("full-text search", "/registry/?q=segmentation+liver", None),
        ("identifier search", f"/registry/?q={oldest.identifier}", None),
        ("API registrations", "/api/v1/registrations/", None),
        (
            "API registrations, deep cursor",
            f"/api/v1/registrations/?cursor={deep}",
            None,
        ),
        ("API registrations ?q=", "/api/v1/registrations/?q=segmentation", None),
        ("API registrations ?modality=", "/api/v1/registrations/?modality=OCT", None),
        ("API challenges (organizer)", "/api/v1/challenges/", SEED_USER),
        ("API challenges, page 100", "/api/v1/challenges/?page=100", SEED_USER),
        ("organizer dashboard", "/proposals/", SEED_USER),
        ("chair's call overview", f"/reviews/calls/{call.pk}/", SEED_USER),
        ("reviewer's my reviews", "/reviews/mine/", REVIEWER),
    ]
    clients = {None: Client()}
    sessions = {}
    for username in (SEED_USER, REVIEWER):
        client = Client()
        client.force_login(user_model.objects.get(username=username))
        clients[username] = client
        sessions[username] = client.cookies["sessionid"].value
    rows = []
    for name, path, who in pages:
        with CaptureQueriesContext(connection) as queries:
            response = clients[who].get(path)
        assert response.status_code == 200, (path, response.status_code)
        rows.append(
            {
                "name": name,
                "path": path,
                "session": sessions.get(who),
                "queries": len(queries),
                "bytes": len(response.content),
            }
        )
    Path(plan_path).write_text(json.dumps({"registrations": count, "pages": rows}))


def fetch(host: str, port: int, path: str, session: str | None) -> tuple[int, float]:
    headers = {"Host": "127.0.0.1"}
    if session:
        headers["Cookie"] = f"sessionid={session}"
    started = time.perf_counter()
    connection = http.client.HTTPConnection(host, port, timeout=60)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    except OSError:
        return 0, time.perf_counter() - started
    finally:
        connection.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run(host, port, page, clients: int, repeat: int) -> tuple[list[float], int]:
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()

    def client() -> None:
        for _ in range(repeat):
            status, seconds = fetch(host, port, page["path"], page["session"])
            with lock:
                latencies.append(seconds)
                errors[0] += status != 200

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors[0]


def measure(plan_path: str, base: str, repeat: int) -> None:
    plan = json.loads(Path(plan_path).read_text())
    url = urlsplit(base)
    if url.hostname != "127.0.0.1":
        raise SystemExit("measure: only http://127.0.0.1:PORT is benchmarked.")
    host, port = url.hostname, url.port or 80
    print(
        f"{plan['registrations']} registrations; {repeat} sequential requests per "
        f"page, then 8 clients x {max(1, repeat // 2)}; ms"
    )
    print(
        "| page | p50 | p95 | p99 | 8 clients p50 | p95 | p99 | errors | queries | KB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for page in plan["pages"]:
        fetch(host, port, page["path"], page["session"])  # warm the process
        one, errors_one = run(host, port, page, 1, repeat)
        eight, errors_eight = run(host, port, page, 8, max(1, repeat // 2))
        ms = [
            f"{percentile(values, q) * 1000:.0f}"
            for values in (one, eight)
            for q in (0.5, 0.95, 0.99)
        ]
        print(
            f"| {page['name']} | {' | '.join(ms)} | {errors_one + errors_eight} "
            f"| {page['queries']} | {page['bytes'] / 1024:.0f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["prepare", "measure"])
    parser.add_argument("plan")
    parser.add_argument("--base", default="http://127.0.0.1:8766")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if not 1 <= args.repeat <= 1000:
        raise SystemExit("--repeat: between 1 and 1000.")
    if args.step == "prepare":
        prepare(args.plan)
    else:
        measure(args.plan, args.base, args.repeat)


if __name__ == "__main__":
    main()
