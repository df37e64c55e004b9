"""Tables and seats: open a table, invite, join, leave, start, and the computer's seats.

Services (keyword-only, one transaction each, the game's row locked):
``game_create``, ``game_invite``, ``game_join``, ``game_leave``,
``game_start``; ``game_seat_computer`` (the table's creator gives a free seat
to a computer player; the game starts when the table is full, as with
``game_join``), ``game_unseat_computer`` (the creator takes that seat back
before the start) and ``game_against_computer`` (one click: a two-seat
friendly table with a computer player, started at once).

Invitations are limited per sender and per recipient (the limits below). When
invitations to a player start being refused because they reached
``INVITEE_PER_DAY``, that player is told once in the window: an email saying
further invitations are held back until the window ends
(``notify.invitations_held``), written after the refused service rolled back.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence
from typing import ParamSpec, TypeVar

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.computers import computer_user
from accounts.models import BotLevel, User
from games import bridge, notify, policies
from games.errors import GameError, not_a_player
from games.models import Game, Invitation, Mode, Seat
from games.services.kernel import locked_game, require_player, start, system_rng
from infra import ratelimit

# An invitation is an email to somebody else, and a table opened and closed again
# can invite the same player over and over: without limits one player could fill
# another's inbox (issue 25 measured 25 invitation emails to one player in 1.9 s).
# Far above what a player opening tables for friends needs.
TABLES_PER_HOUR = ratelimit.Limit("tables", count=20, seconds=3600)
INVITATIONS_PER_HOUR = ratelimit.Limit("invitations", count=30, seconds=3600)
SAME_INVITEE_PER_DAY = ratelimit.Limit("invitations-to", count=3, seconds=86400)
# From all senders together: many accounts (each under its own limits) cannot
# flood one player either.
INVITEE_PER_DAY = ratelimit.Limit("invitations-received", count=10, seconds=86400)

P = ParamSpec("P")
T = TypeVar("T")


class InvitationsHeld(GameError):
    """Refused: ``invitee`` reached ``INVITEE_PER_DAY`` (``refusal`` names its window)."""

    def __init__(self, message: str, *, invitee: User, refusal: ratelimit.RateLimited) -> None:
        super().__init__("rate-limited", message, status=429)
        self.invitee = invitee
        self.refusal = refusal


def _telling_held_invitees(service: Callable[P, T]) -> Callable[P, T]:
    """``service``, whose refusal for a player's invitations held back tells that player.

    Put it above ``transaction.atomic``: the refusal rolls back the service's
    transaction, and an outbox row written inside it would go too. The notice
    is written once that transaction is over, in its own (a savepoint when the
    caller holds a transaction: it then commits with the caller's). The key
    names the window, so the refusals after the first write nothing more; the
    sender's refusal (the 429 and its message) is raised unchanged.
    """

    @functools.wraps(service)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return service(*args, **kwargs)
        except InvitationsHeld as held:
            with transaction.atomic():
                notify.invitations_held(
                    held.invitee,
                    window_start=held.refusal.window_start,
                    until=held.refusal.window_end,
                    count=INVITEE_PER_DAY.count,
                )
            raise

    return wrapped


def _spend(charges: list[ratelimit.Charge], invitees: Iterable[User] = ()) -> None:
    """Count the actions against the player's limits, or refuse them all (429).

    Called last in the service, inside its transaction: the refusal rolls back
    what it wrote, and a request refused for another reason spends nothing.
    """
    try:
        ratelimit.take_all(charges)
    except ratelimit.RateLimited as exc:
        if exc.limit is TABLES_PER_HOUR:
            message = gettext(
                "You have opened many tables in a short time: you can open another in %(wait)s."
            )
        elif exc.limit is INVITATIONS_PER_HOUR:
            message = gettext(
                "You have sent many invitations in a short time: you can invite again in %(wait)s."
            )
        elif exc.limit is INVITEE_PER_DAY:
            message = gettext(
                "%(name)s has received many invitations today: "
                "you can invite them again in %(wait)s."
            )
            held = next(i for i in invitees if i.pk == exc.who[-1])
            raise InvitationsHeld(
                message % {"wait": exc.wait, "name": held}, invitee=held, refusal=exc
            ) from None
        else:
            message = gettext(
                "You have invited %(name)s several times today: "
                "you can invite them again in %(wait)s."
            )
        invitee = next((i for i in invitees if i.pk == exc.who[-1]), "")
        raise GameError(
            "rate-limited", message % {"wait": exc.wait, "name": invitee}, status=429
        ) from None


def _invitation_charges(by: User, invitees: list[User]) -> list[ratelimit.Charge]:
    charges: list[ratelimit.Charge] = [(SAME_INVITEE_PER_DAY, (by.pk, i.pk), 1) for i in invitees]
    charges += [(INVITEE_PER_DAY, (i.pk,), 1) for i in invitees]
    if invitees:
        charges.insert(0, (INVITATIONS_PER_HOUR, (by.pk,), len(invitees)))
    return charges


@_telling_held_invitees
@transaction.atomic
def game_create(
    *,
    creator: User,
    mode: str,
    seats: int,
    days_per_move: int = 3,
    invitation_only: bool = False,
    invitees: Iterable[User] = (),
    rated: bool = True,
) -> Game:
    """Open a table; the creator takes the first seat.

    ``rated=False``: a friendly table, left out of the ratings, where hints
    are allowed (``games/services/hints.py``).
    """
    require_player(creator)
    if mode not in Mode.values:
        raise GameError("bad-mode", _("Choose avec marque or sans marque."))
    refusal = policies.seats_refusal(mode, seats)
    if refusal is not None:
        raise refusal
    if days_per_move not in settings.DIAMINO_DAYS_PER_MOVE_CHOICES:
        raise GameError("bad-days", _("Choose 1, 2, 3, 5, 7 or 14 days per move."))
    game = Game.objects.create(
        mode=mode,
        seats_wanted=seats,
        days_per_move=days_per_move,
        invitation_only=invitation_only,
        rated=rated,
        friendly=not rated,
        creator=creator,
        word_list=bridge.current_word_list_id(),
    )
    Seat.objects.create(game=game, player=creator)
    invited = [invitee for invitee in invitees if _invite(game, creator, invitee)[1]]
    _spend([(TABLES_PER_HOUR, (creator.pk,), 1), *_invitation_charges(creator, invited)], invited)
    return game


def _invite(game: Game, by: User, invitee: User) -> tuple[Invitation, bool]:
    """The invitation, and whether it is a new one (an email) rather than one still pending."""
    if invitee == by or game.seats.filter(player=invitee).exists():
        raise GameError("already-seated", _("%(name)s already has a seat.") % {"name": invitee})
    if not invitee.is_active or invitee.is_computer:  # a computer player is seated, not invited
        raise GameError("no-player", _("There is no such player."), status=404)
    invitation, created = Invitation.objects.get_or_create(
        game=game, invitee=invitee, defaults={"invited_by": by}
    )
    if not created and invitation.status != Invitation.Status.PENDING:
        # Invited again after leaving the table: a new invitation in the same row. Its
        # time is part of the email's key (notify.invitation), so this one is sent too,
        # while inviting someone whose invitation is still pending writes nothing new.
        invitation.status = Invitation.Status.PENDING
        invitation.invited_by = by
        invitation.created_at = timezone.now()
        invitation.save(update_fields=["status", "invited_by", "created_at"])
    elif not created:
        return invitation, False  # still pending: its email has gone, nothing new to send
    notify.invitation(invitation)
    return invitation, True


@_telling_held_invitees
@transaction.atomic
def game_invite(*, game_id: int, by: User, invitee: User) -> Invitation:
    """Invite a player to an open table (any seated player may invite)."""
    game = locked_game(game_id)
    if game.status != Game.Status.OPEN:
        raise GameError("not-open", _("This table has already started."), status=409)
    if not game.seats.filter(player=by).exists():
        raise not_a_player()
    invitation, new = _invite(game, by, invitee)
    if new:
        _spend(_invitation_charges(by, [invitee]), [invitee])
    return invitation


@transaction.atomic
def game_join(*, game_id: int, player: User, rng: random.Random | None = None) -> Seat:
    """Take a seat at an open table; the game starts when the last seat is taken.

    Joining a table that shows as unrated (friendly, or a computer seated)
    keeps it unrated: the creator taking the computer back must not make the
    game rated for someone who joined a friendly one (``game_unseat_computer``).
    """
    require_player(player)
    game = locked_game(game_id)
    if game.status != Game.Status.OPEN:
        raise GameError("not-open", _("This table has already started."), status=409)
    if game.seats.filter(player=player).exists():
        raise GameError("already-seated", _("You already have a seat at this table."), status=409)
    invitation = game.invitations.filter(invitee=player).first()
    if game.invitation_only and invitation is None:
        raise GameError("invitation-only", _("This table is by invitation only."), status=403)
    if game.seats.count() >= game.seats_wanted:
        raise GameError("full", _("This table is full."), status=409)
    seat = Seat.objects.create(game=game, player=player)
    if not game.rated and not game.friendly:
        game.friendly = True
        game.save(update_fields=["friendly"])
    if invitation is not None:
        invitation.status = Invitation.Status.ACCEPTED
        invitation.save(update_fields=["status"])
    if game.seats.count() == game.seats_wanted:
        start(game, rng or system_rng())
    return seat


@transaction.atomic
def game_leave(*, game_id: int, player: User) -> None:
    """Give up a seat before the start; the creator leaving closes the table."""
    game = locked_game(game_id)
    if game.status != Game.Status.OPEN:
        raise GameError("not-open", _("The game has started: resign instead."), status=409)
    seat = game.seats.filter(player=player).first()
    if seat is None:
        raise not_a_player()
    if player == game.creator:
        game.delete()
        return
    seat.delete()
    game.invitations.filter(invitee=player).update(status=Invitation.Status.DECLINED)


@transaction.atomic
def game_start(*, game_id: int, by: User, rng: random.Random | None = None) -> Game:
    """The creator starts the table with the players seated (at least 2)."""
    game = locked_game(game_id)
    if game.creator_id != by.pk:
        raise GameError("not-creator", _("Only the table's creator can start it."), status=403)
    if game.status != Game.Status.OPEN:
        raise GameError("not-open", _("This table has already started."), status=409)
    if game.seats.count() < 2:
        raise GameError("too-few", _("At least two players are needed to start."), status=409)
    start(game, rng or system_rng())
    return game


# --- seats for computer players ---------------------------------------------------


def _bad_level() -> GameError:
    return GameError("bad-level", _("Choose the computer's level: beginner or experienced."))


@transaction.atomic
def game_seat_computer(
    *, game_id: int, by: User, level: str, rng: random.Random | None = None
) -> Seat:
    """The creator gives a free seat of an open table to a computer player of ``level``.

    The table stops being rated. When it is the last seat, the game starts.
    """
    require_player(by)
    if level not in BotLevel.values:
        raise _bad_level()
    game = locked_game(game_id)
    if game.creator_id != by.pk:
        raise GameError(
            "not-creator",
            _("Only the table's creator can give a seat to the computer."),
            status=403,
        )
    if game.status != Game.Status.OPEN:
        raise GameError("not-open", _("This table has already started."), status=409)
    seated = list(game.seats.values_list("player_id", flat=True))
    if len(seated) >= game.seats_wanted:
        raise GameError("full", _("This table is full."), status=409)
    seat = Seat.objects.create(game=game, player=computer_user(level, besides=seated))
    if game.rated:
        game.rated = False
        game.save(update_fields=["rated"])
    if len(seated) + 1 == game.seats_wanted:
        start(game, rng or system_rng())
    return seat


@transaction.atomic
def game_unseat_computer(*, game_id: int, by: User, seat_id: int) -> None:
    """The creator takes back, before the start, a seat they gave to a computer player.

    The table is rated again once no computer sits at it, unless it is
    friendly: its creator made it so, or a person joined it while it showed
    as unrated (``game_join``). A person's seat is theirs to leave
    (``game_leave``).
    """
    game = locked_game(game_id)
    if game.creator_id != by.pk:
        raise GameError(
            "not-creator", _("Only the table's creator can remove the computer."), status=403
        )
    if game.status != Game.Status.OPEN:
        raise GameError(
            "not-open", _("The game has started: the computer keeps its seat."), status=409
        )
    seat = game.seats.select_related("player").filter(pk=seat_id).first()
    if seat is None:
        raise GameError("no-seat", _("There is no such seat at this table."), status=404)
    if not seat.player.is_computer:
        raise GameError(
            "not-a-computer",
            _("This seat is a person's: only a computer's seat can be removed."),
        )
    seat.delete()
    computers_left = game.seats.filter(player__bot_level__gt="").exists()
    if not game.rated and not game.friendly and not computers_left:
        game.rated = True
        game.save(update_fields=["rated"])


@transaction.atomic
def game_against_computer(
    *,
    player: User,
    mode: str,
    level: str,
    days_per_move: int = 14,
    rng: random.Random | None = None,
) -> Game:
    """A game between ``player`` and a computer player of ``level``, started now.

    Unrated, so hints are allowed. The longest clock by default: a game
    against the computer is played when the player likes, and the computer
    answers at once.
    """
    if level not in BotLevel.values:
        raise _bad_level()
    game = game_create(creator=player, mode=mode, seats=2, days_per_move=days_per_move, rated=False)
    game_seat_computer(game_id=game.pk, by=player, level=level, rng=rng)
    game.refresh_from_db()
    return game


# --- organised games (leagues) ---------------------------------------------------


@transaction.atomic
def game_create_organised(
    *,
    players: Sequence[User],
    mode: str,
    days_per_move: int,
    rng: random.Random | None = None,
) -> Game:
    """A game set up by an organiser (a league's season): seated and started at once.

    The players sit in ``players``' order and play in it, the first moves
    first: no first-player draw, since the organiser balances who moves first
    over the season (``leagues/``). An invitation-only table nobody can join,
    rated as any game between people; no rate limit (the site creates it, not
    the player) and no "game started" email (the organiser sends its own, with
    every game of the season).
    """
    if len({p.pk for p in players}) != len(players):
        raise GameError("already-seated", _("A player cannot sit twice at one table."))
    for player in players:
        require_player(player)
        if player.is_computer:
            raise GameError("no-player", _("There is no such player."), status=404)
    refusal = policies.seats_refusal(mode, len(players))
    if refusal is not None:
        raise refusal
    if days_per_move not in settings.DIAMINO_DAYS_PER_MOVE_CHOICES:
        raise GameError("bad-days", _("Choose 1, 2, 3, 5, 7 or 14 days per move."))
    game = Game.objects.create(
        mode=mode,
        seats_wanted=len(players),
        days_per_move=days_per_move,
        invitation_only=True,
        creator=players[0],
        word_list=bridge.current_word_list_id(),
    )
    Seat.objects.bulk_create([Seat(game=game, player=player) for player in players])
    start(game, rng or system_rng(), organised=True)
    return game
