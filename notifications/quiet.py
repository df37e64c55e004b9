"""Quiet hours in the outbox: held while they last, then one message per channel.

A player's quiet hours (``accounts/preferences.py``) hold every email and push
to them, but what they asked for themselves a moment ago (an account email, the
answer to a move they emailed). Held, a row stays pending with its
``next_attempt_at`` at the end of the quiet hours and ``"quiet": true`` in its
context; it is not queued, and the sweep (``periodic.sweep``) queues it once
due. A row written before the quiet hours and sent during them (a retry, a
queue that was slow) is held the same way when it is claimed (``sending.send_one``).

When the sender takes a held row whose event the games can say in a line
(``SUMMED_KINDS``: the push payload's body and address, ``games/push.py``), it
also takes the player's other held rows of the same channel (and device, for
push) that are due, and sends them as one message: one email listing them, or
one push per device. A held row of another kind (a digest, a league's step) is
sent on its own when the quiet hours end.

A player who shortens their quiet hours or turns them off gets what they held at
the new end, or at once (``release_changed``, asked by the sweep each minute).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import ngettext

from accounts.emails import build_email
from accounts.preferences import quiet_hours_of
from notifications.models import Notification

if TYPE_CHECKING:
    from django.core.mail import EmailMultiAlternatives

    from accounts.models import User

Kind = Notification.Kind
Status = Notification.Status

# What the player just asked for is never held: a confirmation link, a password reset,
# the answer to the move they emailed.
NEVER_HELD = frozenset({Kind.ACCOUNT, Kind.MAIL_ANSWER})
# The kinds the games' push payload says in a line (games/push.py): held together, sent as one.
SUMMED_KINDS = frozenset(
    {
        Kind.TURN,
        Kind.REMINDER,
        Kind.TIME_GIFT,
        Kind.GAME_STARTED,
        Kind.INVITATION,
        Kind.GAME_OVER,
        Kind.TIMEOUT,
        Kind.ANNULLED,
        Kind.CHAT,
    }
)


def held_until(recipient: User | None, kind: str, now: datetime) -> datetime | None:
    """When the quiet hours ``recipient`` is in at ``now`` end; None when nothing holds the row."""
    if kind in NEVER_HELD:
        return None
    quiet = quiet_hours_of(recipient)
    return quiet.end_if_quiet(now) if quiet is not None else None


def hold(row: Notification, until: datetime) -> None:
    """Mark a new row (not saved yet) held until ``until``: the sweep sends it then."""
    row.next_attempt_at = until
    row.context = {**row.context, "quiet": True}


def release_changed(now: datetime) -> int:
    """Rows held for quiet hours the player has since shortened or turned off: due sooner.

    The sweep asks each minute. A held row not tried yet (``attempts`` 0: a retry
    waits for its own back-off) is due at the end of the quiet hours its recipient
    has now, or at once when ``now`` falls in none; never later than it was.
    Returns how many rows were brought forward.
    """
    held = Notification.objects.filter(
        status=Status.PENDING, attempts=0, next_attempt_at__gt=now, context__quiet=True
    ).select_related("recipient")
    moved = 0
    for row in held:
        due = held_until(row.recipient, row.kind, now) or now
        if row.next_attempt_at is not None and due < row.next_attempt_at:
            row.next_attempt_at = due
            row.save(update_fields=["next_attempt_at"])
            moved += 1
    return moved


def is_held(row: Notification) -> bool:
    return bool(row.context.get("quiet"))


def held_with(row: Notification, now: datetime) -> list[int]:
    """The recipient's other held rows to send with ``row``, if it is one (ids; not claimed).

    Same recipient and channel (and device, for push), pending and due, of a kind
    said in a line. The sender claims each (``sending.claim``): one another sender
    took is left to it.
    """
    if row.recipient_id is None or not is_held(row) or row.kind not in SUMMED_KINDS:
        return []
    others = Notification.objects.filter(
        recipient_id=row.recipient_id,
        channel=row.channel,
        subscription_id=row.subscription_id,
        status=Status.PENDING,
        next_attempt_at__lte=now,
        kind__in=SUMMED_KINDS,
        context__quiet=True,
    ).exclude(pk=row.pk)
    return list(others.order_by("pk").values_list("pk", flat=True))


def my_games_url() -> str:
    return settings.SITE_URL.rstrip("/") + reverse("games:mine")


def summary_payload(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """One push for several held ones (``lines``: their payloads), in the player's language.

    It names the game and whose turn it is when all are about one game; it opens
    that game, or "My games" when they are about several.
    """
    games = {line["game"] for line in lines}
    one_game = lines[-1] if len(games) == 1 else None
    heading = ngettext(
        "%(count)s notification during your quiet hours:",
        "%(count)s notifications during your quiet hours:",
        len(lines),
    ) % {"count": len(lines)}
    return {
        "title": settings.SITE_NAME,
        "body": "\n".join([heading, *(line["body"] for line in lines)]),
        "url": one_game["url"] if one_game else my_games_url(),
        "tag": one_game["tag"] if one_game else "quiet-hours",
        "game": one_game["game"] if one_game else None,
        "to_move": one_game["to_move"] if one_game else None,
    }


def summary_email(recipient: User, lines: list[dict[str, Any]]) -> EmailMultiAlternatives:
    """One email for several held ones (``lines``: their push payloads): ``emails/quiet_summary_*``.

    Its unsubscribe link is for every email: it speaks of several kinds at once.
    """
    context = {"lines": lines, "count": len(lines), "my_games_url": my_games_url()}
    return build_email(recipient, "quiet_summary", context, kind="quiet-summary")
