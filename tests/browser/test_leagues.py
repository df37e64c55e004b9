"""A league through its pages: a player registers, a second tab's registration is refused, the
division shows the standings; on a phone the standings, and a player's league history on their
page, scroll inside their region."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import Registration, Season, Suspension
from tests.browser.pages import expect
from tests.factories import make_player
from tests.leagues.pages_helpers import make_league, make_players, open_season, running_season

pytestmark = pytest.mark.browser


def test_a_player_registers_from_the_league_page_and_a_second_tab_is_told_already(
    browse, transactional_db
) -> None:
    league = make_league()
    season = open_season(league)
    camille = make_player("camille")
    first_tab = browse(camille)
    second_tab = first_tab.context.new_page()
    for page in (first_tab, second_tab):
        page.goto("/ligues/")
        page.get_by_role("link", name="Ligue du lundi").click()
        expect(page.get_by_role("button", name="M’inscrire à cette saison")).to_be_visible()

    first_tab.get_by_role("button", name="M’inscrire à cette saison").click()
    expect(first_tab.get_by_role("status")).to_contain_text("Vous êtes inscrit.")
    expect(first_tab.get_by_text("1 joueur inscrit.")).to_be_visible()

    # The second tab still offers the button; its registration is refused, once.
    second_tab.get_by_role("button", name="M’inscrire à cette saison").click()
    expect(second_tab.get_by_role("status")).to_contain_text(
        "Vous êtes déjà inscrit à cette saison."
    )
    assert Registration.objects.filter(season=season, player=camille).count() == 1


def test_a_suspended_player_is_refused_on_the_page_and_nothing_is_written(
    browse, transactional_db
) -> None:
    league = make_league()
    open_season(league)
    hugo = make_player("hugo")
    page = browse(hugo, language="en")
    page.goto(f"/ligues/{league.slug}/")
    # Suspended after the page was shown: the click is refused.
    Suspension.objects.create(player=hugo, league=league, reason="abandons répétés")
    page.get_by_role("button", name="Register for this season").click()
    expect(page.get_by_role("status")).to_contain_text(
        "You are suspended from this league: you cannot register."
    )
    assert not Registration.objects.exists()
    # Shown again, the page says so in place of the button.
    page.goto(f"/ligues/{league.slug}/")
    expect(
        page.get_by_text("You are suspended from this league: you cannot register.")
    ).to_be_visible()
    expect(page.get_by_role("button", name="Register for this season")).to_have_count(0)


def test_on_a_phone_the_division_standings_scroll_within_their_region(
    browse, transactional_db
) -> None:
    players = make_players(4)
    season, division = running_season(players)
    page = browse(players[0], phone=True, language="en")
    page.goto(f"/ligues/{season.league.slug}/saisons/1/divisions/{division.pk}/")
    region = page.get_by_role("region", name="Standings")
    expect(region).to_be_visible()
    expect(region.get_by_role("row")).to_have_count(5)  # the header and four players
    page_width = page.evaluate("document.documentElement.scrollWidth")
    assert page_width <= 400, "the page itself never scrolls sideways on a phone"


# How many lines each cell of a table takes: its text's boxes (text only: a badge's padded
# box counts for nothing), a box that starts below the line above beginning a new line.
CELL_LINES = """(table) => [...table.querySelectorAll("th, td")].map((cell) => {
  const boxes = [];
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(walker.currentNode);
    boxes.push(...[...range.getClientRects()].filter((box) => box.width > 0));
  }
  boxes.sort((a, b) => a.top - b.top);
  let lines = 0, bottom = -Infinity;
  for (const box of boxes) {
    if (box.top >= bottom - 1) { lines += 1; bottom = box.bottom; }
    else bottom = Math.max(bottom, box.bottom);
  }
  return [cell.textContent.trim(), lines];
})"""


def test_on_a_phone_the_player_pages_league_history_keeps_each_cell_on_one_line(
    browse, transactional_db
) -> None:
    players = make_players(4)
    running_season(players)
    page = browse(players[0], phone=True, language="en")
    page.goto(f"/joueurs/{players[2].username}/")
    region = page.get_by_role("region", name="Leagues")
    expect(region.get_by_role("row")).to_have_count(2)  # the header and the one season
    wrapped = [
        (text, lines) for text, lines in region.locator("table").evaluate(CELL_LINES) if lines > 1
    ]
    assert not wrapped, f"cells broken over lines on a phone: {wrapped}"
    # The table is wider than the phone: it scrolls inside its region, not the page.
    assert region.evaluate("(r) => r.scrollWidth > r.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= 400


def test_registering_too_often_says_so_on_the_league_page_and_registers_nothing(
    browse, transactional_db, settings
) -> None:
    settings.DIAMINO_RATE_LIMITS = settings.DIAMINO_RATE_LIMITS | {"form": (2, 60)}
    league = make_league()
    season = open_season(league)
    page = browse(make_player("ines"))
    page.goto(f"/ligues/{league.slug}/")
    page.get_by_role("button", name="M’inscrire à cette saison").click()
    page.get_by_role("button", name="Retirer mon inscription").click()
    page.get_by_role("button", name="M’inscrire à cette saison").click()
    expect(page.get_by_role("status")).to_contain_text(
        "Trop de demandes en peu de temps\u00a0: réessayez dans"
    )
    expect(page.get_by_role("button", name="M’inscrire à cette saison")).to_be_visible()
    assert not Registration.objects.filter(season=season).exists()


def test_the_lobby_announces_a_first_season_whose_registration_opens_at_its_time_without_beat(
    browse, transactional_db
) -> None:
    league = make_league()
    now = timezone.now()
    season = Season.objects.create(
        league=league,
        number=1,
        state=Season.State.ANNOUNCED,
        registration_opens_at=now + timedelta(days=2),
        registration_closes_at=now + timedelta(days=9),
        starts_at=now + timedelta(days=9),
        ends_at=now + timedelta(days=37),
    )
    page = browse(make_player("camille"))
    page.goto("/parties/")
    news = page.get_by_role("region", name="Saisons de ligue")
    # \S, not \w, for the month: the pattern runs in the browser, where \w does not match é.
    expect(news).to_contain_text(
        re.compile(
            r"Ligue du lundi, saison 1 est annoncée\s: inscriptions ouvertes le \d+ \S+ 20\d\d"
        )
    )
    news.get_by_role("link", name="Ligue du lundi, saison 1").click()
    expect(page.get_by_role("heading", name="Saison 1")).to_be_visible()
    expect(
        page.get_by_text(re.compile(r"^Inscriptions ouvertes le \d+ \S+ 20\d\d \d\d:\d\d\.$"))
    ).to_be_visible()
    expect(page.get_by_role("button", name="M’inscrire à cette saison")).to_have_count(0)

    # The opening time comes; beat does not run (none in the tests): the lobby says it is
    # open and the league page lets the player register.
    Season.objects.filter(pk=season.pk).update(registration_opens_at=now - timedelta(minutes=1))
    page.goto("/parties/")
    expect(news).to_contain_text("Ligue du lundi, saison 1\u00a0: inscriptions ouvertes jusqu’au")
    news.get_by_role("link", name="Ligue du lundi, saison 1").click()
    page.get_by_role("button", name="M’inscrire à cette saison").click()
    expect(page.get_by_role("status")).to_contain_text("Vous êtes inscrit.")
    assert Registration.objects.filter(season=season).count() == 1
