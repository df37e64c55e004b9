"""Leagues, their seasons, divisions and the games of each division (issue 23).

A league is always avec marque. Staff create a ``League``; each ``Season`` of
it goes registration → scheduled → running → finished (``leagues/services.py``
moves it, beat calls the services at the season's times). At the start the
registered players are placed in ``Division`` rows (level 1 is the top), one
``Placement`` per player, and every game of every division is created at once,
each linked by a ``LeagueGame`` row (the link lives here, so ``games`` knows
nothing of leagues). At the close the standings are written on the placements
(rank, points, the outcome: promoted, relegated, kept…) and the next season's
registration opens with the players carried over. ``docs/LEAGUES.md``.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.models import Game

# The largest division the schedule is searched and tested for (``leagues/schedule.py``).
DIVISION_MAX_PLAYERS = 12


class League(models.Model):
    name = models.CharField(_("name"), max_length=80)
    slug = models.SlugField(_("slug"), max_length=80, unique=True)
    table_size = models.PositiveSmallIntegerField(
        _("players per table"),
        choices=[(2, "2"), (3, "3"), (4, "4")],
        default=2,
    )
    days_per_move = models.PositiveSmallIntegerField(_("days per move"), default=3)
    season_days = models.PositiveSmallIntegerField(
        _("season length (days)"), default=28, validators=[MinValueValidator(7)]
    )
    # How long registration stays open before a season starts, when a season
    # opens itself after the previous one (``services.season_close``).
    registration_days = models.PositiveSmallIntegerField(
        _("registration period (days)"), default=7, validators=[MinValueValidator(1)]
    )
    division_min = models.PositiveSmallIntegerField(
        _("smallest division"), default=6, validators=[MinValueValidator(2)]
    )
    division_max = models.PositiveSmallIntegerField(
        _("largest division"), default=10, validators=[MaxValueValidator(DIVISION_MAX_PLAYERS)]
    )
    # Tables of 2: everyone meets everyone twice, once moving first each way.
    double_round_robin = models.BooleanField(_("double round robin"), default=False)
    active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("league")
        verbose_name_plural = _("leagues")
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__gte=2, table_size__lte=4), name="league_table_size"
            ),
            models.CheckConstraint(
                condition=Q(division_min__lte=models.F("division_max")),
                name="league_division_sizes",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors = {}
        if self.days_per_move not in settings.DIAMINO_DAYS_PER_MOVE_CHOICES:
            errors["days_per_move"] = _("Choose 1, 2, 3, 5, 7 or 14 days per move.")
        if (
            self.division_min is not None
            and self.table_size
            and self.division_min < self.table_size
        ):
            errors["division_min"] = _("A division needs at least one full table of players.")
        if self.division_min and self.division_max and self.division_min > self.division_max:
            errors["division_max"] = _("The largest division cannot be smaller than the smallest.")
        if errors:
            raise ValidationError(errors)


class Season(models.Model):
    class State(models.TextChoices):
        # announced → registration → scheduled (divisions placed, staff may still move
        # players) → running (every game created) → finished (standings written).
        ANNOUNCED = "announced", _("Announced")
        REGISTRATION = "registration", _("Registration open")
        SCHEDULED = "scheduled", _("Divisions placed")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="seasons", verbose_name=_("league")
    )
    number = models.PositiveSmallIntegerField(_("number"))
    state = models.CharField(
        _("state"), max_length=12, choices=State.choices, default=State.ANNOUNCED, db_index=True
    )
    registration_opens_at = models.DateTimeField(_("registration opens"))
    # Registration closes and the divisions are placed; the games are created at the start.
    registration_closes_at = models.DateTimeField(_("registration closes"))
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    # When each step was done (null: not yet): the services' idempotence reads them.
    registration_opened_at = models.DateTimeField(_("registration opened"), null=True, blank=True)
    scheduled_at = models.DateTimeField(_("divisions placed"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    last_week_notified_at = models.DateTimeField(_("last week announced"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["league", "-number"]
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="one_season_number"),
            models.CheckConstraint(
                condition=Q(registration_opens_at__lte=models.F("starts_at"))
                & Q(starts_at__lt=models.F("ends_at")),
                name="season_times_in_order",
            ),
            models.CheckConstraint(
                condition=Q(registration_opens_at__lte=models.F("registration_closes_at"))
                & Q(registration_closes_at__lte=models.F("starts_at")),
                name="season_registration_closes_in_order",
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(league)s, season %(number)d") % {
            "league": self.league,
            "number": self.number,
        }

    def clean(self) -> None:
        times = [
            self.registration_opens_at,
            self.registration_closes_at,
            self.starts_at,
            self.ends_at,
        ]
        if None in times:
            return
        if not times[0] <= times[1] <= times[2] < times[3]:
            raise ValidationError(
                _(
                    "The times must come in order: registration opens, registration "
                    "closes, the season starts, the season ends."
                )
            )


class Registration(models.Model):
    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="registrations", verbose_name=_("season")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="league_registrations",
        verbose_name=_("player"),
    )
    created_at = models.DateTimeField(_("registered"), auto_now_add=True)
    # Registered by the close of the previous season rather than by the player.
    carried_over = models.BooleanField(_("carried over"), default=False)

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="one_registration")
        ]

    def __str__(self) -> str:
        return f"{self.player} — {self.season}"


class Division(models.Model):
    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="divisions", verbose_name=_("season")
    )
    # 1 is the top division; several divisions may share a level (number 1, 2…).
    level = models.PositiveSmallIntegerField(_("level"))
    number = models.PositiveSmallIntegerField(_("number"), default=1)

    class Meta:
        ordering = ["season", "level", "number"]
        verbose_name = _("division")
        verbose_name_plural = _("divisions")
        constraints = [
            models.UniqueConstraint(fields=["season", "level", "number"], name="one_division_place")
        ]

    def __str__(self) -> str:
        return f"{self.season}, {self.label}"

    @property
    def label(self) -> str:
        """ "Division 2" or, where a level holds several, "Division 2b"."""
        suffix = "" if self.number == 1 else chr(ord("a") + self.number - 1)
        return gettext("Division %(level)s") % {"level": f"{self.level}{suffix}"}


class Placement(models.Model):
    """A player in a division of a season, and once it is over their result."""

    class Outcome(models.TextChoices):
        PROMOTED = "promoted", _("Promoted")
        KEPT = "kept", _("Kept")
        RELEGATED = "relegated", _("Relegated")
        WITHDRAWN = "withdrawn", _("Withdrawn")
        INACTIVE = "inactive", _("Inactive")

    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="placements", verbose_name=_("season")
    )
    division = models.ForeignKey(
        Division, on_delete=models.CASCADE, related_name="placements", verbose_name=_("division")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="league_placements",
        verbose_name=_("player"),
    )
    # The order the schedule was built from (1 first), by last season's result then rating.
    seed = models.PositiveSmallIntegerField(_("seed"))
    withdrawn_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)
    # The result, written when the season closes.
    final_rank = models.PositiveSmallIntegerField(_("final rank"), null=True, blank=True)
    points = models.FloatField(_("points"), null=True, blank=True)
    score_difference = models.IntegerField(_("score difference"), null=True, blank=True)
    outcome = models.CharField(_("outcome"), max_length=10, choices=Outcome.choices, blank=True)
    champion = models.BooleanField(_("champion"), default=False)

    class Meta:
        ordering = ["division", "final_rank", "seed"]
        verbose_name = _("placement")
        verbose_name_plural = _("placements")
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="one_placement_per_season")
        ]

    def __str__(self) -> str:
        return f"{self.player} — {self.division}"


class LeagueGame(models.Model):
    """A game of a division: the link is on this side, ``games`` knows nothing of leagues."""

    division = models.ForeignKey(
        Division, on_delete=models.CASCADE, related_name="league_games", verbose_name=_("division")
    )
    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, related_name="league_game", verbose_name=_("game")
    )
    round = models.PositiveSmallIntegerField(_("round"), default=1)

    class Meta:
        ordering = ["division", "round", "pk"]
        verbose_name = _("league game")
        verbose_name_plural = _("league games")

    def __str__(self) -> str:
        return f"{self.division} — #{self.game_id}"


class Suspension(models.Model):
    """A player barred from registering: in one league, or in all (``league`` empty)."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="league_suspensions",
        verbose_name=_("player"),
    )
    league = models.ForeignKey(
        League,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="suspensions",
        help_text=_("Empty: every league."),
        verbose_name=_("league"),
    )
    reason = models.TextField(_("reason"))
    # Null: until lifted by staff (deleting the row).
    until = models.DateTimeField(_("until"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("suspension")
        verbose_name_plural = _("suspensions")

    def __str__(self) -> str:
        every = _("every league")  # outside the f-string, where makemessages sees it
        return f"{self.player} — {self.league or every}"
