"""`make faults`: a throw-away PostgreSQL cluster and Redis server on free
ports, then the fault suite (tests/faults) against them, then both removed.

The suite stops and restarts these private servers; it never touches the
PostgreSQL or Redis named by DATABASE_URL / CACHE_URL. Needs DATABASE_URL on
PostgreSQL (the signal that this is the PostgreSQL leg), the PostgreSQL server
binaries (initdb, pg_ctl) and redis-server; otherwise it says why and exits 0.

    python -m tests.faults.stack [pytest arguments]
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def as_postgres(args: list[str]) -> list[str]:
    """initdb and pg_ctl refuse root: run them as the `postgres` user then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *args]
    return args


class PostgresCluster:
    def __init__(self, base: Path):
        self.data = base / "pgdata"
        self.sockets = base / "pgsock"
        self.log = base / "postgres.log"
        self.port = free_port()

    def _ctl(self, *args: str) -> None:
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1"
        subprocess.run(
            as_postgres(
                [
                    pg_bin("pg_ctl"),
                    "-D",
                    str(self.data),
                    "-l",
                    str(self.log),
                    "-o",
                    options,
                    "-w",
                    *args,
                ]
            ),
            check=True,
            capture_output=True,
        )

    def create(self) -> None:
        for path in (self.data, self.sockets):
            path.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.data.parent, "postgres")
            for path in (self.data, self.sockets):
                shutil.chown(path, "postgres")
        subprocess.run(
            as_postgres(
                [
                    pg_bin("initdb"),
                    "-D",
                    str(self.data),
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "--no-sync",
                ]
            ),
            check=True,
            capture_output=True,
        )
        self.start()

    def start(self) -> None:
        self._ctl("start")

    def stop(self) -> None:
        self._ctl("stop", "-m", "fast")

    def restart(self) -> None:
        self._ctl("restart", "-m", "fast")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/faults"


class RedisServer:
    def __init__(self, base: Path):
        self.port = free_port()
        self.log = base / "redis.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        with self.log.open("a") as log:  # the child keeps its own descriptor
            self.process = subprocess.Popen(
                [*command, "--save", "", "--appendonly", "no"],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"redis-server did not start: {self.log.read_text()}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None
        # A server the suite restarted is not our child: ask it to stop.
        subprocess.run(
            ["redis-cli", "-p", str(self.port), "shutdown", "nosave"],
            capture_output=True,
            check=False,
        )


def skip_reason() -> str | None:
    if not os.environ.get("DATABASE_URL", "").startswith(
        ("postgres://", "postgresql://")
    ):
        return "DATABASE_URL is not PostgreSQL"
    missing = [n for n in ("initdb", "pg_ctl") if pg_bin(n) is None]
    if shutil.which("redis-server") is None:
        missing.append("redis-server")
    if missing:
        return f"{', '.join(missing)} not found"
    return None


def main(argv: list[str]) -> int:
    reason = skip_reason()
    if reason:
        print(
            f"make faults: skipped ({reason}); the fault suite runs on the "
            "PostgreSQL leg with the PostgreSQL server binaries and redis-server."
        )
        return 0
    base = Path(tempfile.mkdtemp(prefix="registry-faults-"))
    cluster, redis = PostgresCluster(base), RedisServer(base)
    media = base / "media"
    media.mkdir()
    try:
        cluster.create()
        redis.start()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": cluster.url,
            "TEST_MEDIA_ROOT": str(media),
            "FAULTS_DIR": str(base),
            "FAULTS_PG_PORT": str(cluster.port),
            "FAULTS_REDIS_PORT": str(redis.port),
        }
        env.pop("CACHE_URL", None)
        env.pop("CELERY_BROKER_URL", None)
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "tests/faults",
            *argv,
        ]
        return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    finally:
        redis.stop()
        with contextlib.suppress(subprocess.CalledProcessError):
            cluster.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
