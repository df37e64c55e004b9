"""The board and moves after a move, made from the version before (games/board_update.py),
are what a full draw and the database give.

Two players, one reading French and one English, play random moves through
the page (the htmx answer to a move is where the patched board is used);
some moves come after a hint, whose board is another. After each move the
board stored for the mover is compared with the one a fresh draw makes, and
the move rows stored with those the database reads.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import translation

from benchmarks.web.page import form_fields
from games import board_update, bridge, page_cache, services
from games.board_update import after_move
from games.models import Game
from games.selectors import _MOVE_ROWS
from rules.randomplay import find_move
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def _stored_board(game: Game, language: str) -> str | None:
    with translation.override(language):
        return cache.get(page_cache.fragment_key("board", page_cache.board_key(game, seated=True)))


def _fresh_board(client: Client, game: Game, language: str) -> str | None:
    """The mover's board of this version drawn afresh (and stored, as the page does)."""
    with translation.override(language):
        cache.delete(page_cache.fragment_key("board", page_cache.board_key(game, seated=True)))
    assert client.get(reverse("games:page", args=[game.pk])).status_code == 200
    return _stored_board(game, language)


@pytest.mark.parametrize("mode", ["marque", "sans-marque"])
def test_the_board_after_a_move_is_the_one_a_full_draw_makes(
    mode: str, settings, monkeypatch
) -> None:
    settings.DIAMINO_HINTS_PER_GAME = 3
    # What the patch stored, read before the answer is drawn (which would store a full draw).
    made: list[str | None] = []
    rows_made: list[list | None] = []

    def spied(game: Game, move) -> None:
        after_move(game, move)
        made.append(_stored_board(game, translation.get_language()))
        rows_made.append(cache.get(page_cache.move_rows_key(game)))

    monkeypatch.setattr(board_update, "after_move", spied)
    players = [make_player("Ana", language="fr"), make_player("Ben", language="en")]
    game = services.game_create(creator=players[0], mode=mode, seats=2, rated=False)
    rng = random.Random(7)
    services.game_join(game_id=game.pk, player=players[1], rng=rng)
    clients = {}
    for player in players:
        clients[player.pk] = Client()
        clients[player.pk].force_login(player)
    patched = 0
    for number in range(40):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        state = bridge.state_of(game)
        seat = game.seats.select_related("player").get(position=state.turn)
        mover, client = seat.player, clients[seat.player_id]
        page = reverse("games:page", args=[game.pk])
        assert client.get(page).status_code == 200  # the board before the move, stored
        if number % 5 == 4:  # a hint: the page shows another board, the plain one stays
            client.post(reverse("games:hint", args=[game.pk]), {"version": game.move_count})
            assert client.get(page).status_code == 200
        if number % 7 == 6:  # the plain board before the move is gone: nothing to patch
            with translation.override(mover.language):
                cache.delete(
                    page_cache.fragment_key("board", page_cache.board_key(game, seated=True))
                )
        move = find_move(state, rng)
        answer = client.post(
            reverse("games:play", args=[game.pk]),
            form_fields(move, game.move_count),
            HTTP_HX_REQUEST="true",
        )
        assert answer.status_code == 200
        game.refresh_from_db()
        assert game.move_count == number + 1, answer.content.decode()[:500]
        rows = rows_made.pop()
        assert rows is not None  # the page stored the previous version's
        read = _MOVE_ROWS.list(game.pk, game.move_count)
        assert rows == read
        assert [[type(v) for v in row] for row in rows] == [[type(v) for v in row] for row in read]
        stored = made.pop()
        if number % 7 == 6:
            assert stored is None
            continue
        assert stored is not None
        assert stored in answer.content.decode()
        assert _fresh_board(client, game, mover.language) == stored
        patched += 1
    assert patched >= 20


def _two_player_game() -> tuple[Game, dict[int, Client]]:
    players = [make_player("Ana", language="fr"), make_player("Ben", language="en")]
    game = services.game_create(creator=players[0], mode="marque", seats=2, rated=False)
    services.game_join(game_id=game.pk, player=players[1], rng=random.Random(3))
    clients = {}
    for player in players:
        clients[player.pk] = Client()
        clients[player.pk].force_login(player)
    game.refresh_from_db()
    return game, clients


def _play_one(game: Game, clients: dict[int, Client]) -> tuple[Any, Client, str]:
    """The player to move opens the page (its board stored), then plays; the answer and language."""
    state = bridge.state_of(game)
    seat = game.seats.select_related("player").get(position=state.turn)
    client = clients[seat.player_id]
    assert client.get(reverse("games:page", args=[game.pk])).status_code == 200
    answer = client.post(
        reverse("games:play", args=[game.pk]),
        form_fields(find_move(state, random.Random(5)), game.move_count),
        HTTP_HX_REQUEST="true",
    )
    return answer, client, seat.player.language


def test_a_failure_while_storing_the_next_board_does_not_fail_the_move(monkeypatch, caplog) -> None:
    game, clients = _two_player_game()

    def broken(*args, **kwargs):
        raise KeyError("a square the old board does not have")

    monkeypatch.setattr(board_update, "patched", broken)
    answer, client, language = _play_one(game, clients)
    assert answer.status_code == 200
    game.refresh_from_db()
    assert game.move_count == 1  # played once, and answered with the new version
    assert f'data-version="{game.move_count}"' in answer.content.decode()
    assert "was not stored" in caplog.text
    # The page drew the new version in full, as without the patch.
    assert _stored_board(game, language) == _fresh_board(client, game, language)


def test_a_new_release_never_builds_on_the_boards_the_old_one_drew(monkeypatch) -> None:
    game, clients = _two_player_game()
    made: list[str | None] = []

    def spied(game: Game, move) -> None:
        after_move(game, move)
        made.append(_stored_board(game, translation.get_language()))

    monkeypatch.setattr(board_update, "after_move", spied)
    state = bridge.state_of(game)
    seat = game.seats.select_related("player").get(position=state.turn)
    client = clients[seat.player_id]
    assert client.get(reverse("games:page", args=[game.pk])).status_code == 200  # old release's
    monkeypatch.setattr(page_cache, "release", lambda: "next-release")
    answer = client.post(
        reverse("games:play", args=[game.pk]),
        form_fields(find_move(state, random.Random(5)), game.move_count),
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    assert made == [None]  # nothing patched from the old release's board
    game.refresh_from_db()
    assert _stored_board(game, seat.player.language) is not None  # the answer drew it afresh
