"""What beat runs for the outbox (``CELERY_BEAT_SCHEDULE``): the sweep.

The game's deadlines (time-outs, reminders, digests) are ``games/deadlines.py``.
The sweep is safe to run twice or in two processes at once: the send claims a
row once.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from notifications import kinds, quiet
from notifications.models import Notification
from notifications.sending import claimable
from notifications.services import notification_queue

Status = Notification.Status
SWEEP_BATCH = 500


def sweep(now: datetime | None = None) -> int:
    """Queue again every row still unsent a while after it was due; returns how many.

    Covers a broker that was down at commit time, a retry message lost with
    Redis, and a worker that died mid-send (its lease expires). Rows stuck in
    ``sending`` that have used every attempt are marked failed.

    Bounded during an outage: a row the sweep queued less than
    ``DIAMINO_NOTIFICATION_REQUEUE_AFTER`` ago and that no sender has claimed
    since is left alone (its message may still be waiting for a worker), and
    each message the sweep queues expires after that same time. So with the
    workers down the queue holds at most one live message per row, and nothing
    is lost: once the message has expired unread, a later sweep queues the row
    again.
    """
    now = now or timezone.now()
    quiet.release_changed(now)  # quiet hours shortened or turned off since a row was held
    late = now - settings.DIAMINO_NOTIFICATION_SWEEP_AFTER
    requeue_after = settings.DIAMINO_NOTIFICATION_REQUEUE_AFTER
    given_up = Notification.objects.filter(
        status=Status.SENDING,
        claimed_at__lt=now - settings.DIAMINO_NOTIFICATION_LEASE,
        attempts__gte=settings.DIAMINO_NOTIFICATION_MAX_ATTEMPTS,
    )
    # A kind that forgets its context once sent (allauth's links) forgets it when
    # given up too: a reset link must not stay in the database.
    given_up.filter(kind__in=kinds.forgetful()).update(context={})
    given_up.update(status=Status.FAILED, last_error="the sender never finished (lease expired)")
    still_queued = Q(queued_at__gt=now - requeue_after) & (
        Q(claimed_at__isnull=True) | Q(claimed_at__lt=F("queued_at"))
    )
    due = (
        Notification.objects.filter(claimable(now))
        .exclude(status=Status.PENDING, next_attempt_at__gt=late)
        .exclude(still_queued)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    ids = list(due)
    # Stamped before queueing: a sender that claims the row at once claims it after the stamp.
    Notification.objects.filter(pk__in=ids).update(queued_at=now)
    expires = requeue_after.total_seconds()
    unqueued = [pk for pk in ids if not notification_queue(pk, expires=expires)]
    if unqueued:  # the broker refused them: no message waits, the next sweep tries again
        Notification.objects.filter(pk__in=unqueued).update(queued_at=None)
    return len(ids)
