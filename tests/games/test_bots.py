"""Computer players take seats and play through the services, seeing only their own seat."""

from __future__ import annotations

import random
from datetime import timedelta
from itertools import pairwise

import pytest
from django.conf import settings
from django.core import mail
from django.utils import timezone

import rules
from accounts.models import User
from games import audit, bridge, computer, deadlines, selectors, services, tasks
from games.errors import GameError
from games.models import Game, Move, Seat
from notifications.models import Notification
from ratings.models import Rating, RatingChange
from rules.strategy import choose_move
from tests.factories import make_player
from tests.games.conftest import snapshot

pytestmark = pytest.mark.django_db


def bot_seat(game: Game) -> Seat:
    return game.seats.select_related("player").get(player__bot_level__gt="")


def person_moves(game: Game, person: User, committed, rng: random.Random, limit: int = 400) -> Game:
    """The person plays (a beginner's move from their own view) until the game ends.

    Each of their moves must find the turn theirs: the computer answered at once.
    """
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        seat = game.seats.get(player=person)
        assert game.to_move_id == seat.pk, "the computer player did not answer"
        seen = rules.view(bridge.state_of(game), seat.position)
        with committed():
            services.move_submit(
                game_id=game.pk,
                player=person,
                version=game.move_count,
                move=choose_move(seen, "debutant", rng),
            )
    game.refresh_from_db()
    return game


def computer_to_move(alice: User, *, mode: str = "marque", level: str = "debutant") -> Game:
    """A game against the computer where the computer is to move and its task has not run."""
    game = services.game_against_computer(player=alice, mode=mode, level=level)
    assert game.to_move is not None
    if game.to_move.player == alice:
        seen = rules.view(bridge.state_of(game), game.to_move.position)
        services.move_submit(
            game_id=game.pk,
            player=alice,
            version=game.move_count,
            move=choose_move(seen, "debutant", random.Random(1)),
        )
        game.refresh_from_db()
    assert game.to_move is not None
    assert game.to_move.player.is_computer
    return game


# --- one click, and a whole game --------------------------------------------------------


@pytest.mark.parametrize("mode", ["marque", "sans-marque"])
def test_a_person_plays_a_whole_game_against_the_computer_started_in_one_click(
    alice, committed, mode
) -> None:
    with committed():
        game = services.game_against_computer(player=alice, mode=mode, level="debutant")
    assert game.status == Game.Status.RUNNING and not game.rated
    assert game.seats.count() == 2
    bot = bot_seat(game)
    game = person_moves(game, alice, committed, random.Random(7))

    assert game.status == Game.Status.FINISHED
    by_bot = game.moves.filter(seat=bot)
    assert by_bot.filter(kind__in=[Move.Kind.PLACE, Move.Kind.EXCHANGE, Move.Kind.PASS]).exists()
    # Every move replays through the engine to the stored state: each was legal.
    assert audit.game_check(game) == []
    # The computer played in turn: never twice in a row while the person was in the game.
    seats = list(game.moves.order_by("number").values_list("seat_id", flat=True))
    assert all(a != b for a, b in pairwise(seats))
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_the_computer_plays_through_move_submit(alice, monkeypatch) -> None:
    game = computer_to_move(alice)
    calls = []
    submit = services.move_submit

    def spy(**kwargs):
        calls.append(kwargs)
        return submit(**kwargs)

    monkeypatch.setattr(services, "move_submit", spy)
    assert tasks.computer_move(game.pk, game.move_count) is True
    assert [call["player"] for call in calls] == [bot_seat(game).player]
    assert calls[0]["version"] == game.move_count
    last = game.moves.order_by("-number").first()
    assert last is not None
    assert last.seat == bot_seat(game) and last.number == game.move_count + 1


def test_running_the_computer_players_task_twice_plays_once(alice) -> None:
    game = computer_to_move(alice, mode="sans-marque")
    version = game.move_count
    assert tasks.computer_move(game.pk, version) is True
    assert tasks.computer_move(game.pk, version) is False
    assert game.moves.filter(seat=bot_seat(game)).count() == 1


def test_a_computer_players_task_for_another_version_does_nothing(alice) -> None:
    game = computer_to_move(alice)
    before = snapshot(game)
    assert tasks.computer_move(game.pk, game.move_count - 1) is False
    assert tasks.computer_move(game.pk, game.move_count + 1) is False
    assert snapshot(game) == before


def test_a_computer_players_task_on_a_persons_turn_does_nothing(alice, committed) -> None:
    with committed():
        game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    game.refresh_from_db()
    assert game.to_move is not None
    assert game.to_move.player == alice
    before = snapshot(game)
    assert tasks.computer_move(game.pk, game.move_count) is False
    assert snapshot(game) == before


def test_the_computer_sees_only_what_a_person_in_its_seat_would(alice, monkeypatch) -> None:
    game = computer_to_move(alice, mode="sans-marque")
    seen = []

    def capture(view, level, rng, *, limit=None):
        seen.append((view, limit))
        return choose_move(view, level, rng, limit=limit)

    monkeypatch.setattr(computer, "choose_move", capture)
    bot = bot_seat(game)
    reserve = len(bridge.state_of(game).reserve)
    tasks.computer_move(game.pk, game.move_count)
    ((view, limit),) = seen
    assert limit == settings.DIAMINO_SEARCH_SECONDS  # past it, the best move found so far
    assert isinstance(view, rules.PlayerView)
    assert view.viewer == bot.position
    assert view.hand is not None
    assert "".join(view.hand) == bot.hand
    assert view.hands is None  # nobody else's hand while the game runs
    assert not hasattr(view, "reserve")  # the reserve is a size only
    assert view.reserve_size == reserve


# --- seats for computer players -------------------------------------------------------


def test_the_creator_gives_seats_to_computer_players_and_the_game_starts_when_full(
    alice, committed
) -> None:
    game = services.game_create(creator=alice, mode="sans-marque", seats=3)
    first = services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN and not game.rated
    with committed():
        second = services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    # One seat per user and game: two beginners are two computer players.
    assert first.player != second.player
    assert {first.player.username, second.player.username} == {
        "ordinateur-debutant-1",
        "ordinateur-debutant-2",
    }
    assert all(seat.player.is_computer for seat in (first, second))
    # Whoever plays first, the computers have played up to the person's turn.
    assert game.to_move is not None
    assert game.to_move.player == alice
    assert str(first.player) in ("Ordinateur (débutant)", "Computer (beginner)")


def test_computer_players_are_reused_from_one_game_to_the_next(alice, bob) -> None:
    one = services.game_against_computer(player=alice, mode="marque", level="confirme")
    two = services.game_against_computer(player=bob, mode="marque", level="confirme")
    assert bot_seat(one).player == bot_seat(two).player
    assert User.objects.filter(bot_level="confirme").count() == 1


def test_a_computer_player_cannot_log_in_and_has_no_address(alice) -> None:
    bot = bot_seat(services.game_against_computer(player=alice, mode="marque", level="debutant"))
    assert not bot.player.has_usable_password()
    assert bot.player.email == ""


def test_the_creator_takes_a_computers_seat_back_and_the_table_is_rated_again(alice, bob) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=3)
    seat = services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    assert not Game.objects.get(pk=game.pk).rated
    services.game_unseat_computer(game_id=game.pk, by=alice, seat_id=seat.pk)
    game.refresh_from_db()
    assert list(game.seats.values_list("player__username", flat=True)) == ["alice"]
    assert game.status == Game.Status.OPEN and game.rated
    # The seat is free again: people take it, and the game starts when the table is full.
    services.game_join(game_id=game.pk, player=bob)
    services.game_join(game_id=game.pk, player=make_player("dora"))
    assert Game.objects.get(pk=game.pk).status == Game.Status.RUNNING


def test_a_table_stays_unrated_while_a_computer_sits_or_when_its_creator_chose_friendly(
    alice,
) -> None:
    game = services.game_create(creator=alice, mode="sans-marque", seats=4)
    first, second = (
        services.game_seat_computer(game_id=game.pk, by=alice, level=level)
        for level in ("debutant", "confirme")
    )
    services.game_unseat_computer(game_id=game.pk, by=alice, seat_id=first.pk)
    assert not Game.objects.get(pk=game.pk).rated  # the other computer is still there
    friendly = services.game_create(creator=alice, mode="marque", seats=3, rated=False)
    seat = services.game_seat_computer(game_id=friendly.pk, by=alice, level="debutant")
    services.game_unseat_computer(game_id=friendly.pk, by=alice, seat_id=seat.pk)
    friendly.refresh_from_db()
    assert friendly.seats.count() == 1 and not friendly.rated
    assert Game.objects.get(pk=game.pk).seats.filter(pk=second.pk).exists()


@pytest.mark.parametrize("bob_joins", ["while a computer sits", "before the computer"])
def test_a_person_who_joined_an_unrated_table_does_not_end_up_in_a_rated_game(
    alice, bob, bob_joins
) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=4)
    if bob_joins == "before the computer":
        services.game_join(game_id=game.pk, player=bob)  # Bob sat at a rated table
    seat = services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    if bob_joins == "while a computer sits":
        services.game_join(game_id=game.pk, player=bob)  # the table said unrated, with hints
    services.game_unseat_computer(game_id=game.pk, by=alice, seat_id=seat.pk)
    services.game_start(game_id=game.pk, by=alice, rng=random.Random(1))
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    # Whatever the table showed when Bob sat down is what he plays.
    unrated = bob_joins == "while a computer sits"
    assert game.rated is not unrated
    hints = selectors.hints_left(game, game.seats.get(player=bob))
    assert (hints > 0) is unrated


@pytest.mark.parametrize(
    ("who", "whose_seat", "code", "status"),
    [
        ("seated player", "computer", "not-creator", 403),
        ("outsider", "computer", "not-creator", 403),
        ("creator", "person", "not-a-computer", 400),
        ("creator", "elsewhere", "no-seat", 404),
    ],
)
def test_only_the_creator_removes_only_a_computer_and_a_refusal_changes_nothing(
    alice, bob, outsider, who, whose_seat, code, status
) -> None:
    game = services.game_create(creator=alice, mode="sans-marque", seats=4)
    services.game_join(game_id=game.pk, player=bob)
    bot = services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    other_table = services.game_create(creator=outsider, mode="marque", seats=3)
    seat = {
        "computer": bot,
        "person": game.seats.get(player=bob),
        "elsewhere": services.game_seat_computer(
            game_id=other_table.pk, by=outsider, level="debutant"
        ),
    }[whose_seat]
    by = {"creator": alice, "seated player": bob, "outsider": outsider}[who]
    before = snapshot(game), snapshot(other_table)
    with pytest.raises(GameError) as error:
        services.game_unseat_computer(game_id=game.pk, by=by, seat_id=seat.pk)
    assert (error.value.code, error.value.status) == (code, status)
    assert (snapshot(game), snapshot(other_table)) == before


def test_once_the_game_has_started_the_computer_keeps_its_seat(alice, bob) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=3)
    services.game_join(game_id=game.pk, player=bob)
    seat = services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    before = snapshot(game)
    with pytest.raises(GameError) as error:
        services.game_unseat_computer(game_id=game.pk, by=alice, seat_id=seat.pk)
    assert (error.value.code, error.value.status) == ("not-open", 409)
    assert str(error.value.message) == "La partie a commencé\u00a0: l’ordinateur garde sa place."
    assert snapshot(game) == before


@pytest.mark.parametrize("who", ["seated player", "outsider"])
def test_only_the_creator_gives_a_seat_to_the_computer(alice, bob, outsider, who) -> None:
    game = services.game_create(creator=alice, mode="sans-marque", seats=4)
    services.game_join(game_id=game.pk, player=bob)
    before = snapshot(game)
    with pytest.raises(GameError) as error:
        services.game_seat_computer(
            game_id=game.pk, by=bob if who == "seated player" else outsider, level="debutant"
        )
    assert error.value.code == "not-creator"
    assert snapshot(game) == before
    assert Game.objects.get(pk=game.pk).rated


def test_a_started_table_takes_no_computer_player(alice, bob) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=2)
    services.game_join(game_id=game.pk, player=bob)
    before = snapshot(game)
    with pytest.raises(GameError) as error:
        services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    assert error.value.code == "not-open"
    assert snapshot(game) == before


def test_an_unknown_level_is_refused(alice) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=2)
    with pytest.raises(GameError) as error:
        services.game_seat_computer(game_id=game.pk, by=alice, level="grandmaster")
    assert error.value.code == "bad-level"
    with pytest.raises(GameError):
        services.game_against_computer(player=alice, mode="marque", level="grandmaster")
    assert Game.objects.count() == 1


def test_a_computer_player_cannot_be_invited(alice) -> None:
    bot = bot_seat(services.game_against_computer(player=alice, mode="marque", level="debutant"))
    table = services.game_create(creator=alice, mode="marque", seats=3)
    with pytest.raises(GameError) as error:
        services.game_invite(game_id=table.pk, by=alice, invitee=bot.player)
    assert error.value.code == "no-player"


# --- emails, clock, ratings -----------------------------------------------------------------


def test_computer_players_get_no_email_and_no_outbox_row(alice, committed) -> None:
    mail.outbox.clear()
    with committed():
        game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    game = person_moves(game, alice, committed, random.Random(3))
    assert game.status == Game.Status.FINISHED
    assert not Notification.objects.filter(recipient__bot_level__gt="").exists()
    # Alone against the computer: no "game started" nor "your turn" after each
    # reply, but the result comes by email.
    kinds = set(Notification.objects.filter(recipient=alice).values_list("kind", flat=True))
    assert kinds == {Notification.Kind.GAME_OVER}
    assert [m.to for m in mail.outbox] == [[alice.email]]


def test_a_computer_players_turn_never_times_out(alice) -> None:
    game = computer_to_move(alice)
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(days=30))
    before = snapshot(game)
    assert deadlines.apply_timeouts() == 0
    assert deadlines.write_reminders() == 0
    assert snapshot(game) == before


def test_a_person_resigning_while_the_computer_is_late_is_not_charged_its_time_out(
    alice, bob, committed
) -> None:
    game = services.game_create(creator=alice, mode="sans-marque", seats=3)
    services.game_join(game_id=game.pk, player=bob)
    services.game_seat_computer(game_id=game.pk, by=alice, level="debutant")
    game.refresh_from_db()
    bot = bot_seat(game)
    while game.to_move_id != bot.pk:  # persons play until the computer is to move
        seat = game.to_move
        assert seat is not None
        services.move_submit(
            game_id=game.pk, player=seat.player, version=game.move_count, move=rules.Pass(0)
        )
        game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(days=30))
    services.game_resign(game_id=game.pk, player=bob)
    bot.refresh_from_db()
    assert bot.status == Seat.Status.ACTIVE
    assert not game.moves.filter(kind=Move.Kind.TIMEOUT).exists()


def test_the_sweep_plays_a_computer_turn_whose_task_was_lost(alice) -> None:
    game = computer_to_move(alice)
    version = game.move_count
    assert computer.computer_turns_requeue() == 0  # not late yet: its task may be on its way
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(minutes=2))
    assert tasks.computer_sweep() == 1
    game.refresh_from_db()
    assert game.move_count == version + 1
    assert game.moves.get(number=version + 1).seat == bot_seat(game)


def test_a_game_with_a_computer_player_leaves_the_ratings_untouched(alice, bob, committed) -> None:
    # A rated game between people first, so that the ratings exist.
    rated = services.game_create(creator=alice, mode="marque", seats=2)
    services.game_join(game_id=rated.pk, player=bob)
    services.game_resign(game_id=rated.pk, player=bob)
    ratings = list(Rating.objects.order_by("pk").values_list("player_id", "mu", "sigma", "games"))
    assert len(ratings) == 2

    with committed():
        game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    with committed():
        services.game_resign(game_id=game.pk, player=alice)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert (
        list(Rating.objects.order_by("pk").values_list("player_id", "mu", "sigma", "games"))
        == ratings
    )
    assert not RatingChange.objects.filter(game=game).exists()


def test_a_computer_players_page_does_not_exist(alice, client) -> None:
    bot = bot_seat(services.game_against_computer(player=alice, mode="marque", level="debutant"))
    assert client.get(bot.player.get_absolute_url()).status_code == 404
