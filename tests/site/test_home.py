"""The home page greets a new player as new, and a returning one as back."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_player, page_as
from tests.games.conftest import start_game

pytestmark = pytest.mark.django_db


def home_html(user, language: str = "en") -> str:
    return page_as(user, "/", language=language)


def test_a_player_who_just_signed_up_is_welcomed_not_welcomed_back() -> None:
    alice = make_player("alice", language="en")
    html = home_html(alice)
    assert "Welcome to Diamino, alice!" in html
    assert "Welcome back" not in html
    assert "Bienvenue sur Diamino, alice\u00a0!" in home_html(alice, "fr")


def test_a_player_who_has_played_is_welcomed_back() -> None:
    alice = make_player("alice", language="en")
    start_game([alice, make_player("bob")])
    html = home_html(alice)
    assert "Welcome back, alice." in html
    assert "Welcome to Diamino" not in html


@pytest.mark.parametrize(
    ("language", "button", "newcomer"),
    [
        ("en", "Play the computer now", "New to Diamino?"),
        ("fr", "Jouer contre l’ordinateur tout de suite", "Nouveau venu au Diamino\u00a0?"),
    ],
)
def test_a_player_starts_a_game_against_the_computer_in_one_click_from_home(
    language: str, button: str, newcomer: str
) -> None:
    from django.test import Client

    from games.models import Game

    alice = make_player("alice", language=language)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(alice)
    html = client.get("/").content.decode()
    assert button in html
    assert html.count(newcomer) == 1  # one line for newcomers, not two look-alike links
    form = html.split('class="home-computer"')[1].split("</form>")[0]
    fields = dict(re.findall(r'name="([\w-]+)" value="([^"]*)"', form))
    response = client.post("/parties/contre-l-ordinateur/", fields)
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/parties/{game.pk}/"
    assert game.status == Game.Status.RUNNING and game.mode == "marque"


def test_a_visitor_sees_one_newcomer_line_and_no_computer_button() -> None:
    from django.test import Client

    html = Client(HTTP_ACCEPT_LANGUAGE="en").get("/").content.decode()
    assert html.count("New to Diamino?") == 1
    assert 'id="guided-start"' in html and "/regles/" in html
    assert "home-computer" not in html
