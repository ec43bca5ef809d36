"""Attack: a client that goes away during its upload (issue 30).

Under gunicorn's sync workers (compose.yaml, Dockerfile) a request is not told
that its client left; config/request_body.py does what can be done: a body cut
short is refused before any parser sees it, and an upload's parse looks at the
client's socket (gunicorn's ``gunicorn.socket``) between row batches and stops
once the client has closed it.
"""

import io
import os
import socket
import subprocess
import sys
import time

import pytest
from django.conf import settings

from analysis.models import ResultsVersion
from tests.processes import stop_processes
from tests.security.crafted import xlsx_many_cells

URL = "/api/v1/registrations/miccai-2027-001/results/?commit=true"
BOUNDARY = "cutshort"
CSV = b"task,case,algorithm,metric,value\nBrain,c1,A1,DSC,0.5\nBrain,c2,A1,DSC,0.6\n"


def _multipart(data: bytes, name: str, *, teams: str = "") -> bytes:
    parts = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode() + data
    if teams:
        parts += (
            f'\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name="teams"'
            f"\r\n\r\n{teams}"
        ).encode()
    return parts + f"\r\n--{BOUNDARY}--\r\n".encode()


def _post(api, body: bytes, *, sent: bytes | None = None, client=None):
    """POST `body` as declared (Content-Length), of which `sent` arrives."""
    environ = {"wsgi.input": io.BytesIO(body if sent is None else sent)}
    if client is not None:
        environ["gunicorn.socket"] = client
    return api.generic(
        "POST",
        URL,
        body,
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
        **environ,
    )


@pytest.fixture
def closed_client():
    """A connection whose client has closed it (as gunicorn's socket is then)."""
    ours, theirs = socket.socketpair()
    theirs.close()
    yield ours
    ours.close()


@pytest.fixture
def open_client():
    ours, theirs = socket.socketpair()
    yield ours
    ours.close()
    theirs.close()


@pytest.mark.django_db
def test_a_body_cut_short_is_refused_before_anything_is_parsed(
    organizer_api, registration
):
    # the file is whole, the teams part never came: this stored the results
    # without their teams (201) under gunicorn
    body = _multipart(CSV, "r.csv", teams='{"A1": "Team One"}')
    sent = body[: body.index(b'name="teams"')]
    response = _post(organizer_api, body, sent=sent)
    assert response.status_code == 400
    assert response.json()["detail"] == (
        f"The request body ended after {len(sent)} of {len(body)} bytes (the "
        "client closed the connection)."
    )
    assert ResultsVersion.objects.count() == 0


@pytest.mark.django_db
def test_a_whole_body_is_stored(organizer_api, registration):
    body = _multipart(CSV, "r.csv", teams='{"A1": "Team One"}')
    response = _post(organizer_api, body)
    assert response.status_code == 201
    assert ResultsVersion.objects.get().teams == {"A1": "Team One"}


@pytest.mark.django_db
def test_a_csv_parse_stops_when_the_client_has_gone(
    organizer_api, registration, closed_client
):
    response = _post(organizer_api, _multipart(CSV, "r.csv"), client=closed_client)
    assert response.status_code == 400
    [message] = response.json()["errors"]
    assert message.startswith("The client closed the connection; reading the upload")
    assert ResultsVersion.objects.count() == 0


@pytest.mark.django_db
def test_a_workbook_parse_stops_between_row_batches_when_the_client_has_gone(
    organizer_api, registration, closed_client, caplog
):
    data = xlsx_many_cells(rows=40_000, columns=10)  # longer than one poll
    response = _post(organizer_api, _multipart(data, "r.xlsx"), client=closed_client)
    assert response.status_code == 400
    [message] = response.json()["errors"]
    assert message.startswith("The client closed the connection; reading the upload")
    assert "Upload parse stopped after" in caplog.text
    assert ResultsVersion.objects.count() == 0


@pytest.mark.django_db
def test_a_client_still_connected_gets_its_answer(
    organizer_api, registration, open_client
):
    response = _post(organizer_api, _multipart(CSV, "r.csv"), client=open_client)
    assert response.status_code == 201


# --- under gunicorn itself: its sync worker lets the closed socket be seen -----


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def gunicorn(tmp_path):
    """gunicorn (one sync worker, as compose.yaml runs it) serving
    tests/security/disconnect_app.py; its report file."""
    port = _free_port()
    report = tmp_path / "report"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "tests.security.disconnect_app:application",
            *("--bind", f"127.0.0.1:{port}", "--workers", "1"),
            *("--worker-class", "sync", "--timeout", "60"),
        ],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DISCONNECT_REPORT": str(report)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.1)
        yield port, report
    finally:
        stop_processes([process])


def _send(port: int, watch: float) -> socket.socket:
    client = socket.create_connection(("127.0.0.1", port))
    body = b"x" * 1000
    client.sendall(
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
        + f"Content-Length: {len(body)}\r\nX-Watch-Seconds: {watch}\r\n".encode()
        + b"\r\n"
        + body
    )
    return client


def _report(path, within: float = 20) -> tuple[str, float]:
    deadline = time.monotonic() + within
    while not path.exists() or not path.read_text():
        assert time.monotonic() < deadline, "the application wrote no report"
        time.sleep(0.05)
    closed, seconds = path.read_text().split()
    return closed, float(seconds)


@pytest.mark.slow
def test_under_gunicorn_a_closed_connection_is_seen_at_once(gunicorn):
    port, report = gunicorn
    client = _send(port, watch=15)
    time.sleep(0.5)
    client.close()
    closed, seconds = _report(report)
    assert closed == "True"
    assert seconds < 3  # 0.5 s, and the watch polls every 20 ms


@pytest.mark.slow
def test_under_gunicorn_a_connected_client_is_not_taken_for_gone(gunicorn):
    port, report = gunicorn
    client = _send(port, watch=1)
    answer = client.recv(1000)
    client.close()
    assert answer.startswith(b"HTTP/1.1 200 OK")
    assert _report(report)[0] == "False"
