"""/healthz notices a dead beat: the outbox sweep or the clock late by three periods."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from django.utils import timezone

from infra.celery import app
from monitoring import heartbeats
from monitoring.models import TaskRun
from notifications import periodic
from tests.site.processes import settings_of

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock(monkeypatch) -> Iterator[time_machine.Traveller]:
    """Time stands at START, when this web process started."""
    monkeypatch.setattr(heartbeats, "STARTED_AT", START)
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def beat_expected(settings) -> None:
    settings.DIAMINO_HEALTH_BEAT = True


def at(traveller: time_machine.Traveller, **delta: float) -> None:
    traveller.move_to(START + timedelta(**delta))


def health(client: Client) -> tuple[int, dict]:
    response = client.get("/healthz")
    return response.status_code, response.json()


def run(task: str) -> None:
    app.loader.import_default_modules()  # the apps' tasks modules, as a worker loads them
    app.tasks[task].delay()


def test_every_periodic_task_records_when_it_last_ran(clock) -> None:
    at(clock, minutes=7)
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        run(entry["task"])
    recorded = dict(TaskRun.objects.values_list("task", "finished_at"))
    assert recorded == {
        entry["task"]: START + timedelta(minutes=7)
        for entry in settings.CELERY_BEAT_SCHEDULE.values()
    }


def test_a_task_outside_the_schedule_records_nothing(clock) -> None:
    app.tasks["diamino_site.ping"].delay("x")
    assert not TaskRun.objects.exists()


def test_a_periodic_task_that_fails_has_not_run(clock, monkeypatch) -> None:
    def broken() -> int:
        raise RuntimeError("the sweep failed")

    monkeypatch.setattr(periodic, "sweep", broken)
    with pytest.raises(RuntimeError):
        run("notifications.sweep")
    assert not TaskRun.objects.exists()


def test_a_fresh_start_is_not_red_for_three_periods(client, clock, beat_expected) -> None:
    at(clock, minutes=3)
    assert health(client)[0] == 200


def test_healthz_names_the_sweep_three_minutes_after_it_last_could_have_run(
    client, clock, beat_expected
) -> None:
    at(clock, minutes=3, seconds=1)
    status, body = health(client)
    assert status == 503
    assert body["status"] == "unavailable"
    assert body["beat"]["late"] == {"notifications.sweep": None}
    assert body["beat"]["detail"] == "late: notifications.sweep"


def test_healthz_stays_200_while_the_tasks_run_and_names_each_that_stops(
    client, clock, beat_expected
) -> None:
    at(clock, minutes=2)
    run("notifications.sweep")
    run("notifications.clock")
    at(clock, minutes=5)
    assert health(client)[0] == 200
    at(clock, minutes=5, seconds=1)  # the sweep: three minutes since its run at 9:02
    status, body = health(client)
    assert (status, list(body["beat"]["late"])) == (503, ["notifications.sweep"])
    assert body["beat"]["late"]["notifications.sweep"] == "2026-03-02T09:02:00+00:00"
    run("notifications.sweep")
    assert health(client)[0] == 200
    at(clock, minutes=17, seconds=1)  # the clock: fifteen minutes since 9:02; the sweep too
    status, body = health(client)
    assert status == 503
    assert body["beat"]["detail"] == "late: notifications.sweep, notifications.clock"


def test_a_restart_gives_tasks_that_ran_long_ago_a_grace_period(
    client, clock, beat_expected, monkeypatch
) -> None:
    run("notifications.sweep")
    run("notifications.clock")
    at(clock, hours=2)
    assert health(client)[0] == 503
    monkeypatch.setattr(heartbeats, "STARTED_AT", START + timedelta(hours=2))
    assert health(client)[0] == 200


def test_without_a_beat_expected_healthz_stays_200(client, clock) -> None:
    at(clock, days=1)
    status, body = health(client)
    assert status == 200
    assert body["beat"] == {"ok": True, "detail": "not watched"}


def test_every_watched_task_is_scheduled_with_a_fixed_period() -> None:
    schedules = heartbeats.periodic_tasks()
    for name in settings.DIAMINO_HEALTH_BEAT_TASKS:
        assert heartbeats._period(schedules[name]) > timedelta(0)


def test_a_beat_is_expected_by_default_only_where_a_broker_is_configured() -> None:
    assert settings_of("DIAMINO_HEALTH_BEAT", {}) == ["False"]
    assert settings_of("DIAMINO_HEALTH_BEAT", {"REDIS_URL": "redis://127.0.0.1:6379/8"}) == ["True"]
    assert settings_of(
        "DIAMINO_HEALTH_BEAT", {"REDIS_URL": "redis://127.0.0.1:6379/8", "DIAMINO_HEALTH_BEAT": "0"}
    ) == ["False"]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_sweep_a_real_worker_runs_from_redis_is_recorded(client, settings, monkeypatch) -> None:
    from notifications.tasks import sweep_outbox
    from tests.notifications.test_worker import a_worker, wait_for

    settings.DIAMINO_HEALTH_BEAT = True
    app.control.purge()
    with a_worker():
        sweep_outbox.delay()
        assert wait_for(lambda: TaskRun.objects.filter(task="notifications.sweep").exists())
    # This process "started" a day ago, so every watched task without a fresh
    # record is late (in a long suite run the clock's task is, whatever we do):
    # the sweep is not, thanks to the worker's record.
    monkeypatch.setattr(heartbeats, "STARTED_AT", timezone.now() - timedelta(days=1))
    _, body = health(client)
    assert body["beat"]["detail"] != "not watched"
    assert "notifications.sweep" not in body["beat"].get("late", {})
