"""Fixtures of the site's tests that watch what an operator sees: the log and Sentry."""

from __future__ import annotations

import gzip
import http.server
import io
import logging
import threading
from collections.abc import Iterator

import brotli
import pytest

from monitoring.request_id import RequestIdFilter


@pytest.fixture
def site_log() -> Iterator[io.StringIO]:
    """What the site's console handler writes, with its own filter and format."""
    root = logging.getLogger()
    console = next(
        h for h in root.handlers if any(isinstance(f, RequestIdFilter) for f in h.filters)
    )
    stream = io.StringIO()
    copy = logging.StreamHandler(stream)
    copy.filters = list(console.filters)
    copy.setFormatter(console.formatter)
    root.addHandler(copy)
    yield stream
    root.removeHandler(copy)


class _Sentry(http.server.BaseHTTPRequestHandler):
    """A stand-in for Sentry's ingest endpoint: keeps each envelope it is sent."""

    received: list[str]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        # sentry-sdk compresses with Brotli when it is installed (WhiteNoise's extra), else gzip.
        encoding = self.headers.get("Content-Encoding")
        if encoding == "br":
            body = brotli.decompress(body)
        elif encoding == "gzip":
            body = gzip.decompress(body)
        self.received.append(body.decode())
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def sentry_endpoint() -> Iterator[tuple[str, list[str]]]:
    """A DSN for a Sentry stand-in on this machine, and the envelopes it has received."""
    received: list[str] = []
    handler = type("Handler", (_Sentry,), {"received": received})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://publickey@127.0.0.1:{server.server_address[1]}/1", received
    server.shutdown()
    server.server_close()
