"""The Redis cache with a way round (infra/cache.py), against a Redis that refuses.

A port nobody listens on refuses every connection, as a stopped Redis does, so
these run without any service; ``tests/faults/test_redis_down.py`` stops, freezes
and restarts a real one.
"""

from __future__ import annotations

import logging

import pytest
import redis
from django.core.cache import caches
from django.test import Client
from django.urls import reverse

from infra import outage
from infra.ratelimit import Limit, RateLimited, take
from tests.factories import PASSWORD, make_player
from tests.faults.redis_server import RedisServer, redis_server  # noqa: F401 (fixture)
from tests.ports import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_refusing(settings):
    base = {
        "BACKEND": "infra.cache.ResilientRedisCache",
        "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
    settings.CACHES = {
        "default": {**base, "FALLBACK": "local"},
        "sessions": {**base, "FALLBACK": "none"},
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    settings.SESSION_CACHE_ALIAS = "sessions"
    yield
    outage.forget_all()


def test_the_default_cache_keeps_working_in_the_process(redis_refusing) -> None:
    cache = caches["default"]
    cache.set("k", 1)
    assert cache.get("k") == 1
    assert cache.add("lock", True) is True and cache.add("lock", True) is False
    cache.delete("lock")
    assert cache.add("lock", True) is True


def test_the_session_cache_keeps_nothing(redis_refusing) -> None:
    sessions = caches["sessions"]
    sessions.set("k", 1)
    assert sessions.get("k") is None


def test_log_in_answers_and_the_limit_holds_with_redis_refusing(redis_refusing, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="infra.outage")
    make_player("alice")
    owner = Client(REMOTE_ADDR="198.51.100.4")
    response = owner.post(reverse("account_login"), {"login": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert owner.get(reverse("accounts:settings")).status_code == 200
    stranger = Client(REMOTE_ADDR="203.0.113.9", HTTP_ACCEPT_LANGUAGE="en")
    pages = [
        stranger.post(reverse("account_login"), {"login": "alice", "password": "guess"})
        for _ in range(6)
    ]
    assert all(page.status_code == 200 for page in pages)
    assert "Too many failed login attempts" in pages[-1].content.decode()
    assert len([r for r in caplog.records if "unavailable" in r.getMessage()]) == 1


def test_a_limit_is_counted_in_the_process_with_redis_refusing(redis_refusing) -> None:
    limit = Limit("test", count=2, seconds=60)
    take(limit, "someone")
    take(limit, "someone")
    with pytest.raises(RateLimited):
        take(limit, "someone")


def test_a_limit_counted_in_redis_expires_with_its_window(
    redis_server: RedisServer,  # noqa: F811 (the fixture)
    settings,
) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "infra.cache.ResilientRedisCache",
            "LOCATION": redis_server.url,
        }
    }
    limit = Limit("test", count=2, seconds=60)
    take(limit, "someone", cost=2)
    with pytest.raises(RateLimited):
        take(limit, "someone")
    raw = redis.Redis.from_url(redis_server.url, decode_responses=True)
    (key,) = [k for k in raw.keys("*ratelimit:test:someone:*") if not str(k).endswith(":start")]
    assert raw.get(key) == "2"  # the refused one counted nothing
    assert 55 <= raw.ttl(key) <= 61
    outage.forget_all()
