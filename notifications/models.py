"""The email outbox: one row per notification, written with the event that causes it.

A row is written in the same transaction as the move (or invitation, start,
time-out…), so it exists if and only if the event happened. Sending is a
separate step (``notifications/sending.py``) that claims the row with a
conditional update; ``status`` records how far it got, and ``reason`` /
``last_error`` why it was skipped or why it failed, for the admin.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Notification(models.Model):
    class Kind(models.TextChoices):
        INVITATION = "invitation", _("Invitation")
        # Invitations to the player reached the day's limit: the rest are held back.
        INVITATIONS_HELD = "invitations-held", _("Invitations held back")
        GAME_STARTED = "game-started", _("Game started")
        TURN = "turn", _("Your turn")
        REMINDER = "reminder", _("Reminder")
        DIGEST = "digest", _("Daily digest")
        TIMEOUT = "timeout", _("Time-out")
        TIME_GIFT = "time-gift", _("More time given")
        GAME_OVER = "game-over", _("Game over")
        ANNULLED = "annulled", _("Game annulled")
        REPORT = "report", _("New report (staff)")
        # allauth's: confirmation, password reset, email change… (notifications/account_emails.py)
        ACCOUNT = "account", _("Account email")
        # The answer to a move sent by email (bymail/emails.py).
        MAIL_ANSWER = "mail-answer", _("Answer to an emailed move")
        # Web push only (notifications/push.py): a chat message, at most one per game per hour.
        CHAT = "chat", _("Chat message")

    class Channel(models.TextChoices):
        EMAIL = "email", _("Email")
        # One row per device (PushSubscription), sent by notifications/push.py.
        PUSH = "push", _("Web push")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENDING = "sending", _("Sending")
        SENT = "sent", _("Sent")
        SKIPPED = "skipped", _("Skipped")
        FAILED = "failed", _("Failed")

    # Null only for an account email to an address with no account behind it
    # (a password reset asked for an unknown address); the context has the address.
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="notifications",
        verbose_name=_("recipient"),
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    # Null for notifications about no single game (the digest), or once the
    # open table it was about is closed (the row is kept, and skipped).
    game = models.ForeignKey(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("game"),
    )
    channel = models.CharField(
        _("channel"), max_length=5, choices=Channel.choices, default=Channel.EMAIL
    )
    # The device a push row goes to; null for email, or once the device was removed
    # (the row is then skipped when its turn comes).
    subscription = models.ForeignKey(
        "notifications.PushSubscription",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("device"),
    )
    # What makes the notification unique, e.g. "turn:12:34:1717000000000000":
    # writing the same event twice (a retried task, two sweeps) finds the key taken.
    key = models.CharField(_("key"), max_length=120, unique=True)
    # Ids only; the email is rendered from fresh rows when it is sent.
    context = models.JSONField(_("context"), default=dict, blank=True)
    status = models.CharField(
        _("status"), max_length=8, choices=Status.choices, default=Status.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt"), default=timezone.now)
    # When the sweep last queued a message for the row: while no sender has claimed
    # the row since, that message may still be waiting, so the sweep leaves it alone
    # for DIAMINO_NOTIFICATION_REQUEUE_AFTER (the message's own expiry).
    queued_at = models.DateTimeField(_("re-queued"), null=True, blank=True)
    claimed_at = models.DateTimeField(_("claimed"), null=True, blank=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    reason = models.CharField(_("why skipped"), max_length=200, blank=True)
    last_error = models.TextField(_("last error"), blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")

    def __str__(self) -> str:
        return f"{self.key} → {self.recipient_id} ({self.status})"


class PushSubscription(models.Model):
    """One browser on one device that agreed to receive the player's web pushes.

    What ``PushManager.subscribe()`` gave the page: the push service's
    ``endpoint`` (a capability URL: whoever knows it can push, so it is shown
    to no one) and the keys the payload is encrypted for (RFC 8291). Removed
    by the player in the settings, with the account, or when the push service
    answers 404/410 (the browser dropped it).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="push_subscriptions",
        verbose_name=_("player"),
    )
    endpoint = models.URLField(_("endpoint"), max_length=1000, unique=True)
    # base64url, as the browser gives them: a P-256 public key (65 bytes) and a 16-byte secret.
    p256dh = models.CharField(_("public key"), max_length=100)
    auth = models.CharField(_("authentication secret"), max_length=40)
    user_agent = models.CharField(_("browser"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        verbose_name = _("push device")
        verbose_name_plural = _("push devices")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.browser}"

    @property
    def browser(self) -> str:
        """A short name for the settings' list ("Firefox, Android"), from the User-Agent."""
        return browser_name(self.user_agent)


def browser_name(user_agent: str) -> str:
    """The browser and system a User-Agent names, roughly; "" when it names neither.

    Order matters: Edge and Opera also say "Chrome", Chrome also says "Safari".
    """
    browsers = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]
    systems = [
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iPadOS"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("Linux", "Linux"),
    ]
    browser = next((name for mark, name in browsers if mark in user_agent), "")
    system = next((name for mark, name in systems if mark in user_agent), "")
    return ", ".join(part for part in (browser, system) if part)
