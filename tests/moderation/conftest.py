"""The games tests' players, a three-player game, and a way to report in it."""

from __future__ import annotations

import pytest

from moderation.models import Report
from moderation.services import report_create
from tests.games.conftest import alice, bob, carol, outsider, start_game  # noqa: F401


@pytest.fixture
def game(alice, bob, carol):  # noqa: F811 (the fixtures imported above)
    return start_game([alice, bob, carol])


def seat_of(game, player):
    return game.seats.get(player=player)


def report(game, reporter, about=None, reason="cheating", text="Il joue trop vite.") -> Report:
    """``reporter`` reports ``about`` (a player of ``game``), or the game itself."""
    return report_create(
        reporter=reporter,
        game_id=game.pk,
        reported_seat_id=None if about is None else seat_of(game, about).pk,
        reason=reason,
        text=text,
    )
