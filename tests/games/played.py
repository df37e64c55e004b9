"""Games played through the services, for the staff review tests."""

from __future__ import annotations

import random
from collections.abc import Sequence

from benchmarks.web.seed import play_moves
from games import bridge, services
from games.models import Game
from tests.games.conftest import start_game

__all__ = ["play_game", "play_moves"]


def play_game(
    players: Sequence,
    *,
    mode: str = "marque",
    seed: int = 1,
    moves: int = 400,
    finish: bool = False,
) -> Game:
    """A game started with ``players`` and played ``moves`` moves (or to its end).

    The moves are random (``find_move``) and not the same from one run to the
    next (it iterates over sets), so a test must not count on how the game
    goes. ``finish`` ends a game still running by resigning the player to move.
    """
    game = start_game(players, mode=mode, seed=seed)
    play_moves(game, moves, random.Random(seed))
    by_position = {s.position: s.player for s in game.seats.all()}
    while finish and game.status == Game.Status.RUNNING:
        turn = bridge.state_of(game).turn
        services.game_resign(game_id=game.pk, player=by_position[turn])
        game.refresh_from_db()
    return game
