"""The kernel of the services: what every service that changes a game does.

The lock on the game row, the seats read once under it, the version check, a
due time-out applied first, playing a move and saving what it changed, the
start of a game, and the refusal that keeps a time-out. Only the modules of
``games/services/`` use it; everything else calls the verbs the package
exports (``games/services/__init__.py``).

Every service is one transaction. Those that change a running game lock its
row (``select_for_update``), check the move number the client saw, let
``rules/`` judge the move, and save the Move row and the new state together;
notifications are written in the same transaction (``games/notify.py``). A
refusal raises ``GameError`` or the engine's ``IllegalMove`` and leaves the
database as it was, except a time-out found due, which is kept
(``KeepAndRefuse``).

What a move or a start sets going is sent as signals (``games/signals.py``)
inside the transaction: the ratings and the analysis listen to
``game_finished``, the computer players to ``turn_to_play``.
"""

from __future__ import annotations

import functools
import logging
import random
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

import rules
from accounts.models import User
from accounts.permissions import can_play
from games import bridge, clock, notify, signals
from games.errors import GameError, in_both_languages, moved_on, not_a_player
from games.models import Game, Invitation, Move, QueuedMove, Seat

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    pass

P = ParamSpec("P")
T = TypeVar("T")


def system_rng() -> random.Random:
    return secrets.SystemRandom()


def require_player(user: User) -> None:
    if not can_play(user):
        raise GameError(
            "unverified",
            _("Confirm your email address before you create or join a game."),
            status=403,
        )


def locked_game(game_id: int) -> Game:
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        raise GameError("no-game", _("There is no such game."), status=404)
    return game


def seat_of(game: Game, player: User) -> Seat:
    seat = game.seats.filter(player=player).first()
    if seat is None:
        raise not_a_player()
    return seat


def seats_and_mine(game: Game, player: User) -> tuple[list[Seat], Seat]:
    """Every seat of the game and the player's: one query, and ``play`` needs them all.

    With their players: whether the next to move is a computer player decides
    a time-out (never) and the turn's task (``signals.turn_to_play``).
    """
    seats = game.seat_list()
    seat = next((s for s in seats if s.player_id == player.pk), None)
    if seat is None:
        raise not_a_player()
    return seats, seat


def check_version(game: Game, version: int | None) -> None:
    if version is None or version != game.move_count:
        raise moved_on()


def time_out_if_due(game: Game, seats: list[Seat]) -> Move | None:
    """Time out the player to move if their deadline has passed; under the game's row lock.

    The services a player calls apply a due time-out before what they were
    asked, so the outcome never depends on whether beat has run yet: once the
    deadline has passed, the time-out comes first (docs/ARCHITECTURE.md, the
    clock). Vacations are read here, after the lock (``games/clock.py``).
    """
    seat = next((s for s in seats if s.pk == game.to_move_id), None)
    if seat is None or seat.player.is_computer:  # a computer player's turn is a task, never late
        return None
    if not clock.is_overdue(game, timezone.now(), player=seat.player):
        return None
    return play(game, seat, rules.Resign(seat.drawn_position, timeout=True), system_rng())


class KeepAndRefuse(Exception):
    """Refuse with ``error``, but commit what the service did first (a time-out found due).

    Raised inside a service wrapped in ``atomic_keeping``; any other exception
    rolls the service back.
    """

    def __init__(self, error: GameError) -> None:
        super().__init__(error)
        self.error = error


def atomic_keeping(service: Callable[P, T]) -> Callable[P, T]:
    """``service`` as one transaction, in which ``raise KeepAndRefuse(error)`` commits, then
    raises ``error``: the player's refusal comes after the commit of the time-out it found.
    """

    @functools.wraps(service)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with transaction.atomic():
            try:
                return service(*args, **kwargs)
            except KeepAndRefuse as refusal:
                error = refusal.error
        raise error

    return run


def start(game: Game, rng: random.Random, *, organised: bool = False) -> None:
    """First-player draw (R-SETUP-1), seating in play order, deal (R-SETUP-4).

    ``organised``: a game an organiser set up (``tables.game_create_organised``):
    no draw, the seats play in the order they were taken, and no "game
    started" email (the organiser sends its own).
    """
    seats = list(game.seats.select_related("player").order_by("joined_at", "pk"))
    started = bridge.start(game, len(seats), rng, draw_first=not organised)
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
    if not organised:
        notify.game_started(game)
    signals.turn_to_play.send(sender=Game, game=game)


def play(
    game: Game, seat: Seat, move: rules.Move, rng: random.Random, *, queued: bool = False
) -> Move:
    """Apply ``move`` through the engine and save everything it changed.

    ``seat`` is one of ``game.seat_list()``, which the notifications and the
    page after the move read again without a query: it is kept up to date here.
    ``queued``: the move is the seat's queued move (``play_queued``), so marked on its row.
    """
    played = bridge.play(game, move, rng)
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
                points=played.summary.points[seat.drawn_position],
                tiles_drawn=played.summary.drawn,
                tiles_returned=played.summary.returned,
                from_queue=queued,
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
    by_position = save_seats(game, state)
    to_move = None if result is not None else by_position[state.turn]
    # The clock runs from when the turn began (games/clock.py): a resignation
    # out of turn leaves the player to move, and their clock, as they were.
    # The days given on a turn (games/services/time_given.py) are for that turn only.
    if to_move is None or to_move.pk != game.to_move_id:
        game.turn_started_at = now
        game.turn_extra_days = 0
    turn_passed = to_move is not None and to_move.pk != game.to_move_id
    game.to_move = to_move
    game.save(update_fields=[*changed, "to_move"])
    # The mover's own queued move is played now, or moot (they moved, left or timed
    # out); at the end of the game every one left is.
    for other in game.seat_list() if result is not None else [seat]:
        forget_queued(other)
    follow = queued_turn(game, state, to_move) if turn_passed and to_move else None
    notify.move_played(game, row, turn_taken=follow is not None)
    if result is not None:
        signals.game_finished.send(sender=Game, game=game)
    else:
        signals.turn_to_play.send(sender=Game, game=game)
    if follow is not None and to_move is not None:
        play_queued(game, to_move, follow, row, rng)
    return row


def play_queued(
    game: Game, seat: Seat, move: rules.Place, before: Move, rng: random.Random
) -> None:
    """The next player's queued move, in this transaction: their turn is played at
    once, and the player after them is told, by the same ``play``.

    In a savepoint: whatever goes wrong there (a bug, the engine disagreeing with
    the check made before), the move ``before`` it stands and is answered, the queued
    move is kept as "not played", and its player is told it is their turn. Never
    the engine's words about their tiles to the player who just moved.
    """
    try:
        with transaction.atomic():
            play(game, seat, move, rng, queued=True)
    except Exception:
        logger.exception("queued move of seat %s in game %s not played", seat.pk, game.pk)
        game.refresh_from_db()  # the savepoint is undone; so are the seats read here
        said = in_both_languages(
            _("Your queued move could not be played: play your turn on the page.")
        )
        QueuedMove.objects.filter(seat_id=seat.pk).update(
            refusal=_refusal("error", said["fr"], said["en"])
        )
        notify.move_played(game, before)  # "your turn", with why it was not played


def forget_queued(seat: Seat) -> None:
    queued = seat.queued()
    if queued is not None:
        queued.delete()


def _refusal(code: str, fr: str, en: str) -> dict[str, str]:
    return {"code": code, "fr": fr, "en": en}


def queued_turn(game: Game, state: rules.GameState, seat: Seat) -> rules.Place | None:
    """The move ``seat``, given the turn on ``state``, queued, if it is to be played now.

    None when the seat queued nothing (or its queued move already waits as "not
    played"), and when the move is not to be played: then it is kept with the
    reason (``QueuedMove.refusal``), which the seat's page and "your turn"
    email show. Judged by the engine before anything is written.
    """
    queued = seat.queued()
    if queued is None or not queued.waiting or seat.player.is_computer:
        return None
    tiles = queued.tiles()
    move = rules.Place(seat.drawn_position, tiles, returns=queued.returns)
    refusal = None
    near: tuple[str, ...] = ()
    if queued.keep == QueuedMove.Keep.UNCHANGED:
        near = rules.changed_near(state.config.layout, queued.board, state.board, tiles)
    if near:
        said = in_both_languages(
            _("A tile was placed on %(squares)s, near your queued move, after you queued it."),
            {"squares": ", ".join(near)},
        )
        refusal = _refusal("changed-near", said["fr"], said["en"])
    else:
        try:
            rules.apply(state, move)
        except rules.IllegalMove as illegal:
            refusal = _refusal(illegal.code, illegal.message_fr, illegal.message_en)
    if refusal is None:
        return move
    queued.refusal = refusal
    queued.save(update_fields=["refusal"])
    return None


SEAT_FIELDS = ("hand", "score", "status", "is_winner", "rank")


def save_seats(game: Game, state: rules.GameState) -> dict[int, Seat]:
    """Copy hands, scores, statuses and, at the end, results onto the seats.

    Only the seats that changed are written: a move usually changes the mover's
    hand and score alone, and an UPDATE per seat cost a query per player.
    """
    result = state.result
    places = rules.ranks(state) if result is not None else None
    seats = game.seat_list()
    for seat in seats:
        position = seat.drawn_position
        before = tuple(getattr(seat, name) for name in SEAT_FIELDS)
        seat.hand = "".join(state.hands[position])
        seat.score = state.scores[position]
        seat.status = state.status[position]
        if result is not None and places is not None:
            seat.is_winner = position in result.winners
            seat.rank = places[position]
        if tuple(getattr(seat, name) for name in SEAT_FIELDS) != before:
            seat.save(update_fields=SEAT_FIELDS)
    return {seat.drawn_position: seat for seat in seats}
