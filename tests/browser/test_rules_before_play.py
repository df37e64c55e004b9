"""The rule matrix, before play: the deal, the first player, the board, the choice of game.

Part of the rule matrix (``test_rules_matrix.py``, whose coverage test reads
this module too): what the server decides before the first move, as the
players see it on the page.
"""

from __future__ import annotations

import re

import pytest

from games.models import Game
from tests.browser import pages
from tests.browser import positions as pos
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game

pytestmark = pytest.mark.browser

# --- before play: the deal, the draw, the board, the choice of game -----------------

# RULES.md R-TILES-2: the value printed on each letter of the classique set.
VALUES = {
    **dict.fromkeys("AEILNORSTU", 1),
    **dict.fromkeys("DGM", 2),
    **dict.fromkeys("BCP", 3),
    **dict.fromkeys("FHV", 4),
    **dict.fromkeys("JQ", 8),
    **dict.fromkeys("KWXYZ", 9),
    "?": 0,
}


@pos.rule("R-SETUP-1", "R-SETUP-2", "R-SETUP-4", "R-TILES-1", "R-TILES-2", "R-BOARD-1", "R-BOARD-2")
@pytest.mark.parametrize(("mode", "seats", "deal"), [("sans-marque", 3, 32), ("marque", 2, 12)])
def test_r_setup_4_the_deal_gives_each_player_the_hand_of_the_mode(
    browse, transactional_db, mode, seats, deal
) -> None:
    players = [make_player(name) for name in pos.NAMES[:seats]]
    game = start_game(players, mode=mode)  # the real draw and deal, not rigged
    order = [seat_at(game, n).player.username for n in range(seats)]
    (me,) = pos.open_pages(browse, game, [seat_at(game, 0).player])
    assert len(pos.hand(me)) == deal
    assert pos.tiles_held(me) == dict.fromkeys(order, deal)
    assert pos.reserve_size(me) == 112 - seats * deal
    shown = me.locator("#hand .hand-tile").evaluate_all(
        "tiles => tiles.map(tile => [tile.querySelector('.tile-letter').textContent.trim(),"
        " Number(tile.querySelector('.tile-value').textContent)])"
    )
    assert {letter: VALUES[letter] for letter, _ in shown} == dict(shown)

    # The draw for the first player is shown; the lowest letter of its last round plays first.
    me.locator(".draw summary").click()
    last_round = me.locator(".draw li").last.inner_text()
    drawn = dict(re.findall(r"(\w+)\s*:\s*(\w+)", last_round))
    letters = {name: tile for name, tile in drawn.items() if len(tile) == 1}
    assert min(letters, key=letters.__getitem__) == order[0]
    # Play goes round in seat order: the list shows that order, the turn moves down it.
    assert list(pos.tiles_held(me)) == order
    expect(pos.seat(me, order[0])).to_contain_text("à jouer")
    pages.pass_turn(me)
    expect(pos.seat(me, order[1])).to_contain_text("à jouer")

    # The board's squares (R-BOARD-1), and the hand's 12 numbered slots avec marque (R-BOARD-2).
    board = me.get_by_role("grid")
    expect(board.get_by_role("gridcell")).to_have_count(225)
    for name, kind in (
        ("H8", "Départ"),
        ("A1", "diable rouge"),
        ("B2", "case noire"),
        ("B6", "diable vert"),
    ):
        expect(board.get_by_role("gridcell", name=re.compile(f"^{name}, {kind}"))).to_have_count(1)
    slots = me.locator("#hand .slot-number").all_inner_texts()
    assert slots == ([str(n) for n in range(1, 13)] if mode == "marque" else [])


@pos.rule("R-SETUP-3")
def test_r_setup_3_the_players_choose_the_game_and_its_number_of_players(
    browse, transactional_db
) -> None:
    page = browse(make_player("alice"))
    page.goto("/parties/")

    def create(mode: str, seats: str) -> None:
        form = page.locator("form.create-form")
        form.locator('select[name="mode"]').select_option(mode)
        form.locator('select[name="seats"]').select_option(seats)
        form.locator('button[type="submit"]').click()

    create("marque", "5")
    expect(page.locator("form.create-form")).to_contain_text("2 à 4 joueurs")
    assert not Game.objects.exists()
    create("sans-marque", "8")
    game = Game.objects.get()
    expect(page).to_have_url(f"/parties/{game.pk}/")
    expect(page.locator("main")).to_contain_text("Sans marque")
