"""The players' replay (games.player_replay, views.replay): what each viewer may see at each move.

A running game's steps carry the viewer's own hand as it was after each move
and nobody else's; a spectator gets no hand; a finished game adds the final
hands, which the game page already shows, to its last step. A game the viewer
may not see is a 404, as its page is.
"""

from __future__ import annotations

import json
import random

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Game
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game
from tests.games.played import play_moves

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def replay(user, game: Game, **params) -> dict:
    response = client_for(user).get(reverse("games:replay", args=[game.pk]), params)
    assert response.status_code == 200
    return response.json()


def play(game: Game, moves: int, seed: int = 3) -> list[dict[int, str]]:
    """Play ``moves`` random moves; each seat's stored hand after each (index 0: the deal).

    The scores after each move are kept too, under the key "scores".
    """

    def hands() -> dict:
        seats = game.seats.order_by("position")
        return {s.position: s.hand for s in seats} | {"scores": [s.score for s in seats]}

    history = [hands()]
    play_moves(game, moves, random.Random(seed), after=lambda: history.append(hands()))
    return history


@pytest.fixture
def running(alice, bob):
    game = start_game([alice, bob])
    history = play(game, 8)
    assert game.status == Game.Status.RUNNING and game.move_count == 8
    return game, history


def test_a_player_gets_their_own_hand_at_every_move_and_never_the_other(running) -> None:
    game, history = running
    for position in (0, 1):
        viewer = seat_at(game, position)
        other = 1 - position
        data = replay(viewer.player, game)
        assert data["total"] == game.move_count == len(history) - 1
        assert data["viewer"] == position
        for k, step in enumerate(data["steps"]):
            assert step["step"] == k
            assert sorted(step["hand"]) == sorted(history[k][position])
            # Nothing else in the step can hold a rack: no "hands", and the
            # other player's rack then is nowhere in the answer.
            assert set(step) == {"step", "move", "place", "scores", "hand"}
            raw = json.dumps(step, ensure_ascii=False)
            if history[k][other] != history[k][position]:
                assert history[k][other] not in raw
                assert "".join(sorted(history[k][other])) not in raw


def test_each_step_has_the_move_as_the_history_shows_it_and_the_scores_then(running) -> None:
    game, history = running
    data = replay(seat_at(game, 0).player, game)
    assert data["steps"][0]["move"] is None and data["steps"][0]["scores"] == [0, 0]
    moves = list(game.moves.order_by("number").select_related("seat__player"))
    for row, step in zip(moves, data["steps"][1:], strict=True):
        assert step["move"]["player"] == row.seat.player.username
        assert step["move"]["words"] == list(row.words)
        assert step["move"]["points"] == row.points
        assert step["place"] == [
            [sq, ch.upper(), ch.islower()] for sq, ch in row.record.get("place", [])
        ]
        assert step["scores"] == history[row.number]["scores"]


def test_a_spectator_of_a_running_game_sees_no_hand(running, carol) -> None:
    game, _history = running
    data = replay(carol, game)
    assert data["viewer"] is None
    assert all(step["hand"] is None and "hands" not in step for step in data["steps"])


def test_the_replay_stops_at_the_version_the_page_shows(running) -> None:
    game, history = running
    data = replay(seat_at(game, 0).player, game, jusqua=5)
    assert data["total"] == 5 and len(data["steps"]) == 6
    assert sorted(data["steps"][-1]["hand"]) == sorted(history[5][0])
    # Past the game's moves, or not a number: up to the last move.
    assert replay(seat_at(game, 0).player, game, jusqua=99)["total"] == 8
    assert replay(seat_at(game, 0).player, game, jusqua="x")["total"] == 8


def test_a_finished_game_shows_every_final_hand_on_its_last_step_only(running, carol) -> None:
    game, _history = running
    services.game_resign(game_id=game.pk, player=seat_at(game, 1).player)
    game.refresh_from_db()
    assert game.is_over
    final = [s.hand for s in game.seats.order_by("position")]
    for viewer in (seat_at(game, 0).player, carol):
        steps = replay(viewer, game)["steps"]
        assert [sorted(hand) for hand in steps[-1]["hands"]] == [sorted(hand) for hand in final]
        assert all("hands" not in step for step in steps[:-1])


def test_an_annulled_running_game_steps_to_its_last_move_with_no_final_hands(running) -> None:
    game, history = running
    staff = make_player("modo", is_staff=True)
    services.game_annul(game_id=game.pk, by=staff, reason="Comptes liés")
    game.refresh_from_db()
    assert game.is_over
    me = seat_at(game, 0)
    steps = replay(me.player, game)["steps"]
    assert len(steps) == len(history)  # the deal and every move
    # No result, so no public final hands: each step keeps the viewer's own hand only.
    assert all("hands" not in step for step in steps)
    assert sorted(steps[-1]["hand"]) == sorted(history[-1][me.position])


def test_a_game_the_viewer_may_not_see_is_a_404_as_its_page(alice, bob, carol, outsider) -> None:
    # An invitation-only table not started is hidden from the uninvited
    # (selectors.table_visible_to): its page and its replay are both a 404.
    game = services.game_create(
        creator=alice, mode="marque", seats=2, invitation_only=True, invitees=[bob]
    )
    url = reverse("games:replay", args=[game.pk])
    page = reverse("games:page", args=[game.pk])
    assert client_for(outsider).get(page).status_code == 404
    assert client_for(outsider).get(url).status_code == 404
    # Its players see the table, which has nothing to replay yet: a 404 as well.
    assert client_for(alice).get(page).status_code == 200
    assert client_for(alice).get(url).status_code == 404
    # Once started it is watchable by the signed-in like any game, and so is its replay.
    services.game_join(game_id=game.pk, player=bob, rng=random.Random(1))
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    assert client_for(outsider).get(page).status_code == 200
    assert client_for(outsider).get(url).status_code == 200
    # No such game.
    assert client_for(alice).get(reverse("games:replay", args=[game.pk + 99])).status_code == 404
    # Signed out: to the log-in page, as the game page.
    assert Client().get(url).status_code == 302


def test_the_game_page_links_its_replay_up_to_the_version_shown(running) -> None:
    game, _history = running
    html = client_for(seat_at(game, 0).player).get(reverse("games:page", args=[game.pk])).content
    url = reverse("games:replay", args=[game.pk])
    assert f'data-url="{url}?jusqua={game.move_count}"'.encode() in html


def test_a_game_whose_record_cannot_be_read_says_so(running, caplog) -> None:
    game, _history = running
    assert game.setup is not None
    game.setup = {**game.setup, "hands": ["!!", "??"]}
    game.save(update_fields=["setup"])
    with caplog.at_level("ERROR", logger="games.views"):
        response = client_for(seat_at(game, 0).player).get(
            reverse("games:replay", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="fr"
        )
    assert response.status_code == 500
    assert response.json() == {"error": "Cette partie ne peut pas être rejouée."}
    assert f"game {game.pk}: its replay cannot be built" in caplog.text
