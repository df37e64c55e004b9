"""Tables, seats, moves and invitations.

A game's rules live in ``rules/``; these rows only store what happened. The
``state`` on ``Game`` is a cache of the engine's state after the last move:
replaying the ``Move`` rows through the engine gives the same state (tested).
Private columns (a seat's hand, the tiles a move drew or returned, the state)
never reach a template for a player: ``games/selectors.py`` builds what pages
show.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Prefetch, prefetch_related_objects
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

if TYPE_CHECKING:
    from accounts.models import User
    from games.badges import Badge


class Mode(models.TextChoices):
    MARQUE = "marque", _("Avec marque")
    SANS_MARQUE = "sans-marque", _("Sans marque")


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        ANNULLED = "annulled", _("Annulled")

    class End(models.TextChoices):
        OUT = "out", _("A player went out")
        BLOCKED = "blocked", _("Blocked")
        LAST_PLAYER = "last-player", _("Last player left")

    mode = models.CharField(_("mode"), max_length=12, choices=Mode.choices)
    layout = models.CharField(_("board layout"), max_length=40, default="classique")
    tiles = models.CharField(_("tile set"), max_length=40, default="classique")
    word_list = models.CharField(_("word list"), max_length=20)
    seats_wanted = models.PositiveSmallIntegerField(_("number of seats"))
    days_per_move = models.PositiveSmallIntegerField(_("days per move"), default=3)
    invitation_only = models.BooleanField(_("by invitation only"), default=False)
    # Whether the game counts for the ratings (``ratings.services.is_rated``):
    # off for a friendly table, chosen at creation, and as soon as a computer
    # player sits. Hints are allowed only where it is off.
    rated = models.BooleanField(_("rated"), default=True)
    # An unrated table by someone's choice, which ``rated`` alone forgets once a
    # computer sits: the creator's, or a person's who joined it while it showed
    # as unrated (``services.game_join``). Taking the last computer back restores
    # ``rated`` (``services.game_unseat_computer``) unless this is set.
    friendly = models.BooleanField(_("friendly"), default=False)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="created_games",
        verbose_name=_("creator"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    # The engine's start: the deal (every hand and the reserve in draw order)
    # and the first-player draw (R-SETUP-1). Private until the game is over.
    setup = models.JSONField(_("set-up"), null=True, blank=True)
    first_player_draw = models.JSONField(_("first-player draw"), default=list, blank=True)
    # The engine's state after move ``move_count``: a cache of the moves.
    state = models.JSONField(_("state"), null=True, blank=True)
    move_count = models.PositiveIntegerField(_("moves played"), default=0)
    # Who is to move (a copy of the state's turn, for listing games by turn)
    # and when they got the turn: the deadline is computed from it.
    to_move = models.ForeignKey(
        "Seat",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("to move"),
    )
    turn_started_at = models.DateTimeField(_("turn started"), null=True, blank=True)
    # Days the other players gave the player to move on this turn (``games/services/time_given.py``):
    # the deadline counts them (``games/clock.py``); back to 0 whenever a turn begins.
    turn_extra_days = models.PositiveSmallIntegerField(_("days given this turn"), default=0)
    # Every day given in the game, oldest first, for the history and the email:
    # {"after": moves played then, "by": giver's seat id, "to": receiver's seat id,
    # "at": ISO time}. Not part of the game record (RECORD.md): a gift changes a
    # deadline, not the game. On the row rather than in a table of their own, so
    # the game page reads them without a query of their own.
    time_gifts = models.JSONField(_("days given"), default=list, blank=True)
    end = models.CharField(_("end"), max_length=12, choices=End.choices, blank=True)
    annulled_reason = models.TextField(_("reason for annulment"), blank=True)
    annulled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("annulled by"),
    )
    annulled_at = models.DateTimeField(_("annulled"), null=True, blank=True)
    # The post-game analysis (``games/services/analysis.py``): when it was last asked of
    # a worker, and when every move's ``analysis`` was stored.
    analysis_queued_at = models.DateTimeField(_("analysis queued"), null=True, blank=True)
    analysed_at = models.DateTimeField(_("analysed"), null=True, blank=True)
    # How many chat messages the game has, kept by ``services.chat_post`` in the
    # message's transaction (no code deletes one): the game page reads the
    # messages only when there are some, and most games have none.
    chat_count = models.PositiveIntegerField(_("chat messages"), default=0)

    # Not columns: what ``selectors.my_games`` sets on the games it lists, for the templates.
    deadline: datetime | None
    my_seat: Seat
    invited_by: User
    opponents: list[User]
    against_computer: bool
    badges: list[Badge]

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "-created_at"])]
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_mode_display()}"

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ANNULLED)

    def seat_list(self) -> list[Seat]:
        """Every seat with its player, in play order: one query, then none for this instance.

        A move reads the seats once under the game's lock, saves them in place
        (``kernel.save_seats`` in ``games/services/``), and the notifications and the game area
        shown after it use the same objects. ``refresh_from_db()`` forgets them
        (with ``fields=`` it does not). They are the cache ``self.seats.all()``,
        ``.count()`` and ``.exists()`` read too: after adding or removing a seat,
        read the game again rather than this instance's seats; and a ``seats``
        prefetch already on the instance is kept as it is.
        """
        # prefetch_related_objects() does nothing when the seats are already prefetched.
        prefetch_related_objects([self], Prefetch("seats", queryset=seats_in_order()))
        return list(self.seats.all())


class Seat(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("Playing")
        RESIGNED = "resigned", _("Resigned")
        TIMED_OUT = "timed-out", _("Timed out")

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="seats", verbose_name=_("game")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="seats",
        verbose_name=_("player"),
    )
    # The engine's player index, assigned at the start after the first-player
    # draw (position 0 plays first); null while the table is open.
    position = models.PositiveSmallIntegerField(_("position"), null=True, blank=True)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.ACTIVE
    )
    hand = models.CharField(_("hand"), max_length=120, blank=True)  # private (R-HIDE-1)
    score = models.IntegerField(_("score"), default=0)
    is_winner = models.BooleanField(_("winner"), default=False)
    rank = models.PositiveSmallIntegerField(_("rank"), null=True, blank=True)
    # Hints (``games/services/hints.py``): how many the player asked for, and the last
    # one with the move number it was given at, shown again until the player
    # moves. Private, like the hand: it is made from the hand.
    hints_used = models.PositiveSmallIntegerField(_("hints used"), default=0)
    hint = models.JSONField(_("last hint"), null=True, blank=True)

    class Meta:
        ordering = ["game", "position", "joined_at"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="one_seat_per_player"),
            models.UniqueConstraint(fields=["game", "position"], name="one_player_per_position"),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.game_id}"

    def queued(self) -> QueuedMove | None:
        """The seat's queued move (issue #36), None when it has none or it was just deleted.

        The seats of ``Game.seat_list()`` come with it (a join): no query then.
        """
        try:
            queued = self.queued_move
        except QueuedMove.DoesNotExist:
            return None
        return queued if queued.pk is not None else None

    @property
    def drawn_position(self) -> int:
        """``position`` in a game that has started, where every seat has one."""
        if self.position is None:
            raise ValueError(f"seat {self.pk} has no position: its game has not started")
        return self.position


class Move(models.Model):
    class Kind(models.TextChoices):
        PLACE = "place", _("Placement")
        EXCHANGE = "exchange", _("Exchange")
        PASS = "pass", _("Pass")
        RESIGN = "resign", _("Resignation")
        TIMEOUT = "timeout", _("Time-out")

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="moves", verbose_name=_("game")
    )
    number = models.PositiveIntegerField(_("number"))  # 1, 2, 3… in order played
    seat = models.ForeignKey(
        Seat, on_delete=models.PROTECT, related_name="moves", verbose_name=_("seat")
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    # The move exactly as the game record writes it (RECORD.md), with its draw:
    # replaying these through the engine rebuilds the game. Private: it names
    # the tiles drawn and exchanged.
    record = models.JSONField(_("record"))
    notation = models.CharField(_("notation"), max_length=120)
    words = models.JSONField(_("words"), default=list, blank=True)
    points = models.IntegerField(_("points"), default=0)
    tiles_drawn = models.CharField(_("tiles drawn"), max_length=60, blank=True)  # private
    tiles_returned = models.CharField(_("tiles returned"), max_length=60, blank=True)  # private
    created_at = models.DateTimeField(_("played"), auto_now_add=True)
    # Written once the game is over (``games/services/analysis.py``): the best move the
    # computer finds from the mover's view, and what it and the move played
    # would make. Null for moves not analysed (resignations, time-outs).
    analysis = models.JSONField(_("analysis"), null=True, blank=True)
    # Played by the kernel from the seat's queued move (issue #36), not by its player's
    # hand: the text game says "Your queued move was played" from it. Private, as the
    # queued move was (R-HIDE-1): shown to the move's own player only.
    from_queue = models.BooleanField(_("played from the queue"), default=False)

    class Meta:
        ordering = ["game", "number"]
        verbose_name = _("move")
        verbose_name_plural = _("moves")
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="one_move_per_number")
        ]

    def __str__(self) -> str:
        return f"{self.game_id}.{self.number} {self.notation}"


class QueuedMove(models.Model):
    """A placement a player laid out before their turn, played when the turn comes (issue #36).

    One per seat. Hidden information, like the hand it is made from: only its
    player ever sees it (``selectors.game_view`` gives it to its own seat's
    viewer alone). ``games/services/queued.py`` writes and cancels it; the
    kernel (``games/services/kernel.py``) plays it, or keeps it with the reason
    it was not played, in the transaction that gives its seat the turn, and
    deletes it when its seat moves, leaves, or the game ends.
    """

    class Keep(models.TextChoices):
        LEGAL = "legal", _("If still legal")
        UNCHANGED = "unchanged", _("Only if nothing near it changed")

    seat = models.OneToOneField(
        Seat, on_delete=models.CASCADE, related_name="queued_move", verbose_name=_("seat")
    )
    keep = models.CharField(_("kept"), max_length=10, choices=Keep.choices, default=Keep.LEGAL)
    # The move form's placements ("H8=C,I8=h": small letter, a diable) and the red-devil
    # returns chosen in advance (sans marque).
    placements = models.CharField(_("placements"), max_length=400)
    returns = models.CharField(_("tiles given back"), max_length=60, blank=True)
    # The board when it was queued (public) and the move number then: "only if nothing
    # near it changed" compares the board of the turn with it.
    board = models.TextField(_("board when queued"))
    version = models.PositiveIntegerField(_("queued at move"))
    notation = models.CharField(_("notation"), max_length=120)
    queued_at = models.DateTimeField(_("queued"), auto_now=True)
    # Why it was not played when the turn came: {"code", "fr", "en"}; null while it waits.
    refusal = models.JSONField(_("why not played"), null=True, blank=True)

    class Meta:
        verbose_name = _("queued move")
        verbose_name_plural = _("queued moves")

    def __str__(self) -> str:
        return f"{self.seat_id}: {self.notation}"

    @property
    def waiting(self) -> bool:
        return self.refusal is None

    def tiles(self) -> tuple[tuple[str, str], ...]:
        """The placements as the engine reads them: ((square, letter), …)."""
        pairs = (item.split("=", 1) for item in self.placements.split(",") if item)
        return tuple((square, letter) for square, letter in pairs)


class Invitation(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("game")
    )
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="invitations",
        verbose_name=_("invitee"),
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("invited by"),
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING, verbose_name=_("status")
    )
    # When the player was last invited: a player who left the table and is invited again
    # reuses the row (pending again, this time and inviter), and the email key names it.
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("invitation sent"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "invitee"], name="one_invitation_per_player")
        ]
        verbose_name = _("invitation")
        verbose_name_plural = pgettext_lazy("model", "invitations")

    def __str__(self) -> str:
        return f"{self.invitee} → {self.game_id}"


def seats_in_order() -> models.QuerySet[Seat]:
    """Seats with their players, in play order (``position``; an open table's by arrival)."""
    # With the seat's queued move (a join, one row at most): the kernel asks, at every move,
    # whether the next seat has one, and the game page shows the viewer's own.
    return Seat.objects.select_related("player", "queued_move").order_by(
        "position", "joined_at", "pk"
    )


class ChatMessage(models.Model):
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="chat_messages", verbose_name=_("game")
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("author"),
    )
    text = models.CharField(max_length=500, verbose_name=_("text"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("written"))

    class Meta:
        ordering = ["created_at"]
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:40]}"
