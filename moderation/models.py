"""Reports players make about a game or another player, and what staff did about them.

A report is evidence: its game, reporter and reported player are protected
from deletion (accounts are blanked, never deleted), and a resolved report
keeps who resolved it, when, and what was done.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

TEXT_MAX_LENGTH = 1000


class Report(models.Model):
    class Reason(models.TextChoices):
        CHEATING = "cheating", _("Cheating (outside help, a word-finding program)")
        COLLUSION = "collusion", _("Collusion between players")
        ABUSE = "abuse", _("Abusive chat messages")
        OFFENSIVE = "offensive", _("Offensive word or player name")
        OTHER = "other", _("Something else")

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        RESOLVED = "resolved", _("Resolved")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="reports_made",
        verbose_name=_("reported by"),
    )
    game = models.ForeignKey(
        "games.Game", on_delete=models.PROTECT, related_name="reports", verbose_name=_("game")
    )
    # Null when the report is about the game itself rather than one player.
    reported_player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reports_received",
        verbose_name=_("reported player"),
    )
    reason = models.CharField(_("reason"), max_length=12, choices=Reason.choices)
    text = models.TextField(_("what happened"), max_length=TEXT_MAX_LENGTH)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    resolution = models.TextField(_("what was done"), blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("resolved by"),
    )
    resolved_at = models.DateTimeField(_("resolved"), null=True, blank=True)
    created_at = models.DateTimeField(_("reported"), auto_now_add=True, db_index=True)

    class Meta:
        # The queue: open before resolved ("open" < "resolved"), oldest first.
        ordering = ["status", "created_at"]
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        indexes = [models.Index(fields=["game", "status"])]

    def __str__(self) -> str:
        about = self.reported_player or _("the game")
        return f"#{self.pk} {self.get_reason_display()} — {about} (#{self.game_id})"
