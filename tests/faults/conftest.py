"""The fault suite's servers and workers (see tests/faults/stack.py).

Every test here needs the private PostgreSQL cluster and Redis server that
`make faults` starts (FAULTS_DIR); elsewhere the suite is skipped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.client
import io
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.management import call_command
from django.db import connection, connections

from analysis import ingest
from analysis.models import AnalysisRun
from analysis.services import compute_output, results_frame
from config.celery import app
from tests.analysis.django.conftest import SCHEME, registration, results_csv
from tests.faults.stack import PostgresCluster, RedisServer, free_port
from tests.processes import stop_processes

ROOT = Path(__file__).resolve().parents[2]
FAULTS_DIR = os.environ.get("FAULTS_DIR")

# Long enough to be interrupted (~10 s here), short enough for a few-minute suite.
SLOW_SCHEME = {
    **SCHEME,
    "uncertainty": {"bootstrap": 15000, "seed": 11, "rank_ci": ["bootstrap"]},
}
STALE_SECONDS = 15  # the default is 60; shorter keeps the suite short


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/faults/" in str(item.fspath):
            item.add_marker(pytest.mark.faults)
            if not FAULTS_DIR:
                reason = "run through `make faults` (private servers)"
                item.add_marker(pytest.mark.skip(reason=reason))


class Stack:
    """The private servers, restartable by the tests."""

    def __init__(self):
        base = Path(FAULTS_DIR)
        self.base = base
        self.postgres = PostgresCluster.__new__(PostgresCluster)
        self.postgres.data, self.postgres.sockets = base / "pgdata", base / "pgsock"
        self.postgres.log = base / "postgres.log"
        self.postgres.port = int(os.environ["FAULTS_PG_PORT"])
        self.redis = RedisServer.__new__(RedisServer)
        self.redis.port = int(os.environ["FAULTS_REDIS_PORT"])
        self.redis.log = base / "redis.log"
        self.redis.process = None

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis.port}/0"

    def stop_redis(self) -> None:
        """The launcher started it; stop whatever listens on the port."""
        subprocess.run(
            ["redis-cli", "-p", str(self.redis.port), "shutdown", "nosave"],
            capture_output=True,
            check=False,
        )
        if self.redis.process is not None:  # one this suite restarted: reap it
            self.redis.process.wait(timeout=10)
        self.redis.process = None

    def start_redis(self) -> None:
        self.redis.start()

    def postgres_pids(self) -> list[int]:
        """The postmaster and every process it started."""
        master = int((self.postgres.data / "postmaster.pid").read_text().split()[0])
        return [master, *pool_children(master)]

    def redis_pids(self) -> list[int]:
        info = subprocess.run(
            ["redis-cli", "-p", str(self.redis.port), "info", "server"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return [int(info.split("process_id:")[1].split()[0])]

    @contextlib.contextmanager
    def hung(self, pids: list[int]) -> Iterator[None]:
        """The processes stopped by SIGSTOP (they take connections and answer
        nothing, as a hung server does), continued afterwards."""
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)

    def restart_postgres(self) -> None:
        self.postgres.restart()
        for alias in connections:
            connections[alias].close()

    @contextlib.contextmanager
    def postgres_stopped(self) -> Iterator[None]:
        """PostgreSQL shut down (fast: sessions ended), started afterwards."""
        self.postgres.stop()
        try:
            yield
        finally:
            self.postgres.start()
            for alias in connections:
                connections[alias].close()


@pytest.fixture(scope="session")
def stack():
    servers = Stack()
    yield servers
    if servers.redis.process is not None:  # restarted by a test: stop it here
        servers.redis.stop()


def database_url() -> str:
    db = connection.settings_dict
    return f"postgres://postgres@127.0.0.1:{db['PORT']}/{db['NAME']}"


def compose_worker_command() -> list[str]:
    """The worker service's command in compose.yaml, read from the file so
    the suite cannot drift from what production runs."""
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return list(compose["services"]["worker"]["command"])


def worker_command() -> list[str]:
    """compose.yaml's worker command, run by this interpreter."""
    program, *args = compose_worker_command()
    assert program == "celery", program
    return [sys.executable, "-m", "celery", *args]


def compose_web_command() -> list[str]:
    """The gunicorn part of the web service's command in compose.yaml (after
    its migrate and resume_jobs steps), read from the file."""
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    shell = compose["services"]["web"]["command"]
    assert shell.startswith("sh -c "), shell
    script = shlex.split(shell)[2]
    return shlex.split(script.split("exec ", 1)[1])


def _replaced(command: list[str], option: str, value: str) -> list[str]:
    at = command.index(option)
    return [*command[: at + 1], value, *command[at + 2 :]]


class Web:
    """The site as compose runs it: gunicorn with compose.yaml's arguments and
    the production settings (persistent, health-checked database connections;
    the Redis cache), on a free local port, against the test database, sending
    jobs to the test's workers."""

    def __init__(self, stack: Stack, workers: Workers, tmp_path: Path):
        self.stack, self.workers, self.tmp_path = stack, workers, tmp_path
        self.port = free_port()
        self.log = tmp_path / "web.log"
        self.process: subprocess.Popen | None = None

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": "faults-only-secret-key-0123456789-abcdefghijklmnop",
            "DATABASE_URL": database_url(),
            "ALLOWED_HOSTS": "127.0.0.1",
            "SITE_URL": f"http://127.0.0.1:{self.port}",
            "SECURE_SSL_REDIRECT": "0",
            "SECURE_COOKIES": "0",
            "MEDIA_ROOT": str(self.workers.media),
            "CACHE_URL": self.stack.redis_url.replace("/0", "/1"),
            "CELERY_BROKER_URL": self.stack.redis_url,
            "CELERY_TASK_DEFAULT_QUEUE": self.workers.queue,
        }

    def start(self, *, workers: int = 1) -> Web:
        """gunicorn, ``workers`` processes (one: every request reuses the one
        kept database connection), ready to answer."""
        program, *args = compose_web_command()
        assert program == "gunicorn", program
        args = _replaced(args, "--bind", f"127.0.0.1:{self.port}")
        args = _replaced(args, "--workers", str(workers))
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", *args],
                cwd=ROOT,
                env=self.env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for(
            lambda: self._answers("/health/"),
            seconds=60,
            what=f"gunicorn answers: {self.log}",
        )
        return self

    def _answers(self, path: str) -> bool:
        try:
            return self.request("GET", path).status == 200
        except OSError:
            return False

    def request(
        self, method: str, path: str, *, token: str = "", body: dict | None = None
    ) -> Answer:
        """One request with its own connection, timed (30 s at most)."""
        headers = {"Host": "127.0.0.1"}
        if token:
            headers["Authorization"] = f"Token {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            content = response.read()
        finally:
            connection.close()
        return Answer(
            response.status,
            dict(response.getheaders()),
            content,
            time.monotonic() - started,
        )

    def stop(self) -> None:
        if self.process is not None:
            stop_processes([self.process])


@dataclasses.dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    content: bytes
    seconds: float

    def json(self) -> dict:
        return json.loads(self.content)


@pytest.fixture
def web(stack, workers, tmp_path):
    """Start the site with ``web.start()``; stopped afterwards."""
    site = Web(stack, workers, tmp_path)
    yield site
    site.stop()


class Workers:
    """Celery worker processes on a private queue, against the test database."""

    def __init__(self, stack: Stack, tmp_path: Path, media: Path):
        self.stack, self.tmp_path, self.media = stack, tmp_path, media
        self.queue = f"faults-{os.getpid()}-{time.monotonic_ns()}"
        self.processes: list[tuple[subprocess.Popen, Path]] = []

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url(),
            "TEST_MEDIA_ROOT": str(self.media),
            "CELERY_BROKER_URL": self.stack.redis_url,
            "CELERY_TASK_DEFAULT_QUEUE": self.queue,
            "JOBS_SYNCHRONOUS": "0",
            "JOBS_HEARTBEAT_SECONDS": "1",
            "JOBS_STALE_SECONDS": str(STALE_SECONDS),
            "JOBS_RETRY_SECONDS": "2",
        }

    def start(self, **env: str) -> subprocess.Popen:
        """A worker started with compose.yaml's own worker command (prefork
        pool, its concurrency), on this test's queue; ``env`` adds settings.
        It leads a process group of its own, as a container does."""
        index = len(self.processes)
        log = self.tmp_path / f"worker-{index}.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                [
                    *worker_command(),
                    *("-Q", self.queue, f"--hostname=faults-{index}@%h"),
                ],
                cwd=ROOT,
                env={**self.env(), **env},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes.append((process, log))
        return process

    def logs(self) -> str:
        return "\n".join(log.read_text() for _, log in self.processes)

    def stop(self) -> None:
        stop_processes(process for process, _ in self.processes)


@pytest.fixture
def media(tmp_path, settings) -> Path:
    """This test's media storage, shared with its workers."""
    path = tmp_path / "media"
    path.mkdir()
    settings.MEDIA_ROOT = path
    return path


@pytest.fixture
def workers(stack, tmp_path, media, settings):
    """Start workers with ``workers.start()``; the web side (this process)
    sends its jobs to their queue through the private Redis."""
    pool = Workers(stack, tmp_path, media)
    previous = (app.conf.broker_url, app.conf.task_default_queue)
    app.conf.broker_url, app.conf.task_default_queue = stack.redis_url, pool.queue
    settings.CELERY_BROKER_URL = stack.redis_url
    settings.JOBS_SYNCHRONOUS = False
    settings.JOBS_STALE_SECONDS = STALE_SECONDS
    try:
        yield pool
    finally:
        app.conf.broker_url, app.conf.task_default_queue = previous
        pool.stop()


class Watchdog:
    """What compose's jobs-watchdog does (every minute), every 3 s here."""

    def __init__(self):
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.wait(3):
            try:
                call_command("resume_jobs", stdout=io.StringIO())
            except Exception:  # the database may be restarting: next round
                pass
            finally:
                connection.close()


@pytest.fixture
def watchdog():
    dog = Watchdog()
    dog.thread.start()
    yield dog
    dog.stop.set()
    dog.thread.join(timeout=30)


@pytest.fixture
def big_results(registration, organizer):
    raw = ingest.read_upload(
        "results.csv",
        results_csv(n_cases=200, algorithms=tuple(f"A{i}" for i in range(8))),
    )
    return ingest.commit_results(
        registration=registration,
        table=ingest.checked(raw),
        original_name="results.csv",
        actor=organizer,
    )


_EXPECTED: dict[str, str] = {}


def expected_output(run: AnalysisRun) -> str:
    """The uninterrupted run's output (computed here once per scheme)."""
    key = json.dumps([run.results.sha256, run.scheme, run.seed], sort_keys=True)
    if key not in _EXPECTED:
        frame = results_frame(run.results)
        output = compute_output(frame, run.scheme, seed=run.seed)
        _EXPECTED[key] = json.dumps(output, sort_keys=True)
    return _EXPECTED[key]


def output_of(run: AnalysisRun) -> str:
    return json.dumps(run.output, sort_keys=True)


def wait_for(predicate, *, seconds: float, every: float = 0.5, what: str = ""):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"not within {seconds} s: {what}")


def run_state(run_id: int) -> AnalysisRun:
    try:
        return AnalysisRun.objects.get(pk=run_id)
    except Exception:
        connection.close()
        raise


def pool_children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


def kill_group(process: subprocess.Popen) -> None:
    """Kill a worker with its pool processes, as stopping its container does."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def media_files(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and ".health" not in p.parts
    }


__all__ = ["registration", "settings"]
