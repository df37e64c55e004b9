"""Players and running games for the games tests."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

import rules
from games import bridge, services
from games.models import Game, Seat
from tests.factories import make_player


@pytest.fixture
def alice(db):
    return make_player("alice")


@pytest.fixture
def bob(db):
    return make_player("bob")


@pytest.fixture
def carol(db):
    return make_player("carol")


@pytest.fixture
def outsider(db):
    return make_player("oscar")


def start_game(players: Sequence, *, mode: str = "marque", seed: int = 1) -> Game:
    """A running game with ``players`` seated, started through the services."""
    game = services.game_create(creator=players[0], mode=mode, seats=len(players))
    rng = random.Random(seed)
    for player in players[1:]:
        services.game_join(game_id=game.pk, player=player, rng=rng)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    return game


def rig(game: Game, hands: Sequence[str]) -> Game:
    """Replace the deal with ``hands`` (by position); the reserve is the rest of the set.

    Test-only: it rewrites the set-up and the cached state together, so the
    game still replays to its state.
    """
    config = bridge.config_of(game)
    state = rules.new_game(config, [tuple(h) for h in hands])
    game.setup = {"hands": list(hands), "reserve": "".join(state.reserve)}
    game.state = rules.state_to_dict(state)
    game.save(update_fields=["setup", "state"])
    for seat in game.seats.all():
        assert seat.position is not None
        seat.hand = hands[seat.position]
        seat.save(update_fields=["hand"])
    return game


def seat_at(game: Game, position: int) -> Seat:
    return game.seats.select_related("player").get(position=position)


def snapshot(game: Game) -> tuple:
    """Everything a refused request must leave as it was."""
    game.refresh_from_db()
    seats = tuple(game.seats.order_by("pk").values_list("hand", "score", "status", "position"))
    return (game.state, game.move_count, game.status, game.moves.count(), seats)
