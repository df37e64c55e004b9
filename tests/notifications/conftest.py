"""Players, games and a way to run what commits would trigger, for the outbox tests."""

from __future__ import annotations

import random

import pytest

import rules
from games import services
from games.models import Game
from notifications.models import Notification
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

# Hands that let position 0 open with CHAT on H8 (marque: 12 tiles each).
OPENING = ("CHATEAUXSIRN", "LEPOTIERMANU")
CHAT = rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "T")))


@pytest.fixture
def alice(db):
    return make_player("alice", language="en", time_zone="America/New_York")


@pytest.fixture
def bob(db):
    return make_player("bob", language="fr", time_zone="Europe/Paris")


@pytest.fixture
def carol(db):
    return make_player("carol", language="en", time_zone="UTC")


def new_game(players, *, hands=OPENING, mode: str = "marque", keep_start: bool = False) -> Game:
    """A running game with ``hands`` dealt; its start's emails are dropped unless ``keep_start``.

    Most tests watch what one move causes; the start's own emails are tested apart.
    """
    game = rig(start_game(players, mode=mode), hands)
    if not keep_start:
        Notification.objects.filter(game=game).delete()
    return game


def play_chat(game: Game) -> None:
    """Position 0 opens with CHAT (4 words-worth of tiles, 0 points in marque)."""
    services.move_submit(
        game_id=game.pk,
        player=seat_at(game, 0).player,
        version=game.move_count,
        move=CHAT,
        rng=random.Random(0),
    )


def rows(**filters) -> list[tuple[str, str, str]]:
    """(kind, recipient, status) of the outbox rows, oldest first."""
    return list(
        Notification.objects.filter(**filters)
        .order_by("pk")
        .values_list("kind", "recipient__username", "status")
    )
