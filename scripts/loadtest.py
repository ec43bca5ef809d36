"""Load client: N concurrent clients for D seconds against a running server.

    python scripts/loadtest.py --base http://127.0.0.1:8765 --clients 50 --seconds 120

Each client loops over the registry pages and API (home, sign-in page, the
public registration list and search, each registration's API detail and public
page), one request at a time, each on a new connection (keep-alive connections
stay pinned to one gunicorn worker, which measured a worse p95). Prints the
request count, errors (non-2xx or connection failures) and p50/p95/p99
latency, overall and per path.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time
from collections import defaultdict
from urllib.parse import urlsplit


def fetch(host: str, port: int, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        connection.request("GET", path, headers={"Host": "127.0.0.1"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8765")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument(
        "--warmup", type=float, default=10, help="seconds of load not measured"
    )
    args = parser.parse_args()
    base = urlsplit(args.base)
    host, port = base.hostname, base.port or 80

    status, body = fetch(host, port, "/api/v1/registrations/")
    assert status == 200, (status, body[:300])
    identifiers = [r["identifier"] for r in json.loads(body)["results"]][:10]
    paths = [
        "/",
        "/accounts/login/",
        "/api/v1/registrations/",
        "/api/v1/registrations/?q=segmentation",
        *(f"/api/v1/registrations/{i}/" for i in identifiers),
        *(f"/registry/{i}/" for i in identifiers),
    ]

    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    lock = threading.Lock()
    measure_from = time.monotonic() + args.warmup
    deadline = measure_from + args.seconds

    def client(offset: int) -> None:
        i = offset
        while time.monotonic() < deadline:
            path = paths[i % len(paths)]
            i += 1
            start = time.perf_counter()
            try:
                status, _ = fetch(host, port, path)
                ok = 200 <= status < 300
            except OSError:
                ok = False
            elapsed = time.perf_counter() - start
            if time.monotonic() - elapsed < measure_from:
                continue  # warm-up: first imports and connections per worker
            with lock:
                latencies[path].append(elapsed)
                if not ok:
                    errors[path] += 1

    threads = [
        threading.Thread(target=client, args=(n,), daemon=True)
        for n in range(args.clients)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started - args.warmup

    every = [x for values in latencies.values() for x in values]
    print(
        f"{args.clients} clients, {wall:.0f} s, {len(every)} requests "
        f"({len(every) / wall:.0f}/s), errors: {sum(errors.values())}"
    )
    print(
        f"latency ms: p50 {percentile(every, 0.5) * 1000:.0f}  "
        f"p95 {percentile(every, 0.95) * 1000:.0f}  "
        f"p99 {percentile(every, 0.99) * 1000:.0f}  "
        f"mean {statistics.fmean(every) * 1000:.0f}"
    )
    for path in paths:
        values = latencies[path]
        if values:
            print(
                f"  {path:<48} n={len(values):>6}  "
                f"p50 {percentile(values, 0.5) * 1000:5.0f}  "
                f"p95 {percentile(values, 0.95) * 1000:5.0f}  "
                f"errors {errors[path]}"
            )


if __name__ == "__main__":
    main()
