"""The order of a player's tiles, saved on their account by the game page's "Sort" list.

The list sorts the hand on the page itself (static/js/board.js) and posts the
choice here; every game page the player opens afterwards, on any device, draws
the hand in that order (tests/games/test_hand.py, tests/browser/test_hand_order.py).
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import HandOrder, User
from games.models import Game
from tests.factories import make_player
from tests.games.conftest import rig, start_game

pytestmark = pytest.mark.django_db

URL = reverse("accounts:hand_order")


def signed_in(language: str = "en") -> tuple[Client, User]:
    user = make_player("alice", language=language)
    client = Client()
    client.force_login(user)
    return client, user


def test_a_player_saves_the_order_of_their_tiles() -> None:
    client, alice = signed_in()
    assert User.objects.get(pk=alice.pk).hand_order == HandOrder.UNSORTED
    response = client.post(URL, {"hand_order": "value-diables-first"})
    assert response.status_code == 204
    alice.refresh_from_db()
    assert alice.hand_order == HandOrder.VALUE_DIABLES_FIRST


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Unknown order of tiles: pick one in the list."),
        ("fr", "Ordre des lettres inconnu\u00a0: choisissez-en un dans la liste."),
    ],
)
def test_an_order_the_list_does_not_offer_is_refused_and_changes_nothing(
    language: str, message: str
) -> None:
    client, alice = signed_in(language)
    client.post(URL, {"hand_order": "letter-diables-first"})
    for bad in ({"hand_order": "by-colour"}, {"hand_order": ""}, {}):
        response = client.post(URL, bad)
        assert response.status_code == 400
        assert response.content.decode() == message
    alice.refresh_from_db()
    assert alice.hand_order == HandOrder.LETTER_DIABLES_FIRST


def test_only_a_signed_in_player_saves_an_order_and_only_by_post() -> None:
    response = Client().post(URL, {"hand_order": "value-diables-last"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    client, alice = signed_in()
    assert client.get(URL).status_code == 405
    alice.refresh_from_db()
    assert alice.hand_order == HandOrder.UNSORTED


def test_the_token_against_forged_requests_is_required() -> None:
    client, alice = signed_in()
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(URL, {"hand_order": "value-diables-last"}).status_code == 403
    alice.refresh_from_db()
    assert alice.hand_order == HandOrder.UNSORTED


def test_a_limited_save_says_why_in_plain_text_and_changes_nothing(settings) -> None:
    settings.DIAMINO_RATE_LIMITS = settings.DIAMINO_RATE_LIMITS | {"hand-order": (0, 60)}
    client, alice = signed_in()
    response = client.post(URL, {"hand_order": "value-diables-last"})
    assert response.status_code == 429
    assert response["Content-Type"].startswith("text/plain")
    assert "Too many requests in a short time" in response.content.decode()
    alice.refresh_from_db()
    assert alice.hand_order == HandOrder.UNSORTED


def hand_letters(page: str) -> str:
    """The letters of the viewer's hand, in the order the page draws them."""
    hand = page.split('<ol id="hand"', 1)[1].split("</ol>", 1)[0]
    return "".join(re.findall(r'data-letter="(.)"', hand))


def dealt(game, player: User, hands: tuple[str, str]) -> tuple[Game, str]:
    """``game`` dealt ``hands`` (by position, after the first-player draw), and ``player``'s."""
    rig(game, hands)
    return game, hands[game.seats.get(player=player).position]


def test_every_game_page_and_the_guided_game_draw_the_hand_in_the_saved_order() -> None:
    client, alice = signed_in()
    bob = make_player("bob")
    first, first_hand = dealt(start_game([alice, bob]), alice, ("CHAT?EAUXSIR", "KWYZEPOTMLUE"))
    second, second_hand = dealt(start_game([bob, alice]), alice, ("BOND?ELIRASE", "KWYZEPOTMLUE"))
    page = reverse("games:page", args=[first.pk])
    other = reverse("games:page", args=[second.pk])
    assert hand_letters(client.get(page).content.decode()) == first_hand  # as dealt
    client.post(URL, {"hand_order": "letter-diables-first"})
    # "?" comes before "A" in Python's order too.
    assert hand_letters(client.get(page).content.decode()) == "".join(sorted(first_hand))
    assert hand_letters(client.get(other).content.decode()) == "".join(sorted(second_hand))
    guided = hand_letters(client.get(reverse("learn:guided")).content.decode())
    assert guided.startswith("?") and guided == "".join(sorted(guided))
