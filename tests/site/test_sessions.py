"""Sessions with Redis: read from the cache, kept in the database (Django's ``cached_db``).

With Redis away, the session cache (``infra/cache.py``, ``FALLBACK`` "none")
keeps nothing: pages read the database, and a log-out stays one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from infra import cache as resilient
from infra import outage
from tests.factories import make_player
from tests.faults.redis_server import RedisServer, free_port, redis_server  # noqa: F401 (fixture)

ROOT = Path(__file__).resolve().parents[2]
ENGINE = "django.contrib.sessions.backends.cached_db"

pytestmark = pytest.mark.django_db


@pytest.fixture
def cached_sessions(settings) -> None:
    settings.SESSION_ENGINE = ENGINE  # the test cache is local memory, shared within the test


def _session_queries(client: Client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return [q["sql"] for q in queries if "django_session" in q["sql"]]


def test_a_signed_in_page_reads_its_session_from_the_cache(cached_sessions) -> None:
    client = Client()
    client.force_login(make_player("cached"))
    url = reverse("games:mine")
    _session_queries(client, url)  # the first read may fill the cache
    assert _session_queries(client, url) == []


def test_a_flushed_cache_signs_nobody_out(cached_sessions) -> None:
    client = Client()
    client.force_login(make_player("flushed"))
    cache.clear()
    response = client.get(reverse("games:mine"))
    assert response.status_code == 200  # not a redirect to the log-in page
    assert _session_queries(client, reverse("games:mine")) == []  # cached again


def _sessions_on_redis(settings, url: str) -> None:
    """The session cache as production sets it (diamino_site/settings.py), on ``url``."""
    settings.CACHES = {
        **settings.CACHES,
        "sessions": {
            "BACKEND": "infra.cache.ResilientRedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
            "RETRY_SECONDS": 1,
            "FALLBACK": "none",
        },
    }
    settings.SESSION_ENGINE = ENGINE
    settings.SESSION_CACHE_ALIAS = "sessions"


@pytest.fixture
def forget_outages() -> Iterator[None]:
    yield
    outage.forget_all()
    resilient.forget_missed_deletes()


def test_a_redis_that_refuses_leaves_the_sessions_in_the_database(settings, forget_outages) -> None:
    _sessions_on_redis(settings, f"redis://127.0.0.1:{free_port()}/0")
    client = Client()
    client.force_login(make_player("outage"))
    response = client.get(reverse("games:mine"))
    assert response.status_code == 200
    assert "outage" in response.content.decode()
    client.post(reverse("account_logout"))
    assert client.get(reverse("games:mine")).status_code == 302


def test_a_log_out_while_redis_hangs_stays_one_once_redis_answers_with_the_old_session(
    settings,
    redis_server: RedisServer,  # noqa: F811 (the fixture)
    forget_outages,
) -> None:
    _sessions_on_redis(settings, redis_server.url)
    client = Client()
    client.force_login(make_player("leaving"))
    assert client.get(reverse("games:mine")).status_code == 200  # cached in Redis
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    redis_server.hang()
    try:
        client.post(reverse("account_logout"))
    finally:
        redis_server.resume()
    time.sleep(1.1)  # past RETRY_SECONDS: Redis is asked again, and still holds the session
    thief = Client()
    thief.cookies[django_settings.SESSION_COOKIE_NAME] = cookie
    assert thief.get(reverse("games:mine")).status_code == 302  # to the log-in page


def test_logging_out_ends_the_cached_session(cached_sessions) -> None:
    client = Client()
    client.force_login(make_player("leaving"))
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    assert client.get(reverse("games:mine")).status_code == 200
    client.post(reverse("account_logout"))
    stale = Client()
    stale.cookies[django_settings.SESSION_COOKIE_NAME] = cookie
    assert stale.get(reverse("games:mine")).status_code == 302  # to the log-in page


def _engine_with(env: dict[str, str]) -> str:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DIAMINO_")) and k not in ("REDIS_URL", "DATABASE_URL")
    }
    script = "from django.conf import settings; print(settings.SESSION_ENGINE)"
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "diamino_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.strip()


def test_redis_sessions_only_with_redis() -> None:
    # Local memory is per process: a session ended in one would live on in another.
    assert _engine_with({}) == "django.contrib.sessions.backends.db"
    assert _engine_with({"REDIS_URL": "redis://127.0.0.1:6379/0"}) == ENGINE
