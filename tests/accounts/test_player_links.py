"""A player's public page, linked from every page's header and each game's seats."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse, set_script_prefix

from tests.factories import make_player

pytestmark = pytest.mark.django_db


def test_each_player_s_link_opens_their_own_page() -> None:
    for name in ("alice", "bob", "jean-marc.dupont+1@x"):
        player = make_player(name, display_name=f"{name} shown")
        assert player.get_absolute_url() == reverse("accounts:player", args=[name])
        client = Client()
        client.force_login(make_player(f"viewer-of-{len(name)}"))
        assert f"{name} shown" in client.get(player.get_absolute_url()).content.decode()


def test_a_player_s_link_carries_the_script_prefix_of_the_request() -> None:
    alice = make_player("alice")
    assert alice.get_absolute_url() == "/joueurs/alice/"
    set_script_prefix("/sous/")
    try:
        assert alice.get_absolute_url() == "/sous/joueurs/alice/"
    finally:
        set_script_prefix("/")
    assert alice.get_absolute_url() == "/joueurs/alice/"
