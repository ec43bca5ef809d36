"""A WSGI application gunicorn serves in test_upload_disconnect: it reads the
body, then watches the client's socket (``gunicorn.socket``) with
:func:`config.request_body.connection_closed` for ``X-Watch-Seconds``, and
writes what it saw to the file named by ``DISCONNECT_REPORT``."""

import os
import time

from config.request_body import connection_closed


def application(environ, start_response):
    environ["wsgi.input"].read()
    client = environ["gunicorn.socket"]
    watch = float(environ.get("HTTP_X_WATCH_SECONDS", "10"))
    started = time.monotonic()
    while not (closed := connection_closed(client)):
        if time.monotonic() - started > watch:
            break
        time.sleep(0.02)
    with open(os.environ["DISCONNECT_REPORT"], "w") as report:
        report.write(f"{closed} {time.monotonic() - started:.3f}")
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"still here"]
