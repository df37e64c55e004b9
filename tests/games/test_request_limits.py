"""Rate limits on the pages a visitor can repeat: a limited request is a 429 that changes nothing.

The counts are lowered through ``settings.DIAMINO_RATE_LIMITS`` (the setting a
host would change); the last tests check that the defaults are far above play.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import services
from games.models import ChatMessage, Game, Seat
from moderation.models import Report
from tests.factories import make_player
from tests.french import misplaced_marks
from tests.games.conftest import rig, seat_at, snapshot, start_game

if TYPE_CHECKING:
    from django.test.client import _MonkeyPatchedWSGIResponse

pytestmark = pytest.mark.django_db

HANDS = ("CHATEAUXSIRN", "KWYZEPOTMLUE")
CHAT = {"version": 0, "action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"}
TOO_FAST = {
    "en": "Too many requests in a short time: try again in 1 minute.",
    "fr": "Trop de demandes en peu de temps\u00a0: réessayez dans 1\u00a0minute.",
}
HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def limits(settings):
    """Set one limit's count (per minute) for the test: ``limits("preview", 2)``."""

    def set_limit(name: str, count: int, seconds: int = 60) -> None:
        settings.DIAMINO_RATE_LIMITS = settings.DIAMINO_RATE_LIMITS | {name: (count, seconds)}

    return set_limit


def client_for(user: User, language: str = "en") -> Client:
    user.language = language
    user.save(update_fields=["language"])
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def game(alice, bob) -> Game:
    return rig(start_game([alice, bob]), HANDS)


# --- the word check, open to anonymous visitors: per address ------------------------------


def check(client: Client, word: str, **extra) -> _MonkeyPatchedWSGIResponse:
    return client.get(reverse("games:check_word"), {"mot": word}, **extra)


def test_the_word_check_is_limited_per_address_for_anonymous_visitors(limits) -> None:
    limits("word-check", 2)
    visitor = Client(REMOTE_ADDR="203.0.113.9")
    assert check(visitor, "chat").status_code == 200
    assert visitor.get(reverse("games:check_word")).status_code == 200  # the page alone: free
    assert check(visitor, "chien", **HTMX).status_code == 200
    refused = check(visitor, "chat", **HTMX)
    assert refused.status_code == 429
    html = refused.content.decode()
    assert TOO_FAST["fr"] in html  # an anonymous visitor reads French first
    assert "est jouable" not in html  # no verdict: the word was not looked up
    full_page = check(visitor, "chat", HTTP_ACCEPT_LANGUAGE="en")
    assert full_page.status_code == 429
    assert TOO_FAST["en"] in full_page.content.decode()
    assert 'id="word-check-refused"' in full_page.content.decode()
    # Another address has its own count.
    assert check(Client(REMOTE_ADDR="198.51.100.4"), "chat").status_code == 200


def test_behind_a_proxy_the_limit_counts_the_forwarded_client_not_the_proxy(
    limits, settings
) -> None:
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    limits("word-check", 1)
    proxy = "10.0.0.1"
    first = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.9")
    second = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert check(first, "chat").status_code == 200
    assert check(first, "chat").status_code == 429
    assert check(second, "chat").status_code == 200  # same proxy, another visitor


def test_signed_in_players_are_counted_each_on_their_own_even_from_one_address(
    limits, alice, bob
) -> None:
    limits("word-check", 1)
    for player in (alice, bob):
        client = client_for(player)
        client.defaults["REMOTE_ADDR"] = "203.0.113.9"
        assert check(client, "chat").status_code == 200
    assert check(client, "chat").status_code == 429


# --- the game page: preview, move, hint, chat ---------------------------------------------


def test_a_limited_preview_says_so_in_the_preview_and_changes_nothing(limits, game) -> None:
    limits("preview", 2)
    client = client_for(seat_at(game, 0).player, "fr")
    url = reverse("games:preview", args=[game.pk])
    for _ in range(2):
        assert 'data-ok="true"' in client.post(url, CHAT, **HTMX).content.decode()
    before = snapshot(game)
    refused = client.post(url, CHAT, **HTMX)
    assert refused.status_code == 429
    html = refused.content.decode()
    assert 'id="preview"' in html and 'data-ok="false"' in html  # the fragment the page swaps
    assert TOO_FAST["fr"] in html
    assert "CHAT" not in html  # the move was not judged
    assert snapshot(game) == before
    # The other player's previews are their own (not to move, but not limited either).
    other = client_for(seat_at(game, 1).player).post(url, CHAT, **HTMX)
    assert other.status_code == 200


def test_a_limited_move_is_not_played_and_the_error_shows_in_place(limits, game) -> None:
    limits("move", 0)
    client = client_for(seat_at(game, 0).player)
    before = snapshot(game)
    url = reverse("games:play", args=[game.pk])
    refused = client.post(url, CHAT, **HTMX)
    assert refused.status_code == 429
    assert 'id="move-error"' in refused.content.decode()
    assert TOO_FAST["en"] in refused.content.decode()
    assert refused["HX-Retarget"] == "#move-error"  # shown where the page shows refusals
    page = client.post(url, CHAT)  # without JavaScript: the site's error page, back to the game
    assert page.status_code == 429
    assert f'href="{reverse("games:page", args=[game.pk])}"' in page.content.decode()
    resign = client.post(reverse("games:resign", args=[game.pk]), **HTMX)
    assert resign.status_code == 429
    assert snapshot(game) == before


@pytest.fixture
def friendly(alice, bob) -> Game:
    game = services.game_create(creator=alice, mode="marque", seats=2, rated=False)
    services.game_join(game_id=game.pk, player=bob, rng=random.Random(1))
    game.refresh_from_db()
    return rig(game, ("CHATEAUXSIRN", "LEPOTIERMANU"))


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_limited_hint_spends_no_hint(limits, friendly, language) -> None:
    limits("hint", 0)
    client = client_for(seat_at(friendly, 0).player, language)
    hints_before = list(Seat.objects.order_by("pk").values_list("hints_used", "hint"))
    refused = client.post(reverse("games:hint", args=[friendly.pk]), {"version": 0}, **HTMX)
    assert refused.status_code == 429
    html = refused.content.decode()
    assert TOO_FAST[language] in html and 'id="move-error"' in html
    assert list(Seat.objects.order_by("pk").values_list("hints_used", "hint")) == hints_before


def test_a_hint_already_shown_is_shown_again_whatever_the_limit(limits, friendly) -> None:
    client = client_for(seat_at(friendly, 0).player)
    url = reverse("games:hint", args=[friendly.pk])
    assert client.post(url, {"version": 0}, **HTMX).status_code == 200
    limits("hint", 0)  # the search is what is limited; showing it again costs nothing
    again = client.post(url, {"version": 0}, **HTMX)
    assert again.status_code == 200 and "hint-move" in again.content.decode()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Slow down: you can write again in 1 minute."),
        ("fr", "Doucement\u00a0: vous pourrez écrire de nouveau dans 1\u00a0minute."),
    ],
)
def test_a_limited_chat_message_is_not_posted(limits, game, language, message) -> None:
    limits("chat", 2)
    client = client_for(seat_at(game, 0).player, language)
    url = reverse("games:chat", args=[game.pk])
    for text in ("un", "deux"):
        assert client.post(url, {"text": text}, **HTMX).status_code == 200
    refused = client.post(url, {"text": "trois"}, **HTMX)
    assert refused.status_code == 429
    html = refused.content.decode()
    assert 'id="chat-body"' in html and "chat-error" in html and message in html
    assert language == "en" or misplaced_marks(message) == []
    plain = client.post(url, {"text": "quatre"})
    assert plain.status_code == 429 and message in plain.content.decode()
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["un", "deux"]


# --- every other form ---------------------------------------------------------------------


def test_a_limited_report_is_not_filed(limits, game, alice) -> None:
    limits("form", 1)
    client = client_for(alice, "fr")
    url = reverse("moderation:report", args=[game.pk])
    data = {"about": "", "reason": "other", "text": "Bizarre."}
    assert client.post(url, data).status_code in (302, 400)  # counted, valid or not
    refused = client.post(url, data | {"text": "Encore."})
    assert refused.status_code == 429
    assert TOO_FAST["fr"] in refused.content.decode()
    assert not Report.objects.filter(text="Encore.").exists()


def test_a_limited_join_takes_no_seat(limits, alice, bob) -> None:
    table = services.game_create(creator=alice, mode="marque", seats=2)
    limits("form", 0)
    refused = client_for(bob).post(reverse("games:join", args=[table.pk]))
    assert refused.status_code == 429
    assert TOO_FAST["en"] in refused.content.decode()
    assert list(table.seats.values_list("player__username", flat=True)) == ["alice"]


def test_a_limited_settings_form_saves_nothing(limits, alice) -> None:
    limits("form", 0)
    client = client_for(alice, "fr")
    refused = client.post(reverse("accounts:settings"), {"language": "en"})
    assert refused.status_code == 429
    assert TOO_FAST["fr"] in refused.content.decode()
    alice.refresh_from_db()
    assert alice.language == "fr"
    assert client.get(reverse("accounts:settings")).status_code == 200  # a page view is free


@pytest.mark.parametrize(
    "name",
    [
        "games:create",
        "games:against_computer",
        "accounts:vacation",
        "accounts:delete",
        "accounts:confirm_email_first",
    ],
)
def test_every_other_form_is_limited(limits, alice, name) -> None:
    limits("form", 0)
    before = (Game.objects.count(), User.objects.filter(is_active=True).count())
    refused = client_for(alice).post(reverse(name), {"mode": "marque", "seats": 2})
    assert refused.status_code == 429
    assert TOO_FAST["en"] in refused.content.decode()
    assert (Game.objects.count(), User.objects.filter(is_active=True).count()) == before


@pytest.mark.parametrize("name", ["games:leave", "games:start", "games:seat_bot", "games:invite"])
def test_every_table_form_is_limited(limits, alice, name) -> None:
    table = services.game_create(creator=alice, mode="marque", seats=3)
    make_player("bob")
    limits("form", 0)
    before = snapshot(table)
    refused = client_for(alice).post(
        reverse(name, args=[table.pk]), {"level": "debutant", "username": "bob"}
    )
    assert refused.status_code == 429
    assert snapshot(table) == before and not table.invitations.exists()


def test_a_limited_unseat_shows_the_reason_in_the_table_area(limits, alice) -> None:
    table = services.game_create(creator=alice, mode="marque", seats=3)
    services.game_seat_computer(game_id=table.pk, by=alice, level="debutant")
    computer = table.seats.exclude(player=alice).get()
    limits("form", 0)
    refused = client_for(alice).post(
        reverse("games:unseat_bot", args=[table.pk]), {"seat": computer.pk}, **HTMX
    )
    assert refused.status_code == 429
    html = refused.content.decode()
    assert 'id="table-area"' in html and TOO_FAST["en"] in html
    assert table.seats.filter(pk=computer.pk).exists()


def test_one_click_unsubscribes_are_never_limited(limits, alice) -> None:
    """A mail provider posts them for all its users from a few addresses (RFC 8058)."""
    from accounts.emails import unsubscribe_token

    limits("form", 0)
    url = reverse("accounts:unsubscribe", args=[unsubscribe_token(alice, "invitations")])
    assert Client(REMOTE_ADDR="203.0.113.9").post(url).status_code == 200
    alice.refresh_from_db()
    assert alice.invitation_emails == "never"


# --- the defaults ---------------------------------------------------------------------------


def test_the_default_limits_are_far_above_honest_play(settings) -> None:
    per_minute = {
        name: count * 60 / seconds
        for name, (count, seconds) in settings.DIAMINO_RATE_LIMITS.items()
    }
    # A preview fires 150 ms after each tile placed: a player placing and moving tiles
    # for a whole minute without stopping sends under 240.
    assert per_minute["preview"] >= 240
    assert per_minute["move"] >= 30  # a game against the computer, played as fast as one can
    assert settings.DIAMINO_RATE_LIMITS["hint"][0] >= 10 * settings.DIAMINO_HINTS_PER_GAME / 3
    assert per_minute["form"] >= 10 and per_minute["word-check"] >= 60


def test_the_rate_limit_pages_read_well_in_french() -> None:
    from django.utils import translation
    from django.utils.translation import gettext

    with translation.override("fr"):
        for message in (
            gettext("Too many requests in a short time: try again in %(wait)s."),
            gettext("Slow down: you can write again in %(wait)s."),
            gettext("Too many requests"),
        ):
            assert message != "" and not message.startswith(("Too", "Slow"))
            assert misplaced_marks(message) == []
