"""Site-wide views: the home page, the health check, and the page for a database outage."""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

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
    return render(request, "home.html", {"new_player": new_player})


def _database_ok() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "unhealthy", never a 500
        return False, type(exc).__name__
    return True, connection.vendor


def _broker_ok() -> tuple[bool, str]:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return True, "eager"
    from diamino_site.celery import app

    timeout = settings.DIAMINO_HEALTH_TIMEOUT.total_seconds()
    try:
        with app.connection_for_write() as conn:
            # celery-types' kombu stub says int; the timeout is seconds, and a float works.
            conn.ensure_connection(max_retries=1, timeout=timeout)  # type: ignore[arg-type]
    except Exception as exc:
        return False, type(exc).__name__
    return True, "redis"


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
    """Database, broker and beat status: 200 when all are well, 503 otherwise."""
    db_ok, db_detail = _database_ok()
    broker_ok, broker_detail = _broker_ok()
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
