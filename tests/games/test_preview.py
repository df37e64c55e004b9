"""The move preview never tells a player what is hidden from them (R-HIDE-1).

Going out scores the value of the other players' hands (R-END-2, R-END-3): while
the reserve holds tiles that value is not something the player can know, so the
preview says where the points come from without the figure.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.test import Client
from django.urls import reverse

import rules
from games import bridge, services
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.django_db

# Position 0 can go out at once with CHAT from the start square; position 1 holds
# a hand whose value is a figure no page shows elsewhere.
HANDS = ("CHAT", "KWYZEPOTMLUE")
GO_OUT = {"version": 0, "action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"}


def go_out_move() -> rules.Move:
    return rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "T")))


def hand_value(game, letters: str) -> int:
    return sum(bridge.config_of(game).tiles.values[t] for t in letters)


def empty_the_reserve(game) -> None:
    """As late in a game: every tile the player does not see is in the other hands."""
    state = replace(bridge.state_of(game), reserve=())
    game.state = rules.state_to_dict(state)
    game.save(update_fields=["state"])


def preview_html(game, player, language: str) -> str:
    player.language = language
    player.save(update_fields=["language"])
    client = Client()
    client.force_login(player)
    response = client.post(reverse("games:preview", args=[game.pk]), GO_OUT, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


def test_going_out_sans_marque_with_tiles_in_the_reserve_does_not_show_the_other_hands_value(
    alice, bob
) -> None:
    game = rig(start_game([alice, bob], mode="sans-marque"), HANDS)
    mover = seat_at(game, 0).player
    value = hand_value(game, HANDS[1])
    result = services.move_preview(game_id=game.pk, player=mover, version=0, move=go_out_move())
    assert result.ok and result.goes_out
    assert result.points_hidden and result.points == 0

    english = preview_html(game, mover, "en")
    assert "you go out" in english
    assert "the value of the tiles left in the other players' hands" in english
    assert str(value) not in english
    french = preview_html(game, mover, "fr")
    assert "la valeur des pièces restant dans les mains des autres joueurs" in french
    assert str(value) not in french


def test_going_out_sans_marque_with_the_reserve_empty_shows_the_points(alice, bob) -> None:
    # The figure is then the tile set less the board and the player's own hand.
    game = rig(start_game([alice, bob], mode="sans-marque"), HANDS)
    empty_the_reserve(game)
    mover = seat_at(game, 0).player
    result = services.move_preview(game_id=game.pk, player=mover, version=0, move=go_out_move())
    assert result.goes_out and not result.points_hidden
    assert result.points == hand_value(game, HANDS[1])
    html = preview_html(game, mover, "en")
    assert f"Points:</strong> {result.points}</p>" in html


def test_going_out_avec_marque_needs_an_empty_reserve_so_its_points_are_shown(alice, bob) -> None:
    game = rig(start_game([alice, bob], mode="marque"), HANDS)
    mover = seat_at(game, 0).player
    # With tiles in the reserve the player refills and does not go out: no end points.
    refills = services.move_preview(game_id=game.pk, player=mover, version=0, move=go_out_move())
    assert refills.ok and not refills.goes_out and not refills.points_hidden
    empty_the_reserve(game)
    result = services.move_preview(game_id=game.pk, player=mover, version=0, move=go_out_move())
    assert result.goes_out and not result.points_hidden
    assert result.points == 25 + hand_value(game, HANDS[1])  # fin de partie (R-END-3)
