"""Sessions with Redis: read from the cache, kept in the database (diamino_site/sessions.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache, caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import make_player

ROOT = Path(__file__).resolve().parents[2]
ENGINE = "diamino_site.sessions"

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


def test_a_cache_that_does_not_answer_falls_back_to_the_database(
    cached_sessions, monkeypatch
) -> None:
    client = Client()
    client.force_login(make_player("outage"))
    cache.clear()

    def down(*args, **kwargs):
        raise ConnectionError("Redis is down")

    backend = type(caches["default"])
    monkeypatch.setattr(backend, "get", down)
    monkeypatch.setattr(backend, "set", down)
    response = client.get(reverse("games:mine"))
    assert response.status_code == 200
    assert "outage" in response.content.decode()


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
