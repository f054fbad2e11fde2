"""Shared by the system tests: a local port nobody listens on (an unreachable address), and a web server on
127.0.0.1 that serves the data mirror (the data-fetch and Colab set-up tests fetch from it).

The server (a thread, an ephemeral port) serves the data mirror (found through ``COMPANION_DATA_DIR``) under
``/mirror/`` and files built by a test under ``/up/``; it answers ``Range`` requests and can cut a transfer half way.
"""

from __future__ import annotations

import re
import socket
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from companion.settings import DataNotFoundError, data_dir


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago and that nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _mirror() -> Path:
    try:
        root = data_dir()
    except DataNotFoundError:
        pytest.skip("no data mirror found (set COMPANION_DATA_DIR to it): the fetch tests serve the mirror's files")
    if not (root / "MANIFEST.sha256").is_file():
        pytest.skip(f"{root} has no MANIFEST.sha256: not the data mirror")
    return root


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, roots: dict[str, Path]):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.roots = roots
        self.requests: list[tuple[str, str | None]] = []
        self.cuts: dict[str, tuple[int, str]] = {}  # url path -> (bytes sent before the cut, "stall" | "drop")
        self.release = threading.Event()


class _Handler(BaseHTTPRequestHandler):
    """GET with ``Range: bytes=N-`` support (206 / 416), and one cut transfer per path listed in ``server.cuts``."""

    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 - the http.server API
        server: _Server = self.server
        url_path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        server.requests.append((url_path, self.headers.get("Range")))
        prefix, _, rel = url_path.lstrip("/").partition("/")
        root = server.roots.get(prefix)
        file = (root / rel).resolve() if root else None
        if file is None or root.resolve() not in file.parents or not file.is_file():
            self.send_error(404)
            return
        data = file.read_bytes()
        start, status = 0, 200
        wanted = self.headers.get("Range")
        if wanted:
            match = re.fullmatch(r"bytes=(\d+)-", wanted)
            start = int(match.group(1)) if match else 0
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status = 206
        body = data[start:]
        self.send_response(status)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        cut = server.cuts.pop(url_path, None)
        if cut is None:
            self.wfile.write(body)
            return
        sent, mode = cut
        self.wfile.write(body[:sent])
        self.wfile.flush()
        if mode == "stall":  # hold the connection open, as a slow server would, until the test lets go
            server.release.wait(timeout=60)
        self.close_connection = True

    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    mirror = _mirror()
    up = tmp_path / "upstream"
    up.mkdir()
    srv = _Server({"mirror": mirror, "up": up})
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    srv.url = f"http://127.0.0.1:{srv.server_address[1]}"
    srv.mirror, srv.up = mirror, up
    try:
        yield srv
    finally:
        srv.release.set()
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=10)
