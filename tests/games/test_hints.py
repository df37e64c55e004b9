"""Hints: the computer's best move for the player to move, a few per unrated game."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

import rules
from games import selectors, services
from games.errors import GameError
from games.models import Game, Seat
from games.presenters import Hint
from games.services import hints
from ratings.models import Rating, RatingChange
from tests.games.conftest import rig, seat_at, snapshot

pytestmark = pytest.mark.django_db

# Hands that let position 0 open with CHAT on H8 (marque: 12 tiles each).
OPENING = ("CHATEAUXSIRN", "LEPOTIERMANU")


def friendly_game(alice, bob, *, rated: bool = False) -> Game:
    game = services.game_create(creator=alice, mode="marque", seats=2, rated=rated)
    services.game_join(game_id=game.pk, player=bob, rng=random.Random(1))
    game.refresh_from_db()
    return rig(game, OPENING)


def ask(game: Game, position: int, version: int | None = None) -> Hint:
    game.refresh_from_db()
    return services.hint_request(
        game_id=game.pk,
        player=seat_at(game, position).player,
        version=game.move_count if version is None else version,
    )


def exchange_one(game: Game, position: int) -> None:
    game.refresh_from_db()
    seat = seat_at(game, position)
    services.move_submit(
        game_id=game.pk,
        player=seat.player,
        version=game.move_count,
        move=rules.Exchange(0, seat.hand[0]),
    )


def hint_state(game: Game) -> tuple:
    return tuple(game.seats.order_by("pk").values_list("hints_used", "hint"))


def test_the_player_to_move_gets_the_best_move_for_their_tiles(alice, bob) -> None:
    game = friendly_game(alice, bob)
    hint = ask(game, 0)
    assert hint.kind == "place"
    assert hint.squares and "H8" in hint.squares  # the first word starts on Départ
    assert hint.words and hint.notation.startswith("H8")
    assert hint.left == 2
    # The hint is a legal move for the player.
    placement = rules.Place(0, tuple(zip(hint.squares, hint.words[0], strict=False)))
    assert placement.tiles[0][0] == "H8"
    assert seat_at(game, 0).hints_used == 1


def test_asking_again_at_the_same_move_shows_the_same_hint_for_free(alice, bob) -> None:
    game = friendly_game(alice, bob)
    first = ask(game, 0)
    again = ask(game, 0)
    assert again.notation == first.notation and again.left == first.left == 2
    assert seat_at(game, 0).hints_used == 1


def test_a_player_has_three_hints_per_game(alice, bob) -> None:
    game = friendly_game(alice, bob)
    for used in range(1, 4):
        assert ask(game, 0).left == 3 - used
        exchange_one(game, 0)
        exchange_one(game, 1)
    before = (snapshot(game), hint_state(game))
    with pytest.raises(GameError) as error:
        ask(game, 0)
    assert error.value.code == "no-hints-left"
    assert (snapshot(game), hint_state(game)) == before
    # The other player's hints are their own.
    exchange_one(game, 0)
    assert ask(game, 1).left == 2


def test_the_number_of_hints_is_a_setting(alice, bob, settings) -> None:
    settings.DIAMINO_HINTS_PER_GAME = 1
    game = friendly_game(alice, bob)
    assert ask(game, 0).left == 0
    exchange_one(game, 0)
    exchange_one(game, 1)
    with pytest.raises(GameError) as error:
        ask(game, 0)
    assert error.value.code == "no-hints-left"


def test_a_rated_game_gives_no_hint(alice, bob) -> None:
    game = friendly_game(alice, bob, rated=True)
    before = (snapshot(game), hint_state(game))
    with pytest.raises(GameError) as error:
        ask(game, 0)
    assert error.value.code == "rated" and error.value.status == 403
    assert (snapshot(game), hint_state(game)) == before


def test_no_hint_out_of_turn(alice, bob) -> None:
    game = friendly_game(alice, bob)
    before = (snapshot(game), hint_state(game))
    with pytest.raises(GameError) as error:
        ask(game, 1)
    assert error.value.code == "not-your-turn"
    assert (snapshot(game), hint_state(game)) == before


def test_no_hint_for_a_position_that_has_moved_on(alice, bob) -> None:
    game = friendly_game(alice, bob)
    exchange_one(game, 0)
    exchange_one(game, 1)
    before = (snapshot(game), hint_state(game))
    with pytest.raises(GameError) as error:
        ask(game, 0, version=0)
    assert error.value.code == "moved-on"
    assert (snapshot(game), hint_state(game)) == before


def test_no_hint_for_someone_without_a_seat(alice, bob, outsider) -> None:
    game = friendly_game(alice, bob)
    with pytest.raises(GameError) as error:
        services.hint_request(game_id=game.pk, player=outsider, version=0)
    assert error.value.code == "not-a-player"


def test_a_hint_after_the_deadline_applies_the_time_out(alice, bob) -> None:
    game = friendly_game(alice, bob)
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(days=10))
    with pytest.raises(GameError) as error:
        ask(game, 0)
    assert error.value.code == "timed-out"
    assert seat_at(game, 0).status == Seat.Status.TIMED_OUT
    assert seat_at(game, 0).hints_used == 0


def test_a_hint_searches_from_the_players_own_view(alice, bob, monkeypatch) -> None:
    game = friendly_game(alice, bob)
    seen = []
    best_moves = hints.best_moves

    def capture(view, n=1, *, limit=None):
        seen.append((view, limit))
        return best_moves(view, n, limit=limit)

    monkeypatch.setattr(hints, "best_moves", capture)
    ask(game, 0)
    ((view, limit),) = seen
    assert limit == settings.DIAMINO_SEARCH_SECONDS  # past it, the best move found so far
    assert isinstance(view, rules.PlayerView)
    assert view.hand is not None
    assert view.viewer == 0 and "".join(view.hand) == OPENING[0]
    assert view.hands is None


def test_a_game_with_hints_leaves_the_ratings_untouched(alice, bob) -> None:
    rated = friendly_game(alice, bob, rated=True)
    services.game_resign(game_id=rated.pk, player=bob)
    ratings = list(Rating.objects.order_by("pk").values_list("player_id", "mu", "sigma", "games"))
    assert len(ratings) == 2

    game = friendly_game(alice, bob)
    ask(game, 0)
    services.game_resign(game_id=game.pk, player=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert not RatingChange.objects.filter(game=game).exists()
    assert (
        list(Rating.objects.order_by("pk").values_list("player_id", "mu", "sigma", "games"))
        == ratings
    )


# --- the game page ---------------------------------------------------------------------


def client_for(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(user)
    return client


def test_the_game_page_offers_a_hint_to_the_player_to_move_in_a_friendly_game(alice, bob) -> None:
    game = friendly_game(alice, bob)
    page = reverse("games:page", args=[game.pk])
    html = client_for(seat_at(game, 0).player).get(page).content.decode()
    assert "Indice (3 restants)" in html
    assert "non classée" in html
    waiting = client_for(seat_at(game, 1).player).get(page).content.decode()
    assert 'id="hint-button"' not in waiting


def test_the_game_page_of_a_rated_game_has_no_hint_button(alice, bob) -> None:
    game = friendly_game(alice, bob, rated=True)
    html = (
        client_for(seat_at(game, 0).player)
        .get(reverse("games:page", args=[game.pk]))
        .content.decode()
    )
    assert 'id="hint-button"' not in html


def test_asking_for_a_hint_shows_it_and_outlines_its_squares(alice, bob) -> None:
    game = friendly_game(alice, bob)
    client = client_for(seat_at(game, 0).player)
    response = client.post(
        reverse("games:hint", args=[game.pk]), {"version": 0}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    html = response.content.decode()
    hint = selectors.current_hint(Game.objects.get(pk=game.pk), seat_at(game, 0))
    assert hint is not None
    assert 'id="game-area"' in html
    assert "Meilleur coup" in html and hint.notation in html
    assert html.count("hint-square") == len(hint.squares)
    assert "2 indices restants" in html
    # Still there after a reload, until the player moves.
    page = client.get(reverse("games:page", args=[game.pk])).content.decode()
    assert hint.notation in page and 'id="hint-button"' not in page


def test_a_refused_hint_says_why(alice, bob) -> None:
    game = friendly_game(alice, bob, rated=True)
    response = client_for(seat_at(game, 0).player).post(
        reverse("games:hint", args=[game.pk]), {"version": 0}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert 'id="move-error"' in html
    assert "parties amicales" in html


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_hint_says_why_in_the_players_language(alice, bob, language: str) -> None:
    game = friendly_game(alice, bob)
    player = seat_at(game, 0).player
    player.language = language  # the site speaks the player's chosen language
    player.save(update_fields=["language"])
    client = client_for(player)
    html = client.post(
        reverse("games:hint", args=[game.pk]), {"version": 0}, HTTP_HX_REQUEST="true"
    ).content.decode()
    hint = selectors.current_hint(Game.objects.get(pk=game.pk), seat_at(game, 0))
    assert hint is not None
    codes = [reason["code"] for reason in hint.reasons]
    assert codes, "the hint carries what the evaluation weighed"
    ahead = next(r for r in hint.reasons if r["code"].startswith("ahead-"))
    # The runner-up it was ranked against is a real move of the same position.
    game.refresh_from_db()
    from games import bridge

    runner_up = rules.best_moves(rules.view(bridge.state_of(game), 0), 2)[1]
    assert ahead["tiles"] == runner_up.notation
    why = html.split('class="hint-why"')[1].split("</ul>")[0]
    assert why.count("<li>") == len(hint.why) == len(codes)
    assert ("Pourquoi" in html) == (language == "fr")
    assert ("Why:" in html) == (language == "en")
    assert runner_up.notation in why


REASON_CODES = [
    "red-points",
    "green-points",
    "goes-out",
    "black-square",
    "sheds",
    "returns",
    "green-draw",
    "plays-heavy",
    "plays-awkward",
    "keeps-diable",
    "keeps",
    "out-next",
    "opens-red",
    "exchange",
    "pass",
    "ahead-points",
    "ahead-tiles",
    "ahead-hand",
    "ahead-safety",
    "ahead-out-next",
    "ahead-close",
]


@pytest.mark.parametrize("code", REASON_CODES)
def test_each_reason_names_tiles_with_one_word_and_ranks_a_move_ahead_not_past(code) -> None:
    from django.utils import translation

    from games import reasons

    with translation.override("fr"):
        french = reasons.phrase(code, 2, "H8→ CHAT" if code.startswith("ahead") else "KW")
    with translation.override("en"):
        english = reasons.phrase(code, 2, "H8→ CHAT" if code.startswith("ahead") else "KW")
    assert french and english
    assert "carré" not in french  # the game page says "lettres" for tiles throughout
    assert "letter" not in english
    assert "passe avant" not in french  # reads like the move Passe
    if code.startswith("ahead-") and code != "ahead-close":
        assert french.startswith("se classe devant H8→ CHAT")
        assert english.startswith("ranks ahead of H8→ CHAT")


@pytest.mark.parametrize("mode", ["marque", "sans-marque"])
def test_the_hint_box_in_french_calls_tiles_lettres_as_the_rest_of_the_page(
    alice, bob, mode
) -> None:
    """Sans marque the box counts the tiles out of the hand and says why: one word for both,
    the one the hand ("Mes lettres"), the picker and the reserve use around it."""
    game = services.game_create(creator=alice, mode=mode, seats=2, rated=False)
    services.game_join(game_id=game.pk, player=bob, rng=random.Random(1))
    game.refresh_from_db()
    rig(game, OPENING)
    player = seat_at(game, 0).player
    player.language = "fr"
    player.save(update_fields=["language"])
    html = (
        client_for(player)
        .post(reverse("games:hint", args=[game.pk]), {"version": 0}, HTTP_HX_REQUEST="true")
        .content.decode()
    )
    assert "Mes lettres" in html
    box = html.split('class="hint-box"')[1].split("</section>")[0]
    assert "Meilleur coup" in box
    assert "carré" not in box.lower()
    if mode == "sans-marque":
        assert re.search(r"\d+ lettres? (sorties? de|de moins dans) votre main", box)


@pytest.mark.parametrize("code", REASON_CODES)
def test_the_analysis_speaks_of_any_players_move_in_the_third_person(code) -> None:
    """The analysis of a finished game is read by every player about every move, the
    computer's too: "your tiles" there would speak of the reader's."""
    from django.utils import translation

    from games import reasons

    tiles = "H8→ CHAT" if code.startswith("ahead") else "KW"
    with translation.override("fr"):
        french = reasons.phrase(code, 2, tiles, own=False)
    with translation.override("en"):
        english = reasons.phrase(code, 2, tiles, own=False)
    assert french and english
    assert not re.search(r"\b(vous|votre|vos)\b", french), french
    assert not re.search(r"\b(you|your)\b", english), english
    assert "carré" not in french, french  # "lettres", as the analysis line's "lettres sorties"
