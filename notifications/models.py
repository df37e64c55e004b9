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
        GAME_STARTED = "game-started", _("Game started")
        TURN = "turn", _("Your turn")
        REMINDER = "reminder", _("Reminder")
        DIGEST = "digest", _("Daily digest")
        TIMEOUT = "timeout", _("Time-out")
        TIME_GIFT = "time-gift", _("More time given")
        GAME_OVER = "game-over", _("Game over")
        ANNULLED = "annulled", _("Game annulled")
        REPORT = "report", _("New report (staff)")
        # allauth's: confirmation, password reset, email change… (accounts/outbox.py)
        ACCOUNT = "account", _("Account email")
        # The answer to a move sent by email (bymail/emails.py).
        MAIL_ANSWER = "mail-answer", _("Answer to an emailed move")

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
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    # Null for notifications about no single game (the digest), or once the
    # open table it was about is closed (the row is kept, and skipped).
    game = models.ForeignKey(
        "games.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
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
