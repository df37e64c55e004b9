"""The league pages through the test client: what a visitor, a player and an outsider see."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from games import services as games
from games.models import Game
from leagues import services as league_services
from leagues.models import Registration, Season, Suspension
from tests.factories import make_player, page_as
from tests.leagues.lifecycle import play_out
from tests.leagues.pages_helpers import make_league, make_players, open_season, running_season

pytestmark = pytest.mark.django_db


def _client(user, language: str = "en") -> Client:
    user.language = language
    user.save(update_fields=["language"])
    client = Client()
    client.force_login(user)
    return client


def _messages(html: str) -> str:
    match = re.search(r'<ul class="messages">(.*?)</ul>', html, re.S)
    return match.group(1) if match else ""


def _league_url(league) -> str:
    return reverse("leagues:league", args=[league.slug])


def _registration_url(season) -> str:
    return reverse("leagues:registration", args=[season.league.slug, season.number])


def test_the_league_list_shows_each_league_and_its_season_in_both_languages() -> None:
    league = make_league()
    open_season(league)
    english = Client(headers={"accept-language": "en"}).get(reverse("leagues:list"))
    assert english.status_code == 200
    html = english.content.decode()
    assert "Ligue du lundi" in html and "registration open until" in html
    assert "2 players a table" in html
    french = Client(headers={"accept-language": "fr"}).get(reverse("leagues:list"))
    assert "inscriptions ouvertes jusqu’au" in french.content.decode()
    assert "2 joueurs par table" in french.content.decode()


def test_an_inactive_league_is_neither_listed_nor_shown() -> None:
    league = make_league()
    league.active = False
    league.save()
    assert "Ligue du lundi" not in Client().get(reverse("leagues:list")).content.decode()
    assert Client().get(_league_url(league)).status_code == 404


def test_a_visitor_is_asked_to_log_in_to_register() -> None:
    league = make_league()
    open_season(league)
    html = Client(headers={"accept-language": "en"}).get(_league_url(league)).content.decode()
    assert "Log in to register" in html
    assert "Register for this season" not in html


def test_a_player_registers_from_the_league_page_and_can_withdraw() -> None:
    league = make_league()
    season = open_season(league)
    alice = make_player("alice")
    client = _client(alice)
    assert "Register for this season" in client.get(_league_url(league)).content.decode()
    answer = client.post(_registration_url(season), {"action": "register"}, follow=True)
    html = answer.content.decode()
    assert "You are registered" in _messages(html)
    assert "1 player registered." in html and "Withdraw my registration" in html
    assert Registration.objects.filter(season=season, player=alice).exists()
    answer = client.post(_registration_url(season), {"action": "withdraw"}, follow=True)
    assert "Your registration is withdrawn." in _messages(answer.content.decode())
    assert not Registration.objects.filter(season=season).exists()


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "You are already registered for this season."),
        ("fr", "Vous êtes déjà inscrit à cette saison."),
    ],
)
def test_registering_twice_is_refused_with_a_message_and_changes_nothing(
    language: str, expected: str
) -> None:
    season = open_season(make_league())
    alice = make_player("alice")
    client = _client(alice, language)
    client.post(_registration_url(season), {"action": "register"})
    answer = client.post(_registration_url(season), {"action": "register"})
    assert answer.status_code == 409
    assert expected in _messages(answer.content.decode())
    assert Registration.objects.filter(season=season).count() == 1


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Registration for this season is closed."),
        ("fr", "Les inscriptions à cette saison sont closes."),
    ],
)
def test_registering_when_registration_is_closed_is_refused(language: str, expected: str) -> None:
    season = open_season(make_league())
    season.state = Season.State.SCHEDULED  # the divisions are placed
    season.save()
    client = _client(make_player("alice"), language)
    answer = client.post(_registration_url(season), {"action": "register"})
    assert answer.status_code == 409
    assert expected in _messages(answer.content.decode())
    assert not Registration.objects.exists()


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "You are suspended from this league: you cannot register."),
        ("fr", "Vous êtes suspendu de cette ligue\u00a0: vous ne pouvez pas vous inscrire."),
    ],
)
def test_a_suspended_player_is_refused_with_the_reason_in_their_language(
    language: str, expected: str
) -> None:
    league = make_league()
    season = open_season(league)
    alice = make_player("alice")
    Suspension.objects.create(player=alice, league=league, reason="abandons")
    answer = _client(alice, language).post(_registration_url(season), {"action": "register"})
    assert answer.status_code == 403
    assert expected in _messages(answer.content.decode())
    assert not Registration.objects.exists()


def test_registering_needs_a_login_and_a_post() -> None:
    season = open_season(make_league())
    answer = Client().post(_registration_url(season), {"action": "register"})
    assert answer.status_code == 302 and reverse("account_login") in answer["Location"]
    assert _client(make_player("alice")).get(_registration_url(season)).status_code == 405
    assert not Registration.objects.exists()


def test_the_division_page_shows_the_standings_and_every_game_state() -> None:
    players = make_players(4)
    season, division = running_season(players)
    league_games = list(Game.objects.filter(league_game__division=division).order_by("pk"))
    assert len(league_games) == 6
    first = league_games[0]
    seats = list(first.seats.order_by("position"))
    loser, winner = seats[0].player, seats[1].player
    games.game_resign(game_id=first.pk, player=loser)
    url = reverse("leagues:division", args=[season.league.slug, season.number, division.pk])
    answer = _client(players[0]).get(url)
    assert answer.status_code == 200
    html = answer.content.decode()
    rows = re.findall(
        r"<tr[^>]*>\s*<td class=\"num\">(\d+)</td>\s*<th scope=\"row\"><a[^>]*>([^<]+)</a>", html
    )
    assert len(rows) == 4
    assert rows[0] == ("1", winner.username), "the only win puts its winner first"
    assert len(re.findall(r'<a href="/parties/\d+/">Game #\d+</a>', html)) == 6
    assert f"finished · won by {winner.username}" in html
    assert len(re.findall(r"running: \w+ to move", html)) == 5
    # Avec marque, the last player left wins and both lose their tiles' value (R-END-4).
    assert re.search(rf"{loser.username} -?\d+ \(resigned\)</span>", html)
    french = page_as(players[0], url, language="fr")
    assert "Classement" in french and "en cours\u00a0: à " in french


def test_a_division_is_found_only_under_its_own_league_and_season() -> None:
    season, division = running_season(make_players(4))
    other = make_league(slug="mardi", name="Ligue du mardi")
    assert (
        Client().get(reverse("leagues:division", args=[other.slug, 1, division.pk])).status_code
        == 404
    )
    assert (
        Client()
        .get(reverse("leagues:division", args=[season.league.slug, 2, division.pk]))
        .status_code
        == 404
    )


def test_the_league_page_lists_the_running_season_s_divisions_and_my_division() -> None:
    players = make_players(4)
    season, division = running_season(players)
    html = _client(players[1]).get(_league_url(season.league)).content.decode()
    assert "Division 1" in html and "4 players" in html
    assert "You play in Division 1." in html
    assert reverse("leagues:division", args=["lundi", 1, division.pk]) in html
    assert "Running until" in html


def test_the_player_page_shows_their_league_history() -> None:
    players = make_players(4)
    running_season(players)
    html = page_as(players[2], reverse("accounts:player", args=[players[2].username]))
    section = html[html.index('id="player-leagues-title"') :]
    assert "Ligue du lundi" in section and "Division 1" in section
    assert "season running" in section
    assert "Ligues" in page_as(
        players[2], reverse("accounts:player", args=[players[2].username]), language="fr"
    )
    loner = make_player("loner")
    assert "player-leagues-title" not in page_as(loner, reverse("accounts:player", args=["loner"]))


def test_my_games_marks_the_games_that_belong_to_a_league() -> None:
    players = make_players(4)
    running_season(players)
    friendly = games.game_create(creator=players[0], mode="marque", seats=2)
    html = page_as(players[0], reverse("games:mine"))
    assert html.count("Ligue du lundi · Division 1") == 3, "each of the player's 3 league games"
    assert friendly.pk  # an open table of their own: listed, no badge
    entry = re.search(rf'<li>\s*<a href="/parties/{friendly.pk}/">.*?</li>', html, re.S)
    assert entry and "badge league" not in entry.group(0)


def test_a_finished_season_names_its_champion_and_outcomes() -> None:
    players = make_players(4)
    season, division = running_season(players)
    play_out(season, players)  # the first of the list beats everyone
    assert league_services.season_close(
        season_id=season.pk, now=season.ends_at + timedelta(hours=1)
    )
    champion = players[0]
    url = reverse("leagues:division", args=[season.league.slug, season.number, division.pk])
    html = _client(players[1]).get(url).content.decode()
    found = re.search(r"<tbody>\s*<tr[^>]*>(.*?)</tr>", html, re.S)
    assert found is not None
    first_row = found.group(1)
    assert champion.username in first_row and "champion" in first_row
    assert ">3<" in first_row, "three wins, a point each"
    season_html = (
        Client(headers={"accept-language": "en"})
        .get(reverse("leagues:season", args=["lundi", 1]))
        .content.decode()
    )
    assert re.search(rf"Champion: <a [^>]*>{champion.username}</a>", season_html)
    history = page_as(champion, reverse("accounts:player", args=[champion.username]))
    section = history[history.index('id="player-leagues-title"') :]
    found = re.search(r"<tbody>\s*<tr>(.*?)</tr>", section, re.S)
    assert found is not None
    row = found.group(1)
    assert '<td class="num">1</td>' in row and '<td class="num">3</td>' in row
    assert "champion" in row and "Kept" in row
    french = page_as(champion, reverse("accounts:player", args=[champion.username]), language="fr")
    assert "Maintenu" in french and "Ligues" in french


def test_the_leagues_are_linked_from_the_footer_and_the_lobby() -> None:
    html = Client().get(reverse("games:lobby")).content.decode()
    assert html.count(f'href="{reverse("leagues:list")}"') == 2


def _queries(client: Client, url: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as context:
        assert client.get(url).status_code == 200
    return len(context)


def test_the_division_page_costs_the_same_queries_for_four_and_eight_players() -> None:
    counts = []
    for n, slug in ((4, "petite"), (8, "grande")):
        players = make_players(n, prefix=slug)
        season, division = running_season(players, league=make_league(slug=slug, name=slug))
        url = reverse("leagues:division", args=[slug, season.number, division.pk])
        counts.append(_queries(_client(players[0]), url))
    assert counts[0] == counts[1]


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Too many requests in a short time: try again in 1 minute."),
        ("fr", "Trop de demandes en peu de temps\u00a0: réessayez dans 1\u00a0minute."),
    ],
)
def test_registering_too_often_is_a_429_that_registers_nothing(
    settings, language: str, expected: str
) -> None:
    """Registering was the one form without the site's "form" limit."""
    settings.DIAMINO_RATE_LIMITS = settings.DIAMINO_RATE_LIMITS | {"form": (2, 60)}
    season = open_season(make_league())
    client = _client(make_player("alice"), language)
    client.post(_registration_url(season), {"action": "register"})
    client.post(_registration_url(season), {"action": "withdraw"})
    answer = client.post(_registration_url(season), {"action": "register"})
    assert answer.status_code == 429
    html = answer.content.decode()
    assert expected in _messages(html)
    assert 'value="register"' in html  # the league page again, to try later
    assert not Registration.objects.filter(season=season).exists()


@pytest.mark.parametrize(
    ("language", "expected", "button"),
    [
        ("en", "You are suspended from this league: you cannot register.", "Register for"),
        (
            "fr",
            "Vous êtes suspendu de cette ligue\u00a0: vous ne pouvez pas vous inscrire.",
            "M’inscrire à cette saison",
        ),
    ],
)
def test_the_league_page_tells_a_suspended_player_instead_of_offering_to_register(
    language: str, expected: str, button: str
) -> None:
    """Before, a suspended player was offered the button, then refused on clicking it."""
    league = make_league()
    open_season(league)
    alice = make_player("alice")
    assert button in _client(alice, language).get(_league_url(league)).content.decode()
    Suspension.objects.create(player=alice, league=league, reason="abandons")
    html = _client(alice, language).get(_league_url(league)).content.decode()
    assert expected in html
    assert button not in html and 'value="register"' not in html
    other = _client(make_player("bob"), language).get(_league_url(league)).content.decode()
    assert 'value="register"' in other and expected not in other


# --- registration opens at its time; the lobby announces the seasons --------------------

OPENS = datetime.fromisoformat("2027-01-04T10:00:00+00:00")  # 11:00 in Paris, the site's zone


def _announced(league, *, opens=OPENS) -> Season:
    return Season.objects.create(
        league=league,
        number=1,
        state=Season.State.ANNOUNCED,
        registration_opens_at=opens,
        registration_closes_at=opens + timedelta(days=7),
        starts_at=opens + timedelta(days=7),
        ends_at=opens + timedelta(days=35),
    )


@pytest.mark.parametrize(
    ("language", "expected", "button"),
    [
        ("en", "Registration opens on Jan. 4, 2027, 11:00 AM.", "Register for this season"),
        ("fr", "Inscriptions ouvertes le 4 janvier 2027 11:00.", "M’inscrire à cette saison"),
    ],
)
def test_before_its_time_the_league_page_says_when_registration_opens(
    language: str, expected: str, button: str
) -> None:
    league = make_league()
    _announced(league)
    with time_machine.travel(OPENS - timedelta(minutes=1), tick=False):
        client = _client(make_player("alice"), language)  # logged in at that time
        html = client.get(_league_url(league)).content.decode()
    assert expected in html
    assert button not in html


def test_after_its_time_a_player_registers_though_beat_has_not_opened_the_season() -> None:
    league = make_league()
    season = _announced(league)
    with time_machine.travel(OPENS + timedelta(minutes=1), tick=False):
        client = _client(make_player("alice"))
        html = client.get(_league_url(league)).content.decode()
        assert "Register for this season" in html
        answer = client.post(_registration_url(season), {"action": "register"}, follow=True)
    assert "You are registered" in _messages(answer.content.decode())
    season.refresh_from_db()
    assert season.state == Season.State.REGISTRATION
    assert season.registrations.count() == 1


def _lobby(language: str = "en") -> str:
    return (
        Client(headers={"accept-language": language}).get(reverse("games:lobby")).content.decode()
    )


def test_the_lobby_announces_a_season_open_for_registration_with_a_link_to_its_league() -> None:
    league = make_league()
    open_season(league)
    html = _lobby()
    line = re.search(r'<section class="card league-announcements".*?</section>', html, re.S)
    assert line, "no announcement in the lobby"
    assert f'<a href="{_league_url(league)}">Ligue du lundi, season 1</a>' in line.group(0)
    assert "registration is open until" in line.group(0)
    french = _lobby("fr")
    assert "Ligue du lundi, saison 1</a>\u00a0: inscriptions ouvertes jusqu’au" in french


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "season 1</a> is announced: registration opens on Jan. 4, 2027, 11:00 AM."),
        ("fr", "saison 1</a> est annoncée\u00a0: inscriptions ouvertes le 4 janvier 2027 11:00."),
    ],
)
def test_the_lobby_announces_a_first_season_and_says_it_opens_once_its_time_has_come(
    language: str, expected: str
) -> None:
    league = make_league()
    _announced(league)
    with time_machine.travel(OPENS - timedelta(hours=1), tick=False):
        assert expected in _lobby(language)
    with time_machine.travel(OPENS, tick=False):
        # No one has opened it (beat has not run): the lobby reads the date all the same.
        html = _lobby("en")
    assert "season 1</a>: registration is open until" in html


def test_the_lobby_announces_nothing_without_a_season_to_register_for() -> None:
    league = make_league()
    running_season(make_players(4), league=league)
    inactive = make_league(slug="en-sommeil", name="Ligue en sommeil")
    inactive.active = False
    inactive.save()
    open_season(inactive)
    assert "league-announcements" not in _lobby()
