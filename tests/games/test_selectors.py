"""What the game page is given about the end of a game (games.selectors)."""

from __future__ import annotations

import pytest

import rules
from games import bridge, selectors, services
from games.models import Game
from tests.games.conftest import rig, seat_at, start_game


def _pass_twice_after(game: Game, opening: str) -> Game:
    for text in (opening, "Passe", "Passe"):
        game.refresh_from_db()
        state = bridge.state_of(game)
        services.move_submit(
            game_id=game.pk,
            player=seat_at(game, state.turn).player,
            version=game.move_count,
            move=rules.notation_to_move(text, state, state.turn),
        )
    game.refresh_from_db()
    return game


@pytest.mark.django_db
def test_a_blocked_sans_marque_game_ranks_the_players_by_the_value_left_in_hand(alice, bob) -> None:
    """R-END-2: no winner, but places, lowest value first; none while the game runs."""
    game = rig(start_game([alice, bob], mode="sans-marque"), ("CHATEAUXES", "KWLIOMPBDN"))
    running = selectors.game_view(game, alice)
    assert [seat.place for seat in running.seats] == [None, None]
    game = _pass_twice_after(game, "H8→ CHAT")
    view = selectors.game_view(game, alice)
    places = {seat.position: seat.place for seat in view.seats}
    # After CHAT the first player holds EAUXES (14 points), the second 32 points.
    assert view.winners == () and places == {0: 1, 1: 2}
