"""Site-wide views: the home page, the health check, and the page for a database outage."""

from __future__ import annotations

import sys
import threading
import time
from datetime import timedelta
from typing import Any

import redis
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from games.forms import ComputerGameForm
from monitoring import heartbeats

# What Django raises when the database cannot be reached or the connection broke
# (a restart, a failover): the request may be tried again in a moment.
DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 30


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    # "Welcome back" is for a player who has been here before: one who has
    # never sat at a table (just signed up) is welcomed for the first time.
    new_player = request.user.is_authenticated and not request.user.seats.exists()
    # One click to a game against the computer: the lobby's form with its first
    # choices (avec marque, débutant), posted as they are.
    computer_form = ComputerGameForm() if request.user.is_authenticated else None
    return render(request, "home.html", {"new_player": new_player, "computer_form": computer_form})


# Crawlers: the home page, the rules, the leaderboards and the leagues are open; game pages,
# players' pages, accounts and the admin are not theirs to index.
ROBOTS_CLOSED = (
    "/parties/",
    "/joueurs/",
    "/compte/",
    "/accounts/",
    "/admin/",
    "/equipe/",
    "/desabonnement/",
    "/verifier-un-mot/",
    "/i18n/",
)


def _plain_text(lines: list[str]) -> HttpResponse:
    """A text file at the site's root, one field a line, as crawlers and RFC 9116 read it."""
    return HttpResponse("\n".join([*lines, ""]), content_type="text/plain; charset=utf-8")


@require_GET
def robots_txt(request: HttpRequest) -> HttpResponse:
    return _plain_text(
        ["User-agent: *", *(f"Disallow: {path}" for path in ROBOTS_CLOSED), "Allow: /"]
    )


@require_GET
def security_txt(request: HttpRequest) -> HttpResponse:
    """RFC 9116: where to report a vulnerability, until when this holds, in which languages."""
    expires = settings.DIAMINO_SECURITY_EXPIRES or (timezone.now() + timedelta(days=180)).date()
    return _plain_text(
        [
            f"Contact: {settings.DIAMINO_SECURITY_CONTACT}",
            f"Expires: {expires.isoformat()}T00:00:00Z",
            "Preferred-Languages: fr, en",
            f"Canonical: {request.build_absolute_uri()}",
        ]
    )


def _select_one() -> tuple[bool, str]:
    """``SELECT 1`` on a connection of this thread's own, closed afterwards."""
    database = connections[DEFAULT_DB_ALIAS]
    try:
        with database.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "unhealthy", never a 500
        return False, type(exc).__name__
    finally:
        connections.close_all()  # this thread's connections only
    return True, database.vendor


class _DatabaseCheck:
    """The database check, run in a thread of its own so that the answer never waits on it.

    A database that cannot be reached may hold a connection attempt for seconds
    (libpq's ``connect_timeout`` is at least 2 s, and a host that drops packets
    holds it until then); ``/healthz`` must answer sooner. The thread makes its
    own connection (Django's connections are per thread), which also shows that
    a *new* connection can be made, not only that an old one lingers. A thread
    still waiting past the deadline is left to end on the connection's own
    timeout (``connect_timeout`` in the PostgreSQL settings).
    """

    def __init__(self) -> None:
        self.result: tuple[bool, str] | None = None
        self.thread = threading.Thread(target=self._run, name="healthz-database", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.result = _select_one()

    def wait(self, deadline: float, timeout: float) -> tuple[bool, str]:
        """Its result, or "no answer" if it has none at ``deadline`` (``time.monotonic``)."""
        self.thread.join(max(deadline - time.monotonic(), 0.0))
        if self.result is None:
            return False, f"no answer within {timeout:g} s"
        return self.result


def _broker_ok(timeout: float) -> tuple[bool, str]:
    """A round trip to the broker on a connection made for the check, bounded by ``timeout``.

    For Redis, a ``PING`` on a redis-py client with its own connect and socket
    timeouts: a Redis that hangs (accepts the connection, never answers) fails
    the check after ``timeout``, once, instead of kombu's retries.
    """
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return True, "eager"
    from infra.celery import app

    url = str(app.conf.broker_url)
    try:
        if url.startswith(("redis://", "rediss://", "unix://")):
            client = redis.Redis.from_url(
                url, socket_connect_timeout=timeout, socket_timeout=timeout
            )
            try:
                client.ping()
            finally:
                client.close()
            return True, "redis"
        with app.connection_for_write() as conn:
            # celery-types' kombu stub says int; the timeout is seconds, and a float works.
            conn.ensure_connection(max_retries=1, timeout=timeout)  # type: ignore[arg-type]
    except Exception as exc:
        return False, type(exc).__name__
    return True, url.split(":", 1)[0]


def _beat_ok(database_ok: bool) -> dict[str, Any]:
    """The periodic tasks that are late (monitoring/heartbeats.py), where a beat is expected."""
    if not settings.DIAMINO_HEALTH_BEAT:
        return {"ok": True, "detail": "not watched"}
    if not database_ok:
        return {"ok": False, "detail": "database down"}
    late = heartbeats.late_tasks()
    if not late:
        return {"ok": True, "detail": "on time"}
    return {
        "ok": False,
        "detail": "late: " + ", ".join(late),
        "late": {name: at.isoformat() if at else None for name, at in late.items()},
    }


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Database, broker and beat status: 200 when all are well, 503 otherwise.

    The database and the broker are checked at once, each within
    ``DIAMINO_HEALTH_TIMEOUT``: a service that hangs gives a 503 naming it in
    about that time, not a request that hangs with it (an uptime checker would
    read that as the whole site down).
    """
    timeout = settings.DIAMINO_HEALTH_TIMEOUT.total_seconds()
    deadline = time.monotonic() + timeout
    database = _DatabaseCheck()  # in its own thread, while the broker is checked here
    broker_ok, broker_detail = _broker_ok(timeout)
    db_ok, db_detail = database.wait(deadline, timeout)
    beat = _beat_ok(db_ok)
    healthy = db_ok and broker_ok and beat["ok"]
    return JsonResponse(
        {
            "status": "ok" if healthy else "unavailable",
            "database": {"ok": db_ok, "detail": db_detail},
            "broker": {"ok": broker_ok, "detail": broker_detail},
            "beat": beat,
        },
        status=200 if healthy else 503,
    )


def _database_lost(exc: BaseException | None) -> bool:
    """Whether ``exc``, or an error it was raised from, is the database going away."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, DATABASE_ERRORS):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a lost database is a 503 page ("back in a moment"), anything else a 500.

    Django calls it while handling the error, so ``sys.exc_info()`` holds it,
    wherever it was raised: in a view, a middleware reading the player, a
    template. Django has already logged it.
    """
    if _database_lost(sys.exc_info()[1]):
        return database_unavailable(request)
    return defaults.server_error(request)


def database_unavailable(request: HttpRequest) -> HttpResponse:
    """The 503 page, in the site's design and the request's language, without the database.

    Rendered with a plain context, not the request's: the context processors
    read the player (and so the session and the database), which would fail
    again. So the header shows the log-in links, as to a visitor. The page holds
    a ``#move-error`` box, which the game page's script shows in place of a
    move's answer (static/js/board.js).
    """
    again = request.get_full_path() if request.method == "GET" else ""
    referer = request.META.get("HTTP_REFERER", "")
    if not again and url_has_allowed_host_and_scheme(referer, allowed_hosts={request.get_host()}):
        again = referer  # a form posted: back to the page it was on
    body = loader.get_template("503.html").render({"again": again})
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
