"""A hint placed on the board in one tap: the tiles go from the hand to its squares, the player plays."""

from __future__ import annotations

import random
import re

import pytest

from accounts.models import User
from games import services
from games.models import Game, Seat
from games.presenters import Hint
from tests.browser import pages
from tests.browser.pages import expect
from tests.browser.positions import set_hands
from tests.factories import make_player
from tests.games.conftest import seat_at

pytestmark = pytest.mark.browser

HAND = "CHAT?EAUSIRN"  # the hint opens with CHANTEUR on Départ (H8), no diable needed


def against_computer_moving_first(player: User, mode: str = "marque", hand: str = HAND) -> Game:
    """An unrated game against the computer in which ``player`` has the first move."""
    for seed in range(40):
        game = services.game_against_computer(
            player=player, mode=mode, level="debutant", rng=random.Random(seed)
        )
        game.refresh_from_db()
        if game.move_count == 0 and seat_at(game, 0).player == player:
            size = len(seat_at(game, 0).hand)
            return set_hands(game, [(hand * 2)[:size], seat_at(game, 1).hand])
        game.delete()
    raise AssertionError("no seed gives the player the first move")


def pending_letters(page) -> dict[str, str]:
    """The squares holding a tile not played yet, and its letter, as the page shows them."""
    return page.locator("#board .sq.has-pending").evaluate_all(
        "sqs => Object.fromEntries(sqs.map(sq => [sq.dataset.square,"
        " sq.querySelector('.board-tile.is-pending .tile-letter').textContent]))"
    )


def test_the_hint_goes_on_the_board_in_one_tap_and_the_player_plays_it(
    browse, transactional_db
) -> None:
    alice = make_player("alice")
    game = against_computer_moving_first(alice)
    page = browse(alice)
    page.goto(f"/parties/{game.pk}/")
    page.get_by_role("button", name="Indice (3 restants)").click()
    # A first move with a diable is the search's costliest case (seconds of CPU on a
    # busy machine, with the suite's other workers): more room than a page's answer.
    expect(page.locator(".hint-move")).to_contain_text("Meilleur coup", timeout=30_000)
    hint = Seat.objects.get(game=game, player=alice).hint
    assert hint is not None
    assert hint["kind"] == "place" and hint["placements"]
    wanted = dict(item.split("=") for item in hint["placements"].split(","))

    page.get_by_role("button", name="Placer sur le plateau").click()
    pages.wait_until(
        page, f"document.querySelectorAll('#board .sq.has-pending').length === {len(wanted)}"
    )
    assert pending_letters(page) == {square: letter.upper() for square, letter in wanted.items()}
    placed = page.locator("#hand .hand-tile.is-placed")
    expect(placed).to_have_count(len(wanted))  # taken from the hand, as a tap would
    pages.expect_preview_ok(page, *hint["words"])
    expect(page.locator("#preview")).to_contain_text(
        re.compile(rf"Points\s*:\s*{hint['points']}\b")
    )

    page.locator("#play-button").click()  # the player still presses Play
    pages.expect_computer_answer(page, 2)  # the move, and the computer's answer with it
    first = Game.objects.get(pk=game.pk).moves.get(number=1)
    assert first.notation == hint["notation"]
    assert first.points == hint["points"]


def show_hint(game: Game, player: User, hint: Hint) -> None:
    """The hint the page shows, as the search would have stored it for this move."""
    seat = Seat.objects.get(game=game, player=player)
    seat.hints_used = 1
    seat.hint = hint.as_data()
    seat.save(update_fields=["hints_used", "hint"])


def test_a_hint_covering_a_red_devil_sans_marque_chooses_the_tile_to_give_back(
    browse, transactional_db
) -> None:
    alice = make_player("alice")
    game = against_computer_moving_first(alice, "sans-marque", "CHANTEURSEEEEEEEEE")
    # CHANTEUR from Départ (H8) to the red devil on O8: one tile to give back, the S.
    squares = [f"{column}8" for column in "HIJKLMNO"]
    placements = ",".join(f"{sq}={letter}" for sq, letter in zip(squares, "CHANTEUR", strict=True))
    show_hint(
        game,
        alice,
        Hint(
            version=0,
            kind="place",
            notation="H8→ CHANTEUR",
            words=("CHANTEUR",),
            tiles=9,
            squares=tuple(squares),
            placements=placements,
            returns="S",
        ),
    )
    page = browse(alice)
    page.goto(f"/parties/{game.pk}/")
    page.get_by_role("button", name="Placer sur le plateau").click()
    pages.wait_until(page, "document.querySelectorAll('#board .sq.has-pending').length === 8")
    picker = page.locator("#returns-picker")
    expect(picker).to_be_visible()
    expect(picker.locator('.return-choice[aria-pressed="true"]')).to_have_count(1)
    expect(picker.locator('.return-choice[aria-pressed="true"]')).to_have_attribute(
        "data-letter", "S"
    )
    pages.expect_preview_ok(page, "CHANTEUR")
    page.locator("#play-button").click()
    pages.expect_computer_answer(page, 2)
    first = Game.objects.get(pk=game.pk).moves.get(number=1)
    assert first.words == ["CHANTEUR"] and first.tiles_returned == "S"


def test_a_hint_with_a_diable_is_placed_with_its_letter_from_the_keyboard_on_a_phone(
    browse, transactional_db
) -> None:
    alice = make_player("alice", language="en")
    game = against_computer_moving_first(alice)
    # CHAT, its A a diable (the search keeps diables for better moves than this one).
    show_hint(
        game,
        alice,
        Hint(
            version=0,
            kind="place",
            notation="H8→ CHaT",
            words=("CHAT",),
            points=8,
            tiles=4,
            squares=("H8", "I8", "J8", "K8"),
            placements="H8=C,I8=H,J8=a,K8=T",
        ),
    )

    page = browse(alice, phone=True)
    page.goto(f"/parties/{game.pk}/")
    button = page.get_by_role("button", name="Place on the board")
    button.focus()
    page.keyboard.press("Enter")
    pages.wait_until(page, "document.querySelectorAll('#board .sq.has-pending').length === 4")
    assert pending_letters(page) == {"H8": "C", "I8": "H", "J8": "A", "K8": "T"}
    expect(pages.square(page, "J8").locator(".board-tile.is-diable")).to_have_count(1)
    expect(page.locator('#hand .hand-tile.is-placed[data-letter="?"]')).to_have_count(1)
    expect(page.locator("#diable-dialog")).to_be_hidden()  # the hint said which letter
    pages.expect_preview_ok(page, "CHAT")

    page.locator("#play-button").click()
    pages.expect_computer_answer(page, 2)
    first = Game.objects.get(pk=game.pk).moves.get(number=1)
    assert first.words == ["CHAT"]
    assert "J8=a" in str(first.record) or "'J8', 'a'" in str(first.record), first.record
