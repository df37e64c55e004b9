"""The site header on a desktop, from 801 px up: one line, and every link still in reach."""

from __future__ import annotations

import re

import pytest

from tests.browser import pages
from tests.browser.pages import assert_no_sideways_scroll, expect
from tests.factories import make_player

pytestmark = pytest.mark.browser

# Between the phone's menu (800 px and under) and a wide screen, where French labels
# and the player's name wrapped the header onto a second line.
WIDTHS = (801, 900, 1024, 1100)
# One row of 36 px targets and its padding is 52 px; two rows would pass 80.
HEADER_PX = 64
NAME = "marguerite-delacroix"
LINKS = ("Salon", "Mes parties", "Classement", "Vérifier un mot")
ACCOUNT_LINKS = ("Ma page", "Réglages")


def assert_one_line(page) -> None:
    """Every item of the header that shows shares one row, and the header is that row's height."""
    header = page.locator(".site-header")
    rows = header.locator("a, button, summary").evaluate_all(
        "els => els.filter(el => el.checkVisibility()).map(el => {"
        " const r = el.getBoundingClientRect();"
        " return {name: el.textContent.trim(), top: r.top, bottom: r.bottom}; })"
    )
    lowest_top = max(rows, key=lambda item: item["top"])
    highest_bottom = min(rows, key=lambda item: item["bottom"])
    assert lowest_top["top"] < highest_bottom["bottom"], f"two rows: {lowest_top} under {rows}"
    height = header.bounding_box()["height"]
    assert height <= HEADER_PX, f"the header is {height} px tall"
    assert_no_sideways_scroll(page)


def test_from_801_px_the_header_is_one_line_and_the_account_links_wait_under_the_name(
    browse, transactional_db
) -> None:
    page = browse(make_player(NAME))
    page.goto("/parties/")
    header = page.locator(".site-header")
    links = [header.get_by_role("link", name=name) for name in LINKS]
    account = [header.get_by_role("link", name=name) for name in ACCOUNT_LINKS]
    logout = header.get_by_role("button", name="Se déconnecter")
    english = header.get_by_role("button", name="English")
    toggle = header.locator(".account-toggle")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        assert_one_line(page)
        for item in (*links, toggle, english):
            expect(item).to_be_visible()
        # The name may give way to an ellipsis; its accessible name stays whole.
        expect(toggle).to_have_accessible_name(NAME)
        for hidden in (*account, logout):
            expect(hidden).to_be_hidden()

        # By keyboard: Enter on the name opens its menu, Tab walks it, and leaving folds it.
        toggle.focus()
        page.keyboard.press("Enter")
        pages.tab_through(page, *account, logout, english)
        expect(account[0]).to_be_hidden()
        # Escape folds it back onto the name.
        toggle.focus()
        page.keyboard.press("Enter")
        expect(account[0]).to_be_visible()
        page.keyboard.press("Tab")
        page.keyboard.press("Escape")
        expect(toggle).to_be_focused()
        expect(account[0]).to_be_hidden()

    # By mouse: the menu opens over the page, and a click elsewhere folds it.
    toggle.click()
    expect(account[1]).to_be_visible()
    assert header.bounding_box()["height"] <= HEADER_PX, "the open menu pushed the page down"
    page.locator("h1").click()
    expect(account[1]).to_be_hidden()
    toggle.click()
    account[0].click()
    expect(page).to_have_url(re.compile(f"/joueurs/{NAME}/$"))


def test_from_801_px_the_header_is_one_line_signed_out_in_french_and_in_english(browse) -> None:
    page = browse()
    page.goto("/parties/")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        assert_one_line(page)
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        assert_one_line(page)
