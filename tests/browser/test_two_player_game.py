"""Two people sign up, meet at an avec-marque table and play a game to its end in Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import rules
from accounts.models import User
from games import bridge
from games.models import Game
from tests.browser import pages
from tests.browser.pages import expect
from tests.games.conftest import rig, seat_at

pytestmark = pytest.mark.browser

# The first player holds CHATEAUX and E, S; the second R, a diable and K, W to exchange.
HANDS = ("CHATEAUXESLN", "R?KWIOMPBDLN")


def test_two_people_sign_up_and_play_an_avec_marque_game_to_its_end(browse) -> None:
    alice, bob = browse(), browse()

    # Sign up, and confirm through the emailed link.
    for page, name in ((alice, "alice"), (bob, "bob")):
        pages.sign_up(page, name)
        assert not User.objects.get(username=name).emailaddress_set.get().verified  # type: ignore[attr-defined]  # allauth ships no types
        pages.confirm_email(page, name)
        assert User.objects.get(username=name).emailaddress_set.get().verified  # type: ignore[attr-defined]  # allauth ships no types

    # Alice opens an avec-marque table for two, by invitation, and invites Bob.
    alice.goto("/parties/")
    create = alice.locator("form.create-form")
    create.locator('select[name="mode"]').select_option("marque")
    create.locator('select[name="seats"]').select_option("2")
    create.locator('input[name="invitation_only"]').check()
    create.locator('input[name="invite"]').fill("bob")
    create.locator('button[type="submit"]').click()
    game = Game.objects.get()
    expect(alice).to_have_url(f"/parties/{game.pk}/")
    alice.screenshot(path="/tmp/n10-table.png")

    # Bob finds the table in the lobby and takes the second seat: the game starts.
    bob.goto("/parties/")
    bob.locator("table.tables tr", has_text="alice").locator('button[type="submit"]').click()
    expect(bob).to_have_url(f"/parties/{game.pk}/")
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING

    # Known hands, so that the moves below are legal: the first player holds CHATEAUX.
    rig(game, HANDS)
    first, second = (seat_at(game, n).player.username for n in (0, 1))
    me = {"alice": alice, "bob": bob}
    one, two = me[first], me[second]
    for page in (one, two):
        page.goto(f"/parties/{game.pk}/")
    expect(pages.area(one)).to_have_attribute("data-my-turn", "true")
    expect(pages.area(two)).to_have_attribute("data-my-turn", "false")
    # Marks the waiting page: a reload would lose it, an htmx swap keeps it.
    two.evaluate("window.stillTheSamePage = true")

    # 1. An illegal word: the preview says why, Play stays off, nothing changes.
    for letter, name in zip("HCA", ("H8", "I8", "J8"), strict=True):
        pages.tap(one, letter, name)
    expect(one.locator("#preview")).to_have_attribute("data-ok", "false")
    expect(one.locator("#preview.is-error")).to_contain_text("HCA")
    expect(one.locator("#play-button")).to_be_disabled()
    one.locator("#recall-tiles").click()
    expect(one.locator("#board .has-pending")).to_have_count(0)
    game.refresh_from_db()
    assert game.move_count == 0

    # 1. CHATEAUX by tapping tile then square; it reaches the red devil on O8 (+10).
    for letter, name in zip("CHATEAUX", "HIJKLMNO", strict=True):
        pages.tap(one, letter, f"{name}8")
    pages.expect_preview_ok(one, "CHATEAUX")
    pages.play(one)
    expect(pages.square(one, "O8")).to_have_attribute("aria-label", re.compile("^O8, lettre X"))

    # The waiting page shows the move by itself, without a reload.
    pages.wait_for_my_turn(two)
    assert two.evaluate("window.stillTheSamePage") is True
    expect(pages.square(two, "J8")).to_have_attribute("data-letter", "A")

    # 2. RAS down through the A of CHATEAUX, by dragging: R, then a diable as S.
    pages.drag(two, "R", "J7")
    pages.drag(two, "?", "J9")
    pages.choose_diable_letter(two, "S")
    pages.expect_preview_ok(two, "RAS")
    pages.play(two)
    expect(pages.square(two, "J9")).to_have_attribute("aria-label", re.compile("diable"))

    # 3. CES down from the C, by keyboard alone: Tab to the board, arrows, Enter, /, letters.
    pages.wait_for_my_turn(one)
    pages.tab_to_board(one)
    # The board's Tab stop is the square used last, across the moves: O8, where X went.
    expect(one.locator("#board .sq:focus")).to_have_attribute("data-square", "O8")
    for key in ("Home", *["ArrowRight"] * 7, "ArrowDown"):
        one.keyboard.press(key)
    expect(one.locator("#board .sq:focus")).to_have_attribute("data-square", "H9")
    one.keyboard.press("Enter")
    one.keyboard.press("/")
    one.keyboard.type("ES")
    pages.expect_preview_ok(one, "CES")
    one.keyboard.press("Enter")
    expect(one.locator("#play-button")).to_be_focused()
    before = pages.version(one)
    one.keyboard.press("Enter")
    pages.expect_version(one, before + 1)

    # 4. The second player exchanges K and W; 5. the first passes; 6. the second passes.
    pages.wait_for_my_turn(two)
    pages.exchange(two, "KW")
    pages.wait_for_my_turn(one)
    pages.pass_turn(one)
    pages.wait_for_my_turn(two)
    pages.pass_turn(two)

    # Every player passed in succession: the game is over, on both pages.
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for page in (one, two):
        expect(pages.area(page)).to_have_attribute(
            "data-over", "true", timeout=pages.POLL_TIMEOUT_MS
        )
    # Blocked (R-END-3): no bonus, each loses the value left in hand; the page shows it all.
    seats = {seat.player.username: seat for seat in game.seats.select_related("player")}
    tiles = bridge.config_of(game).tiles
    assert seats[first].score == 10 - tiles.value_of(seats[first].hand)
    assert seats[second].score == -tiles.value_of(seats[second].hand)
    # The exchange drew random tiles: a tie is possible, and then both win.
    best = max(seat.score for seat in seats.values())
    winners = sorted(name for name, seat in seats.items() if seat.score == best)
    for page in (one, two):
        for winner in winners:
            expect(page.locator(".game-over")).to_contain_text(winner)
        assert pages.scores(page) == {name: seat.score for name, seat in seats.items()}
        expect(page.locator(".seat.is-me .final-hand .mini-tile")).to_have_count(12)

    # The record downloads, and the referee agrees with the page.
    with one.expect_download() as download:
        one.locator(".game-over a[download]").click()
    document = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    judgement = rules.record.judge_document(document)
    assert judgement["over"] and judgement["end"] == "blocked"
    assert sorted(document["players"][i] for i in judgement["winners"]) == winners
