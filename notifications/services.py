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
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
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

# The reason on an email row whose event the player reads in the daily digest instead, for
# the admin. The digest does not select on it: such a row is marked in its context
# (``DIGEST_MARK``), waiting until a digest sent tells it (``digest_told``).
DIGEST_REASON = "the player reads the daily digest instead"
DIGEST_MARK = "digest"
DIGEST_WAITING = "waiting"
DIGEST_TOLD = "told"
# The oldest event a digest still tells: one older (a player away longer, digests failing for
# two weeks) is old news, and the digest would otherwise grow without bound.
DIGEST_MAX_AGE = timedelta(days=14)
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


def _digest_event_rows() -> QuerySet[Notification]:
    """The events waiting for a digest."""
    return Notification.objects.filter(
        channel=Notification.Channel.EMAIL,
        kind__in=DIGEST_LINE_KINDS,
        status=Notification.Status.SKIPPED,
        **{f"context__{DIGEST_MARK}": DIGEST_WAITING},
    )


def digest_events(recipient: User, *, until: datetime) -> QuerySet[Notification]:
    """The events ``recipient`` reads in the daily digest not told yet, up to ``until``.

    The email rows kept for the digest (``DIGEST_MARK`` waiting) of a kind said in a line,
    written before ``until`` (the digest's cut-off) and no more than ``DIGEST_MAX_AGE``
    before it, oldest first. They stay waiting until a digest that lists them is sent
    (``digest_told``): a digest failed, skipped before it was rendered or not written (a
    vacation) leaves them to the next one, and an event written after the cut-off is the
    next day's.
    """
    return (
        _digest_event_rows()
        .filter(recipient=recipient, created_at__lt=until, created_at__gte=until - DIGEST_MAX_AGE)
        .order_by("created_at", "pk")
    )


def digest_event_recipients(now: datetime) -> QuerySet[Notification, int]:
    """The ids of the players with an event waiting for their digest, at most
    ``DIGEST_MAX_AGE`` old (a subquery: which of them are due is ``with_digest_events``)."""
    recent = _digest_event_rows().filter(created_at__gte=now - DIGEST_MAX_AGE)
    return recent.values_list("recipient_id", flat=True)


def with_digest_events(until: Mapping[int, datetime]) -> set[int]:
    """Of these players (id: their digest's cut-off), those ``digest_events`` finds
    something for (one query for all)."""
    if not until:
        return set()
    rows = (
        _digest_event_rows()
        .filter(
            recipient_id__in=until,
            created_at__lt=max(until.values()),
            created_at__gte=min(until.values()) - DIGEST_MAX_AGE,
        )
        .values_list("recipient_id", "created_at")
    )
    return {
        recipient_id
        for recipient_id, created_at in rows
        if until[recipient_id] - DIGEST_MAX_AGE <= created_at < until[recipient_id]
    }


def digest_told(digest: Notification) -> None:
    """Mark the events ``digest`` went through (its context's ``events``, which its renderer
    put there) as told by it, and record that list on the digest row for the admin.

    Called by the outbox in the transaction that records the digest sent, or skipped
    when none of them had anything left to say (``notifications.kinds.when_done``), so an
    event is told once: a digest that fails, or is skipped before it is rendered, leaves
    its events waiting for the next one.
    """
    if digest.channel != Notification.Channel.EMAIL:
        return
    listed = [int(pk) for pk in digest.context.get("events", [])]
    Notification.objects.filter(pk=digest.pk).update(context=digest.context)
    events = Notification.objects.select_for_update().filter(
        pk__in=listed, **{f"context__{DIGEST_MARK}": DIGEST_WAITING}
    )
    for event in events:
        event.context = {**event.context, DIGEST_MARK: DIGEST_TOLD, "told_in": digest.pk}
        event.save(update_fields=["context"])


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
    context = context or {}
    kept_for_digest = reason == DIGEST_REASON and kind in DIGEST_LINE_KINDS
    row = Notification(
        recipient=recipient,
        kind=kind,
        key=key,
        game_id=game_id,
        context={**context, DIGEST_MARK: DIGEST_WAITING} if kept_for_digest else context,
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
