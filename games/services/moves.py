"""Moves: judge one without saving, play one, resign, and the time-out beat applies."""

from __future__ import annotations

import random

from django.db import transaction
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

import rules
from accounts.models import User
from games import bridge
from games.bridge import Preview
from games.errors import GameError, not_running, timed_out
from games.models import Game, Move, Seat
from games.services.kernel import (
    KeepAndRefuse,
    atomic_keeping,
    check_version,
    locked_game,
    play,
    seat_of,
    seats_and_mine,
    system_rng,
    time_out_if_due,
)


def move_preview(*, game_id: int, player: User, version: int, move: rules.Move) -> Preview:
    """Judge ``move`` for ``player`` without saving anything."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise GameError("no-game", _("There is no such game."), status=404)
    if game.status != Game.Status.RUNNING:
        raise not_running()
    seat = seat_of(game, player)
    check_version(game, version)
    # Not their turn: a move being queued (``services.queued_move_set``), judged on this board.
    return bridge.preview(
        game,
        seat.drawn_position,
        move,
        get_language() or player.language,
        as_if_to_move=game.to_move_id != seat.pk,
    )


@atomic_keeping
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
    game = locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        raise not_running()
    seats, seat = seats_and_mine(game, player)
    if game.to_move_id == seat.pk and time_out_if_due(game, seats) is not None:
        raise KeepAndRefuse(timed_out())
    check_version(game, version)
    if isinstance(move, rules.Resign):
        raise GameError("bad-move", _("Use the resign button to resign."))
    move = bridge.with_player(move, seat.drawn_position)
    return play(game, seat, move, rng or system_rng())


@atomic_keeping
def game_resign(*, game_id: int, player: User) -> Move:
    """Leave a running game (R-END-4); allowed at any time, not only in turn.

    A time-out already due (the player to move, whoever resigns) comes first.
    """
    game = locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        raise not_running()
    seats, seat = seats_and_mine(game, player)
    if seat.status != Seat.Status.ACTIVE:
        raise GameError("not-active", _("You have already left this game."), status=409)
    late = time_out_if_due(game, seats)
    if late is not None and late.seat_id == seat.pk:
        raise KeepAndRefuse(timed_out())
    if late is not None and game.status != Game.Status.RUNNING:
        raise KeepAndRefuse(
            GameError(
                "not-running",
                _("The game ended before your resignation: the player to move ran out of time."),
                status=409,
            )
        )
    return play(game, seat, rules.Resign(seat.drawn_position), system_rng())


@transaction.atomic
def game_timeout(*, game_id: int, seat_id: int) -> Move | None:
    """The seat to move let its deadline pass (R-END-4): it leaves the game.

    The caller has checked the deadline (``games.deadlines.apply_timeouts``).
    """
    game = locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        return None
    seat = next((s for s in game.seat_list() if s.pk == seat_id), None)
    state = bridge.state_of(game)
    if seat is None or seat.player.is_computer:  # a computer player's turn is a task, never late
        return None
    if seat.status != Seat.Status.ACTIVE or state.turn != seat.position:
        return None
    return play(game, seat, rules.Resign(seat.position, timeout=True), system_rng())
