"""A dead beat noticed: each periodic task records its last success; /healthz compares.

Beat only queues the periodic tasks and a worker runs them, so a row here is
fresh only when both are alive (and the task itself does not fail). A watched
task (``DIAMINO_HEALTH_BEAT_TASKS``: the outbox sweep and the clock) is *late*
when it has not finished within three of its periods, counted from its last
run or, if this web process started later, from that start: a fresh deploy
gets three periods before it can turn red, and a restart does not wait for
tasks that ran long ago.

The check is on where a beat is expected (``DIAMINO_HEALTH_BEAT``: by default,
when a broker is configured); on the embedded default tasks run eagerly and
nobody has to run a beat.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from monitoring.models import TaskRun

# Imported by MonitoringConfig.ready(): when this process started.
STARTED_AT = timezone.now()
# Late after this many periods without a run.
PERIODS_LATE = 3


def periodic_tasks() -> dict[str, Any]:
    """Each scheduled task's name with its schedule (seconds, a timedelta, or a crontab…)."""
    return {entry["task"]: entry["schedule"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}


def task_run_record(sender: Any = None, **kwargs: Any) -> None:
    """Celery's ``task_success``: a periodic task has just finished; others are ignored."""
    name = getattr(sender, "name", None)
    if name not in periodic_tasks():
        return
    # One statement, whoever wrote first: two workers may finish the same task at once.
    TaskRun.objects.bulk_create(
        [TaskRun(task=name, finished_at=timezone.now())],
        update_conflicts=True,
        unique_fields=["task"],
        update_fields=["finished_at"],
    )


def _period(schedule: Any) -> timedelta:
    if isinstance(schedule, timedelta):
        return schedule
    if isinstance(schedule, int | float):
        return timedelta(seconds=schedule)
    run_every = getattr(schedule, "run_every", None)  # celery.schedules.schedule
    if isinstance(run_every, timedelta):
        return run_every
    raise ValueError(f"{schedule!r} has no fixed period: it cannot be watched by /healthz.")


def late_tasks(now: datetime | None = None) -> dict[str, datetime | None]:
    """The watched tasks that are late, with when each last finished (None: never)."""
    now = now or timezone.now()
    schedules = periodic_tasks()
    watched = settings.DIAMINO_HEALTH_BEAT_TASKS
    last = dict(TaskRun.objects.filter(task__in=watched).values_list("task", "finished_at"))
    late = {}
    for name in watched:
        finished_at = last.get(name)
        since = max(finished_at, STARTED_AT) if finished_at else STARTED_AT
        if now - since > PERIODS_LATE * _period(schedules[name]):
            late[name] = finished_at
    return late
