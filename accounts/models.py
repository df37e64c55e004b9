"""Players: Django's user with the preferences a correspondence player needs."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.urls import get_script_prefix, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


def player_url(username: str) -> str:
    """The public page of the player named ``username``, from a memo.

    Every page links the viewer's own page, and the game page each seated
    player's: a ``reverse()`` each (about 30 µs); the same name gives the same
    URL for a given script prefix and URL configuration, the memo's keys.
    """
    return _player_url(get_script_prefix(), settings.ROOT_URLCONF, username)


@lru_cache(maxsize=4096)
def _player_url(script_prefix: str, urlconf: str, username: str) -> str:
    return reverse("accounts:player", args=[username])  # reads the script prefix itself


class TurnEmails(models.TextChoices):
    """How often a player hears that a game waits for their move."""

    EACH = "each", _("Each time it is my turn")
    DIGEST = "digest", _("One daily digest")
    NEVER = "never", _("Never")


class EmailKind(models.TextChoices):
    """The kinds of email a player can turn off; each unsubscribe link names one.

    ``ALL`` only appears in unsubscribe links: it turns every kind off at once.
    """

    TURN = "turn", _("your turn")
    INVITATIONS = "invitations", _("invitations")
    GAME_OVER = "game-over", _("finished games")
    REPORTS = "reports", _("new reports (staff)")
    ALL = "all", _("all")


class BotLevel(models.TextChoices):
    """How well a computer player plays (``rules.strategy.LEVELS``)."""

    DEBUTANT = "debutant", _("beginner")
    CONFIRME = "confirme", _("experienced")


class User(AbstractUser):
    """A player. ``username`` is public; ``display_name`` is what others see.

    A deleted player keeps their row (finished games keep their seats) but loses
    every piece of personal data; ``deleted_at`` says when.

    A computer player is a row like any other, so it takes seats and plays
    moves through the same services; ``bot_level`` is set for it and blank for
    people. It has no password and no email address (``accounts/computers.py``).
    """

    display_name = models.CharField(_("display name"), max_length=40, blank=True)
    language = models.CharField(
        _("language"),
        max_length=2,
        choices=[("fr", _("French")), ("en", _("English"))],
        default="fr",
        help_text=_("Used for the pages and for every email you receive."),
    )
    time_zone = models.CharField(
        _("time zone"),
        max_length=64,
        default="Europe/Paris",
        help_text=_("Deadlines are shown in this time zone."),
    )
    turn_emails = models.CharField(
        _("emails when it is my turn"),
        max_length=8,
        choices=TurnEmails.choices,
        default=TurnEmails.EACH,
    )
    invitation_emails = models.BooleanField(_("emails when I am invited to a game"), default=True)
    game_over_emails = models.BooleanField(_("emails when a game of mine ends"), default=True)
    # Play by mail (#24): a turn email's Reply-To is the game's signed reply address, and
    # answering it with a move plays it; off, the Reply-To is the no-reply address.
    play_by_email = models.BooleanField(_("play by answering the turn emails"), default=True)
    # Read only while ``is_staff``: the alert sent to staff when a player files a report.
    report_emails = models.BooleanField(_("emails when a player files a report"), default=True)
    deleted_at = models.DateTimeField(_("deleted at"), null=True, blank=True, editable=False)
    bot_level = models.CharField(
        _("computer level"),
        max_length=10,
        choices=BotLevel.choices,
        blank=True,
        editable=False,
        help_text=_("Set for computer players only."),
    )

    class Meta(AbstractUser.Meta):  # type: ignore[name-defined]  # not in django-stubs
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        if self.deleted_at is not None:
            return gettext("Former player")
        if self.bot_level:
            # In the viewer's language, unlike the French display name stored for the admin.
            return gettext("Computer (%(level)s)") % {"level": BotLevel(self.bot_level).label}
        return self.display_name or self.username

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def is_computer(self) -> bool:
        return bool(self.bot_level)

    def get_absolute_url(self) -> str:
        return player_url(self.username)


class Vacation(models.Model):
    """A stretch of time when the player's clocks stop.

    Only the interval is stored: every deadline that overlaps it is pushed
    when it is computed (``games/clock.py``), and the days a player has used
    are counted from these rows (``accounts/vacations.py``), so ending a
    vacation early needs nothing but moving ``ends_at``.
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="vacations")
    starts_at = models.DateTimeField(_("starts"))
    # The planned end; moved to the moment the player comes back early.
    ends_at = models.DateTimeField(_("ends"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-starts_at"]
        verbose_name = _("vacation")
        verbose_name_plural = _("vacations")
        indexes = [models.Index(fields=["user", "ends_at"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_at__gt=models.F("starts_at")),
                name="vacation_ends_after_it_starts",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.starts_at:%Y-%m-%d %H:%M} → {self.ends_at:%Y-%m-%d %H:%M}"
