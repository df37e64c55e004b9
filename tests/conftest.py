"""Suite-wide fixtures and the rules for tests that need real services.

Tests run on the embedded default (eager Celery, local-memory cache) whatever
the environment says, so they behave the same on every machine. Tests marked
``services`` use the real PostgreSQL and Redis named by ``DATABASE_URL`` and
``REDIS_URL``; tests marked ``browser`` need Debian's Chromium (``axe`` also
npm's axe-core in ``node_modules``), ``node`` Node.js, ``gettext`` GNU gettext. Each kind skips
with its reason where the thing is missing, and fails instead when CI sets
``DIAMINO_REQUIRE_SERVICES=1`` / ``DIAMINO_REQUIRE_BROWSER=1``
/ ``DIAMINO_REQUIRE_GETTEXT=1``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import cache
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache as django_cache
from django.utils import timezone, translation

from infra.celery import app as celery_app

# Debian's Chromium. The browser tests drive its headless shell (the package
# chromium-headless-shell: the same Blink and V8 without the browser's windows, and
# half the browser's CPU a page here, measured on the rule matrix) where it is
# installed, else the whole browser; the few that need the whole browser (a
# notification the service worker shows) are marked ``full_chromium``.
# DIAMINO_CHROMIUM names another build for all of them (or a missing path, to see the skips).
FULL_CHROMIUM = os.environ.get("DIAMINO_CHROMIUM") or "/usr/bin/chromium"
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("DIAMINO_CHROMIUM") or (
    HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else FULL_CHROMIUM
)
# Installed by `npm ci` at the repository root (package.json pins the version).
AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"


@cache
def services_missing() -> str | None:
    """Why the real services cannot be used here, or None when they can."""
    how = "(README, Tests: DATABASE_URL=postgres://… and REDIS_URL=redis://…)"
    if django_settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return f"DATABASE_URL does not point at PostgreSQL {how}"
    if not django_settings.REDIS_URL:
        return f"REDIS_URL is not set {how}"
    import redis

    try:
        redis.Redis.from_url(django_settings.REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        return f"Redis at {django_settings.REDIS_URL} does not answer ({exc})"
    return None


def _chromium_missing(path: str, package: str) -> str | None:
    if not os.path.exists(path) or shutil.which(path) is None:
        return f"Chromium is not installed at {path} (apt-get install {package}, or DIAMINO_CHROMIUM=path)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (make setup installs it)"
    return None


@cache
def browser_missing() -> str | None:
    return _chromium_missing(CHROMIUM, "chromium-headless-shell chromium")


@cache
def full_browser_missing() -> str | None:
    """Where a test needs the whole browser, not its headless shell."""
    return _chromium_missing(FULL_CHROMIUM, "chromium")


@cache
def gettext_missing() -> str | None:
    for tool in ("xgettext", "msgmerge", "msgattrib"):
        if shutil.which(tool) is None:
            return f"GNU gettext's {tool} is not installed (apt-get install gettext)"
    return None


def axe_missing() -> str | None:
    if not AXE.is_file():
        return (
            f"axe-core is not installed at {AXE} (apt-get install npm, then make test installs it)"
        )
    return None


def node_missing() -> str | None:
    if shutil.which("node") is None:
        return "Node.js is not installed (apt-get install nodejs)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    checks: dict[str, tuple[Callable[[], str | None], str]] = {
        "services": (services_missing, "DIAMINO_REQUIRE_SERVICES"),
        "browser": (browser_missing, "DIAMINO_REQUIRE_BROWSER"),
        "full_chromium": (full_browser_missing, "DIAMINO_REQUIRE_BROWSER"),
        "gettext": (gettext_missing, "DIAMINO_REQUIRE_GETTEXT"),
        "axe": (axe_missing, "DIAMINO_REQUIRE_BROWSER"),
        "node": (node_missing, "DIAMINO_REQUIRE_BROWSER"),
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
    heavy_first(items)  # after pytest-django's grouping (tryfirst) and pytest-randomly's shuffle


# Tests that take seconds each: a real browser, real services or processes, or marked ``slow``.
HEAVY_MARKERS = ("browser", "services", "slow")


def heavy_first(items: list[pytest.Item]) -> None:
    """The heavy tests first, in their random order.

    The test workers (pytest-xdist) share out the list; a test of thirty seconds
    left for the end keeps one core busy while the other has nothing to do, so
    the heavy ones start early and the quick ones fill the end. pytest-django
    runs the tests that use the database, then the transactional ones, then
    those without it (Django's order): that order is kept, but for the heavy
    tests without the database (the bench, the faults, the word list's file),
    which go first of all.
    """

    def django_group(item: pytest.Item) -> int:
        marker = item.get_closest_marker("django_db")
        fixtures = getattr(item, "fixturenames", ())
        transactional = "transactional_db" in fixtures or "live_server" in fixtures
        if marker is not None:
            transactional |= bool(
                marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")
            )
        if transactional:
            return 1
        return 0 if marker is not None or "db" in fixtures else 2

    def heavy(item: pytest.Item) -> bool:
        return any(item.get_closest_marker(name) is not None for name in HEAVY_MARKERS)

    def key(item: pytest.Item) -> tuple[bool, int, bool]:
        group = django_group(item)
        # A heavy test without the database may run before any group: it touches none of it.
        return (not (group == 2 and heavy(item)), group, not heavy(item))

    items.sort(key=key)


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
    # counters (infra/ratelimit.py) would count against the next one's players.
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
def default_language_and_zone() -> Iterator[None]:
    """Each test starts in the site's language (French) and time zone (Paris).

    LocaleMiddleware activates a request's language in the thread and leaves it
    there: without this, a test calling a view or a template directly spoke the
    language of whichever test ran before it. The zone is reset too, so that a
    test that activates one cannot move the clock of the next.
    """
    translation.deactivate()
    timezone.deactivate()
    yield
    translation.deactivate()
    timezone.deactivate()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    """Real hashing costs a second a player; tests make many players."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def committed(django_capture_on_commit_callbacks) -> Callable[[], AbstractContextManager[None]]:
    """``with committed():`` runs what the commits queue (emails, computer turns) at the end.

    Tests run inside a transaction that never commits; this plays the commit's part.
    """

    @contextmanager
    def run() -> Iterator[None]:
        with django_capture_on_commit_callbacks(execute=True):
            yield

    return run
