"""A private ``redis-server`` for fault tests: started on a free port, stopped, hung, resumed.

The server is ``benchmarks.servers.RedisServer`` (never the machine's Redis on
6379), which the soak uses too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from benchmarks.servers import RedisServer, free_port, private_redis, redis_missing

__all__ = ["RedisServer", "free_port", "point_the_site_at", "redis_server", "site_on_private_redis"]


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A private Redis, running; stopped (and its folder removed) after the test."""
    reason = redis_missing()
    if reason is not None:
        if os.environ.get("DIAMINO_REQUIRE_SERVICES") == "1":
            pytest.fail(f"DIAMINO_REQUIRE_SERVICES=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    with private_redis() as server:
        yield server


def point_the_site_at(server: RedisServer, settings) -> None:
    """Cache, sessions and Celery broker as production sets them, on ``server``.

    The same shape as ``diamino_site/settings.py`` with ``REDIS_URL`` set; tasks
    are not eager, so what a request queues goes to this Redis, for a worker.
    """
    from infra.celery import app

    base = {
        "BACKEND": "infra.cache.ResilientRedisCache",
        "LOCATION": server.url,
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        "RETRY_SECONDS": 5,
    }
    settings.CACHES = {
        "default": {**base, "FALLBACK": "local"},
        "sessions": {**base, "FALLBACK": "none"},
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    settings.SESSION_CACHE_ALIAS = "sessions"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False
    # celery-types declares these settings read-only properties; Celery's conf sets them.
    app.conf.broker_url = server.url  # type: ignore[misc]
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

    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None
    # The result backend too is made once, from the URL of its time (per thread unless thread-safe).
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)


@pytest.fixture
def site_on_private_redis(redis_server: RedisServer, settings) -> Iterator[RedisServer]:
    """The site using a private Redis for everything Redis does in production."""
    from infra import cache as resilient
    from infra import outage
    from infra.celery import app

    before = (app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager)
    point_the_site_at(redis_server, settings)
    try:
        yield redis_server
    finally:
        # celery-types: read-only properties, as in point_the_site_at.
        app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager = before  # type: ignore[misc]
        _forget_broker_connections(app)
        outage.forget_all()  # the next test's server is another one
        resilient.forget_missed_deletes()
