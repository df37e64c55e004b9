"""The home page greets a new player as new, and a returning one as back."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_player
from tests.games.conftest import start_game

pytestmark = pytest.mark.django_db


def home_html(user, language: str = "en") -> str:
    """The page in ``language``: a signed-in player's pages follow their setting."""
    user.language = language
    user.save(update_fields=["language"])
    client = Client()
    client.force_login(user)
    return client.get("/").content.decode()


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
