"""Ratings per player and mode, and the history of every change.

Statistics (games, wins, scores) are not stored: they are aggregated from the
``Seat`` rows of finished games when a page asks, so an annulled game leaves
them at once. Ratings are path-dependent and cost a replay to rebuild, so they
are stored, together with one ``RatingChange`` row per rated game and player:
the history draws the chart and makes every recomputation auditable.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Game, Mode

# OpenSkill's ordinal (mu − 3σ) is shown on a familiar scale: a new player starts
# at 1000 and each point of ordinal is worth 40. Only the display changes; the
# leaderboard orders by the stored ordinal. See docs/ARCHITECTURE.md.
DISPLAY_TARGET = 1000.0
DISPLAY_ALPHA = 40.0
# A rating stays provisional for a player's first rated games of a mode.
PROVISIONAL_GAMES = 5


def display_rating(ordinal: float) -> int:
    return round(DISPLAY_TARGET + DISPLAY_ALPHA * ordinal)


def ordinal_of(mu: float, sigma: float) -> float:
    """OpenSkill's conservative estimate: the player is very likely at least this good."""
    return mu - 3.0 * sigma


class RatingSeries(models.Model):
    """One row per mode: its lock puts the rating updates of a mode in one order.

    Every write to a mode's ratings (a game rated, a replay after an
    annulment) first locks this row, so two games ending at once are rated
    one after the other, never from the same "before".
    """

    mode = models.CharField(_("mode"), max_length=12, choices=Mode.choices, primary_key=True)
    recomputed_at = models.DateTimeField(_("last recomputed"), null=True, blank=True)

    class Meta:
        verbose_name = _("rating series")
        verbose_name_plural = _("rating series")

    def __str__(self) -> str:
        return str(self.get_mode_display())


class Rating(models.Model):
    """A player's current rating in one mode (OpenSkill Plackett–Luce)."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="ratings",
        verbose_name=_("player"),
    )
    mode = models.CharField(_("mode"), max_length=12, choices=Mode.choices)
    mu = models.FloatField(_("mu"))
    sigma = models.FloatField(_("sigma"))
    # mu − 3σ, stored so the rating leaderboard orders and pages in the database.
    ordinal = models.FloatField(_("ordinal"))
    games = models.PositiveIntegerField(_("rated games"), default=0)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(fields=["player", "mode"], name="one_rating_per_mode")
        ]
        indexes = [models.Index(fields=["mode", "-ordinal"], name="rating_leaderboard")]

    def __str__(self) -> str:
        return f"{self.player} {self.mode} {self.display}"

    @property
    def display(self) -> int:
        return display_rating(self.ordinal)

    @property
    def is_provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


class RatingChange(models.Model):
    """What one rated game did to one player's rating: before and after."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="rating_changes", verbose_name=_("game")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        verbose_name=_("player"),
    )
    mode = models.CharField(_("mode"), max_length=12, choices=Mode.choices)
    # A copy of the game's finish: the replay order is (finished_at, game id).
    finished_at = models.DateTimeField(_("finished"))
    rank = models.PositiveSmallIntegerField(_("rank"))
    players = models.PositiveSmallIntegerField(_("players"))
    mu_before = models.FloatField(_("mu before"))
    sigma_before = models.FloatField(_("sigma before"))
    mu_after = models.FloatField(_("mu after"))
    sigma_after = models.FloatField(_("sigma after"))
    # The player's count of rated games in the mode once this one is counted.
    games_after = models.PositiveIntegerField(_("rated games after"))

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["finished_at", "game_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "player"], name="one_change_per_game_and_player"
            )
        ]
        indexes = [
            models.Index(fields=["player", "mode", "finished_at"], name="rating_history"),
            models.Index(fields=["mode", "finished_at"], name="rating_replay"),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.game_id}: {self.display_before} → {self.display_after}"

    @property
    def display_before(self) -> int:
        return display_rating(ordinal_of(self.mu_before, self.sigma_before))

    @property
    def display_after(self) -> int:
        return display_rating(ordinal_of(self.mu_after, self.sigma_after))

    @property
    def delta(self) -> int:
        return self.display_after - self.display_before
