"""The leaderboard pages and the player page, as a visitor sees them."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from accounts.computers import computer_user
from accounts.models import User
from games.models import Game, Seat
from ratings import views
from tests.factories import PASSWORD
from tests.ratings.conftest import BASE, finish, player

LEADERBOARD = "/classement/"


def html_of(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


def row_names(html: str) -> list[str]:
    return re.findall(r'<th scope="row" class="player"><a href="/joueurs/([^/]+)/">', html)


def my_row(html: str) -> str:
    rows = re.findall(r"<tr[^>]*aria-current=\"true\"[^>]*>.*?</tr>", html, flags=re.S)
    assert len(rows) == 1
    return rows[0]


def login(client: Client, user: User) -> None:
    assert client.login(username=user.username, password=PASSWORD)


@pytest.fixture
def ladder(db) -> list[User]:
    """Seven players p0…p6 in 42 two-player games: the higher the number, the more wins."""
    field = [player(f"p{i}") for i in range(7)]
    day = 0
    for i, one in enumerate(field):
        for game in range(6):
            other = field[(i + 1 + game) % 7]
            won = game < i
            day += 1
            finish(
                [(one, 10 if won else 0, 1 if won else 2), (other, 5, 2 if won else 1)],
                when=BASE + timedelta(hours=day),
            )
    return field


def test_the_leaderboard_is_in_the_navigation(client: Client, db) -> None:
    assert f'href="{LEADERBOARD}"' in html_of(client.get("/parties/"))


def test_the_leaderboard_shows_players_best_first(client: Client, players) -> None:
    alice, bob, carol = players[:3]
    for _ in range(3):
        finish([(alice, 20, 1), (bob, 5, 2), (carol, -2, 3)])
    html = html_of(client.get(LEADERBOARD, {"tri": "total"}))
    assert row_names(html) == ["alice", "bob", "carol"]
    assert 'aria-sort="descending"' in html and "?tri=parties" in html
    assert 'aria-current="true"' not in html, "nobody is signed in"


def test_an_unknown_sort_or_filter_falls_back_to_the_defaults(client: Client, players) -> None:
    alice, bob = players[:2]
    for _ in range(3):
        finish([(bob, 20, 1), (alice, 5, 2)])
    html = html_of(client.get(LEADERBOARD, {"tri": "bogus", "periode": "x", "min": "-4"}))
    assert row_names(html) == ["bob", "alice"]


def test_the_signed_in_players_row_is_highlighted(client: Client, players) -> None:
    alice, bob = players[:2]
    for _ in range(3):
        finish([(alice, 20, 1), (bob, 5, 2)])
    login(client, bob)
    html = html_of(client.get(LEADERBOARD))
    assert "/joueurs/bob/" in my_row(html) and 'id="ma-place"' in my_row(html)
    assert "You are number 2." in html


def test_the_leaderboard_is_paged_and_my_place_links_to_my_page(
    client: Client, ladder, monkeypatch
) -> None:
    monkeypatch.setattr(views, "PER_PAGE", 3)
    login(client, ladder[1])  # one win: sixth of seven
    first = html_of(client.get(LEADERBOARD, {"min": 1}))
    assert row_names(first) == ["p6", "p5", "p4"]
    assert 'aria-current="true"' not in first
    assert 'href="?min=1&amp;page=2#ma-place"' in first
    second = html_of(client.get(LEADERBOARD, {"min": 1, "page": 2}))
    assert row_names(second) == ["p3", "p2", "p1"]
    assert "/joueurs/p1/" in my_row(second)
    assert ">4</td>" in second, "places go on from the previous page"
    assert "Page 2 of 3" in second
    assert 'rel="next" href="?min=1&amp;page=3"' in second
    assert row_names(html_of(client.get(LEADERBOARD, {"min": 1, "page": 99}))) == ["p0"]


def test_a_player_without_enough_games_is_told_how_to_appear(client: Client, players) -> None:
    alice, bob, carol = players[:3]
    for _ in range(3):
        finish([(alice, 20, 1), (bob, 5, 2)])
    finish([(carol, 20, 1), (alice, 5, 2)])
    login(client, carol)
    html = html_of(client.get(LEADERBOARD))
    assert "Finish at least 3 rated avec marque games" in html
    assert "carol" not in row_names(html)
    assert "carol" in row_names(html_of(client.get(LEADERBOARD, {"min": 1})))


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("en", "Finished rated avec marque games"),
        ("fr", "Parties avec marque classées et terminées"),
    ],
)
def test_the_leaderboard_says_it_counts_rated_games_only(
    client: Client, players, language, says
) -> None:
    html = html_of(client.get(LEADERBOARD, HTTP_ACCEPT_LANGUAGE=language))
    assert says in html


def test_htmx_gets_only_the_table(client: Client, players) -> None:
    alice, bob = players[:2]
    for _ in range(3):
        finish([(alice, 20, 1), (bob, 5, 2)])
    html = html_of(client.get(LEADERBOARD, {"tri": "total"}, HTTP_HX_REQUEST="true"))
    assert html.lstrip().startswith('<div id="leaderboard"')
    assert "<html" not in html and row_names(html) == ["alice", "bob"]
    assert 'name="tri" value="total"' in html
    history = client.get(
        LEADERBOARD, HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true"
    )
    assert "<html" in html_of(history)


def test_the_filters_change_the_rows(client: Client, players) -> None:
    alice, bob, carol = players[:3]
    for _ in range(3):
        finish([(alice, 20, 1), (bob, 5, 2)])
        finish([(carol, 20, 1), (bob, 5, 2), (alice, 0, 3)])
    assert row_names(html_of(client.get(LEADERBOARD, {"joueurs": 2}))) == ["alice", "bob"]
    three = html_of(client.get(LEADERBOARD, {"joueurs": 3}))
    assert row_names(three) == ["carol", "alice", "bob"]  # equal records: by username
    finish([(bob, 20, 1), (carol, 5, 2)], when=BASE)  # long ago
    recent = html_of(client.get(LEADERBOARD, {"periode": "30-jours", "tri": "parties"}))
    assert row_names(recent) == ["alice", "bob", "carol"]
    assert row_names(html_of(client.get(LEADERBOARD, {"tri": "parties"}))) == [
        "bob",
        "alice",
        "carol",
    ]


# --- the rating leaderboards -----------------------------------------------------------


def test_the_rating_board_hides_provisional_ratings_unless_asked(client: Client, players) -> None:
    alice, bob, carol = players[:3]
    for _ in range(5):
        finish([(alice, 20, 1), (bob, 5, 2)])
    finish([(carol, 20, 1), (alice, 5, 2)])
    url = reverse("ratings:ratings", args=["marque"])
    assert row_names(html_of(client.get(url))) == ["alice", "bob"]
    everyone = html_of(client.get(url, {"provisoires": "on"}))
    assert set(row_names(everyone)) == {"alice", "bob", "carol"}
    assert everyone.count(">provisional<") == 1  # carol


def test_the_rating_board_orders_by_rating_and_finds_my_place(client: Client, ladder) -> None:
    login(client, ladder[3])
    html = html_of(client.get(reverse("ratings:ratings", args=["marque"])))
    assert row_names(html)[0] == "p6" and row_names(html)[-1] == "p0"
    assert "/joueurs/p3/" in my_row(html)


def test_a_deactivated_player_is_left_off_the_rating_board(client: Client, ladder) -> None:
    banned = ladder[6]  # the best of the ladder, banned for cheating
    banned.is_active = False
    banned.save(update_fields=["is_active"])
    login(client, ladder[3])
    html = html_of(client.get(reverse("ratings:ratings", args=["marque"])))
    assert "p6" not in row_names(html) and row_names(html)[0] == "p5"
    assert "/joueurs/p3/" in my_row(html)
    assert "p6" not in row_names(html_of(client.get(LEADERBOARD, {"min": 1})))


def test_an_unknown_mode_has_no_rating_board(client: Client, db) -> None:
    assert client.get("/classement/niveau/scrabble/").status_code == 404


# --- the player page ------------------------------------------------------------------------


def test_the_player_page_shows_ratings_statistics_and_the_chart(client: Client, players) -> None:
    alice, bob, carol = players[:3]
    finish([(alice, 30, 1), (bob, 10, 2), (carol, -5, 3)], when=BASE)
    finish([(bob, 20, 1), (alice, 20, 1)], when=BASE + timedelta(days=1))
    finish([(alice, 0, 1), (bob, 0, 2)], mode="sans-marque", when=BASE + timedelta(days=2))
    html = html_of(client.get(alice.get_absolute_url()))
    assert html.count('class="card mode-panel"') == 2
    assert html.count('<svg width="400" height="200" viewBox="0 0 400 200" role="img"') == 2
    assert "Rating history · Avec marque" in html and "over 2 rated games" in html
    assert groups(html, "marque")["All games"]["Total"] == "50"
    assert html.count(">provisional<") == 2
    assert "rank 1 of 3" in html  # the recent games list
    assert "You and" not in html, "no head-to-head for an anonymous visitor"


def groups(html: str, mode: str) -> dict[str, dict[str, str]]:
    """The figures of a mode's panel, by group heading, then by label."""
    panel = re.search(
        rf'<article class="card mode-panel" aria-labelledby="mode-{mode}-title">(.*?)</article>',
        html,
        flags=re.S,
    )
    assert panel is not None
    return {
        heading: dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", body))
        for heading, body in re.findall(r"<h4>(.*?)</h4>(.*?)(?=<h4>|$)", panel.group(1), re.S)
    }


@pytest.fixture
def mixed(players) -> list[Game]:
    """alice's games: rated against people, friendly, and unrated against the computer."""
    alice, bob = players[:2]
    computer = computer_user("debutant")
    return [
        finish([(alice, 30, 1), (bob, 10, 2)], when=BASE),
        finish([(bob, 25, 1), (alice, 5, 2)], when=BASE + timedelta(days=1)),
        finish([(alice, 80, 1), (computer, 10, 2)], when=BASE + timedelta(days=2), rated=False),
        finish([(alice, 61, 1), (bob, 50, 2)], when=BASE + timedelta(days=3), rated=False),
        finish([(computer, 0, 1), (alice, 0, 2)], mode="sans-marque", rated=False),
    ]


def alices_seats(games: list[Game], mode: str, *, rated_only: bool) -> list[Seat]:
    return [
        game.seats.get(player__username="alice")
        for game in games
        if game.mode == mode and (game.rated or not rated_only)
    ]


@pytest.mark.parametrize(
    ("language", "labels"),
    [
        (
            "en",
            (
                "Rated games",
                "All games",
                "Games",
                "Wins",
                "Total",
                "Against the computer",
                "unrated",
            ),
        ),
        (
            "fr",
            (
                "Parties classées",
                "Toutes les parties",
                "Parties",
                "Victoires",
                "Total",
                "Contre l’ordinateur",
                "non classée",
            ),
        ),
    ],
)
def test_the_player_page_says_which_figures_count_only_rated_games(
    client: Client, mixed, language, labels
) -> None:
    rated_title, all_title, games, wins, total, computer, unrated = labels
    alice = User.objects.get(username="alice")
    html = html_of(client.get(alice.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language))
    marque = groups(html, "marque")
    assert list(marque) == [rated_title, all_title]
    for title, rated_only in ((rated_title, True), (all_title, False)):
        seats = alices_seats(mixed, "marque", rated_only=rated_only)
        shown = marque[title]
        assert shown[games] == str(len(seats))
        assert shown[wins] == str(sum(seat.is_winner for seat in seats))
        assert shown[total] == str(sum(seat.score for seat in seats))
    computer_games = [
        game
        for game in mixed
        if game.mode == "marque" and any(seat.player.is_computer for seat in game.seats.all())
    ]
    assert marque[all_title][computer] == str(len(computer_games))
    assert computer not in marque[rated_title]
    # Sans marque: only a game against the computer, so nothing rated to show.
    sans_marque = groups(html, "sans-marque")
    assert sans_marque[rated_title] == {}
    assert sans_marque[all_title][games] == str(
        len(alices_seats(mixed, "sans-marque", rated_only=False))
    )
    # The list of games says which ones were unrated.
    listed = re.search(r'<section class="player-games".*?</section>', html, flags=re.S)
    assert listed is not None
    items = re.findall(r"<li>(.*?)</li>", listed.group(0), flags=re.S)
    assert len(items) == len(mixed)
    assert sum(unrated in item for item in items) == sum(not game.rated for game in mixed)


def test_the_chart_coordinates_stay_numbers_in_french(client: Client, players) -> None:
    alice, bob = players[:2]
    finish([(alice, 30, 1), (bob, 10, 2)])
    html = html_of(client.get(alice.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="fr"))
    found = re.search(r'<polyline class="line" points="([^"]+)"', html)
    assert found is not None
    points = found.group(1)
    assert re.fullmatch(r"[\d.]+,[\d.]+( [\d.]+,[\d.]+)*", points)


def test_the_player_page_shows_the_viewers_head_to_head(client: Client, players) -> None:
    alice, bob, carol = players[:3]
    finish([(alice, 30, 1), (bob, 10, 2), (carol, -5, 3)])
    finish([(carol, 30, 1), (bob, 10, 2)])
    login(client, bob)
    html = html_of(client.get(alice.get_absolute_url()))
    assert "You and alice" in html
    assert re.search(r"Avec marque</th>\s*<td class=\"num\">1</td>", html)
    assert "You and" not in html_of(client.get(bob.get_absolute_url())), "not against oneself"
    login(client, player("newbie"))
    assert "You have not finished a game with alice yet." in html_of(
        client.get(alice.get_absolute_url())
    )


def test_a_player_with_no_game_has_an_empty_panel(client: Client, players) -> None:
    html = html_of(client.get(players[0].get_absolute_url()))
    assert "No finished game yet." in html and "<svg" not in html


def test_staff_can_read_ratings_in_the_admin_but_not_change_them(client: Client, players) -> None:
    alice, bob = players[:2]
    finish([(alice, 30, 1), (bob, 10, 2)])
    admin = player("root", is_staff=True, is_superuser=True)
    login(client, admin)
    assert "alice" in html_of(client.get("/admin/ratings/rating/"))
    assert "alice" in html_of(client.get("/admin/ratings/ratingchange/"))
    assert client.get("/admin/ratings/rating/add/").status_code == 403
