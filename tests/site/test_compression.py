"""Pages and htmx answers travel compressed (issue #38: a phone on a slow network).

A game page is mostly the board's markup, which compresses about eight times; a
browser that says it accepts gzip gets it so, and one that does not gets the page
as it is.
"""

from __future__ import annotations

import gzip

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import client_as, make_player
from tests.games.conftest import seat_at, start_game

pytestmark = pytest.mark.django_db


def test_a_game_page_and_its_htmx_answer_come_gzipped_to_a_browser_that_takes_it() -> None:
    game = start_game([make_player("alice"), make_player("bob")])
    client = client_as(seat_at(game, 0).player)
    url = reverse("games:page", args=[game.pk])
    plain = client.get(url)
    assert plain.status_code == 200 and "Content-Encoding" not in plain
    html = plain.content

    packed = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    page = gzip.decompress(packed.content)
    assert b'id="game-area"' in page
    assert len(packed.content) * 4 < len(html)  # the board's markup packs well

    # The poll's news, as htmx asks for it from a browser.
    fragment = client.get(
        url, {"since": "stale"}, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING="gzip"
    )
    assert fragment["Content-Encoding"] == "gzip"
    assert b'id="game-area"' in gzip.decompress(fragment.content)


def test_an_answer_too_small_to_gain_is_sent_as_it_is(client: Client) -> None:
    response = client.get("/healthz", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code in (200, 503)
    assert "Content-Encoding" not in response
