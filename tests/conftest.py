"""Suite-wide fixtures and the rules for tests that need real services.

Tests run on the embedded default (eager Celery, local-memory cache) whatever
the environment says, so they behave the same on every machine. Tests marked
``services`` use the real PostgreSQL and Redis named by ``DATABASE_URL`` and
``REDIS_URL``; tests marked ``browser`` need Debian's Chromium (``axe`` also
npm's axe-core in ``node_modules``), ``gettext`` GNU gettext. Each kind skips
with its reason where the thing is missing, and fails instead when CI sets
``DIAMINO_REQUIRE_SERVICES=1`` / ``DIAMINO_REQUIRE_BROWSER=1``
/ ``DIAMINO_REQUIRE_GETTEXT=1``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache as django_cache

from diamino_site.celery import app as celery_app

CHROMIUM = "/usr/bin/chromium"
# Installed by `npm ci` at the repository root (package.json pins the version).
AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"


@cache
def services_missing() -> str | None:
    """Why the real services cannot be used here, or None when they can."""
    if django_settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return "DATABASE_URL does not point at PostgreSQL"
    if not django_settings.REDIS_URL:
        return "REDIS_URL is not set"
    import redis

    try:
        redis.Redis.from_url(django_settings.REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        return f"Redis at {django_settings.REDIS_URL} does not answer ({exc})"
    return None


@cache
def browser_missing() -> str | None:
    if not os.path.exists(CHROMIUM) or shutil.which(CHROMIUM) is None:
        return f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed"
    return None


@cache
def gettext_missing() -> str | None:
    for tool in ("xgettext", "msgmerge", "msgattrib"):
        if shutil.which(tool) is None:
            return f"GNU gettext's {tool} is not installed (apt-get install gettext)"
    return None


def axe_missing() -> str | None:
    if not AXE.is_file():
        return f"axe-core is not installed at {AXE} (run `npm ci` at the repository root)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    checks: dict[str, tuple[Callable[[], str | None], str]] = {
        "services": (services_missing, "DIAMINO_REQUIRE_SERVICES"),
        "browser": (browser_missing, "DIAMINO_REQUIRE_BROWSER"),
        "gettext": (gettext_missing, "DIAMINO_REQUIRE_GETTEXT"),
        "axe": (axe_missing, "DIAMINO_REQUIRE_BROWSER"),
    }
    for item in items:
        for marker, (missing, variable) in checks.items():
            if item.get_closest_marker(marker) is None:
                continue
            reason = missing()
            if reason is None:
                continue
            if os.environ.get(variable) == "1":
                item.fail_reason = f"{variable}=1 but {reason}"  # type: ignore[attr-defined]
            else:
                item.add_marker(pytest.mark.skip(reason=f"{reason}; set it up to run this test"))


def pytest_runtest_setup(item: pytest.Item) -> None:
    reason = getattr(item, "fail_reason", None)
    if reason:
        pytest.fail(reason, pytrace=False)


@pytest.fixture(autouse=True)
def no_beat_expected(settings) -> None:
    """No test runs a beat: /healthz watches the periodic tasks only where a test says so."""
    settings.DIAMINO_HEALTH_BEAT = False


@pytest.fixture(autouse=True)
def embedded_defaults(request: pytest.FixtureRequest, settings) -> Iterator[None]:
    """Eager tasks and a private cache, unless the test asks for the real services."""
    if request.node.get_closest_marker("services"):
        yield
        return
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # Local memory outlives the settings change: empty it, or one test's rate-limit
    # counters (diamino_site/ratelimit.py) would count against the next one's players.
    django_cache.clear()
    # As on the embedded default: sessions in the database alone (with Redis they are read from it).
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    settings.SESSION_CACHE_ALIAS = "default"  # the one cache there is
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    settings.CELERY_TASK_ALWAYS_EAGER = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    """Real hashing costs a second a player; tests make many players."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
