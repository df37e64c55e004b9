"""Writing to the outbox and queueing the send.

``notification_write`` is called inside the transaction of the event it
reports (``games/notify.py``): the row commits or rolls back with the move.
The send task is queued with ``transaction.on_commit``, so a worker never
looks for a row that is not there yet; if queueing fails (Redis down), the row
stays pending and ``periodic.sweep`` queues it again a minute later. Queueing
never raises into the player's move; writing raises only on a database error
other than a key already written, which is a bug and rolls the event back
rather than losing its email without a word.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max, QuerySet
from django.utils import timezone

from accounts.emails import has_confirmed_address, in_digest_instead, wants_email
from accounts.models import User
from notifications import kinds, quiet
from notifications.models import Notification
from notifications.push import push_write

log = logging.getLogger(__name__)

Kind = Notification.Kind

# The email kind ``wants_email`` and ``build_email`` know each notification by:
# it names the preference that turns it off and the unsubscribe link it carries.
EMAIL_KIND: dict[str, str] = {
    Kind.INVITATION: "invitations",
    # About invitations the player is not getting: on its own even to a digest reader.
    Kind.INVITATIONS_HELD: "invitations-news",
    Kind.GAME_STARTED: "invitations",  # the table you joined or were invited to begins
    Kind.TURN: "turn",
    Kind.REMINDER: "reminder",
    Kind.TIME_GIFT: "turn",  # about this turn's deadline, like the turn email
    Kind.DIGEST: "digest",
    Kind.TIMEOUT: "game-over",
    Kind.GAME_OVER: "game-over",
    Kind.ANNULLED: "game-over",
    Kind.REPORT: "reports",  # staff only: a player filed a report
}

# The reason on an email row whose event the player reads in the daily digest instead: the
# digest lists such rows since the previous one (``digest_events``).
DIGEST_REASON = "the player reads the daily digest instead"
# The digest's lines (the games waiting for a move are its own part, from the games).
DIGEST_LINE_KINDS = (
    Kind.INVITATION,
    Kind.GAME_STARTED,
    Kind.GAME_OVER,
    Kind.TIMEOUT,
    Kind.ANNULLED,
)


def why_not(user: User | None, kind: str) -> str:
    """Why ``user`` gets no email of ``kind`` now, for the admin; "" when they do."""
    if user is None:
        return "no recipient"
    email_kind = EMAIL_KIND[kind]
    if wants_email(user, email_kind):
        return ""
    if not user.is_active or user.deleted_at is not None:
        return "deleted or inactive player"
    if not has_confirmed_address(user):
        return "no confirmed email address"
    if in_digest_instead(user, email_kind):
        return DIGEST_REASON
    return "turned off in the player's settings"


def _digest_event_rows(until: datetime) -> QuerySet[Notification]:
    return Notification.objects.filter(
        channel=Notification.Channel.EMAIL,
        kind__in=DIGEST_LINE_KINDS,
        status=Notification.Status.SKIPPED,
        reason=DIGEST_REASON,
        created_at__lt=until,
    )


def _digest_since(previous: datetime | None, until: datetime) -> datetime:
    """A digest lists what came after the previous one, or the last 24 hours without one."""
    return previous or until - timedelta(hours=24)


def digest_events(recipient: User, *, until: datetime) -> QuerySet[Notification]:
    """The events ``recipient`` reads in the daily digest, from their previous digest to ``until``.

    The email rows skipped for the digest (``DIGEST_REASON``) of a kind said in a line, written
    since the recipient's latest digest row before ``until`` (the last 24 hours when there is
    none), oldest first. A digest written at ``until`` lists them, the next one what follows.
    """
    previous = (
        Notification.objects.filter(recipient=recipient, kind=Kind.DIGEST, created_at__lt=until)
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    return (
        _digest_event_rows(until)
        .filter(recipient=recipient, created_at__gte=_digest_since(previous, until))
        .order_by("created_at", "pk")
    )


def with_digest_events(recipient_ids: Collection[int], *, until: datetime) -> set[int]:
    """Of these players, those ``digest_events`` finds something for (two queries for all)."""
    previous = dict(
        Notification.objects.filter(
            recipient_id__in=recipient_ids, kind=Kind.DIGEST, created_at__lt=until
        )
        .values("recipient_id")
        .annotate(last=Max("created_at"))
        .values_list("recipient_id", "last")
    )
    latest = (
        _digest_event_rows(until)
        .filter(recipient_id__in=recipient_ids)
        .values("recipient_id")
        .annotate(last=Max("created_at"))
        .values_list("recipient_id", "last")
    )
    return {
        recipient_id
        for recipient_id, last in latest
        if last >= _digest_since(previous.get(recipient_id), until)
    }


def notification_write(
    *,
    recipient: User | None,
    kind: str,
    key: str,
    game_id: int | None = None,
    context: dict[str, Any] | None = None,
) -> Notification | None:
    """Record one notification, once per ``key``; queue its sending after commit.

    A recipient who does not want it gets a row all the same, marked skipped
    with the reason, so the admin shows why no email went. A computer player
    gets no row at all: it has no address, and its turns are Celery tasks
    (``games/computer.py``). In the recipient's quiet hours the row is held
    until they end (``notifications/quiet.py``): not queued, the sweep sends it. ``recipient`` is None only for kinds that carry
    their address in the context (an account email to an address with no
    account behind it). Returns None when the key was written before, or for a
    computer player; any other integrity error is raised.
    """
    if recipient is not None and recipient.is_computer:
        return None
    reason = kinds.get(kind).why_not(recipient, kind)
    row = Notification(
        recipient=recipient,
        kind=kind,
        key=key,
        game_id=game_id,
        context=context or {},
        status=Notification.Status.SKIPPED if reason else Notification.Status.PENDING,
        reason=reason,
    )
    until = None if reason else quiet.held_until(recipient, kind, timezone.now())
    if until is not None:
        quiet.hold(row, until)
    if not insert_unless_key_taken(row):
        return None
    if not reason and until is None:
        transaction.on_commit(partial(notification_queue, row.pk))
    # The same event on the player's devices, whatever their email preferences.
    push_write(recipient=recipient, kind=kind, key=key, game_id=game_id, context=context)
    return row


def insert_unless_key_taken(row: Notification) -> bool:
    """Insert ``row`` unless its key is taken; False when it was (nothing written).

    The insert is in a savepoint, so a taken key does not break the caller's
    transaction. Only a taken key is let through: anything else (a missing
    recipient, a broken constraint) is a bug that would lose the email
    silently, and raises into the event's transaction to roll it back.
    """
    try:
        with transaction.atomic():
            row.save(force_insert=True)
    except IntegrityError:
        if Notification.objects.filter(key=row.key).exists():
            return False
        raise
    return True


def notification_queue(
    notification_id: int, *, countdown: float | None = None, expires: float | None = None
) -> bool:
    """Hand the row to a worker; False (and a log line) when the broker cannot be reached.

    Never raises: the row is pending in the database whatever happens here,
    and the sweep finds it. ``expires`` (seconds): a worker drops the message
    unread after that; the sweep queues the row again if it is still unsent.
    """
    from notifications.tasks import send_notification

    try:
        # None is Celery's own default for both; celery-types does not allow it.
        send_notification.apply_async(
            (notification_id,),
            countdown=countdown,  # type: ignore[arg-type]
            expires=expires,  # type: ignore[arg-type]
        )
    except Exception:
        log.warning(
            "notification %s not queued; the sweep will retry", notification_id, exc_info=True
        )
        return False
    return True
