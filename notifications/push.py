"""Web push (the Web Push protocol with VAPID): one more outbox channel, beside email.

A player turns push on per device in the settings; the browser's subscription
(its push service's endpoint and the keys to encrypt for) is a
``PushSubscription``. When an event writes its email row
(``services.notification_write``), ``push_write`` writes, in the same
transaction, one ``Notification`` row with ``channel=push`` per device of the
recipient, keyed ``push:<device>:<event key>``. The outbox sends it like an
email (``sending.send_one``: claim, send, record, retry with the same backoff),
through ``deliver`` below:

- the payload is JSON ``{title, body, url, tag, game, to_move, id}``, rendered at
  send time in the player's language by ``games/push.py`` (``register_payload``); it names the game and whose turn it is,
  never a hand or a tile. ``deliver`` adds ``id``, the row's, the same on every
  attempt, so that a push received twice reads as one (the soak counts pushes by it,
  as emails by their Message-ID). pywebpush encrypts it for the device (RFC 8291,
  aes128gcm) and signs the VAPID JWT (RFC 8292) for the endpoint's origin;
- a push service that answers 5xx, or does not answer within
  ``DIAMINO_PUSH_TIMEOUT``, is tried again later (an exception: the outbox's backoff);
- 404 or 410: the browser dropped the subscription; the device is deleted and
  the row skipped (done); any other 4xx is refused for good (``Refused``, failed).

Push is independent of the email preferences: the player chooses it per kind
of event in the settings (``accounts.preferences.wants_push``, asked when the
row is written and again when it is sent), and it goes to active players only.
Quiet hours hold it like an email (``notifications/quiet.py``). Without the VAPID keys in the
settings (``enabled()``) no row is written and the settings offer no button.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from pywebpush import WebPushException, webpush

from accounts.preferences import wants_push
from notifications import kinds, quiet
from notifications.models import Notification, PushSubscription

if TYPE_CHECKING:
    from accounts.models import User

Kind = Notification.Kind

# The events a device is told about; the others (the digest, account emails…) are email only.
PUSH_KINDS = frozenset(
    {
        Kind.TURN,
        Kind.GAME_STARTED,
        Kind.INVITATION,
        Kind.GAME_OVER,
        Kind.TIME_GIFT,
        Kind.REMINDER,
        Kind.TIMEOUT,
        Kind.CHAT,
    }
)


class Refused(Exception):
    """The push service refused the message for good (a 4xx other than 404/410)."""


class InvalidSubscription(ValueError):
    """What the browser sent is not a Web Push subscription; the message says why."""


def enabled() -> bool:
    """Push is on when both VAPID keys are set."""
    return bool(settings.DIAMINO_VAPID_PUBLIC_KEY and settings.DIAMINO_VAPID_PRIVATE_KEY)


def _b64url_bytes(value: object) -> bytes | None:
    """The bytes of a base64url string (padding optional), None when it is not one."""
    if not isinstance(value, str) or not value or len(value) > 200:
        return None
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def subscription_clean(data: object) -> dict[str, str]:
    """``{endpoint, p256dh, auth}`` from ``PushSubscription.toJSON()``, or ``InvalidSubscription``.

    The endpoint must be an https URL (push services are); ``p256dh`` an
    uncompressed P-256 point (65 bytes, starting 0x04) and ``auth`` 16 bytes,
    both base64url, as RFC 8291 has them.
    """
    if not isinstance(data, dict):
        raise InvalidSubscription(_("This is not a push subscription."))
    endpoint = data.get("endpoint")
    keys = data.get("keys")
    if not isinstance(endpoint, str) or len(endpoint) > 1000:
        raise InvalidSubscription(_("The subscription has no valid push address."))
    parts = urlsplit(endpoint)
    if parts.scheme != "https" or not parts.hostname:
        raise InvalidSubscription(_("The push address must be an https address."))
    if not isinstance(keys, dict):
        raise InvalidSubscription(_("The subscription has no encryption keys."))
    p256dh = _b64url_bytes(keys.get("p256dh"))
    if p256dh is None or len(p256dh) != 65 or p256dh[0] != 4:
        raise InvalidSubscription(_("The subscription’s public key is not valid."))
    auth = _b64url_bytes(keys.get("auth"))
    if auth is None or len(auth) != 16:
        raise InvalidSubscription(_("The subscription’s authentication secret is not valid."))
    return {"endpoint": endpoint, "p256dh": keys["p256dh"], "auth": keys["auth"]}


@transaction.atomic
def subscription_save(*, user: User, data: object, user_agent: str) -> PushSubscription:
    """Store the device's subscription for ``user`` (again: the same endpoint is updated).

    An endpoint another account registered on this browser moves to ``user``:
    the browser has one subscription, and the player signed in now is the one
    it should tell.
    """
    clean = subscription_clean(data)
    subscription, _created = PushSubscription.objects.update_or_create(
        endpoint=clean["endpoint"],
        defaults={
            "user": user,
            "p256dh": clean["p256dh"],
            "auth": clean["auth"],
            "user_agent": user_agent[:300],
        },
    )
    return subscription


def subscription_delete(*, user: User, subscription_id: int) -> bool:
    """Remove one of ``user``'s devices; False when it is not theirs (or already gone)."""
    deleted, _by_model = PushSubscription.objects.filter(pk=subscription_id, user=user).delete()
    return bool(deleted)


def chat_email_refused(row: Notification) -> NoReturn:
    """Chat is a push-only kind: an email row of it (none is written) would be skipped."""
    raise kinds.Skip("chat messages have no email")


def chat_kind_register() -> None:
    """Chat is an outbox kind like the others, with no email: its rows are push rows only."""
    kinds.register(
        Kind.CHAT,
        render=chat_email_refused,
        why_not=lambda user, kind: "chat messages have no email",
    )


def subscriptions_forget(sender: object, user: User, **kwargs: object) -> None:
    """``user_deleted``: the account's devices are deleted with its personal data."""
    PushSubscription.objects.filter(user=user).delete()


def push_write(
    *,
    recipient: User | None,
    kind: str,
    key: str,
    game_id: int | None,
    context: dict[str, Any] | None = None,
) -> list[Notification]:
    """One push row per device of ``recipient``, in the caller's transaction; queued on commit.

    Nothing when push is off, the kind is email-only or turned off in the
    recipient's settings, or the recipient is gone, inactive or a computer. A
    key already written (the same event twice) writes nothing more. In the
    recipient's quiet hours the rows are held until they end (not queued).
    """
    if kind not in PUSH_KINDS or not enabled() or recipient is None:
        return []
    if recipient.is_computer or not recipient.is_active or recipient.deleted_at is not None:
        return []
    if not wants_push(recipient, kind):
        return []
    from notifications.services import insert_unless_key_taken, notification_queue

    until = quiet.held_until(recipient, kind, timezone.now())
    rows = []
    for subscription in PushSubscription.objects.filter(user=recipient).only("pk"):
        row = Notification(
            recipient=recipient,
            kind=kind,
            channel=Notification.Channel.PUSH,
            subscription=subscription,
            key=f"push:{subscription.pk}:{key}"[:120],
            game_id=game_id,
            context=context or {},
        )
        if until is not None:
            quiet.hold(row, until)
        if insert_unless_key_taken(row):
            if until is None:
                transaction.on_commit(partial(notification_queue, row.pk))
            rows.append(row)
    return rows


def chat_push_write(*, game_id: int, author: User, recipients: list[User], now: datetime) -> None:
    """A chat message: a push to each other player, at most one per game per hour.

    The hour is in the key (``chat:<game>:<hour>``): a second message in the
    same hour finds it taken.
    """
    hour = int(now.timestamp()) // 3600
    for recipient in recipients:
        if recipient.pk == author.pk:
            continue
        push_write(
            recipient=recipient,
            kind=Kind.CHAT,
            key=f"chat:{game_id}:{recipient.pk}:{hour}",
            game_id=game_id,
        )


def register_payload(render: Callable[[Notification], dict[str, Any]]) -> None:
    """The app that knows the games (``games/push.py``) says what a push shows.

    Notifications imports no game (the import contracts in pyproject.toml), so
    the payload is the games app's to render, as its emails are.
    """
    global _payload
    _payload = render


_payload: Callable[[Notification], dict[str, Any]] | None = None


def payload(row: Notification) -> dict[str, Any]:
    """What the device shows, rendered by the registered function in the player's language."""
    if _payload is None:
        raise LookupError("no app registered the web push payload")
    return _payload(row)


def check_wanted(row: Notification) -> tuple[PushSubscription, User]:
    """The row's device and player; ``kinds.Skip`` when it is not to be pushed any more."""
    if row.subscription is None:
        raise kinds.Skip("the device was removed")
    if not enabled():
        raise kinds.Skip("web push is turned off (no VAPID keys)")
    recipient = row.recipient
    if recipient is None or not recipient.is_active or recipient.deleted_at is not None:
        raise kinds.Skip("deleted or inactive player")
    if not wants_push(recipient, row.kind):
        raise kinds.Skip("turned off in the player's settings")
    return row.subscription, recipient


def deliver(row: Notification, data: dict[str, Any] | None = None) -> None:
    """Encrypt and POST the row's payload (or ``data``) to its device's push service.

    ``data``: what to send instead of the row's own payload (several held
    pushes as one, ``notifications/quiet.py``).

    Raises ``kinds.Skip`` when there is nothing to send (the device was
    removed, the turn passed, the push service said the subscription is gone
    — then the device is deleted), ``Refused`` for another 4xx, and any other
    exception (5xx, a timeout, a connection refused) for the outbox to retry.
    """
    subscription, recipient = check_wanted(row)
    if data is None:
        with translation.override(recipient.language or settings.LANGUAGE_CODE):
            data = payload(row)
    data = {**data, "id": row.pk}  # the same on every attempt: a push sent twice reads as one
    try:
        webpush(
            subscription_info={
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            },
            data=json.dumps(data),
            vapid_private_key=settings.DIAMINO_VAPID_PRIVATE_KEY,
            vapid_claims={"sub": settings.DIAMINO_VAPID_SUBJECT},
            timeout=settings.DIAMINO_PUSH_TIMEOUT,
            ttl=settings.DIAMINO_PUSH_TTL,
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in (404, 410):
            PushSubscription.objects.filter(pk=subscription.pk).delete()
            raise kinds.Skip(f"the push service dropped the subscription ({status})") from None
        if status is not None and 400 <= status < 500 and status != 429:
            raise Refused(f"the push service refused the message ({status})") from exc
        raise  # 5xx, 429, or no answer: the outbox retries
