"""The reply address of a turn email (games/reply_address.py): signed, bound to one seat, case-proof."""

from __future__ import annotations

import re

import pytest

from games.reply_address import (
    ReplyTicket,
    is_noreply_address,
    mail_in_domain,
    make_token,
    noreply_address,
    read_reply_address,
    read_token,
    reply_address,
)
from tests.factories import make_player
from tests.games.conftest import seat_at
from tests.notifications.conftest import new_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def domain(settings):
    settings.MAIL_IN_DOMAIN = "play.example.org"


@pytest.fixture
def game(db):
    return new_game([make_player("alice"), make_player("bob")])


def test_the_address_carries_the_game_the_seat_and_the_version(game):
    seat = seat_at(game, 0)
    address = reply_address(seat, 7)
    local, domain = address.split("@")
    assert domain == "play.example.org"
    assert re.fullmatch(r"reply\+[a-z0-9-]+", local), "lower case, no quoting needed"
    assert len(address) < 64, "short enough for every mail client"
    assert read_reply_address(address) == ReplyTicket(game.pk, seat.pk, 7)


def test_lowercased_uppercased_and_named_addresses_are_read(game):
    seat = seat_at(game, 1)
    address = reply_address(seat, 3)
    ticket = ReplyTicket(game.pk, seat.pk, 3)
    assert read_reply_address(address.upper()) == ticket
    assert read_reply_address(f'"Diamino" <{address}>') == ticket
    assert read_reply_address(f"  {address}  ") == ticket


def test_another_seat_game_or_version_is_refused(game):
    seat, other = seat_at(game, 0), seat_at(game, 1)
    token = reply_address(seat, 5).split("+", 1)[1].split("@")[0]
    game_part, seat_part, version_part, signature = token.split("-")
    assert read_reply_address(reply_address(other, 5)).seat_id == other.pk
    forged_seat = f"reply+{game_part}-{other.pk:x}-{version_part}-{signature}@play.example.org"
    forged_version = f"reply+{game_part}-{seat_part}-9-{signature}@play.example.org"
    forged_game = f"reply+{game.pk + 1:x}-{seat_part}-{version_part}-{signature}@play.example.org"
    for forged in (forged_seat, forged_version, forged_game):
        assert read_reply_address(forged) is None


@pytest.mark.parametrize(
    "address",
    [
        "",
        "reply+@play.example.org",
        "reply+1-2-3@play.example.org",
        "reply+1-2-3-aaaaaaaaaaaaaaaaaaaa@play.example.org",
        "reply+zz-zz-zz-zz-zz@play.example.org",
        "reply+1-2-3-é@play.example.org",
        "noreply@play.example.org",
        "someone@example.com",
    ],
)
def test_garbled_and_forged_addresses_are_none(address):
    assert read_reply_address(address) is None


def test_the_domain_must_be_ours(game):
    address = reply_address(seat_at(game, 0), 1)
    assert read_reply_address(address.replace("play.example.org", "evil.example.com")) is None


def test_a_token_signed_with_another_key_is_refused_and_a_fallback_key_is_kept(settings):
    token = make_token(1, 2, 3)
    settings.SECRET_KEY = "another-key-entirely-" + "x" * 40
    assert read_token(token) is None
    settings.SECRET_KEY_FALLBACKS = ["insecure-development-key-do-not-use-in-production"]
    old_key = settings.SECRET_KEY_FALLBACKS[0]
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = old_key, []
    fresh = make_token(1, 2, 3)
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "rotated-" + "y" * 40, [old_key]
    assert read_token(fresh) == ReplyTicket(1, 2, 3)


def test_the_noreply_address(settings):
    assert noreply_address() == "noreply@play.example.org"
    assert is_noreply_address("Diamino <NoReply@Play.Example.org>")
    assert not is_noreply_address("reply+1@play.example.org")


def test_the_domain_defaults_to_the_site_host(settings):
    settings.MAIL_IN_DOMAIN = ""
    settings.SITE_URL = "https://diamino.example.net:8443"
    assert mail_in_domain() == "diamino.example.net"
    settings.SITE_URL = "http://127.0.0.1:8000"
    assert mail_in_domain() == "localhost"
