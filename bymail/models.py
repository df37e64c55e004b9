"""Inbound mail: every reply to a turn email, stored before it is acknowledged.

A message is written here (committed) before the SMTP server answers 250 or
the IMAP fetch flags it handled: a crash after that loses nothing, a crash
before it makes the sender's server (or the next fetch) try again. Processing
(``bymail/process.py``) comes after, from the stored bytes, and is recorded on
the same row: ``state`` says how far it got and ``reason`` why.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class InboundMessage(models.Model):
    class Via(models.TextChoices):
        SMTP = "smtp", "SMTP"
        IMAP = "imap", "IMAP"

    class State(models.TextChoices):
        RECEIVED = "received", _("Received, not processed yet")
        PLAYED = "played", _("Move played")
        REFUSED = "refused", _("Refused (answered with the reason or instructions)")
        MOVED_ON = "moved-on", _("The game had moved on")
        DROPPED = "dropped", _("Dropped (not answered)")
        IGNORED = "ignored", _("Automatic mail, ignored")

    # The sender's Message-ID; a message without one is keyed by a hash of its bytes.
    # Unique with the recipient: a resend or a duplicate delivery of the same message
    # to the same reply address is stored once, and a message sent to two reply
    # addresses is stored once for each (one per seat: see Meta.constraints).
    message_id = models.CharField(_("Message-ID"), max_length=255, db_index=True)
    raw = models.BinaryField(_("raw message"))
    size = models.PositiveIntegerField(_("size in bytes"), default=0)
    via = models.CharField(_("received by"), max_length=4, choices=Via.choices)
    # The SMTP envelope, or the IMAP message's To: the reply address it came to.
    envelope_from = models.CharField(_("envelope sender"), max_length=320, blank=True)
    recipient = models.CharField(_("recipient"), max_length=320, blank=True)
    received_at = models.DateTimeField(_("received"), default=timezone.now)
    state = models.CharField(
        _("state"), max_length=8, choices=State.choices, default=State.RECEIVED
    )
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    processed_at = models.DateTimeField(_("processed"), null=True, blank=True)
    # Failed processings (an error, rolled back); the sweep gives up at process.MAX_ATTEMPTS.
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    game = models.ForeignKey(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("game"),
    )
    seat = models.ForeignKey(
        "games.Seat",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("seat"),
    )
    # The move's text as read from the reply, and the move row it played.
    move_text = models.CharField(_("move as written"), max_length=300, blank=True)
    move = models.ForeignKey(
        "games.Move",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("move"),
    )
    # An answer was written to the outbox (never for a stranger or a robot).
    answered = models.BooleanField(_("answered"), default=False)

    class Meta:
        ordering = ["-received_at"]
        indexes = [models.Index(fields=["state", "received_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["message_id", "recipient"], name="bymail_inbound_once_per_address"
            ),
            # One message plays for a seat once, whichever of its addresses it came to
            # (rows not yet processed have no seat; NULLs never clash).
            models.UniqueConstraint(
                fields=["message_id", "seat"], name="bymail_inbound_once_per_seat"
            ),
        ]
        verbose_name = _("inbound email")
        verbose_name_plural = _("inbound emails")

    def __str__(self) -> str:
        return f"{self.message_id} ({self.state})"
