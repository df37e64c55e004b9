"""A private ``redis-server`` for fault tests: started on a free port, stopped, hung, resumed.

Never the machine's Redis (6379): other engineers and their suites use it. The
server keeps no files (``--save "" --appendonly no``, its own temporary folder),
so stopping it loses what it held, as a restarted Redis without persistence would.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """One ``redis-server`` process on ``port``; ``stop``/``start`` keep the same port."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        assert self.process is None, "already running"
        # fmt: off
        command = [
            REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--dir", str(self.folder),
            "--loglevel", "warning",
        ]
        # fmt: on
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not self.answers():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop it: connections are refused (error 111) until ``start``."""
        if self.process is None:
            return
        self.resume()
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process = None

    def hang(self) -> None:
        """Freeze it (SIGSTOP): connections are accepted and never answered."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.process is not None:
            os.kill(self.process.pid, signal.SIGCONT)

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A private Redis, running; stopped (and its folder removed) after the test."""
    if not os.path.exists(REDIS_SERVER):
        reason = "redis-server is not installed (apt-get install redis-server)"
        if os.environ.get("DIAMINO_REQUIRE_SERVICES") == "1":
            pytest.fail(f"DIAMINO_REQUIRE_SERVICES=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    with tempfile.TemporaryDirectory(prefix="diamino-redis-") as folder:
        server = RedisServer(Path(folder))
        server.start()
        try:
            yield server
        finally:
            server.stop()


def point_the_site_at(server: RedisServer, settings) -> None:
    """Cache, sessions and Celery broker as production sets them, on ``server``.

    The same shape as ``diamino_site/settings.py`` with ``REDIS_URL`` set; tasks
    are not eager, so what a request queues goes to this Redis, for a worker.
    """
    from diamino_site.celery import app

    base = {
        "BACKEND": "diamino_site.cache.ResilientRedisCache",
        "LOCATION": server.url,
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        "RETRY_SECONDS": 5,
    }
    settings.CACHES = {
        "default": {**base, "FALLBACK": "local"},
        "sessions": {**base, "FALLBACK": "none"},
    }
    settings.SESSION_ENGINE = "diamino_site.sessions"
    settings.SESSION_CACHE_ALIAS = "sessions"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False
    # celery-types declares these settings read-only properties; Celery's conf sets them.
    app.conf.broker_url = server.url  # type: ignore[misc]
    # As the settings do with a redis:// URL (diamino_site/broker.py).
    app.conf.broker_transport = "diamino_site.broker:RedisTransport"
    app.conf.result_backend = server.url  # type: ignore[misc]
    app.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    app.conf.task_publish_retry = settings.CELERY_TASK_PUBLISH_RETRY
    _forget_broker_connections(app)


def _forget_broker_connections(app) -> None:
    """Celery keeps the broker's connection pool and the result backend it first made.

    ``kombu.pools.reset`` closes every pool and empties kombu's registry, so the
    next publish (to this test's Redis, or back to the suite's) opens a fresh one.
    """
    from kombu import pools

    from diamino_site import broker

    pools.reset()
    broker.forget_copies()  # the kept task messages' client is the old pool's
    app._pool = None
    app.amqp._producer_pool = None
    # The result backend too is made once, from the URL of its time (per thread unless thread-safe).
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)


@pytest.fixture
def site_on_private_redis(redis_server: RedisServer, settings) -> Iterator[RedisServer]:
    """The site using a private Redis for everything Redis does in production."""
    from diamino_site import cache as resilient
    from diamino_site import outage
    from diamino_site.celery import app

    before = (app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager)
    transport_before = app.conf.broker_transport
    point_the_site_at(redis_server, settings)
    try:
        yield redis_server
    finally:
        # celery-types: read-only properties, as in point_the_site_at.
        app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager = before  # type: ignore[misc]
        app.conf.broker_transport = transport_before
        _forget_broker_connections(app)
        outage.forget_all()  # the next test's server is another one
        resilient.forget_missed_deletes()
