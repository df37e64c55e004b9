"""The screen-reader mode (issue #37): a whole game against the computer, by keyboard, by ear.

One game per language, played in Chromium with the keyboard alone and read off
the accessibility tree alone (``aria_snapshot``, roles and names), never the
markup's classes or the database: the mode is reached from the settings (French)
or by the "skip to the text game" link (English); a wrong move is refused in
words and stays in the field; every move is typed in the notation of a reply by
email and read back before it is played; the live region announces the
computer's replies. The player meets every rule the text mode must carry: a
diable (H8 CHAt), a green devil (J10), a red devil with its return (O8, rends R)
and going out on a black square (K5). The deal is rigged so that the computer
(a single Z, an empty reserve) can only pass, then exchange, and never blocks the
line. axe finds no violation on the mode's pages, at the start and at the end.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.browser import positions as pos
from tests.browser.pages import expect
from tests.browser.test_accessibility import axe_violations, described, ids_and_names_problems
from tests.browser.test_hint_placement import against_computer_moving_first
from tests.factories import make_player

pytestmark = pytest.mark.browser

HUMAN = "CHA?ILEAUXBOUR"  # CHAt, (A)IL, (CHAt)EAUX giving back R, BOU(T)
COMPUTER = "Z"  # no square takes a lone Z on these boards: it passes, then exchanges

SAID: dict[str, dict[str, Any]] = {
    "fr": {
        "skip": "Aller à la partie en texte",
        "your_turn": "À vous de jouer.",
        "row8": "Ligne 8",
        "empty_row": "vide de A à O",
        "move": "Votre coup, comme dans une réponse à un e-mail de tour",
        "read": "Ligne, colonne ou case",
        "refused": "CHAX",
        "words": "Mots\u00a0: CHAT.",
        "news": "Nouvelles de la partie",
        "played1": "alice a posé CHAT en H8 horizontal",
        "passed": "Ordinateur (débutant) a passé.",
        "green": "Diable vert en J10",
        "owed": "Ajoutez les lettres à rendre",
        "returns": " rends R",
        "red": "Diable rouge en O8",
        "exchanged": "Ordinateur (débutant) a échangé 1 lettre.",
        "hint": re.compile(r"Indice \(\d restants?\)"),
        "best": "Meilleur coup",
        "black": "Case noire en K5",
        "out": "Partie terminée. Gagnant\u00a0: alice.",
        "words_on_board": "CHATEAUX, en H8 horizontal (diable\u00a0: T)",
        "settings": "Mode lecteur d’écran",
        "save": "Enregistrer les réglages",
    },
    "en": {
        "skip": "Skip to the text game",
        "your_turn": "Your turn.",
        "row8": "Row 8",
        "empty_row": "empty from A to O",
        "move": "Your move, as in a reply to a turn email",
        "read": "Row, column or square",
        "refused": "CHAX",
        "words": "Words: CHAT.",
        "news": "Game news",
        "played1": "alice placed CHAT from H8 across",
        "passed": "Computer (beginner) passed.",
        "green": "Green devil on J10",
        "owed": "Add the tiles to give back",
        "returns": " return R",
        "red": "Red devil on O8",
        "exchanged": "Computer (beginner) exchanged 1 tile.",
        "hint": re.compile(r"Hint \(\d left\)"),
        "best": "Best move",
        "black": "Black square on K5",
        "out": "Game over. Winner: alice.",
        "words_on_board": "CHATEAUX, from H8 across (joker: T)",
    },
}


def heard(page, region: str = "main") -> str:
    """What the accessibility tree holds under ``region``, as a screen reader would walk it."""
    return page.locator(region).aria_snapshot().replace("\xa0", " ")


def expect_no_axe_violation(page) -> None:
    violations = axe_violations(page)
    problems = ids_and_names_problems(page)
    assert not violations and not problems, "\n".join(
        [described(violation) for violation in violations] + problems
    )


def type_move(page, said: dict, text: str) -> None:
    """Type ``text`` in the move field (which has the focus) and press Enter: it is read back."""
    field = page.get_by_role("textbox", name=said["move"])
    expect(field).to_be_focused()  # after a move, a hint or a poll alike
    page.keyboard.press("Control+A")
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def press_play(page, said: dict) -> None:
    """From the move field, Tab past "Read back" to "Play" and press Enter."""
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name=re.compile("^(Jouer|Play)$"))).to_be_focused()
    page.keyboard.press("Enter")


def news(page, said: dict):
    return page.get_by_role("status", name=said["news"])


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_whole_game_against_the_computer_by_keyboard_and_by_ear(
    browse, transactional_db, language
) -> None:
    said = SAID[language]
    alice = make_player("alice")
    game = against_computer_moving_first(alice, mode="sans-marque", hand=HUMAN)
    pos.set_hands(game, (HUMAN, COMPUTER), reserve="")
    page = browse(alice, language=language)

    if language == "fr":  # the mode chosen once in the settings
        page.goto("/compte/")
        checkbox = page.get_by_role("checkbox", name=said["settings"])
        pos.tab_until(page, "#" + checkbox.get_attribute("id"))
        page.keyboard.press("Space")
        expect(checkbox).to_be_checked()
        pos.tab_until(page, "main button[type=submit]")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        page.goto(f"/parties/{game.pk}/")
    else:  # the visually hidden link at the top of the board's page
        page.goto(f"/parties/{game.pk}/")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        expect(page.get_by_role("link", name=said["skip"])).to_be_focused()
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"\?texte=1#text-game$"))
    expect(page.get_by_role("grid")).to_have_count(0)  # no 225-square board to wade through
    assert said["your_turn"] in heard(page, "#text-game")
    expect_no_axe_violation(page)

    # r: the "Read the board" field; row 8 is read in one sentence.
    page.locator("body").focus()
    page.keyboard.press("r")
    expect(page.get_by_role("textbox", name=said["read"])).to_be_focused()
    page.keyboard.type("8")
    page.keyboard.press("Enter")
    expect(page.locator("#text-reading")).to_contain_text(said["row8"])
    assert said["empty_row"] in heard(page, "#text-reading")

    # m: the move field. A move typed wrong is refused in words and kept as typed.
    page.keyboard.press("Tab")  # out of the field: the shortcuts are for the page, not for typing
    page.keyboard.press("m")
    type_move(page, said, "H8 CHAX")
    press_play(page, said)
    expect(page.get_by_role("alert")).to_contain_text(said["refused"])
    expect(page.get_by_role("textbox", name=said["move"])).to_have_value("H8 CHAX")

    # A diable: read back, then played; the computer's pass is announced.
    type_move(page, said, "H8 CHAt")
    expect(page.locator("#text-preview")).to_contain_text(said["words"])
    press_play(page, said)
    expect(news(page, said)).to_contain_text(said["played1"])
    expect(news(page, said)).to_contain_text(said["passed"])
    expect(news(page, said)).to_contain_text(said["your_turn"])

    # A green devil (J10).
    type_move(page, said, "J8 v AIL")
    expect(page.locator("#text-preview")).to_contain_text(said["green"])
    press_play(page, said)
    expect(news(page, said)).to_contain_text("AIL")

    # A red devil (O8): the read-back asks for the return, added at the end of the line.
    type_move(page, said, "H8 CHATEAUX")
    expect(page.locator("#text-preview")).to_contain_text(said["owed"])
    page.keyboard.press("End")
    page.keyboard.type(said["returns"])
    page.keyboard.press("Enter")
    expect(page.locator("#text-preview")).to_contain_text(said["red"])
    press_play(page, said)
    expect(news(page, said)).to_contain_text(said["exchanged"])
    expect(
        page.get_by_role("list", name=re.compile("Mots sur le plateau|Words on the board"))
    ).to_contain_text(said["words_on_board"])

    # The hint, read as text, as the move would be typed.
    pos.tab_until(page, "#text-game form button[type=submit]:not(#text-read-back):not(#text-play)")
    expect(page.get_by_role("button", name=said["hint"])).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#text-game")).to_contain_text(said["best"], timeout=30_000)

    # Going out on a black square (K5) ends the game.
    type_move(page, said, "K5 v BOUT")
    expect(page.locator("#text-preview")).to_contain_text(said["black"])
    press_play(page, said)
    expect(news(page, said)).to_contain_text(said["out"])
    assert said["out"].replace("\xa0", " ") in heard(page, "#text-game")
    expect_no_axe_violation(page)


def test_the_focus_stays_in_the_move_field_when_a_poll_crosses_a_move(
    browse, transactional_db
) -> None:
    """A poll and a move in flight together: whichever answer comes second, the focus
    ends in the move field, never on the page's body or a button left behind."""
    said = SAID["en"]
    alice = make_player("alice")
    game = against_computer_moving_first(alice, mode="sans-marque", hand=HUMAN)
    pos.set_hands(game, (HUMAN, COMPUTER), reserve="")
    page = browse(alice, language="en")
    page.goto(f"/parties/{game.pk}/?texte=1")
    field = page.get_by_role("textbox", name=said["move"])
    polls: list = []  # the poll requests that left the page
    held: list = []  # the first poll, held unanswered until the end; later ones go through

    def poll(route) -> None:
        polls.append(route.request)
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route(re.compile(r"[?&]since="), poll)
    for _ in range(100):  # the page polls every second in these tests
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page did not poll"

    # 1. A poll asked before the move, answered after the move's answer.
    page.locator("body").focus()
    page.keyboard.press("m")
    type_move(page, said, "H8 CHAt")
    press_play(page, said)
    expect(news(page, said)).to_contain_text(said["passed"])
    with contextlib.suppress(PlaywrightError):  # aborted when the move left: no answer
        held[0].continue_()
    page.wait_for_timeout(300)  # time for a late answer to be swapped in
    expect(field).to_be_focused()

    # 2. The move's answer held while the page would poll again and again: no poll leaves
    # before the answer (a poll answered first would take the area, and the focus).
    moves: list = []
    page.route(re.compile(r"/texte/jouer/"), lambda route: moves.append(route))
    type_move(page, said, "J8 v AIL")
    press_play(page, said)
    for _ in range(100):
        if moves:
            break
        page.wait_for_timeout(50)
    assert moves, "the move was not sent"
    answer = moves[0].fetch()  # played on the server; the page does not know it yet
    asked = len(polls)
    page.wait_for_timeout(2500)  # two and a half poll periods
    sent_meanwhile = len(polls) - asked
    moves[0].fulfill(response=answer)
    expect(news(page, said)).to_contain_text("AIL")
    expect(field).to_be_focused()
    expect(field).to_have_value("")  # played: not brought back by a poll's swap
    assert sent_meanwhile == 0, "a poll left while the move's answer was awaited"
    page.wait_for_timeout(1500)  # the next poll (nothing new) leaves the focus in place
    expect(field).to_be_focused()
