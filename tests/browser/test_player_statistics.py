"""The player page's figures, as a player reads them: rated games apart from all games."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page

from accounts.computers import computer_user
from games.models import Game
from tests.ratings.conftest import finish, player

pytestmark = pytest.mark.browser

HEADINGS = {
    "en": ("Avec marque", "Rated games", "All games", "Games", "Wins", "Against the computer"),
    "fr": (
        "Avec marque",
        "Parties classées",
        "Toutes les parties",
        "Parties",
        "Victoires",
        "Contre l’ordinateur",
    ),
}


def figures(page: Page, mode: str, heading: str) -> dict[str, str]:
    """The labels and numbers shown under ``heading`` in the panel of ``mode``."""
    panel = page.locator("article.mode-panel").filter(
        has=page.get_by_role("heading", name=mode, exact=True)
    )
    group: Locator = panel.locator(".stats-group").filter(
        has=page.get_by_role("heading", name=heading, exact=True)
    )
    group.scroll_into_view_if_needed()
    assert group.is_visible()
    return {
        item.get_by_role("term").inner_text(): item.get_by_role("definition").inner_text()
        for item in group.locator("dl > div").all()
    }


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_rated_figures_leave_out_friendly_and_computer_games(
    browse, transactional_db, language
):
    alice, bob = player("alice"), player("bob")
    computer = computer_user("debutant")
    games = [
        finish([(alice, 30, 1), (bob, 10, 2)]),
        finish([(bob, 25, 1), (alice, 5, 2)]),
        finish([(alice, 80, 1), (computer, 10, 2)], rated=False),
        finish([(alice, 60, 1), (bob, 50, 2)], rated=False),
    ]
    mode, rated_title, all_title, games_label, wins_label, computer_label = HEADINGS[language]
    page = browse(language=language)
    page.goto(alice.get_absolute_url())

    def alices(game: Game) -> tuple[bool, bool]:
        seat = game.seats.get(player=alice)
        return seat.is_winner, game.seats.filter(player__bot_level__gt="").exists()

    rated = [alices(game) for game in games if game.rated]
    every = [alices(game) for game in games]
    shown = figures(page, mode, rated_title)
    assert shown[games_label] == str(len(rated))
    assert shown[wins_label] == str(sum(won for won, _ in rated))
    assert computer_label not in shown
    shown = figures(page, mode, all_title)
    assert shown[games_label] == str(len(every))
    assert shown[wins_label] == str(sum(won for won, _ in every))
    assert shown[computer_label] == str(sum(computer for _, computer in every))
