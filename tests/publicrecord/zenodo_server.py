"""A local server implementing the Zenodo REST endpoints the deposit job uses.

Only what `publicrecord.deposit` calls: create a deposition, upload files to
its bucket, set its metadata, publish. Requests without the expected bearer
token get 401; `fail_publish` makes publishing answer 500 once.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "test-token"


class State:
    def __init__(self):
        self.depositions: dict[int, dict] = {}
        self.requests: list[tuple[str, str]] = []
        self.fail_publish = 0
        self.lock = threading.Lock()
        # hostile answers (issue 30): another bucket host, a redirect, a DOI
        self.bucket_host = ""
        self.redirect_create_to = ""
        self.doi = ""


class Handler(BaseHTTPRequestHandler):
    state: State

    def log_message(self, *args):  # keep the test output quiet
        pass

    def _reply(self, status: int, data: dict | None = None) -> None:
        body = json.dumps(data or {}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _authorized_body(self) -> bytes | None:
        """Records the request and reads its body; None (after answering 401) for
        a request without the token."""
        self.state.requests.append((self.command, self.path))
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self._reply(401, {"message": "The server could not verify your identity."})
            return None
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def do_POST(self):
        body = self._authorized_body()
        if body is None:
            return
        state = self.state
        if self.path == "/api/deposit/depositions" and state.redirect_create_to:
            self.send_response(307)
            self.send_header("Location", state.redirect_create_to)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/api/deposit/depositions":
            with state.lock:
                number = len(state.depositions) + 1
                host = f"http://{self.headers['Host']}"
                state.depositions[number] = {
                    "files": {},
                    "metadata": None,
                    "published": False,
                    "created_with": json.loads(body or b"{}"),
                }
            bucket_host = state.bucket_host or host
            links = {"bucket": f"{bucket_host}/api/files/bucket-{number}"}
            self._reply(201, {"id": number, "links": links})
            return
        match = re.fullmatch(
            r"/api/deposit/depositions/(\d+)/actions/publish", self.path
        )
        if match and int(match[1]) in state.depositions:
            if state.fail_publish:
                state.fail_publish -= 1
                self._reply(500, {"message": "Internal error"})
                return
            deposition = state.depositions[int(match[1])]
            if deposition["metadata"] is None or not deposition["files"]:
                self._reply(400, {"message": "Missing metadata or files."})
                return
            deposition["published"] = True
            number = match[1]
            self._reply(
                202,
                {
                    "doi": state.doi or f"10.5072/zenodo.{number}",
                    "links": {
                        "html": f"http://{self.headers['Host']}/records/{number}"
                    },
                },
            )
            return
        self._reply(404, {"message": "Not found"})

    def do_PUT(self):
        body = self._authorized_body()
        if body is None:
            return
        state = self.state
        match = re.fullmatch(r"/api/files/bucket-(\d+)/([^/]+)", self.path)
        if match and int(match[1]) in state.depositions:
            state.depositions[int(match[1])]["files"][match[2]] = body
            self._reply(201, {"key": match[2], "size": len(body)})
            return
        match = re.fullmatch(r"/api/deposit/depositions/(\d+)", self.path)
        if match and int(match[1]) in state.depositions:
            data = json.loads(body)
            if not data.get("metadata", {}).get("title"):
                self._reply(400, {"message": "title is required"})
                return
            state.depositions[int(match[1])]["metadata"] = data["metadata"]
            self._reply(200, {"id": int(match[1])})
            return
        self._reply(404, {"message": "Not found"})


def start() -> tuple[ThreadingHTTPServer, State]:
    state = State()
    handler = type("BoundHandler", (Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, state
