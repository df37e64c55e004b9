"""Site-wide views: the home page and the health check."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from monitoring import heartbeats


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
            conn.ensure_connection(max_retries=1, timeout=timeout)
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
