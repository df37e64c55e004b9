"""The "My games" page: who each game is with, the computer marked, invitations listed."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from tests.factories import make_player, page_as
from tests.games.conftest import seat_at, start_game

pytestmark = pytest.mark.django_db


def my_games_html(user, language: str = "en") -> str:
    return page_as(user, reverse("games:mine"), language=language)


def entry_of(html: str, game_id: int) -> str:
    """The list item of game ``game_id``."""
    match = re.search(rf'<li>\s*<a href="/parties/{game_id}/">.*?</li>', html, re.S)
    assert match, f"game {game_id} is not listed"
    return match.group(0)


def test_each_game_names_the_other_players(carol) -> None:
    alice = make_player("alice", language="en", display_name="Alice")
    bob = make_player("bob", display_name="Bob")
    game = start_game([alice, bob, carol])
    entry = entry_of(my_games_html(alice), game.pk)
    assert "with Bob, carol" in entry or "with carol, Bob" in entry
    assert "Alice" not in entry
    assert "against the computer" not in entry


def test_a_game_against_the_computer_is_marked(alice) -> None:
    game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    entry = entry_of(my_games_html(alice), game.pk)
    assert "against the computer" in entry
    assert "Computer (beginner)" in entry
    assert "contre l’ordinateur" in entry_of(my_games_html(alice, "fr"), game.pk)


def test_a_pending_invitation_is_in_the_invitees_games(alice, bob, carol) -> None:
    table = services.game_create(creator=alice, mode="sans-marque", seats=3)
    services.game_invite(game_id=table.pk, by=alice, invitee=bob)
    html = my_games_html(bob)
    assert "<h2>Invitations" in html
    entry = entry_of(html, table.pk)
    assert "invitation from alice" in entry
    assert "with alice" in entry
    assert f'href="/parties/{table.pk}/"' not in my_games_html(carol), "not an outsider's"


def test_an_accepted_or_declined_invitation_leaves_the_list(alice, bob) -> None:
    joined = services.game_create(creator=alice, mode="marque", seats=3)
    services.game_invite(game_id=joined.pk, by=alice, invitee=bob)
    services.game_join(game_id=joined.pk, player=bob)
    html = my_games_html(bob)
    assert "<h2>Invitations" not in html
    assert "invitation from" not in entry_of(html, joined.pk)  # listed once, as a table


def test_next_game_with_none_waiting_says_so(alice, bob) -> None:
    game = start_game([alice, bob])
    waiting = seat_at(game, 1).player
    waiting.language = "en"
    waiting.save(update_fields=["language"])
    client = Client()
    client.force_login(waiting)
    page = client.get(reverse("games:next"), follow=True)
    assert page.redirect_chain == [(reverse("games:mine"), 302)]
    messages = re.search(r'<ul class="messages">(.*?)</ul>', page.content.decode(), re.S)
    assert messages and "No game is waiting for your move" in messages.group(1)
