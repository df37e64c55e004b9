"""A simulated player reads what a person sees on the game page, and the move it
finds there is one the site accepts: the load generator needs no hint."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

import rules
from benchmarks.web import page
from games import services
from games.models import Game
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.django_db

HANDS = ("CHA?EAUXSIRN", "KWYZEPOTMLUE")  # the ? plays the T of CHAT


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def game(db) -> Game:
    game = rig(start_game([make_player("alice"), make_player("bob")]), HANDS)
    services.move_submit(
        game_id=game.pk,
        player=seat_at(game, 0).player,
        version=0,
        move=rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "t"))),
    )
    return Game.objects.get(pk=game.pk)


def test_the_page_reads_as_the_player_sees_it(game) -> None:
    second = seat_at(game, 1)
    html = _client(second.player).get(reverse("games:page", args=[game.pk])).content.decode()
    seen = page.read(html)
    assert (seen.version, seen.mode, seen.my_turn, seen.over) == (1, "marque", True, False)
    assert seen.my_position == 1
    assert sorted(seen.hand) == sorted(HANDS[1])
    assert seen.board == {"H8": "C", "I8": "H", "J8": "A", "K8": "t"}  # K8 is a diable
    assert seen.hand_sizes == (12, 12) and seen.statuses == ("active", "active")
    assert seen.reserve_size == len(rules.state_from_dict(game.state).reserve)
    assert seen.csrf_token


def test_the_rebuilt_position_hides_what_the_player_cannot_see(game) -> None:
    html = _client(seat_at(game, 1).player).get(reverse("games:page", args=[game.pk]))
    state = page.position(page.read(html.content.decode()))
    real = rules.state_from_dict(game.state)
    assert state.board == real.board and state.hands[1] == real.hands[1]
    assert set(state.hands[0]) == {page.UNSEEN} and len(state.reserve) == len(real.reserve)


@pytest.mark.parametrize("seed", range(4))
def test_a_move_found_on_the_page_is_accepted_by_the_site(game, seed) -> None:
    client = _client(seat_at(game, 1).player)
    url = reverse("games:page", args=[game.pk])
    seen = page.read(client.get(url).content.decode())
    move = page.choose(seen, random.Random(seed))
    fields = page.form_fields(move, seen.version)
    if isinstance(move, rules.Place):
        preview = client.post(
            reverse("games:preview", args=[game.pk]), fields, HTTP_HX_REQUEST="true"
        )
        assert page.preview_ok(preview.content.decode())
    answer = client.post(reverse("games:play", args=[game.pk]), fields, HTTP_HX_REQUEST="true")
    body = answer.content.decode()
    assert answer.status_code == 200 and not page.move_refused(body)
    assert page.read(body).version == seen.version + 1


def test_a_refused_move_is_recognised(game) -> None:
    client = _client(seat_at(game, 1).player)
    answer = client.post(
        reverse("games:play", args=[game.pk]),
        {"version": 0, "action": "pass"},  # stale version: "moved on"
        HTTP_HX_REQUEST="true",
    )
    assert page.move_refused(answer.content.decode())


def test_an_exchange_and_a_pass_post_the_form_s_fields() -> None:
    assert page.form_fields(rules.Exchange(0, "AB?"), 3) == {
        "version": "3",
        "action": "exchange",
        "exchange": "AB?",
    }
    assert page.form_fields(rules.Pass(0), 3) == {"version": "3", "action": "pass"}
    fields = page.form_fields(rules.Place(0, (("H8", "C"), ("I8", "h")), returns="E"), 0)
    assert fields["placements"] == "H8=C,I8=h" and fields["returns"] == "E"


def test_something_else_than_a_game_page_is_refused() -> None:
    with pytest.raises(page.PageError):
        page.read("<html><body>Not found</body></html>")
