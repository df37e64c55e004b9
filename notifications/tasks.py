"""Celery tasks: they take ids, read fresh rows, and are safe to run twice."""

from __future__ import annotations

from celery import shared_task

from notifications import periodic, sending
from notifications.services import notification_queue


@shared_task(bind=True, name="notifications.send", ignore_result=True)
def send_notification(self, notification_id: int) -> str:
    """Send one outbox row (see ``sending``); an SMTP error is retried with backoff."""
    outcome = sending.send_one(notification_id)
    # The backoff is on the row (next_attempt_at), so it survives restarts;
    # this message only makes the retry prompt. Eagerly there is no one to
    # run it later: the sweep does.
    if outcome.retry_in is not None and not self.request.is_eager:
        notification_queue(notification_id, countdown=outcome.retry_in.total_seconds())
    return outcome.status


@shared_task(name="notifications.sweep", ignore_result=True)
def sweep_outbox() -> int:
    return periodic.sweep()
