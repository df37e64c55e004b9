"""The real services: PostgreSQL answers, and a task makes the trip through Redis and a worker."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.services


@pytest.mark.django_db
def test_the_suite_runs_on_postgresql_when_services_are_required() -> None:
    assert connection.vendor == "postgresql"


@pytest.mark.django_db(transaction=True)
def test_a_task_goes_through_redis_and_a_real_worker() -> None:
    from celery.contrib.testing.worker import start_worker

    from infra.celery import app, ping

    assert app.conf.task_always_eager is False
    # celery-types: start_worker wants a Celery[Task], the app's tasks are DatabaseTask (invariant).
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):  # type: ignore[arg-type]
        result = ping.delay("bonjour")
        assert result.get(timeout=20) == "bonjour"


@pytest.mark.django_db
def test_healthz_sees_the_real_broker(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["broker"] == {"ok": True, "detail": "redis"}
