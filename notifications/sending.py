"""Sending one outbox row: claim, render, send, record.

Exactly once, and where it is only "at least once":

1. **Claim.** ``UPDATE … SET status='sending', claimed_at=now, attempts+1
   WHERE id=… AND (status='pending' AND next_attempt_at<=now OR
   status='sending' AND claimed_at<now-lease)``. The database lets one such
   update change the row (PostgreSQL re-checks the condition after waiting for
   the row lock; SQLite has one writer), so of any number of tasks for the same
   row — the one queued on commit, the sweep's, a retry, a redelivery after a
   worker died — only the one that changed it goes on.
2. **Render and send.** Rendering reads fresh rows, in the recipient's
   language and time zone; a notification that no longer makes sense (the
   player already moved, the table is gone, the preference was turned off) is
   marked skipped instead.
3. **Record.** ``UPDATE … SET status='sent' WHERE id=… AND status='sending'
   AND claimed_at=<our claim>``. An SMTP error puts the row back to pending
   with ``next_attempt_at`` pushed by an exponential backoff, or marks it
   failed after ``DIAMINO_NOTIFICATION_MAX_ATTEMPTS`` (it stays in the admin).

The remaining window: a worker that dies after the SMTP server accepted the
message and before step 3 leaves the row in ``sending``; once the lease
(``DIAMINO_NOTIFICATION_LEASE``, far longer than an SMTP exchange can take
with ``EMAIL_TIMEOUT``) has expired the sweep reclaims it and the email goes a
second time. Both copies carry the same ``Message-ID`` (made from the key), so
mail providers that drop duplicates (Gmail does) show it once. Nothing is
lost: a row leaves ``pending``/``sending`` only as sent, skipped or failed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone, translation

from notifications import kinds, push, quiet
from notifications.models import Notification

log = logging.getLogger(__name__)
Status = Notification.Status


@dataclass(frozen=True)
class Outcome:
    status: str  # "sent", "skipped", "retry", "failed", "held" (quiet hours) or "not-claimed"
    retry_in: timedelta | None = None


def backoff(attempts: int) -> timedelta:
    """Wait before attempt ``attempts + 1``: 1, 2, 4… minutes, at most an hour (settings)."""
    base = settings.DIAMINO_NOTIFICATION_RETRY_BASE
    return min(base * 2 ** max(0, attempts - 1), settings.DIAMINO_NOTIFICATION_RETRY_CAP)


def claimable(now: datetime) -> Q:
    """Rows a sender may take now: due pending ones, and those whose sender's lease expired."""
    lease_expired = now - settings.DIAMINO_NOTIFICATION_LEASE
    return Q(status=Status.PENDING, next_attempt_at__lte=now) | Q(
        status=Status.SENDING,
        claimed_at__lt=lease_expired,
        attempts__lt=settings.DIAMINO_NOTIFICATION_MAX_ATTEMPTS,
    )


def claim(notification_id: int, now: datetime) -> bool:
    """Take the row for this sender; False when another has it or it is done."""
    changed = (
        Notification.objects.filter(pk=notification_id)
        .filter(claimable(now))
        .update(status=Status.SENDING, claimed_at=now, attempts=F("attempts") + 1)
    )
    return changed == 1


def _claim_all(notification_ids: list[int], now: datetime) -> list[Notification]:
    """The rows of ``notification_ids`` this sender could claim, claimed, oldest first."""
    taken = [pk for pk in notification_ids if claim(pk, now)]
    return list(
        Notification.objects.select_related("recipient", "game", "subscription")
        .filter(pk__in=taken)
        .order_by("pk")
    )


def _finish(row: Notification, **fields: object) -> bool:
    """Record the outcome, only if the row is still ours (same claim)."""
    changed = Notification.objects.filter(
        pk=row.pk, status=Status.SENDING, claimed_at=row.claimed_at
    ).update(**fields)
    if not changed:
        log.warning("notification %s was reclaimed by another sender", row.pk)
    return bool(changed)


def _record(row: Notification, **fields: object) -> None:
    """``_finish`` with the row's outcome, sent or skipped, and its kind's hook
    (``kinds.when_done``) in the same transaction: both commit, or neither."""
    with transaction.atomic():
        if _finish(row, **fields):
            kinds.done(row)


def message_id(row: Notification) -> str:
    """The same for every attempt, so a duplicate (see the module doc) reads as one."""
    host = urlsplit(settings.SITE_URL).hostname or "localhost"
    return f"<diamino.{row.key.replace(':', '.')}.{row.pk}@{host}>"


def send_one(notification_id: int) -> Outcome:
    """Claim, render, send and record one notification (safe to call any number of times).

    In the recipient's quiet hours the row goes back to pending until they end;
    a row held by them goes with the recipient's other held rows of its channel,
    as one message (``notifications/quiet.py``).
    """
    now = timezone.now()
    if not claim(notification_id, now):
        return Outcome("not-claimed")
    row = Notification.objects.select_related("recipient", "game", "subscription").get(
        pk=notification_id
    )
    until = quiet.held_until(row.recipient, row.kind, now)
    if until is not None:  # not an attempt: it waits, and the sweep sends it then
        _finish(
            row,
            status=Status.PENDING,
            next_attempt_at=until,
            attempts=F("attempts") - 1,
            context={**row.context, "quiet": True},
        )
        return Outcome("held")
    rows = [row, *_claim_all(quiet.held_with(row, now), now)]
    lines: list[dict[str, Any]] = []
    if len(rows) > 1:
        rows, lines = _still_wanted(rows)
        if not rows:
            return Outcome("skipped")
    # A kind whose context must not outlive the email (a reset link) is emptied once done
    # (such a kind is never held: it is never sent with others).
    first = rows[0]
    is_email = first.channel == Notification.Channel.EMAIL
    forget = is_email and len(rows) == 1 and kinds.get(first.kind).forget_after_send
    done: dict[str, object] = {"context": {}} if forget else {}
    try:
        if len(rows) == 1:
            _send(first)
        else:
            _send_together(rows, lines)
    except kinds.Skip as skip:
        for each in rows:
            _record(each, status=Status.SKIPPED, reason=str(skip)[:200], **done)
        return Outcome("skipped")
    except push.Refused as refused:  # a 4xx from a push service: trying again changes nothing
        for each in rows:
            _finish(each, status=Status.FAILED, last_error=str(refused)[:2000], **done)
        return Outcome("failed")
    except Exception as exc:  # SMTP refusals, timeouts, a broken template: retry, then give up
        outcomes = [_failed(each, exc, done) for each in rows]
        return outcomes[0]
    for each in rows:
        _record(each, status=Status.SENT, sent_at=timezone.now(), last_error="", **done)
    return Outcome("sent")


def _send(row: Notification) -> None:
    """Send one row by its channel; ``kinds.Skip`` when there is nothing to send any more."""
    if row.channel != Notification.Channel.EMAIL:
        push.deliver(row)  # the player's device: its own rules (notifications/push.py)
        return
    kind = kinds.get(row.kind)
    # Preferences may have changed since the row was written: honour them now.
    reason = kind.why_not(row.recipient, row.kind)
    if reason:
        raise kinds.Skip(reason)
    message = kind.render(row)
    message.extra_headers["Message-ID"] = message_id(row)
    message.send()


def _still_wanted(rows: list[Notification]) -> tuple[list[Notification], list[dict[str, Any]]]:
    """Of held rows to send together, those still to send and their lines; the others skipped.

    A line is the row's push payload (``games/push.py``), in the player's language:
    it skips a turn that has passed as the row's own email or push would.
    """
    kept, lines = [], []
    recipient = rows[0].recipient
    language = recipient.language if recipient is not None else settings.LANGUAGE_CODE
    with translation.override(language or settings.LANGUAGE_CODE):
        for row in rows:
            try:
                if row.channel == Notification.Channel.EMAIL:
                    reason = kinds.get(row.kind).why_not(row.recipient, row.kind)
                    if reason:
                        raise kinds.Skip(reason)
                else:
                    push.check_wanted(row)
                lines.append(push.payload(row))
            except kinds.Skip as skip:
                _finish(row, status=Status.SKIPPED, reason=str(skip)[:200])
                continue
            kept.append(row)
    return kept, lines


def _send_together(rows: list[Notification], lines: list[dict[str, Any]]) -> None:
    """Several held rows of one player and channel as one message (``notifications/quiet.py``)."""
    first = rows[0]
    recipient = first.recipient
    if recipient is None:
        raise kinds.Skip("the notification has no recipient")
    with translation.override(recipient.language or settings.LANGUAGE_CODE):
        if first.channel != Notification.Channel.EMAIL:
            push.deliver(first, data=quiet.summary_payload(lines))
            return
        message = quiet.summary_email(recipient, lines)
    message.extra_headers["Message-ID"] = message_id(first)
    message.send()


def _failed(row: Notification, exc: Exception, done: dict[str, object]) -> Outcome:
    error = f"{type(exc).__name__}: {exc}"[:2000]
    if row.attempts >= settings.DIAMINO_NOTIFICATION_MAX_ATTEMPTS:
        log.error(
            "notification %s failed for good after %s attempts: %s", row.pk, row.attempts, error
        )
        _finish(row, status=Status.FAILED, last_error=error, **done)
        return Outcome("failed")
    delay = backoff(row.attempts)
    log.warning(
        "notification %s attempt %s failed, retry in %s: %s", row.pk, row.attempts, delay, error
    )
    _finish(
        row,
        status=Status.PENDING,
        next_attempt_at=timezone.now() + delay,
        last_error=error,
    )
    return Outcome("retry", retry_in=delay)
