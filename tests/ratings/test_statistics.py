"""Statistics of finished avec-marque games, aggregated by the database."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from accounts.computers import computer_user
from accounts.models import User
from accounts.services import user_delete
from games import services as game_services
from games.models import Game, Seat
from ratings import selectors
from ratings.models import Rating
from ratings.selectors import StatsQuery
from tests.factories import make_player
from tests.ratings.conftest import BASE, finish, start_game


@pytest.fixture
def season(players) -> dict[str, Game]:
    """Five avec-marque games (2, 3 and 4 players), plus games that must not count."""
    alice, bob, carol, dave, erin = players
    day = timedelta(days=1)
    games = {
        "duel": finish([(alice, 30, 1), (bob, 10, 2)], when=BASE),
        "shared": finish([(bob, 25, 1), (carol, 25, 1), (alice, -4, 3)], when=BASE + day),
        # dave resigned with the most points: he still ranks last (R-END-4).
        "four": finish(
            [(alice, 12, 2), (carol, 40, 1), (dave, 45, 4), (erin, -20, 3)],
            when=BASE + 2 * day,
            left=[dave],
        ),
        "tie": finish([(erin, 15, 1), (alice, 15, 1)], when=BASE + 3 * day),
        "negative": finish([(alice, -3, 1), (bob, -9, 2)], when=BASE + 4 * day),
        "sans-marque": finish([(bob, 0, 1), (alice, 0, 2)], mode="sans-marque"),
    }
    annulled = finish([(bob, 99, 1), (alice, 0, 2)], when=BASE + 5 * day)
    annulled.status = Game.Status.ANNULLED
    annulled.save(update_fields=["status"])
    start_game([carol, dave])  # running: not counted
    return games


def board(**query) -> list[tuple]:
    query.setdefault("min_games", 1)
    return [
        # The leaderboard's figures are annotate()d onto each User: unknown to the stubs.
        (user.username, user.games, user.wins, user.win_rate, user.best, user.average, user.total)  # type: ignore[attr-defined]
        for user in selectors.marque_leaderboard(StatsQuery(**query))
    ]


def names(**query) -> list[str]:
    return [row[0] for row in board(**query)]


def test_each_player_gets_games_wins_win_rate_best_average_and_total(season) -> None:
    rows = {row[0]: row[1:] for row in board()}
    assert rows["alice"] == pytest.approx((5, 3, 0.6, 30, 10.0, 50))
    assert rows["bob"] == pytest.approx((3, 1, 1 / 3, 25, 26 / 3, 26))
    assert rows["carol"] == pytest.approx((2, 2, 1.0, 40, 32.5, 65))
    assert rows["dave"] == pytest.approx((1, 0, 0.0, 45, 45.0, 45))
    assert rows["erin"] == pytest.approx((2, 1, 0.5, 15, -2.5, -5))


def test_a_shared_win_counts_as_a_win_for_each_winner(season) -> None:
    rows = {row[0]: row for row in board()}
    assert rows["bob"][2] == 1 and rows["carol"][2] == 2  # "shared" won by both


def test_sans_marque_running_and_annulled_games_do_not_count(season) -> None:
    rows = {row[0]: row for row in board()}
    assert rows["bob"][1] == 3 and rows["bob"][4] == 25  # not the annulled 99


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("victoires", ["alice", "carol", "erin", "bob", "dave"]),
        ("parties", ["alice", "bob", "carol", "erin", "dave"]),
        ("taux", ["carol", "alice", "erin", "bob", "dave"]),
        ("moyenne", ["dave", "carol", "alice", "bob", "erin"]),
        ("meilleur", ["dave", "carol", "alice", "bob", "erin"]),
        ("total", ["carol", "alice", "dave", "bob", "erin"]),
    ],
)
def test_the_leaderboard_sorts_by_each_column(season, sort, expected) -> None:
    assert names(sort=sort) == expected


def test_players_with_equal_statistics_are_ordered_by_username(db) -> None:
    yves, ana = make_player("yves"), make_player("ana")
    finish([(yves, 10, 1), (ana, 10, 1)])
    for sort in selectors.SORTS:
        assert names(sort=sort) == ["ana", "yves"]


def test_only_players_with_the_minimum_number_of_games_appear(season) -> None:
    assert names(min_games=3) == ["alice", "bob"]
    assert names(min_games=selectors.DEFAULT_MIN_GAMES) == names(min_games=3)
    assert names(min_games=6) == []


def test_the_table_size_filter_keeps_games_of_that_many_players(season) -> None:
    assert board(table_size=2)[0][:3] == ("alice", 3, 3)
    assert names(table_size=3) == ["bob", "carol", "alice"]
    assert sorted(names(table_size=4)) == ["alice", "carol", "dave", "erin"]


def test_the_period_filter_counts_games_finished_in_it(players, time_machine) -> None:
    alice, bob = players[:2]
    paris = timezone.get_default_timezone()
    time_machine.move_to(datetime(2026, 6, 15, 12, tzinfo=paris), tick=False)
    finish([(alice, 10, 1), (bob, 0, 2)], when=datetime(2025, 12, 31, 23, 0, tzinfo=paris))
    finish([(alice, 10, 1), (bob, 0, 2)], when=datetime(2026, 1, 1, 0, 30, tzinfo=paris))
    finish([(bob, 10, 1), (alice, 0, 2)], when=datetime(2026, 6, 1, tzinfo=paris))
    assert board(period="tout")[0][:3] == ("alice", 3, 2)
    assert board(period="annee")[0][:3] == ("alice", 2, 1)
    assert board(period="30-jours")[0][:3] == ("bob", 1, 1)


def test_a_player_who_deleted_their_account_leaves_the_leaderboard(season, players) -> None:
    user_delete(user=players[2])
    assert "carol" not in names() and len(names()) == 4


def test_a_deactivated_player_leaves_the_leaderboard_and_their_games_still_count(
    season, players
) -> None:
    carol = players[2]
    carol.is_active = False  # staff banned a cheater
    carol.save(update_fields=["is_active"])
    assert "carol" not in names() and len(names()) == 4
    assert {row[0]: row for row in board()}["bob"][1] == 3  # the game with carol still counts


def test_annulling_a_game_takes_it_out_of_the_statistics(season, players, staff) -> None:
    game_services.game_annul(game_id=season["duel"].pk, by=staff, reason="Comptes jumeaux")
    rows = {row[0]: row[1:] for row in board()}
    assert rows["alice"][:2] == (4, 2)
    assert rows["bob"][:2] == (2, 1)


def test_a_players_place_is_computed_in_the_database(season, players) -> None:
    query = StatsQuery(sort="taux", min_games=1)
    rows = selectors.marque_leaderboard(query)
    places = {p.username: selectors.place_of(rows, query.order, p.pk) for p in players}
    assert places == {"carol": 1, "alice": 2, "erin": 3, "bob": 4, "dave": 5}
    assert selectors.place_of(rows, query.order, make_player("zed").pk) is None


def test_the_player_statistics_are_split_by_mode(season, players) -> None:
    alice = players[0]
    stats = {row.mode: row.all_games for row in selectors.player_statistics(alice)}
    assert (stats["marque"].games, stats["marque"].wins, stats["marque"].total) == (5, 3, 50)
    assert (stats["sans-marque"].games, stats["sans-marque"].wins) == (1, 0)


def test_the_head_to_head_record_counts_only_games_both_played(season, players) -> None:
    alice, bob, carol = players[:3]
    record = selectors.head_to_head(alice, bob)
    marque = record.modes[0]
    assert marque.mode == "marque"
    # duel, shared, negative: alice won duel and negative, bob won shared.
    assert (marque.games, marque.player_wins, marque.viewer_wins) == (3, 2, 1)
    assert (marque.player_ahead, marque.viewer_ahead) == (2, 1)
    assert record.games == 4  # and one sans-marque game
    # In "four", carol's win over alice is not erin's: the other seats don't count.
    versus_erin = selectors.head_to_head(carol, players[4]).modes[0]
    assert (versus_erin.games, versus_erin.player_wins, versus_erin.viewer_wins) == (1, 1, 0)


# --- rated games apart from all games -----------------------------------------------------


@pytest.fixture
def mixed(players) -> list[Game]:
    """alice's games in both modes: rated ones against people, friendly ones, and
    unrated ones against the computer (the games service leaves those unrated)."""
    alice, bob, carol = players[:3]
    computer = computer_user("debutant")
    day = timedelta(days=1)
    return [
        finish([(alice, 30, 1), (bob, 10, 2)], when=BASE),
        finish([(bob, 25, 1), (alice, 5, 2), (carol, 0, 3)], when=BASE + day),
        finish([(alice, 80, 1), (computer, 10, 2)], when=BASE + 2 * day, rated=False),
        finish([(computer, 90, 1), (alice, 70, 2)], when=BASE + 3 * day, rated=False),
        finish([(alice, 60, 1), (bob, 50, 2)], when=BASE + 4 * day, rated=False),  # friendly
        finish([(alice, 0, 1), (bob, 0, 2)], mode="sans-marque", when=BASE + 5 * day),
        finish(
            [(computer, 0, 1), (alice, 0, 2)],
            mode="sans-marque",
            when=BASE + 6 * day,
            rated=False,
        ),
    ]


def seats_of(player: User, games: list[Game], mode: str, keep=lambda game: True) -> list[Seat]:
    return [game.seats.get(player=player) for game in games if game.mode == mode and keep(game)]


def against_computer(game: Game) -> bool:
    return any(seat.player.is_computer for seat in game.seats.all())


def figures_of(seats: list[Seat]) -> tuple:
    """What the page should say about ``seats``, added up here rather than by the database."""
    scores = [seat.score for seat in seats]
    return (
        len(seats),
        sum(seat.is_winner for seat in seats),
        max(scores),
        sum(scores) / len(scores),
        sum(scores),
    )


def as_tuple(figures: selectors.Figures) -> tuple:
    return (figures.games, figures.wins, figures.best, figures.average, figures.total)


def test_the_rated_figures_count_only_rated_games_and_the_others_count_all(mixed, players) -> None:
    alice = players[0]
    stats = {row.mode: row for row in selectors.player_statistics(alice)}
    for mode in ("marque", "sans-marque"):
        rated = seats_of(alice, mixed, mode, lambda game: game.rated)
        every = seats_of(alice, mixed, mode)
        assert len(rated) < len(every), "the fixture mixes rated and unrated games"
        assert as_tuple(stats[mode].rated) == pytest.approx(figures_of(rated))
        assert as_tuple(stats[mode].all_games) == pytest.approx(figures_of(every))
        assert stats[mode].computer_games == len(seats_of(alice, mixed, mode, against_computer))
        # The rated figures describe the same games as the rating beside them.
        assert stats[mode].rated.games == Rating.objects.get(player=alice, mode=mode).games


def test_unrated_games_against_people_or_the_computer_stay_off_the_leaderboard(
    mixed, players
) -> None:
    alice = players[0]
    rows = {row[0]: row[1:] for row in board()}
    rated = seats_of(alice, mixed, "marque", lambda game: game.rated)
    games, wins, best, average, total = figures_of(rated)
    assert rows["alice"] == pytest.approx((games, wins, wins / games, best, average, total))
    assert not any(name.startswith("ordinateur-") for name in rows)
