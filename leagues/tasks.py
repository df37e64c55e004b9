"""Beat's leagues task: every season step due, each idempotent (``leagues/services.py``).

One periodic task rather than one per step, so a season whose registration
closes at its start is placed and started in the same run, in order. Its runs
are recorded like every periodic task's (``monitoring.heartbeats``: Celery's
``task_success`` for any task in ``CELERY_BEAT_SCHEDULE``).
"""

from __future__ import annotations

from celery import shared_task

from leagues import services


@shared_task(name="leagues.advance", ignore_result=True)
def seasons_advance() -> dict[str, int]:
    """Open, place, start, announce the last week of and close the seasons due now."""
    return services.seasons_advance()
