"""An open game page stays current: its poll (``?since=<live token>``) answers 204
while nothing changed, cheaply, and the news once anything did (docs/ARCHITECTURE.md,
"A page that stays current")."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def poll_url(html: str) -> str:
    """The address the game area polls, as htmx builds it from the page: its
    hx-get, and the chat's count the poll includes (hx-include="#chat-seen")."""
    found = re.search(r'id="game-area"[^>]*?hx-get="([^"]+)"', html, re.S)
    assert found, "the game area does not poll"
    return found.group(1).replace("&amp;", "&") + chat_seen(html)


def chat_seen(html: str) -> str:
    """``&chat=<count>`` from the chat's hidden count, as the poll sends it."""
    found = re.search(r'id="chat-seen" name="chat" value="(\d+)"', html)
    return f"&chat={found.group(1)}" if found else ""


@pytest.fixture
def game(alice, bob):
    return start_game([alice, bob])


@pytest.fixture
def to_move(game):
    """The player to move, their client and the address their page polls."""
    player = seat_at(game, 0).player
    client = client_for(player)
    html = client.get(reverse("games:page", args=[game.pk])).content.decode()
    return player, client, poll_url(html)


def poll(client: Client, url: str):
    return client.get(url, HTTP_HX_REQUEST="true")


def test_the_player_to_move_s_page_polls_too(to_move) -> None:
    *_, url = to_move
    assert "?since=" in url


def test_nothing_changed_is_a_204_after_two_queries_of_its_own(
    to_move, django_assert_max_num_queries
) -> None:
    _, client, url = to_move
    poll(client, url)  # the session and the user, read once, as on any page
    # The session and the user (any signed-in page), then the game's row; and, in the
    # embedded default (eager Celery) only, whether a computer turn is left waiting.
    with django_assert_max_num_queries(4):
        response = poll(client, url)
    assert response.status_code == 204 and response.content == b""


def test_the_poll_brings_the_opponent_s_resignation(game, to_move) -> None:
    _, client, url = to_move
    services.game_resign(game_id=game.pk, player=seat_at(game, 1).player)
    response = poll(client, url)
    assert response.status_code == 200
    assert 'data-over="true"' in response.content.decode()


def test_the_poll_brings_a_day_given_to_the_player_to_move(game, to_move) -> None:
    _, client, url = to_move
    services.time_give(game_id=game.pk, giver=seat_at(game, 1).player, version=0, extra_days=0)
    html = poll(client, url).content.decode()
    assert "(+1 jour donné)" in html
    assert poll_url(html) != url  # and polls from the news on: a 204 again
    assert poll(client, poll_url(html)).status_code == 204


def test_the_poll_brings_an_annulment(game, to_move) -> None:
    _, client, url = to_move
    staff = make_player("staffer", is_staff=True)
    services.game_annul(game_id=game.pk, by=staff, reason="Tricherie")
    html = poll(client, url).content.decode()
    assert 'data-over="true"' in html and "Tricherie" in html
    assert 'hx-get="' not in html.split('id="game-area"', 1)[1].split(">", 1)[0]  # polls no more


def test_the_poll_brings_a_chat_message_with_the_chat(game, to_move) -> None:
    _, client, url = to_move
    services.chat_post(game_id=game.pk, author=seat_at(game, 1).player, text="Bien joué !")
    html = poll(client, url).content.decode()
    assert 'id="game-area"' in html and 'id="chat-body"' in html
    assert "Bien joué !" in html


def test_a_waiting_page_polls_with_the_same_token(game) -> None:
    waiting = client_for(seat_at(game, 1).player)
    url = poll_url(waiting.get(reverse("games:page", args=[game.pk])).content.decode())
    assert poll(waiting, url).status_code == 204
    services.chat_post(game_id=game.pk, author=seat_at(game, 0).player, text="Salut")
    assert "Salut" in poll(waiting, url).content.decode()


def test_the_player_s_own_message_brings_the_chat_s_count_and_the_poll_stays_quiet(
    game,
) -> None:
    """The chat's answer carries the new count the poll sends: the next poll is a
    204, not the whole page again (which would wipe a refusal the chat shows)."""
    player = seat_at(game, 1).player
    client = client_for(player)
    html = client.get(reverse("games:page", args=[game.pk])).content.decode()
    area_url = poll_url(html).split("&chat=")[0]
    answer = client.post(
        reverse("games:chat", args=[game.pk]), {"text": "Salut"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "Salut" in answer
    assert poll(client, area_url + chat_seen(answer)).status_code == 204
    # A message from the other player still comes with the next poll.
    services.chat_post(game_id=game.pk, author=seat_at(game, 0).player, text="Bonjour")
    assert "Bonjour" in poll(client, area_url + chat_seen(answer)).content.decode()
