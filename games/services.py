"""The only way a game changes.

Every service is one transaction. Those that change a running game lock its
row (``select_for_update``), check the move number the client saw, let
``rules/`` judge the move, and save the Move row and the new state together;
notifications are queued in the same transaction (``games/notify.py``). A
refusal raises ``GameError`` or the engine's ``IllegalMove`` and leaves the
database as it was.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

import rules
from accounts.models import User
from accounts.permissions import can_play
from diamino_site import ratelimit
from games import clock, signals
from games import engine as game_engine
from games.errors import GameError, moved_on, not_a_player, not_running, timed_out
from games.models import ChatMessage, Game, Invitation, Mode, Move, Seat

T = TypeVar("T")

CHAT_MAX_LENGTH = 500
CHAT_MAX_PER_MINUTE = 6

# An invitation is an email to somebody else, and a table opened and closed again
# can invite the same player over and over: without limits one player could fill
# another's inbox (issue 25 measured 25 invitation emails to one player in 1.9 s).
# Far above what a player opening tables for friends needs.
TABLES_PER_HOUR = ratelimit.Limit("tables", count=20, seconds=3600)
INVITATIONS_PER_HOUR = ratelimit.Limit("invitations", count=30, seconds=3600)
SAME_INVITEE_PER_DAY = ratelimit.Limit("invitations-to", count=3, seconds=86400)


def _system_rng() -> random.Random:
    return secrets.SystemRandom()


def _require_player(user: User) -> None:
    if not can_play(user):
        raise GameError(
            "unverified",
            _("Confirm your email address before you create or join a game."),
            status=403,
        )


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
    if invitees:
        charges.insert(0, (INVITATIONS_PER_HOUR, (by.pk,), len(invitees)))
    return charges


def _locked_game(game_id: int) -> Game:
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise GameError("no-game", _("There is no such game."), status=404) from None


# --- tables ------------------------------------------------------------------


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
    are allowed (``games/computer.py``).
    """
    _require_player(creator)
    if mode not in Mode.values:
        raise GameError("bad-mode", _("Choose avec marque or sans marque."))
    allowed = rules.player_counts(mode)
    if seats not in allowed:
        raise GameError(
            "bad-seats",
            _("This mode is played by %(low)d to %(high)d players.")
            % {"low": allowed.start, "high": allowed.stop - 1},
        )
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
        word_list=game_engine.current_word_list_id(),
    )
    Seat.objects.create(game=game, player=creator)
    invited = [invitee for invitee in invitees if _invite(game, creator, invitee)[1]]
    _spend([(TABLES_PER_HOUR, (creator.pk,), 1), *_invitation_charges(creator, invited)], invited)
    return game


def _invite(game: Game, by: User, invitee: User) -> tuple[Invitation, bool]:
    """The invitation, and whether it is a new one (an email) rather than one still pending."""
    if invitee == by or game.seats.filter(player=invitee).exists():
        raise GameError("already-seated", _("%(name)s already has a seat.") % {"name": invitee})
    if not invitee.is_active or invitee.is_bot:  # a computer player is seated, not invited
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
    from games import notify

    notify.invitation(invitation)
    return invitation, True


@transaction.atomic
def game_invite(*, game_id: int, by: User, invitee: User) -> Invitation:
    """Invite a player to an open table (any seated player may invite)."""
    game = _locked_game(game_id)
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
    game rated for someone who joined a friendly one (``computer.game_unseat_bot``).
    """
    _require_player(player)
    game = _locked_game(game_id)
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
        _start(game, rng or _system_rng())
    return seat


@transaction.atomic
def game_leave(*, game_id: int, player: User) -> None:
    """Give up a seat before the start; the creator leaving closes the table."""
    game = _locked_game(game_id)
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
    game = _locked_game(game_id)
    if game.creator_id != by.pk:
        raise GameError("not-creator", _("Only the table's creator can start it."), status=403)
    if game.status != Game.Status.OPEN:
        raise GameError("not-open", _("This table has already started."), status=409)
    if game.seats.count() < 2:
        raise GameError("too-few", _("At least two players are needed to start."), status=409)
    _start(game, rng or _system_rng())
    return game


def _start(game: Game, rng: random.Random) -> None:
    """First-player draw (R-SETUP-1), seating in play order, deal (R-SETUP-4)."""
    seats = list(game.seats.select_related("player").order_by("joined_at", "pk"))
    started = game_engine.start(game, len(seats), rng)
    for position, index in enumerate(started.rotation):
        seat = seats[index]
        seat.position = position
        seat.hand = "".join(started.state.hands[position])
        seat.save(update_fields=["position", "hand"])
    game.to_move = seats[started.rotation[0]]
    game.first_player_draw = [
        [[seats[index].pk, tile] for index, tile in round_] for round_ in started.draw.rounds
    ]
    game.setup = started.setup
    game.state = rules.state_to_dict(started.state)
    game.status = Game.Status.RUNNING
    game.started_at = game.turn_started_at = timezone.now()
    game.seats_wanted = len(seats)
    game.save()
    game.invitations.filter(status=Invitation.Status.PENDING).delete()
    from games import computer, notify

    notify.game_started(game)
    computer.bot_turn_after_commit(game)


# --- moves ---------------------------------------------------------------------


@dataclass(frozen=True)
class Preview:
    """What a placement would do, judged without saving (``move_preview``)."""

    ok: bool
    words: tuple[str, ...] = ()
    devils: tuple[str, ...] = ()
    points: int = 0
    # The points depend on hands the player may not see: ``points`` is 0, not the figure.
    points_hidden: bool = False
    goes_out: bool = False
    returns_needed: int = 0
    message: str = ""
    rule: str = ""
    code: str = ""


def _seat_of(game: Game, player: User) -> Seat:
    seat = game.seats.filter(player=player).first()
    if seat is None:
        raise not_a_player()
    return seat


def _seats_and_mine(game: Game, player: User) -> tuple[list[Seat], Seat]:
    """Every seat of the game and the player's: one query, and ``_play`` needs them all.

    With their players: whether the next to move is a computer player decides
    a time-out (never) and the turn's task (``computer.bot_turn_after_commit``).
    """
    seats = game.seat_list()
    seat = next((s for s in seats if s.player_id == player.pk), None)
    if seat is None:
        raise not_a_player()
    return seats, seat


def _check_version(game: Game, version: int | None) -> None:
    if version is None or version != game.move_count:
        raise moved_on()


def move_preview(*, game_id: int, player: User, version: int, move: rules.Move) -> Preview:
    """Judge ``move`` for ``player`` without saving anything."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise GameError("no-game", _("There is no such game."), status=404)
    if game.status != Game.Status.RUNNING:
        raise not_running()
    seat = _seat_of(game, player)
    _check_version(game, version)
    return game_engine.preview(game, seat.position, move, get_language() or player.language)


def move_submit(
    *,
    game_id: int,
    player: User,
    version: int,
    move: rules.Move,
    rng: random.Random | None = None,
) -> Move:
    """Play ``move`` (place, exchange or pass) for ``player`` at move ``version``.

    Too late (the player's deadline passed and beat has not run yet): the
    time-out is applied and kept, and the move is refused (``timed-out``).
    """
    return _refuse_after_commit(
        _move_submit(game_id=game_id, player=player, version=version, move=move, rng=rng)
    )


@transaction.atomic
def _move_submit(
    *,
    game_id: int,
    player: User,
    version: int,
    move: rules.Move,
    rng: random.Random | None,
) -> Move | GameError:
    game = _locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        raise not_running()
    seats, seat = _seats_and_mine(game, player)
    if game.to_move_id == seat.pk and _time_out_if_due(game, seats) is not None:
        return timed_out()
    _check_version(game, version)
    if isinstance(move, rules.Resign):
        raise GameError("bad-move", _("Use the resign button to resign."))
    move = game_engine.with_player(move, seat.position)
    return _play(game, seat, move, rng or _system_rng())


def game_resign(*, game_id: int, player: User) -> Move:
    """Leave a running game (R-END-4); allowed at any time, not only in turn.

    A time-out already due (the player to move, whoever resigns) comes first.
    """
    return _refuse_after_commit(_game_resign(game_id=game_id, player=player))


@transaction.atomic
def _game_resign(*, game_id: int, player: User) -> Move | GameError:
    game = _locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        raise not_running()
    seats, seat = _seats_and_mine(game, player)
    if seat.status != Seat.Status.ACTIVE:
        raise GameError("not-active", _("You have already left this game."), status=409)
    late = _time_out_if_due(game, seats)
    if late is not None and late.seat_id == seat.pk:
        return timed_out()
    if late is not None and game.status != Game.Status.RUNNING:
        return GameError(
            "not-running",
            _("The game ended before your resignation: the player to move ran out of time."),
            status=409,
        )
    return _play(game, seat, rules.Resign(seat.position), _system_rng())


@transaction.atomic
def game_timeout(*, game_id: int, seat_id: int) -> Move | None:
    """The seat to move let its deadline pass (R-END-4): it leaves the game.

    The caller has checked the deadline (``notifications.periodic.apply_timeouts``).
    """
    game = _locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        return None
    seat = next((s for s in game.seat_list() if s.pk == seat_id), None)
    state = game_engine.state_of(game)
    if seat is None or seat.player.is_bot:  # a computer player's turn is a task, never late
        return None
    if seat.status != Seat.Status.ACTIVE or state.turn != seat.position:
        return None
    return _play(game, seat, rules.Resign(seat.position, timeout=True), _system_rng())


def _time_out_if_due(game: Game, seats: list[Seat]) -> Move | None:
    """Time out the player to move if their deadline has passed; under the game's row lock.

    The services a player calls apply a due time-out before what they were
    asked, so the outcome never depends on whether beat has run yet: once the
    deadline has passed, the time-out comes first (docs/ARCHITECTURE.md, the
    clock). Vacations are read here, after the lock (``games/clock.py``).
    """
    seat = next((s for s in seats if s.pk == game.to_move_id), None)
    if seat is None or seat.player.is_bot:  # a computer player's turn is a task, never late
        return None
    if not clock.is_overdue(game, timezone.now(), player_id=seat.player_id):
        return None
    return _play(game, seat, rules.Resign(seat.position, timeout=True), _system_rng())


def _refuse_after_commit(result: T | GameError) -> T:
    """Raise a refusal whose transaction had something to keep (a time-out), after its commit."""
    if isinstance(result, GameError):
        raise result
    return result


def _play(game: Game, seat: Seat, move: rules.Move, rng: random.Random) -> Move:
    """Apply ``move`` through the engine and save everything it changed.

    ``seat`` is one of ``game.seat_list()``, which the notifications and the
    page after the move read again without a query: it is kept up to date here.
    """
    played = game_engine.play(game, move, rng)
    now = timezone.now()
    try:
        # No savepoint: on a duplicate move number the whole service gives up
        # (moved-on), so the transaction is rolled back rather than resumed.
        with transaction.atomic(savepoint=False):
            row = Move.objects.create(
                game=game,
                number=game.move_count + 1,
                seat=seat,
                kind=played.kind,
                record=played.record,
                notation=played.notation,
                words=list(played.summary.words),
                points=played.summary.points[seat.position],
                tiles_drawn=played.summary.drawn,
                tiles_returned=played.summary.returned,
            )
    except IntegrityError:
        raise moved_on() from None
    state = played.state
    game.state = rules.state_to_dict(state)
    game.move_count += 1
    changed = ["state", "move_count", "turn_started_at", "turn_extra_days"]
    result = state.result
    if result is not None:
        game.status = Game.Status.FINISHED
        game.finished_at = now
        game.end = result.end
        changed += ["status", "finished_at", "end"]
    by_position = _save_seats(game, state)
    to_move = None if result is not None else by_position[state.turn]
    # The clock runs from when the turn began (games/clock.py): a resignation
    # out of turn leaves the player to move, and their clock, as they were.
    # The days given on a turn (games/gifts.py) are for that turn only.
    if to_move is None or to_move.pk != game.to_move_id:
        game.turn_started_at = now
        game.turn_extra_days = 0
    game.to_move = to_move
    game.save(update_fields=[*changed, "to_move"])
    from games import analysis, computer, notify

    notify.move_played(game, row)
    if result is not None:
        signals.game_finished.send(sender=Game, game=game)
        analysis.analysis_after_commit(game)
    else:
        computer.bot_turn_after_commit(game)
    return row


SEAT_FIELDS = ("hand", "score", "status", "is_winner", "rank")


def _save_seats(game: Game, state: rules.GameState) -> dict[int, Seat]:
    """Copy hands, scores, statuses and, at the end, results onto the seats.

    Only the seats that changed are written: a move usually changes the mover's
    hand and score alone, and an UPDATE per seat cost a query per player.
    """
    result = state.result
    places = rules.ranks(state) if result is not None else None
    seats = game.seat_list()
    for seat in seats:
        position = seat.position
        before = tuple(getattr(seat, name) for name in SEAT_FIELDS)
        seat.hand = "".join(state.hands[position])
        seat.score = state.scores[position]
        seat.status = state.status[position]
        if result is not None:
            seat.is_winner = position in result.winners
            seat.rank = places[position]
        if tuple(getattr(seat, name) for name in SEAT_FIELDS) != before:
            seat.save(update_fields=list(SEAT_FIELDS))
    return {seat.position: seat for seat in seats}


# --- moderation ------------------------------------------------------------------


@transaction.atomic
def game_annul(*, game_id: int, by: User, reason: str) -> Game:
    """Staff annul a running or finished game: it leaves every statistic.

    The moves stay for review; players are notified and the ratings the game
    touched are recomputed (listeners of ``signals.game_annulled``). A staff
    member who has a seat at the game may not annul it, whatever its status:
    it would wipe their own loss, or their opponent's win.
    """
    if not by.is_staff:
        raise GameError("not-staff", _("Only staff can annul a game."), status=403)
    reason = reason.strip()
    if not reason:
        raise GameError("no-reason", _("Give a reason for the annulment."))
    game = _locked_game(game_id)
    if game.seats.filter(player=by).exists():
        raise GameError(
            "own-game",
            _("You play in this game: another staff member must decide whether to annul it."),
            status=403,
        )
    if game.status not in (Game.Status.RUNNING, Game.Status.FINISHED):
        raise GameError("not-annullable", _("Only a started game can be annulled."), status=409)
    was_finished = game.status == Game.Status.FINISHED
    game.status = Game.Status.ANNULLED
    game.annulled_reason = reason
    game.annulled_by = by
    game.annulled_at = timezone.now()
    game.to_move = None
    game.save(update_fields=["status", "annulled_reason", "annulled_by", "annulled_at", "to_move"])
    from games import notify

    notify.game_annulled(game)
    signals.game_annulled.send(sender=Game, game=game, was_finished=was_finished)
    return game


# --- chat ----------------------------------------------------------------------


@transaction.atomic
def chat_post(*, game_id: int, author: User, text: str) -> ChatMessage:
    """A short plain-text message to the table, for seated players only."""
    game = _locked_game(game_id)
    _seat_of(game, author)
    text = text.strip()
    if not text:
        raise GameError("chat-empty", _("Write something first."))
    if len(text) > CHAT_MAX_LENGTH:
        raise GameError(
            "chat-long", _("Messages are at most %(n)d characters.") % {"n": CHAT_MAX_LENGTH}
        )
    minute_ago = timezone.now() - timedelta(minutes=1)
    recent = game.chat_messages.filter(author=author, created_at__gte=minute_ago).count()
    if recent >= CHAT_MAX_PER_MINUTE:
        raise GameError(
            "chat-fast", _("Slow down: wait a minute before writing again."), status=429
        )
    return ChatMessage.objects.create(game=game, author=author, text=text)
