"""The staff replay shows the engine's state at every move, and only staff can see it."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

import rules
from games import bridge, services
from games.models import Game
from rules import record as rules_record
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game
from tests.games.played import play_game

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def engine_states(game: Game) -> list[rules.GameState]:
    """Every state from the deal, applying the stored moves one by one with ``rules.apply``."""
    config = bridge.config_of(game)
    parsed = rules_record.parse_record(bridge.record_of(game), words=config.words)
    assert game.setup is not None
    state = rules.new_game(
        config, [tuple(h) for h in game.setup["hands"]], tuple(game.setup["reserve"])
    )
    assert state == parsed.initial
    states = [state]
    for move in parsed.moves:
        state, _events = rules.apply(state, move)
        states.append(state)
    return states


def shown_board(html: str) -> dict[str, str]:
    """The letters the page's board shows, by square."""
    return dict(re.findall(r'data-square="([A-O]\d+)" data-kind="\w+" data-letter="(.)"', html))


def shown(html: str, attribute: str) -> list[str]:
    return re.findall(rf'{attribute}="([^"]*)"', html)


@pytest.fixture
def staff(db):
    return make_player("modo", is_staff=True)


@pytest.mark.parametrize(("mode", "n_players", "seed"), [("marque", 2, 3), ("sans-marque", 3, 7)])
def test_every_step_shows_the_engine_s_state_with_every_hand_and_the_reserve(
    staff, mode, n_players, seed
) -> None:
    players = [make_player(f"r{k}") for k in range(n_players)]
    game = play_game(players, mode=mode, seed=seed, moves=30, finish=True)
    assert game.status == Game.Status.FINISHED
    states = engine_states(game)
    moves = list(game.moves.order_by("number"))
    client = client_for(staff)
    url = reverse("games:staff_replay", args=[game.pk])
    for number, expected in enumerate(states):
        response = client.get(url, {"coup": number})
        assert response.status_code == 200
        step = response.context["step"]
        assert step.step == number
        assert rules.state_to_dict(step.state) == rules.state_to_dict(expected)
        html = response.content.decode()
        assert shown(html, "data-hand") == ["".join(hand) for hand in expected.hands]
        assert shown(html, "data-reserve") == ["".join(expected.reserve)]
        assert shown(html, "data-score") == [str(score) for score in expected.scores]
        board = {
            expected.config.layout.name_of(i): ch.upper()
            for i, ch in enumerate(expected.board)
            if ch != "."
        }
        assert shown_board(html) == board
        if number:
            move = moves[number - 1]
            assert step.move.notation == move.notation
            assert step.move.words == tuple(move.words)
            assert step.move.points == move.points
            assert step.move.drawn == move.tiles_drawn
            assert step.move.returned == move.tiles_returned
            assert f'data-tiles="{move.tiles_drawn}"' in html or not move.tiles_drawn


def test_without_a_step_it_shows_the_last_move_and_links_step_by_step(alice, bob, staff) -> None:
    game = play_game([alice, bob], seed=3, moves=6)
    client = client_for(staff)
    url = reverse("games:staff_replay", args=[game.pk])
    html = client.get(url).content.decode()
    assert client.get(url).context["step"].step == 6
    assert f'href="{url}?coup=5" rel="prev"' in html
    assert 'rel="next"' not in html
    html = client.get(url, {"coup": 0}).content.decode()
    assert f'href="{url}?coup=1" rel="next"' in html
    assert 'rel="prev"' not in html
    assert client.get(url, {"coup": 99}).context["step"].step == 6
    assert client.get(url, {"coup": "x"}).context["step"].step == 6


def test_a_move_the_engine_refuses_stops_the_replay_and_says_so(alice, bob, staff) -> None:
    game = play_game([alice, bob], seed=3, moves=6)
    game.moves.filter(number=4).update(record={"player": 1, "place": [["A1", "Z"]]})
    response = client_for(staff).get(reverse("games:staff_replay", args=[game.pk]), {"coup": 6})
    assert response.context["step"].step == 3
    assert response.context["step"].playable == 3
    assert 'id="replay-error"' in response.content.decode()


def test_an_unreadable_deal_sends_staff_to_the_check_page(alice, bob, staff) -> None:
    game = play_game([alice, bob], seed=3, moves=2)
    game.setup = {"hands": ["ABC"]}
    game.save(update_fields=["setup"])
    for name in ("games:staff_replay", "games:staff_record"):
        response = client_for(staff).get(reverse(name, args=[game.pk]))
        assert response.status_code == 302
        assert response["Location"] == reverse("admin:games_game_check", args=[game.pk])


def test_the_staff_record_is_there_before_the_end_and_the_players_is_not(alice, bob, staff) -> None:
    game = play_game([alice, bob], seed=3, moves=4)
    response = client_for(staff).get(reverse("games:staff_record", args=[game.pk]))
    assert response.status_code == 200
    document = response.json()
    assert document == bridge.record_of(game)
    assert game.state is not None
    assert rules_record.judge_document(document)["scores"] == game.state["scores"]
    assert client_for(alice).get(reverse("games:record", args=[game.pk])).status_code == 404
    assert client_for(staff).get(reverse("games:record", args=[game.pk])).status_code == 404


def test_an_open_table_has_no_replay_or_record(alice, staff) -> None:
    table = services.game_create(creator=alice, mode="marque", seats=2)
    client = client_for(staff)
    assert client.get(reverse("games:staff_replay", args=[table.pk])).status_code == 404
    assert client.get(reverse("games:staff_record", args=[table.pk])).status_code == 404


# --- permissions ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["games:staff_replay", "games:staff_record"])
def test_players_of_the_game_and_outsiders_are_refused_with_a_403(
    alice, bob, outsider, name
) -> None:
    game = start_game([alice, bob])
    url = reverse(name, args=[game.pk])
    for user in (seat_at(game, 0).player, seat_at(game, 1).player, outsider):
        response = client_for(user).get(url)
        assert response.status_code == 403
        assert game.setup is not None
        assert game.setup["reserve"] not in response.content.decode()


@pytest.mark.parametrize("name", ["games:staff_replay", "games:staff_record"])
def test_an_anonymous_visitor_is_sent_to_log_in(alice, bob, name) -> None:
    game = start_game([alice, bob])
    url = reverse(name, args=[game.pk])
    response = Client().get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login") + "?next=")


def test_an_inactive_staff_account_is_refused(alice, bob) -> None:
    game = start_game([alice, bob])
    former = make_player("ancien-modo", is_staff=True)
    client = client_for(former)
    former.is_active = False
    former.save(update_fields=["is_active"])
    response = client.get(reverse("games:staff_replay", args=[game.pk]))
    # The session of a deactivated account no longer signs anyone in: back to log in.
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login") + "?next=")


def test_no_player_page_links_to_the_staff_replay(alice, bob, outsider) -> None:
    game = play_game([alice, bob], seed=3, moves=10, finish=True)
    staff_url = reverse("games:staff_replay", args=[game.pk])
    for user in (alice, outsider):
        html = client_for(user).get(reverse("games:page", args=[game.pk])).content.decode()
        assert staff_url not in html
        assert "/equipe/" not in html


def test_a_resigned_seat_is_labelled_in_the_staff_s_language(alice, bob, staff) -> None:
    game = play_game([alice, bob], seed=3, moves=2)
    services.game_resign(game_id=game.pk, player=bob)
    client = client_for(staff)
    url = reverse("games:staff_replay", args=[game.pk])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert '<dd class="status">A abandonné</dd>' in html
    assert '<dd class="status">resigned</dd>' not in html


# --- staff who play (R-HIDE-1: a conflict of interest) ----------------------------------------


@pytest.mark.parametrize("name", ["games:staff_replay", "games:staff_record"])
def test_a_staff_member_seated_at_a_running_game_is_refused_its_replay_and_record(
    bob, outsider, name
) -> None:
    seated_staff = make_player("modo-joueur", is_staff=True, language="en")
    other_staff = make_player("autre-modo", is_staff=True)
    game = start_game([seated_staff, bob])
    url = reverse(name, args=[game.pk])
    response = client_for(seated_staff).get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 403
    html = response.content.decode()
    assert "You play in this game: another staff member must review it." in html
    assert game.setup is not None
    assert game.setup["reserve"] not in html
    assert seat_at(game, 0).hand not in html and seat_at(game, 1).hand not in html
    # Another staff member reviews it; players, seated or not, are refused as before.
    assert client_for(other_staff).get(url).status_code == 200
    for user in (bob, outsider):
        assert client_for(user).get(url).status_code == 403


def test_the_refusal_of_a_seated_staff_member_is_in_their_language(bob) -> None:
    seated_staff = make_player("modo-joueur", is_staff=True)
    game = start_game([seated_staff, bob])
    response = client_for(seated_staff).get(
        reverse("games:staff_replay", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert response.status_code == 403
    assert "Vous jouez dans cette partie" in response.content.decode()


def test_a_staff_member_may_replay_their_own_game_once_it_is_over(bob) -> None:
    seated_staff = make_player("modo-joueur", is_staff=True)
    game = play_game([seated_staff, bob], seed=3, moves=4)
    services.game_resign(game_id=game.pk, player=bob)
    client = client_for(seated_staff)
    assert client.get(reverse("games:staff_replay", args=[game.pk])).status_code == 200
    assert client.get(reverse("games:staff_record", args=[game.pk])).status_code == 200


def test_a_staff_member_seated_at_an_open_table_is_refused_before_the_start(bob) -> None:
    seated_staff = make_player("modo-joueur", is_staff=True)
    table = services.game_create(creator=seated_staff, mode="marque", seats=3)
    response = client_for(seated_staff).get(reverse("games:staff_replay", args=[table.pk]))
    assert response.status_code == 403
