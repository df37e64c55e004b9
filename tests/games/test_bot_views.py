"""The pages of computer players: one click from the lobby, a seat at a table, the reply shown."""

from __future__ import annotations

import html
import random
import re

import pytest
from django.test import Client
from django.urls import reverse

import rules
from games import bridge, services
from games.models import Game, Seat
from rules.strategy import choose_move
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def client_for(user, language: str = "fr") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_the_lobby_offers_to_play_against_the_computer(alice) -> None:
    html = client_for(alice).get(reverse("games:lobby")).content.decode()
    assert "Jouer contre l’ordinateur" in html
    assert 'action="/parties/contre-l-ordinateur/"' in html
    assert "débutant" in html and "confirmé" in html
    assert "Partie amicale" in html  # the create form's unrated option


def test_one_click_starts_a_game_against_the_computer(alice) -> None:
    client = client_for(alice)
    response = client.post(
        reverse("games:against_computer"),
        {"computer-mode": "sans-marque", "computer-level": "confirme"},
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/parties/{game.pk}/"
    assert game.status == Game.Status.RUNNING and game.mode == "sans-marque" and not game.rated
    html = client.get(response["Location"]).content.decode()
    assert "Ordinateur (confirmé)" in html
    assert 'class="badge bot"' in html and "ordinateur</span>" in html
    assert "/joueurs/ordinateur-" not in html  # no profile link for a computer player
    alice.language = "en"  # the pages follow the player's language
    alice.save(update_fields=["language"])
    english = client_for(alice, "en").get(response["Location"]).content.decode()
    assert "Computer (experienced)" in english


def test_a_player_who_has_not_confirmed_their_address_cannot_play_the_computer() -> None:
    newcomer = make_player("newcomer", verified=False)
    response = client_for(newcomer).post(
        reverse("games:against_computer"), {"computer-mode": "marque", "computer-level": "debutant"}
    )
    assert response.status_code == 302 and not Game.objects.exists()


def test_the_creator_gives_a_free_seat_to_the_computer_from_the_table_page(alice, bob) -> None:
    game = services.game_create(creator=alice, mode="sans-marque", seats=3)
    services.game_join(game_id=game.pk, player=bob)
    page = reverse("games:page", args=[game.pk])
    assert "Donner une place libre à l’ordinateur" in client_for(alice).get(page).content.decode()
    assert "Donner une place libre" not in client_for(bob).get(page).content.decode()

    response = client_for(bob).post(
        reverse("games:seat_bot", args=[game.pk]), {"level": "debutant"}
    )
    assert response.status_code == 302
    assert not Seat.objects.filter(game=game, player__bot_level__gt="").exists()

    client_for(alice).post(reverse("games:seat_bot", args=[game.pk]), {"level": "debutant"})
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and not game.rated
    html = client_for(bob).get(page).content.decode()
    assert "Ordinateur (débutant)" in html and "non classée" in html


def open_table_with_a_computer(alice, bob) -> tuple[Game, Seat]:
    """alice's four-seat table, with bob and a beginner computer seated."""
    game = services.game_create(creator=alice, mode="sans-marque", seats=4)
    services.game_join(game_id=game.pk, player=bob)
    return game, services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")


def computers_at(game: Game) -> int:
    return game.seats.filter(player__bot_level__gt="").count()


def test_the_creator_removes_the_computer_from_the_table_page_without_javascript(
    alice, bob
) -> None:
    game, bot = open_table_with_a_computer(alice, bob)
    page = reverse("games:page", args=[game.pk])
    html = client_for(alice).get(page).content.decode()
    # One button, next to the computer's seat, naming the seat it removes.
    assert html.count("Retirer l’ordinateur</button>") == 1
    assert f'name="seat" value="{bot.pk}"' in html
    assert f'action="/parties/{game.pk}/ordinateur/retirer/"' in html
    assert "Retirer l’ordinateur" not in client_for(bob).get(page).content.decode()

    response = client_for(alice).post(
        reverse("games:unseat_bot", args=[game.pk]), {"seat": bot.pk}, follow=True
    )
    assert response.redirect_chain == [(page, 302)]
    html = response.content.decode()
    assert "L’ordinateur a quitté la table." in html
    assert "Ordinateur (débutant)" not in html and "non classée" not in html
    assert computers_at(game) == 0 and Game.objects.get(pk=game.pk).rated


def test_with_two_computers_each_removal_button_names_its_seat(alice) -> None:
    game = services.game_create(creator=alice, mode="sans-marque", seats=4)
    for level in ("debutant", "confirme"):
        services.game_seat_computer(game_id=game.pk, by=alice, level=level)
    page = reverse("games:page", args=[game.pk])
    labels = re.findall(
        r'aria-label="(Retirer l’ordinateur[^"]*)"',
        html.unescape(client_for(alice).get(page).content.decode()),
    )
    assert labels == [
        "Retirer l’ordinateur\u00a0: place 2, Ordinateur (débutant)",
        "Retirer l’ordinateur\u00a0: place 3, Ordinateur (confirmé)",
    ]
    alice.language = "en"
    alice.save(update_fields=["language"])
    english = client_for(alice, "en").get(page).content.decode()
    assert re.findall(r'aria-label="(Remove the computer[^"]*)"', english) == [
        "Remove the computer: seat 2, Computer (beginner)",
        "Remove the computer: seat 3, Computer (experienced)",
    ]


def test_with_htmx_the_table_area_comes_back_without_the_computer(alice, bob) -> None:
    game, bot = open_table_with_a_computer(alice, bob)
    alice.language = "en"
    alice.save(update_fields=["language"])
    response = client_for(alice, "en").post(
        reverse("games:unseat_bot", args=[game.pk]), {"seat": bot.pk}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="table-area"') and "<html" not in html
    assert 'role="status"' in html and "The computer has left the table." in html
    assert "Computer (beginner)" not in html and "Remove the computer" not in html
    assert "Give a free seat to the computer" in html  # the seat is free again
    assert computers_at(game) == 0


@pytest.mark.parametrize(
    ("who", "seat", "message", "french_message"),
    [
        (
            "bob",
            "bot",
            "Only the table's creator can remove the computer.",
            "Seul le créateur de la table peut retirer l’ordinateur.",
        ),
        (
            "alice",
            "bob",
            "This seat is a person's: only a computer's seat can be removed.",
            "Cette place est celle d’une personne\u00a0: seul l’ordinateur peut être retiré.",
        ),
        (
            "alice",
            "nonsense",
            "Choose the computer to remove.",
            "Choisissez l’ordinateur à retirer.",
        ),
    ],
)
def test_a_refused_removal_says_why_in_english_and_french_and_changes_nothing(
    alice, bob, who, seat, message, french_message
) -> None:
    game, bot = open_table_with_a_computer(alice, bob)
    player = {"alice": alice, "bob": bob}[who]
    value = {"bot": bot.pk, "bob": game.seats.get(player=bob).pk, "nonsense": "x"}[seat]
    url = reverse("games:unseat_bot", args=[game.pk])
    before = list(game.seats.values_list("pk", flat=True))
    player.language = "en"
    player.save(update_fields=["language"])
    english = client_for(player, "en").post(url, {"seat": value}, HTTP_HX_REQUEST="true")
    assert english.status_code in (400, 403)
    fragment = html.unescape(english.content.decode())
    assert 'role="alert"' in fragment and message in fragment
    player.language = "fr"
    player.save(update_fields=["language"])
    response = client_for(player).post(url, {"seat": value}, follow=True)
    french = html.unescape(response.content.decode())
    assert french_message in french and 'class="message error"' in french
    assert list(game.seats.values_list("pk", flat=True)) == before


def test_once_the_game_has_started_removing_the_computer_is_refused(alice, bob) -> None:
    game, bot = open_table_with_a_computer(alice, bob)
    services.game_join(game_id=game.pk, player=make_player("dora"))  # the last seat
    url = reverse("games:unseat_bot", args=[game.pk])
    client = client_for(alice)
    response = client.post(url, {"seat": bot.pk}, HTTP_HX_REQUEST="true")
    # Nothing to swap in: htmx goes to the game page, which says why.
    assert response["HX-Redirect"] == reverse("games:page", args=[game.pk])
    html = client.get(response["HX-Redirect"]).content.decode()
    assert "La partie a commencé\u00a0: l’ordinateur garde sa place." in html
    alice.language = "en"
    alice.save(update_fields=["language"])
    html = client_for(alice, "en").post(url, {"seat": bot.pk}, follow=True).content.decode()
    assert "The game has started: the computer keeps its seat." in html
    assert computers_at(game) == 1


def test_the_game_page_with_a_computer_player_costs_a_bounded_number_of_queries(
    alice, django_assert_max_num_queries, committed
) -> None:
    # Committed, as in production: a computer seated first has played its opening
    # by the time the page is read (else the page's catch-up would play it there).
    with committed():
        game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    client = client_for(alice)
    with django_assert_max_num_queries(14):
        response = client.get(reverse("games:page", args=[game.pk]))
    assert response.status_code == 200


def _fields(move: rules.Move, version: int) -> dict[str, str | int]:
    if isinstance(move, rules.Place):
        placements = ",".join(f"{square}={letter}" for square, letter in move.tiles)
        return {
            "version": version,
            "action": "place",
            "placements": placements,
            "returns": move.returns,
        }
    if isinstance(move, rules.Exchange):
        return {"version": version, "action": "exchange", "exchange": move.tiles}
    return {"version": version, "action": "pass"}


@pytest.mark.django_db(transaction=True)
def test_after_a_move_the_answer_already_shows_the_computers_reply() -> None:
    # Real commits: the computer's task runs (eagerly) when the person's move commits.
    alice = make_player("alice")
    game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    game.refresh_from_db()
    assert game.to_move is not None
    assert game.to_move.player == alice  # the computer answered already if it began
    version = game.move_count
    seat = game.seats.get(player=alice)
    seen = rules.view(bridge.state_of(game), seat.position)
    move = choose_move(seen, "debutant", random.Random(2))
    response = client_for(alice).post(
        reverse("games:play", args=[game.pk]), _fields(move, version), HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    game.refresh_from_db()
    assert game.move_count == version + 2
    assert f'data-version="{version + 2}"' in html
    assert 'data-my-turn="true"' in html


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_computer_badge_reads_without_an_emoji_font(alice, language: str) -> None:
    """The badge is a word and a drawn icon: an emoji shows as an empty box where
    no emoji font is installed."""
    alice.language = language
    alice.save(update_fields=["language"])
    client = client_for(alice, language)
    client.post(
        reverse("games:against_computer"),
        {"computer-mode": "marque", "computer-level": "debutant"},
    )
    game = Game.objects.get()
    word = {"fr": "ordinateur", "en": "computer"}[language]
    for url in (reverse("games:page", args=[game.pk]), reverse("games:mine")):
        page = client.get(url).content.decode()
        badge = page.split('class="badge bot">')[1].split("</span>")[0]
        assert '<svg class="icon"' in badge and 'aria-hidden="true"' in badge
        assert word in badge.split("</svg>")[1]
        assert not re.search("[\U0001f300-\U0001faff]", page)
