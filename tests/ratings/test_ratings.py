"""Ratings: OpenSkill Plackett–Luce per player and mode, updated as games end."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from openskill.models import PlackettLuce

from games import services as game_services
from games.models import Game, Seat
from ratings import services
from ratings.models import PROVISIONAL_GAMES, Rating, RatingChange
from tests.factories import make_player
from tests.ratings.conftest import BASE, finish, play_to_the_end, start_game


def rating(player, mode: str = "marque") -> Rating:
    return Rating.objects.get(player=player, mode=mode)


def stored(mode: str = "marque") -> dict[int, tuple[float, float, int]]:
    return {
        row.player_id: (row.mu, row.sigma, row.games) for row in Rating.objects.filter(mode=mode)
    }


def history(mode: str = "marque") -> list[tuple]:
    return list(
        RatingChange.objects.filter(mode=mode)
        .order_by("finished_at", "game_id", "player_id")
        .values_list(
            "game_id", "player_id", "rank", "mu_before", "sigma_before", "mu_after", "sigma_after"
        )
    )


def assert_matches_a_fresh_replay(mode: str = "marque") -> None:
    expected = services.fresh_ratings(mode)
    assert stored(mode).keys() == expected.keys()
    for player_id, (mu, sigma, games) in stored(mode).items():
        assert (mu, sigma, games) == pytest.approx(
            (expected[player_id].mu, expected[player_id].sigma, expected[player_id].games),
            rel=1e-12,
        )


# --- rating a game -------------------------------------------------------------------


def test_the_winner_of_a_real_game_rises_and_the_loser_falls(players) -> None:
    alice, bob = players[:2]
    game = play_to_the_end(start_game([alice, bob]), resign=[bob])
    assert game.status == Game.Status.FINISHED
    assert rating(alice).display > 1000 > rating(bob).display
    assert (rating(alice).games, rating(bob).games) == (1, 1)
    change = RatingChange.objects.get(game=game, player=alice)
    assert (change.rank, change.players, change.display_before) == (1, 2, 1000)
    assert change.display_after == rating(alice).display and change.delta > 0


def test_the_update_is_openskills_plackett_luce_with_the_seats_ranks(players) -> None:
    alice, bob, carol, dave = players[:4]
    finish([(alice, 30, 2), (bob, 55, 1), (carol, -12, 4), (dave, 0, 3)])
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[2, 1, 4, 3])
    for player, team in zip((alice, bob, carol, dave), expected, strict=True):
        assert rating(player).mu == pytest.approx(team[0].mu)
        assert rating(player).sigma == pytest.approx(team[0].sigma)
        assert rating(player).ordinal == pytest.approx(team[0].ordinal())
    ordered = Rating.objects.filter(mode="marque").order_by("-ordinal")
    assert [r.player for r in ordered] == [bob, alice, dave, carol]


def test_shared_winners_are_rated_equally(players) -> None:
    alice, bob, carol = players[:3]
    finish([(alice, 40, 1), (bob, 40, 1), (carol, 10, 3)])
    assert rating(alice).mu == pytest.approx(rating(bob).mu)
    assert rating(alice).sigma == pytest.approx(rating(bob).sigma)
    assert rating(alice).mu > 25 > rating(carol).mu


def test_negative_scores_rate_by_rank_not_by_points(players) -> None:
    alice, bob = players[:2]
    finish([(alice, -5, 1), (bob, -30, 2)])
    assert rating(alice).ordinal > rating(bob).ordinal


def test_a_resigned_player_ranks_and_rates_below_everyone_who_finished(players) -> None:
    alice, bob, carol = players[:3]
    game = play_to_the_end(start_game([alice, bob, carol]), resign=[carol])
    assert game.end == Game.End.BLOCKED
    resigned = game.seats.get(player=carol)
    assert resigned.status == Seat.Status.RESIGNED and resigned.rank == 3
    assert rating(carol).mu < min(rating(alice).mu, rating(bob).mu)
    assert RatingChange.objects.get(game=game, player=carol).rank == 3


def test_each_mode_has_its_own_rating(players) -> None:
    alice, bob = players[:2]
    finish([(alice, 0, 1), (bob, 0, 2)], mode="sans-marque")
    assert rating(alice, "sans-marque").display > 1000
    assert not Rating.objects.filter(mode="marque").exists()


def test_eight_players_of_a_sans_marque_game_are_rated(players) -> None:
    table = [*players, *(make_player(f"p{i}") for i in range(3))]
    finish([(player, 0, i + 1) for i, player in enumerate(table)], mode="sans-marque")
    ordinals = [rating(player, "sans-marque").ordinal for player in table]
    assert ordinals == sorted(ordinals, reverse=True)


def test_only_finished_games_are_rated(players) -> None:
    alice, bob = players[:2]
    game = start_game([alice, bob])
    assert not services.is_rated(game)
    game.status = Game.Status.ANNULLED
    assert not services.is_rated(game)
    game_services.game_resign(game_id=game.pk, player=bob)
    game.refresh_from_db()
    assert services.is_rated(game)


def test_rating_the_same_game_twice_changes_nothing(players) -> None:
    alice, bob = players[:2]
    game = finish([(alice, 10, 1), (bob, 0, 2)])
    before = stored(), history()
    services.rating_record_game(game=game)
    assert (stored(), history()) == before


def test_a_new_player_is_provisional_for_their_first_games(players) -> None:
    alice, bob = players[:2]
    for day in range(PROVISIONAL_GAMES):
        finish([(alice, 10, 1), (bob, 0, 2)], when=BASE + timedelta(days=day))
        assert rating(alice).is_provisional == (day + 1 < PROVISIONAL_GAMES)
    assert not rating(bob).is_provisional


def test_a_game_that_finished_before_one_already_rated_is_rated_in_its_place(players) -> None:
    alice, bob, carol = players[:3]
    finish([(alice, 10, 1), (bob, 0, 2)], when=BASE + timedelta(days=2))
    finish([(bob, 10, 1), (carol, 0, 2)], when=BASE + timedelta(days=3))
    # Committed last, finished first: bob's later games must be re-rated after it.
    finish([(carol, 10, 1), (bob, 0, 2)], when=BASE + timedelta(days=1))
    assert_matches_a_fresh_replay()
    order = list(
        RatingChange.objects.filter(player=bob).order_by("finished_at").values_list("games_after")
    )
    assert order == [(1,), (2,), (3,)]


# --- annulment --------------------------------------------------------------------------


def a_season(players) -> list[Game]:
    """Ten games of 2, 3 and 4 players with shared wins, negative scores, a resignation."""
    alice, bob, carol, dave, erin = players
    tables = [
        [(alice, 30, 1), (bob, 10, 2)],
        [(bob, 25, 1), (carol, 25, 1), (dave, -4, 3)],
        [(alice, 12, 2), (carol, 40, 1), (dave, 5, 3), (erin, -20, 4)],
        [(erin, 15, 1), (alice, 15, 1)],
        [(dave, 60, 1), (bob, -10, 2), (erin, 30, 3)],
        [(carol, 5, 1), (erin, 0, 2)],
        [(alice, -3, 1), (bob, -9, 2), (carol, -9, 2), (dave, -40, 4)],
        [(bob, 33, 1), (alice, 20, 2)],
        [(erin, 22, 1), (dave, 21, 2), (carol, 3, 3)],
        [(dave, 8, 1), (alice, 7, 2)],
    ]
    return [
        finish(table, when=BASE + timedelta(days=day), left=[erin] if day == 4 else [])
        for day, table in enumerate(tables)
    ]


def test_the_stored_ratings_are_a_replay_of_the_games(players) -> None:
    a_season(players)
    assert_matches_a_fresh_replay()
    call_command("ratings_recompute", "--check", "--mode", "marque")


def test_annulling_a_game_recomputes_the_ratings_as_if_it_had_never_been_played(
    players, staff
) -> None:
    games = a_season(players)
    game_services.game_annul(game_id=games[3].pk, by=staff, reason="Comptes jumeaux")
    assert not RatingChange.objects.filter(game=games[3]).exists()
    assert_matches_a_fresh_replay()
    # Rewinding from the annulled game gives what a replay from scratch gives,
    # history included.
    partial = stored(), history()
    services.ratings_recompute(mode="marque")
    assert (stored(), history()) == partial  # same operations in the same order: same floats
    assert len({row[0] for row in history()}) == 9


def test_annulling_the_only_game_of_a_player_takes_their_rating_away(players, staff) -> None:
    alice, bob, carol = players[:3]
    finish([(alice, 10, 1), (bob, 0, 2)], when=BASE)
    game = finish([(carol, 10, 1), (alice, 0, 2)], when=BASE + timedelta(days=1))
    game_services.game_annul(game_id=game.pk, by=staff, reason="Triche")
    assert not Rating.objects.filter(player=carol).exists()
    assert rating(alice).games == 1
    assert_matches_a_fresh_replay()


def test_annulling_a_running_game_changes_no_rating(players, staff) -> None:
    alice, bob = players[:2]
    finish([(alice, 10, 1), (bob, 0, 2)])
    before = stored(), history()
    game = start_game([alice, bob])
    game_services.game_annul(game_id=game.pk, by=staff, reason="Erreur")
    assert (stored(), history()) == before


def test_the_check_command_fails_when_a_stored_rating_is_wrong(players) -> None:
    alice, bob = players[:2]
    finish([(alice, 10, 1), (bob, 0, 2)])
    Rating.objects.filter(player=alice).update(mu=40.0)
    with pytest.raises(CommandError):
        call_command("ratings_recompute", "--check", "--mode", "marque")
    call_command("ratings_recompute", "--mode", "marque")
    call_command("ratings_recompute", "--check")
