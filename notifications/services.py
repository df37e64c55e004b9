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
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.emails import has_confirmed_address, wants_email
from accounts.models import TurnEmails, User
from notifications import kinds, quiet
from notifications.models import Notification
from notifications.push import push_write

log = logging.getLogger(__name__)

Kind = Notification.Kind

# The email kind ``wants_email`` and ``build_email`` know each notification by:
# it names the preference that turns it off and the unsubscribe link it carries.
EMAIL_KIND: dict[str, str] = {
    Kind.INVITATION: "invitations",
    Kind.INVITATIONS_HELD: "invitations",  # about invitations the player is not getting
    Kind.GAME_STARTED: "invitations",  # the table you joined or were invited to begins
    Kind.TURN: "turn",
    Kind.REMINDER: "reminder",
    Kind.TIME_GIFT: "turn",  # about this turn's deadline, like the turn email
    Kind.DIGEST: "turn-digest",
    Kind.TIMEOUT: "game-over",
    Kind.GAME_OVER: "game-over",
    Kind.ANNULLED: "game-over",
    Kind.REPORT: "reports",  # staff only: a player filed a report
}


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
    if email_kind == "turn" and user.turn_emails == TurnEmails.DIGEST:
        return "the player reads the daily digest instead"
    return "turned off in the player's settings"


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
