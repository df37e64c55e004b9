"""The home page greets a new player as new, and a returning one as back."""

from __future__ import annotations

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
