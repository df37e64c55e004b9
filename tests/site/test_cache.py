"""The Redis cache with a way round (diamino_site/cache.py), against a Redis that refuses.

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

from diamino_site import outage
from diamino_site.cache import ResilientRedisCache
from tests.factories import PASSWORD, make_player
from tests.faults.redis_server import RedisServer, free_port, redis_server  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_refusing(settings):
    base = {
        "BACKEND": "diamino_site.cache.ResilientRedisCache",
        "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
    settings.CACHES = {
        "default": {**base, "FALLBACK": "local"},
        "sessions": {**base, "FALLBACK": "none"},
    }
    settings.SESSION_ENGINE = "diamino_site.sessions"
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
    caplog.set_level(logging.WARNING, logger="diamino_site.outage")
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


def test_a_count_falls_back_to_the_process_with_redis_refusing(redis_refusing) -> None:
    cache = caches["default"]
    assert isinstance(cache, ResilientRedisCache)
    assert isinstance(cache, ResilientRedisCache)
    assert [cache.count_up("count", 2, 60) for _ in range(3)] == [2, 4, 6]


def test_a_count_in_redis_is_made_once_with_its_expiry_and_then_only_counted(
    redis_server: RedisServer,  # noqa: F811 (the fixture)
    settings,
) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "diamino_site.cache.ResilientRedisCache",
            "LOCATION": redis_server.url,
        }
    }
    cache = caches["default"]
    assert isinstance(cache, ResilientRedisCache)
    assert cache.count_up("count", 1, 60) == 1
    assert cache.get("count") == 1  # what Django's own get reads
    raw = redis.Redis.from_url(redis_server.url)
    (key,) = raw.keys("*count")
    raw.expire(key, 30)  # as if 30 seconds had passed: counting again keeps the expiry
    assert cache.count_up("count", 2, 60) == 3
    assert 25 <= raw.ttl(key) <= 30
    raw.delete(key)  # the window is over: a fresh count, with a new expiry
    assert cache.count_up("count", 1, 60) == 1
    assert 55 <= raw.ttl(key) <= 60
    outage.forget_all()
