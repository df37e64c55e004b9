"""Orca reads the screen-reader mode (docs/ACCESSIBILITY.md, "Orca"): run by tools/orca_trial.sh only.

Chromium is headed (Xvfb) with its accessibility tree exported on the session's
AT-SPI bus, where Orca listens and writes what it speaks to its debug file. The
test only plays the move and waits; what Orca said is read from that file, by
hand. Skipped unless ``DIAMINO_ORCA_TRIAL`` is set (the suite has no display).
"""

import os

import pytest

from tests.browser import positions as pos
from tests.browser.conftest import CHROMIUM_ARGS
from tests.browser.pages import expect
from tests.browser.test_hint_placement import against_computer_moving_first
from tests.conftest import FULL_CHROMIUM
from tests.factories import make_player

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.environ.get("DIAMINO_ORCA_TRIAL"), reason="needs Xvfb, AT-SPI and Orca"
    ),
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    args = [a for a in CHROMIUM_ARGS if a != "--headless"] + ["--force-renderer-accessibility"]
    return {
        **browser_type_launch_args,
        "executable_path": FULL_CHROMIUM,  # headed: the whole browser
        "args": args,
        "headless": False,
    }


def test_orca(browse, transactional_db):
    alice = make_player("alice")
    game = against_computer_moving_first(alice, mode="sans-marque", hand="CHA?ILEAUXBOUR")
    pos.set_hands(game, ("CHA?ILEAUXBOUR", "Z"), reserve="")
    page = browse(alice, language="en")
    page.goto(f"/parties/{game.pk}/?texte=1")
    page.wait_for_timeout(3000)
    page.get_by_role("textbox", name="Your move, as in a reply to a turn email").focus()
    page.wait_for_timeout(2000)
    page.keyboard.type("H8 CHAt")
    page.keyboard.press("Enter")
    page.wait_for_timeout(4000)
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.get_by_role("status", name="Game news")).to_contain_text("passed")
    page.wait_for_timeout(6000)
