"""Players: Django's user with the preferences a correspondence player needs."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.preferences import default_reminder_hours


class EmailChoice(models.TextChoices):
    """How a player hears of one kind of event by email (#35): the turn, invitations, games ending.

    *Each time*: an email per event. *In the daily digest*: none then, and the event is a
    line of the next digest (``games/deadlines.write_digests``). *Never*: no email.
    """

    EACH = "each", _("Each time")
    DIGEST = "digest", _("In the daily digest")
    NEVER = "never", _("Never")


class EmailKind(models.TextChoices):
    """The kinds of email a player can turn off; each unsubscribe link names one.

    ``ALL`` only appears in unsubscribe links: it turns every kind off at once.
    """

    TURN = "turn", _("your turn")
    DIGEST = "digest", _("the daily digest")
    INVITATIONS = "invitations", _("invitations")
    GAME_OVER = "game-over", _("finished games")
    REPORTS = "reports", _("new reports (staff)")
    REMINDER = "reminder", _("reminders before a deadline")
    ALL = "all", _("all")


# The kinds of email with three choices (``EmailChoice``), and the ``User`` field that
# holds each: the one list every reader and writer of these choices goes through.
EMAIL_CHOICE_FIELDS: dict[str, str] = {
    EmailKind.TURN: "turn_emails",
    EmailKind.INVITATIONS: "invitation_emails",
    EmailKind.GAME_OVER: "game_over_emails",
}


class HandOrder(models.TextChoices):
    """How the game page lays out the player's own tiles (``games.presenters.sorted_hand``).

    Stored on the player, so the choice follows them into every game and onto
    every device. "Unsorted" is the hand as dealt, or as the Shuffle button
    left it on the page: shuffling sets it back to this.
    """

    UNSORTED = "unsorted", _("Unsorted")
    LETTER_DIABLES_LAST = "letter-diables-last", _("By letter, jokers last")
    LETTER_DIABLES_FIRST = "letter-diables-first", _("By letter, jokers first")
    VALUE_DIABLES_LAST = "value-diables-last", _("By value, jokers last")
    VALUE_DIABLES_FIRST = "value-diables-first", _("By value, jokers first")


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
        choices=EmailChoice.choices,
        default=EmailChoice.EACH,
    )
    invitation_emails = models.CharField(
        _("emails when I am invited to a game"),
        max_length=8,
        choices=EmailChoice.choices,
        default=EmailChoice.EACH,
    )
    game_over_emails = models.CharField(
        _("emails when a game of mine ends"),
        max_length=8,
        choices=EmailChoice.choices,
        default=EmailChoice.EACH,
    )
    # Play by mail (#24): a turn email's Reply-To is the game's signed reply address, and
    # answering it with a move plays it; off, the Reply-To is the no-reply address.
    play_by_email = models.BooleanField(_("play by answering the turn emails"), default=True)
    # Read only while ``is_staff``: the alert sent to staff when a player files a report.
    report_emails = models.BooleanField(_("emails when a player files a report"), default=True)
    # The reminder before a deadline has its own channels (#35): a player who reads no
    # turn email may still want it, or want it pushed only. On or off, never "in the daily
    # digest": it warns of a deadline hours away, which a once-a-day email could pass.
    reminder_emails = models.BooleanField(_("emails before a deadline"), default=True)
    # The hours before a deadline a reminder goes out (accounts.preferences.REMINDER_HOURS).
    reminder_hours = models.JSONField(
        _("reminders before a deadline"), default=default_reminder_hours
    )
    # Web push per kind of event (accounts.preferences.PUSH_SWITCH), on each device the
    # player turned it on for.
    push_turn = models.BooleanField(_("push when it is my turn"), default=True)
    push_reminder = models.BooleanField(_("push before a deadline"), default=True)
    push_invitations = models.BooleanField(_("push invitations and games starting"), default=True)
    push_game_over = models.BooleanField(_("push when a game of mine ends"), default=True)
    push_chat = models.BooleanField(_("push chat messages"), default=True)
    # Quiet hours (accounts/preferences.py), whole hours in the player's time zone; none
    # when either is empty. No email and no push then, and no deadline.
    quiet_from = models.PositiveSmallIntegerField(_("quiet from"), null=True, blank=True)
    quiet_until = models.PositiveSmallIntegerField(_("quiet until"), null=True, blank=True)
    hand_order = models.CharField(
        _("order of my tiles"),
        max_length=24,
        choices=HandOrder.choices,
        default=HandOrder.UNSORTED,
        help_text=_("How the game page sorts your tiles; chosen beside them."),
    )
    # Issue #37: the game pages rendered for listening (games/text_game.py).
    screen_reader = models.BooleanField(
        _("screen-reader mode"),
        default=False,
        help_text=_("The game page as text: a summary, the board read in pieces, moves typed."),
    )
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
        """The name others see, with the username beside a display name: "Alice (@alice_m)".

        A display name is chosen freely, within the look-alike rule
        (``accounts/names.py``); the username cannot be borrowed, so wherever a
        player is named, the username says who it is. Not when the display name
        is the username in other capitals ("Alice" for "alice"): nothing to tell.
        """
        name = self.name_shown
        if self.is_deleted or self.is_computer or not self.display_name:
            return name
        if self.display_name.casefold() == self.username.casefold():
            return name
        return f"{name} (@{self.username})"

    @property
    def name_shown(self) -> str:
        """The name alone: the site's header for the player, the heading of their own page."""
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
        return reverse("accounts:player", args=[self.username])


class Vacation(models.Model):
    """A stretch of time when the player's clocks stop.

    Only the interval is stored: every deadline that overlaps it is pushed
    when it is computed (``games/clock.py``), and the days a player has used
    are counted from these rows (``accounts/vacations.py``), so ending a
    vacation early needs nothing but moving ``ends_at``.
    """

    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="vacations", verbose_name=_("player")
    )
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
