"""Giving the player to move one more day: who may, how much, and what everyone sees."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import translation

import rules
from accounts.vacations import vacation_start
from games import clock, selectors, services
from games.audit import game_check
from games.errors import GameError
from games.models import Game, Seat
from notifications.models import Notification
from tests.games.conftest import seat_at, snapshot, start_game

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


def at_t0(players) -> Game:
    """A game started at T0: the first player's deadline is T0 + 3 days."""
    with time_machine.travel(T0, tick=False):
        return start_game(players)


def give(game: Game, giver, *, at: datetime = T0 + HOUR, version=None, extra_days=None) -> Game:
    """``giver`` gives a day at ``at``, with the version a fresh page would show unless told."""
    game.refresh_from_db()
    with time_machine.travel(at, tick=False):
        return services.time_give(
            game_id=game.pk,
            giver=giver,
            version=game.move_count if version is None else version,
            extra_days=game.turn_extra_days if extra_days is None else extra_days,
        )


def untouched(game: Game) -> tuple:
    """What a refused gift must leave as it was: the game, its deadline and its outbox."""
    state = snapshot(game)
    return (
        state,
        game.turn_extra_days,
        game.time_gifts,
        clock.deadline_of(game),
        Notification.objects.count(),
    )


def refusal(game: Game, giver, language: str = "en", **kwargs) -> GameError:
    """The refusal of a gift, its message read in ``language``."""
    with translation.override(language):
        with pytest.raises(GameError) as error:
            give(game, giver, **kwargs)
        error.value.message = str(error.value.message)
    return error.value


def client_for(user) -> Client:
    """A signed-in player, who reads the site in their own language (French unless set)."""
    client = Client()
    client.force_login(user)
    return client


def in_english(*players) -> None:
    for player in players:
        player.language = "en"
        player.save()


# --- the deadline ----------------------------------------------------------------------------


def test_a_gift_moves_the_deadline_of_the_player_to_move_by_a_day(alice, bob) -> None:
    game = at_t0([alice, bob])
    waiting = seat_at(game, 1).player
    assert clock.deadline_of(game) == T0 + 3 * DAY
    give(game, waiting)
    game.refresh_from_db()
    assert clock.deadline_of(game) == T0 + 4 * DAY
    assert clock.deadlines_of([game]) == {game.pk: T0 + 4 * DAY}
    assert selectors.game_view(game, waiting).seats[0].deadline == T0 + 4 * DAY


def test_my_games_orders_by_the_deadline_with_the_days_given(alice, bob, carol) -> None:
    first = at_t0([alice, bob])
    mover = seat_at(first, 0).player
    with time_machine.travel(T0 + HOUR, tick=False):
        second = start_game([mover, carol])
        if seat_at(second, 0).player == carol:  # make it the same player's turn in both
            services.move_submit(game_id=second.pk, player=carol, version=0, move=rules.Pass(0))
    assert [g.pk for g in selectors.my_games(mover)["my_turn"]] == [first.pk, second.pk]
    give(first, seat_at(first, 1).player)
    assert [(g.pk, g.deadline) for g in selectors.my_games(mover)["my_turn"]] == [
        (second.pk, T0 + HOUR + 3 * DAY),
        (first.pk, T0 + 4 * DAY),
    ]


def test_a_gift_adds_clock_time_so_a_vacation_still_pushes_the_deadline(alice, bob) -> None:
    game = at_t0([alice, bob])
    give(game, seat_at(game, 1).player)
    vacation_start(user=seat_at(game, 0).player, days=2, now=T0 + DAY)
    game.refresh_from_db()
    assert clock.deadline_of(game) == T0 + 6 * DAY


def test_every_other_player_may_give_and_the_days_add_up(alice, bob, carol) -> None:
    game = at_t0([alice, bob, carol])
    give(game, seat_at(game, 1).player)
    give(game, seat_at(game, 2).player)
    game.refresh_from_db()
    assert game.turn_extra_days == 2
    assert clock.deadline_of(game) == T0 + 5 * DAY


def test_the_days_given_are_for_this_turn_only(alice, bob) -> None:
    game = at_t0([alice, bob])
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    give(game, second)
    give(game, second)
    with time_machine.travel(T0 + 2 * DAY, tick=False):
        services.move_submit(game_id=game.pk, player=first, version=0, move=rules.Pass(0))
    game.refresh_from_db()
    assert game.turn_extra_days == 0
    assert clock.deadline_of(game) == T0 + 5 * DAY  # the second player's own three days
    # ... and back to the first player: three days again, whatever they were given before.
    exchange = rules.Exchange(1, seat_at(game, 1).hand[0])  # two passes in a row would end it
    with time_machine.travel(T0 + 3 * DAY, tick=False):
        services.move_submit(game_id=game.pk, player=second, version=1, move=exchange)
    game.refresh_from_db()
    assert clock.deadline_of(game) == T0 + 6 * DAY


def test_a_resignation_out_of_turn_keeps_the_days_given_on_the_turn(alice, bob, carol) -> None:
    game = at_t0([alice, bob, carol])
    give(game, seat_at(game, 1).player)
    with time_machine.travel(T0 + DAY, tick=False):
        services.game_resign(game_id=game.pk, player=seat_at(game, 2).player)
    game.refresh_from_db()
    assert game.to_move == seat_at(game, 0)
    assert clock.deadline_of(game) == T0 + 4 * DAY


def test_a_game_with_days_given_still_passes_the_check(alice, bob) -> None:
    game = at_t0([alice, bob])
    give(game, seat_at(game, 1).player)
    with time_machine.travel(T0 + DAY, tick=False):
        services.move_submit(
            game_id=game.pk, player=seat_at(game, 0).player, version=0, move=rules.Pass(0)
        )
    give(game, seat_at(game, 0).player, at=T0 + 2 * DAY)
    game.refresh_from_db()
    assert game_check(game) == []


# --- the cap -----------------------------------------------------------------------------------


def test_at_most_seven_days_are_given_on_one_turn_by_everyone_together(alice, bob, carol) -> None:
    game = at_t0([alice, bob, carol])
    givers = [seat_at(game, 1).player, seat_at(game, 2).player]
    for k in range(clock.MAX_EXTRA_DAYS):
        give(game, givers[k % 2])
    before = untouched(game)
    error = refusal(game, givers[0])
    assert (error.code, error.status) == ("gift-cap", 409)
    mover = seat_at(game, 0).player
    assert str(error.message) == (
        f"{mover} has already been given 7 more days on this turn: that is the most allowed."
    )
    assert untouched(game) == before
    assert clock.deadline_of(game) == T0 + 10 * DAY


def test_the_cap_is_counted_afresh_on_each_turn(alice, bob) -> None:
    game = at_t0([alice, bob])
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    for _ in range(clock.MAX_EXTRA_DAYS):
        give(game, second)
    with time_machine.travel(T0 + DAY, tick=False):
        services.move_submit(game_id=game.pk, player=first, version=0, move=rules.Pass(0))
    give(game, first, at=T0 + 2 * DAY)
    game.refresh_from_db()
    assert game.turn_extra_days == 1


# --- refusals: each says why and changes nothing -------------------------------------------------


def test_the_player_to_move_cannot_give_themselves_time(alice, bob) -> None:
    game = at_t0([alice, bob])
    before = untouched(game)
    error = refusal(game, seat_at(game, 0).player)
    assert error.code == "own-turn"
    assert str(error.message) == "You cannot give yourself more time. Going away? Take a vacation."
    assert untouched(game) == before


def test_someone_without_a_seat_cannot_give_time(alice, bob, outsider) -> None:
    game = at_t0([alice, bob])
    before = untouched(game)
    error = refusal(game, outsider, language="fr")
    assert (error.code, error.status) == ("not-a-player", 403)
    assert str(error.message) == "Vous ne jouez pas dans cette partie."
    assert untouched(game) == before


def test_a_player_who_left_the_game_cannot_give_time(alice, bob, carol) -> None:
    game = at_t0([alice, bob, carol])
    gone = seat_at(game, 2).player
    with time_machine.travel(T0 + HOUR, tick=False):
        services.game_resign(game_id=game.pk, player=gone)
    before = untouched(game)
    error = refusal(game, gone, language="fr")
    assert error.code == "not-active"
    assert str(error.message) == (
        "Vous avez quitté cette partie\u00a0: vous ne pouvez plus donner de temps."
    )
    assert untouched(game) == before


def test_no_time_is_given_in_a_game_that_is_over_or_not_started(alice, bob, carol) -> None:
    game = at_t0([alice, bob])
    with time_machine.travel(T0 + HOUR, tick=False):
        services.game_resign(game_id=game.pk, player=seat_at(game, 0).player)
    before = untouched(game)
    assert refusal(game, seat_at(game, 1).player).code == "not-running"
    assert untouched(game) == before
    table = services.game_create(creator=alice, mode="marque", seats=3)
    services.game_join(game_id=table.pk, player=bob)
    with pytest.raises(GameError) as error:
        services.time_give(game_id=table.pk, giver=bob, version=0, extra_days=0)
    assert error.value.code == "not-running"


def test_a_page_from_before_the_last_move_gives_nothing(alice, bob, carol) -> None:
    game = at_t0([alice, bob, carol])
    with time_machine.travel(T0 + HOUR, tick=False):
        services.move_submit(
            game_id=game.pk, player=seat_at(game, 0).player, version=0, move=rules.Pass(0)
        )
    before = untouched(game)
    # The third player's page offered a day to the first; the turn has gone to the second.
    error = refusal(game, seat_at(game, 2).player, version=0, extra_days=0)
    assert error.code == "moved-on"
    assert untouched(game) == before


def test_a_double_submit_gives_one_day(alice, bob) -> None:
    game = at_t0([alice, bob])
    waiting = seat_at(game, 1).player
    give(game, waiting, version=0, extra_days=0)
    before = untouched(game)
    error = refusal(game, waiting, language="fr", version=0, extra_days=0)
    assert (error.code, error.status) == ("moved-on", 409)
    assert str(error.message) == (
        "La partie a changé depuis le chargement de la page\u00a0: aucun temps n’a été "
        "donné. Regardez de nouveau l’échéance."
    )
    assert untouched(game) == before
    assert game.turn_extra_days == 1


def test_a_computer_player_to_move_needs_no_time(alice) -> None:
    game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    assert game.to_move is not None
    if (
        not game.to_move.player.is_computer
    ):  # the computer's reply waits for a commit that never comes
        services.move_submit(game_id=game.pk, player=alice, version=0, move=rules.Pass(0))
        game.refresh_from_db()
    assert game.to_move.player.is_computer
    before = untouched(game)
    error = refusal(game, alice)
    assert error.code == "computer"
    assert str(error.message) == "A computer player has no deadline: it needs no more time."
    assert untouched(game) == before


def test_after_the_deadline_the_time_out_comes_first_and_no_time_is_given(alice, bob) -> None:
    game = at_t0([alice, bob])
    late = seat_at(game, 0).player
    error = refusal(game, seat_at(game, 1).player, at=T0 + 3 * DAY + HOUR)
    assert (error.code, error.status) == ("too-late", 409)
    assert str(error.message) == f"Too late: {late} had run out of time, and has left the game."
    game.refresh_from_db()
    assert [m.kind for m in game.moves.all()] == ["timeout"]
    assert game.status == Game.Status.FINISHED and game.turn_extra_days == 0
    assert seat_at(game, 0).status == Seat.Status.TIMED_OUT


def test_a_gift_just_before_the_deadline_saves_the_turn(alice, bob) -> None:
    game = at_t0([alice, bob])
    give(game, seat_at(game, 1).player, at=T0 + 3 * DAY - timedelta(minutes=1))
    with time_machine.travel(T0 + 3 * DAY + HOUR, tick=False):
        move = services.move_submit(
            game_id=game.pk, player=seat_at(game, 0).player, version=0, move=rules.Pass(0)
        )
    assert move.kind == "pass"


# --- the game page -----------------------------------------------------------------------------


def page(game: Game, user) -> str:
    with time_machine.travel(T0 + 2 * HOUR, tick=False):
        response = client_for(user).get(reverse("games:page", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


BUTTON = 'id="give-time-button"'


def test_only_the_other_players_in_the_game_see_the_button(alice, bob, carol, outsider) -> None:
    game = at_t0([alice, bob, carol])
    mover = seat_at(game, 0).player
    others = [seat_at(game, 1).player, seat_at(game, 2).player]
    in_english(others[0])
    html = page(game, others[0])
    assert BUTTON in html
    assert f"Give {mover} one more day" in html
    assert "24 hours more on this turn; at most 7 days in all." in html
    assert 'name="version" value="0"' in html and 'name="extra_days" value="0"' in html
    assert f"Donner un jour de plus à {mover}" in page(game, others[1])
    assert BUTTON not in page(game, mover)
    assert BUTTON not in page(game, outsider)
    with time_machine.travel(T0 + HOUR, tick=False):
        services.game_resign(game_id=game.pk, player=others[1])
    assert BUTTON not in page(game, others[1])  # left the game
    assert BUTTON in page(game, others[0])


def test_the_button_is_gone_once_the_turn_has_had_its_seven_days(alice, bob) -> None:
    game = at_t0([alice, bob])
    waiting = seat_at(game, 1).player
    for _ in range(clock.MAX_EXTRA_DAYS):
        give(game, waiting)
    html = page(game, waiting)
    assert BUTTON not in html
    assert "Plus aucun temps ne peut être donné pour ce tour." in html
    assert "(+7 jours donnés)" in html


def test_no_button_when_the_computer_is_to_move(alice) -> None:
    game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    assert game.to_move is not None
    if not game.to_move.player.is_computer:
        services.move_submit(game_id=game.pk, player=alice, version=0, move=rules.Pass(0))
    assert BUTTON not in page(game, alice)


def test_no_button_once_the_deadline_has_passed(alice, bob) -> None:
    game = at_t0([alice, bob])
    with time_machine.travel(T0 + 3 * DAY + HOUR, tick=False):
        html = client_for(seat_at(game, 1).player).get(reverse("games:page", args=[game.pk]))
    assert BUTTON not in html.content.decode()


def test_the_button_gives_a_day_and_the_history_says_who_gave_it(alice, bob) -> None:
    game = at_t0([alice, bob])
    mover, giver = seat_at(game, 0).player, seat_at(game, 1).player
    in_english(giver)
    with time_machine.travel(T0 + HOUR, tick=False):
        response = client_for(giver).post(
            reverse("games:give_time", args=[game.pk]),
            {"version": 0, "extra_days": 0},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="game-area"' in html
    assert f"You gave {mover} one more day." in html
    assert "(+1 day given)" in html
    deadline = (T0 + 4 * DAY).astimezone(ZoneInfo(giver.time_zone)).isoformat()
    assert f'<time datetime="{deadline}">' in html
    assert 'name="extra_days" value="1"' in html  # the next gift's version
    assert f"{giver} vous a donné un jour de plus." in page(game, mover)


def test_the_button_works_without_javascript(alice, bob) -> None:
    game = at_t0([alice, bob])
    giver = seat_at(game, 1).player
    with time_machine.travel(T0 + HOUR, tick=False):
        response = client_for(giver).post(
            reverse("games:give_time", args=[game.pk]), {"version": 0, "extra_days": 0}
        )
    assert response.status_code == 302
    assert response["Location"] == reverse("games:page", args=[game.pk])
    game.refresh_from_db()
    assert game.turn_extra_days == 1


def test_a_refused_gift_says_why_on_the_page(alice, bob) -> None:
    game = at_t0([alice, bob])
    giver = seat_at(game, 1).player
    give(game, giver)
    form = {"version": 0, "extra_days": 0}  # the page from before the first gift
    url = reverse("games:give_time", args=[game.pk])
    with time_machine.travel(T0 + HOUR, tick=False):
        htmx = client_for(giver).post(url, form, HTTP_HX_REQUEST="true")
        plain = client_for(giver).post(url, form, follow=True)
    assert 'id="move-error"' in htmx.content.decode()
    for response in (htmx, plain):
        assert "aucun temps n’a été donné" in response.content.decode()
    game.refresh_from_db()
    assert game.turn_extra_days == 1


def test_a_page_left_behind_by_another_gift_is_brought_up_to_date(alice, bob, carol) -> None:
    # The third player's page waits for the first, polling by move number: the second's
    # gift does not change it, so it still shows the first deadline and the old form.
    game = at_t0([alice, bob, carol])
    giver, late = seat_at(game, 1).player, seat_at(game, 2).player
    stale = page(game, late)
    first, second = (
        (T0 + days * DAY).astimezone(ZoneInfo(late.time_zone)).isoformat() for days in (3, 4)
    )
    assert f'<time datetime="{first}">' in stale and 'name="extra_days" value="0"' in stale
    give(game, giver)
    url = reverse("games:give_time", args=[game.pk])
    with time_machine.travel(T0 + 2 * HOUR, tick=False):
        answer = client_for(late).post(url, {"version": 0, "extra_days": 0}, HTTP_HX_REQUEST="true")
    # Refused, but with the game area as it is now: the new deadline, the day given,
    # a form that can give the next day, and why nothing happened.
    assert answer.status_code == 200
    html = answer.content.decode()
    assert html.lstrip().startswith('<div id="game-area"')
    assert "aucun temps n’a été donné. Regardez de nouveau l’échéance." in html
    assert 'role="alert"' in html
    assert f'<time datetime="{second}">' in html and "(+1 jour donné)" in html
    assert 'name="extra_days" value="1"' in html
    game.refresh_from_db()
    assert game.turn_extra_days == 1
    # The next click, from that area, gives the day they meant.
    with time_machine.travel(T0 + 2 * HOUR, tick=False):
        client_for(late).post(url, {"version": 0, "extra_days": 1}, HTTP_HX_REQUEST="true")
    game.refresh_from_db()
    assert game.turn_extra_days == 2
