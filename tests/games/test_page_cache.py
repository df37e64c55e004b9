"""The game page's cached parts (games/page_cache.py) are never stale and never another viewer's.

Each test loads a page (which fills the cache), changes the game or asks as
someone else, and loads it again: what must differ does. The first test shows
the cache is in use, so that the others test it and not a page built afresh.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import rules
from accounts.vacations import vacation_start
from games import selectors, services
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game

pytestmark = pytest.mark.django_db

HANDS = ("CHATEAUXSIRN", "KWYZEPOTMLUE")


def page(user, game) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("games:page", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def board(html: str) -> str:
    """The board partial's HTML: from the board's wrapper to the end of its legend."""
    start = html.index('<div class="board-wrap"')
    return html[start : html.index("</details>", start)]


def hand(html: str) -> list[str]:
    return re.findall(r'class="tile hand-tile[^"]*" data-index="\d+" data-letter="(.)"', html)


def deadline(html: str) -> str:
    found = re.search(r'</dt><dd><time datetime="([^"]+)"', html)
    assert found, "no deadline shown"
    return found.group(1)


@pytest.fixture
def game(alice, bob):
    return rig(start_game([alice, bob]), HANDS)


@pytest.fixture
def spectator(db):
    return make_player("spectator")


def test_a_second_viewer_of_the_same_version_reads_the_moves_from_the_cache(game) -> None:
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    services.move_submit(
        game_id=game.pk, player=first, version=0, move=rules.Exchange(0, HANDS[0][:2])
    )
    client = Client()
    client.force_login(second)
    url = reverse("games:page", args=[game.pk])
    with CaptureQueriesContext(connection) as cold:
        client.get(url)
    with CaptureQueriesContext(connection) as warm:
        client.get(url)
    moves_query = [q for q in cold.captured_queries if 'FROM "games_move"' in q["sql"]]
    assert moves_query, "the first view reads the moves"
    assert not [q for q in warm.captured_queries if 'FROM "games_move"' in q["sql"]]


def test_a_new_release_reads_and_draws_afresh_what_the_old_one_cached(game, settings) -> None:
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    services.move_submit(
        game_id=game.pk, player=first, version=0, move=rules.Exchange(0, HANDS[0][:2])
    )
    client = Client()
    client.force_login(second)
    url = reverse("games:page", args=[game.pk])
    before = client.get(url).content.decode()  # the old release's moves and board cached
    settings.DIAMINO_RELEASE = "next-release"
    with CaptureQueriesContext(connection) as after:
        again = client.get(url).content.decode()
    assert [q for q in after.captured_queries if 'FROM "games_move"' in q["sql"]]
    assert board(again) == board(before)


def test_players_and_a_spectator_each_see_their_own_hand_and_controls(game, spectator) -> None:
    mover, waiting = seat_at(game, 0).player, seat_at(game, 1).player
    mine = page(mover, game)  # fills the cache
    theirs = page(waiting, game)
    watched = page(spectator, game)
    assert sorted(hand(mine)) == sorted(HANDS[0])
    assert sorted(hand(theirs)) == sorted(HANDS[1])
    assert hand(watched) == []
    assert 'id="move-form"' in mine
    assert 'id="move-form"' not in theirs and 'id="move-form"' not in watched
    assert "Resign" in theirs or "Abandonner" in theirs
    assert 'class="resign-form"' not in watched
    # The board is the same for the two players; the spectator's has no hand to describe it.
    assert board(mine) == board(theirs)
    assert 'aria-describedby="hand-hint"' in board(mine)
    assert 'aria-describedby="hand-hint"' not in board(watched)
    # Each their own name marked as theirs.
    assert mine.count("is-me") == 1 and theirs.count("is-me") == 1 and "is-me" not in watched


def test_each_language_gets_its_own_board(game, spectator) -> None:
    french = page(seat_at(game, 0).player, game)
    english_player = seat_at(game, 1).player
    english_player.language = "en"
    english_player.save()
    english = page(english_player, game)
    assert ", vide" in board(french) and ", empty" not in board(french)
    assert ", empty" in board(english) and ", vide" not in board(english)
    assert ", vide" in board(page(spectator, game))
    # The parts rendered once per process (the joker's dialog, the word check): per language too.
    assert "Which letter does the joker stand for?" in english
    assert "Which letter does the joker stand for?" not in french
    assert 'id="word-check-title">Check a word<' in english
    assert 'id="word-check-title">Check a word<' not in french


def test_a_move_in_between_shows_the_new_board_and_history_to_everyone(game, spectator) -> None:
    mover = seat_at(game, 0).player
    before = page(spectator, game)
    page(mover, game)
    assert 'class="move kind-' not in before
    state = services.move_submit(
        game_id=game.pk,
        player=mover,
        version=0,
        move=rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "T"))),
    )
    assert state.game.move_count == 1
    after = page(spectator, game)
    assert board(after) != board(before)
    assert 'data-square="H8" data-kind="start" data-letter="C"' in after
    assert after.count('class="move kind-place"') == 1
    assert 'data-version="1"' in after
    # The player who moved no longer has the controls; the next one has.
    assert 'id="move-form"' not in page(mover, game)
    assert 'id="move-form"' in page(seat_at(game, 1).player, game)


def test_a_vacation_starting_without_a_move_changes_the_deadline_shown(game, spectator) -> None:
    mover = seat_at(game, 0).player
    before = deadline(page(spectator, game))
    vacation_start(user=mover, days=3)
    after_html = page(spectator, game)
    assert deadline(after_html) != before
    assert "on vacation" in after_html or "en vacances" in after_html


def test_time_given_without_a_move_shows_on_the_deadline_and_in_the_history(game) -> None:
    mover, other = seat_at(game, 0).player, seat_at(game, 1).player
    before = page(other, game)
    services.time_give(game_id=game.pk, giver=other, version=0, extra_days=0)
    after = page(other, game)
    assert deadline(after) != deadline(before)
    assert 'class="move kind-gift"' not in before
    assert 'class="move kind-gift"' in after
    # Said to each from where they stand: the giver and the receiver.
    assert "one more day" in after or "un jour de plus" in after
    assert page(mover, game).count('class="move kind-gift"') == 1


def test_a_finished_game_is_shown_over_with_the_final_hands(game, spectator) -> None:
    mover, other = seat_at(game, 0).player, seat_at(game, 1).player
    page(spectator, game)
    page(other, game)
    services.game_resign(game_id=game.pk, player=other)
    over = page(spectator, game)
    assert 'data-over="true"' in over
    assert 'class="final-hand"' in over
    assert 'id="move-form"' not in page(mover, game)
    assert 'aria-describedby="hand-hint"' not in board(page(mover, game))


def test_an_annulment_by_staff_without_a_move_is_shown(game, spectator) -> None:
    mover = seat_at(game, 0).player
    page(spectator, game)
    seated_board = board(page(mover, game))
    staff = make_player("staffer", is_staff=True)
    services.game_annul(game_id=game.pk, by=staff, reason="tricherie")
    after = page(mover, game)
    assert "tricherie" in after
    assert 'id="move-form"' not in after
    assert 'aria-describedby="hand-hint"' in seated_board
    assert 'aria-describedby="hand-hint"' not in board(after)


def test_a_hint_shows_on_the_board_of_the_player_who_asked_only(alice, bob, spectator) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=2, rated=False)
    services.game_join(game_id=game.pk, player=bob)
    game.refresh_from_db()
    game = rig(game, HANDS)
    mover, other = seat_at(game, 0).player, seat_at(game, 1).player
    plain = board(page(other, game))
    hint = services.hint_request(game_id=game.pk, player=mover, version=0)
    assert hint.kind == "place"
    hinted = board(page(mover, game))
    assert "hint-square" in hinted
    assert "hint-square" not in board(page(other, game)) == plain
    assert "hint-square" not in board(page(spectator, game))


def test_a_move_committed_after_the_game_was_read_is_not_kept_as_that_version(game) -> None:
    mover, other = seat_at(game, 0).player, seat_at(game, 1).player
    read_before = type(game).objects.get(pk=game.pk)  # version 0, read before the move
    services.move_submit(
        game_id=game.pk, player=mover, version=0, move=rules.Exchange(0, HANDS[0][:2])
    )
    # A page built from the game as read before the move: version 0, no move in it.
    assert selectors.game_view(read_before, other).moves == ()
    after = page(other, game)
    assert after.count('class="move kind-exchange"') == 1


def test_the_staff_replay_draws_its_own_board_at_each_step(game) -> None:
    """It includes the page's board partial with no cache key: never the page's cached board."""
    mover, other = seat_at(game, 0).player, seat_at(game, 1).player
    services.move_submit(
        game_id=game.pk,
        player=mover,
        version=0,
        move=rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "T"))),
    )
    assert 'data-letter="C"' in board(page(other, game))  # the page's board, now cached
    client = Client()
    client.force_login(make_player("modo", is_staff=True))
    url = reverse("games:staff_replay", args=[game.pk])
    assert 'data-letter="C"' not in client.get(url, {"coup": 0}).content.decode()
    assert 'data-letter="C"' in client.get(url, {"coup": 1}).content.decode()
