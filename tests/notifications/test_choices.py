"""One place to choose (#35): channels per kind of event, the reminders' schedule, quiet hours.

Quiet hours hold every email and push until they end, then send what they held as
one message per channel; a deadline that would fall in them moves to their end.
Time is frozen and moved with time_machine: the sweep is what beat runs each minute.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.urls import reverse

import rules
from accounts.emails import SENDABLE_KINDS, unsubscribe_url
from accounts.models import User
from accounts.preferences import QuietHours, quiet_hours_of
from games import deadlines, selectors, services
from games.tasks import run_clock
from notifications import periodic
from notifications.models import Notification
from tests.factories import client_as, make_player
from tests.games.conftest import seat_at
from tests.notifications.conftest import new_game, play_chat

pytestmark = pytest.mark.django_db
Status = Notification.Status
PARIS = ZoneInfo("Europe/Paris")
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
# A Wednesday in March: Paris is UTC+1, so 23:30 there is 22:30 UTC and 8:00 is 7:00 UTC.
NIGHT = datetime(2026, 3, 4, 22, 30, tzinfo=UTC)
MORNING = datetime(2026, 3, 5, 7, 0, tzinfo=UTC)


def quiet_player(name: str, **fields) -> User:
    """A player in Paris, in English, quiet from 23:00 to 8:00."""
    return make_player(
        name, language="en", time_zone="Europe/Paris", quiet_from=23, quiet_until=8, **fields
    )


# --- quiet hours, the arithmetic --------------------------------------------------------


@pytest.mark.parametrize(
    ("local", "end"),
    [
        (datetime(2026, 3, 4, 23, 0), datetime(2026, 3, 5, 8, 0)),  # its first minute
        (datetime(2026, 3, 5, 2, 30), datetime(2026, 3, 5, 8, 0)),  # after midnight
        (datetime(2026, 3, 5, 7, 59), datetime(2026, 3, 5, 8, 0)),
        (datetime(2026, 3, 5, 8, 0), None),  # over
        (datetime(2026, 3, 4, 22, 59), None),  # not yet
        # The night the clocks go forward (29 March 2026, 2:00 -> 3:00): 8:00 is 6:00 UTC.
        (datetime(2026, 3, 29, 1, 0), datetime(2026, 3, 29, 8, 0)),
    ],
)
def test_quiet_hours_past_midnight_end_at_their_hour_in_the_players_zone(local, end) -> None:
    quiet = QuietHours(23, 8, PARIS)
    found = quiet.end_if_quiet(local.replace(tzinfo=PARIS))
    assert found == (end.replace(tzinfo=PARIS) if end else None)


def test_quiet_hours_within_a_day_and_none_by_default() -> None:
    siesta = QuietHours(13, 15, PARIS)
    assert siesta.end_if_quiet(datetime(2026, 3, 4, 14, 10, tzinfo=PARIS)) == datetime(
        2026, 3, 4, 15, 0, tzinfo=PARIS
    )
    assert siesta.end_if_quiet(datetime(2026, 3, 4, 23, 0, tzinfo=PARIS)) is None
    newcomer = make_player("newcomer")
    assert quiet_hours_of(newcomer) is None
    # Today's behaviour for every account: one reminder a day before, every push on.
    assert newcomer.reminder_hours == [24] and newcomer.reminder_emails
    assert all(
        getattr(newcomer, f"push_{kind}")
        for kind in ("turn", "reminder", "invitations", "game_over", "chat")
    )


# --- the settings page ------------------------------------------------------------------


def test_the_settings_page_offers_the_choices_in_french_and_saves_them(settings) -> None:
    settings.DIAMINO_VAPID_PUBLIC_KEY = settings.DIAMINO_VAPID_PRIVATE_KEY = "set"
    player = make_player("odile")
    french = client_as(player, "fr").get(reverse("accounts:settings")).content.decode()
    for words in (
        "Heures calmes",
        "Avant une échéance",
        "24 heures avant",
        "Messages de discussion",
    ):
        assert words in french
    client = client_as(player, "en")
    english = client.get(reverse("accounts:settings")).content.decode()
    for words in ("Quiet hours", "Before a deadline", "2 hours before", "Push chat messages"):
        assert words in english
    answer = client.post(
        reverse("accounts:settings"),
        {
            "language": "en",
            "time_zone": "Europe/Paris",
            "turn_emails": "digest",
            "invitation_emails": "each",
            "game_over_emails": "each",
            "reminder_hours": ["24", "2"],
            "push_turn": "on",
            "push_reminder": "on",
            "quiet_from": "23",
            "quiet_until": "8",
        },
    )
    assert answer.status_code == 302
    player.refresh_from_db()
    assert player.reminder_hours == [24, 2]
    assert (player.quiet_from, player.quiet_until) == (23, 8)
    assert (player.push_turn, player.push_chat, player.reminder_emails) == (True, False, False)


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ("23", "", "Choose both the start and the end of your quiet hours, or neither."),
        ("8", "8", "Your quiet hours must end at another hour."),
    ],
)
def test_half_a_quiet_interval_is_refused_and_nothing_saved(start, end, message) -> None:
    player = make_player("pierre")
    client = client_as(player, "en")
    answer = client.post(
        reverse("accounts:settings"),
        {
            "language": "en",
            "time_zone": "UTC",
            "turn_emails": "each",
            "invitation_emails": "each",
            "game_over_emails": "each",
            "quiet_from": start,
            "quiet_until": end,
        },
    )
    assert message in answer.content.decode()
    player.refresh_from_db()
    assert (player.quiet_from, player.quiet_until) == (None, None)


# --- quiet hours hold the outbox, then one message per channel --------------------------


def test_emails_in_quiet_hours_wait_for_their_end_and_go_as_one(committed, mailoutbox) -> None:
    sleeper = quiet_player("sleeper")
    games = []
    with time_machine.travel(NIGHT - 2 * DAY, tick=False):
        for name in ("ana", "ben"):
            games.append(new_game([sleeper, make_player(name)]))
    assert all(seat_at(game, 1).player == sleeper for game in games)  # the deal's order
    with time_machine.travel(NIGHT, tick=False), committed():
        for game in games:
            play_chat(game)  # the sleeper's turn in both, at 23:30 in Paris
    held = Notification.objects.filter(recipient=sleeper, kind="turn")
    assert [(r.status, r.next_attempt_at) for r in held] == [(Status.PENDING, MORNING)] * 2
    assert mailoutbox == []
    with time_machine.travel(MORNING - MINUTE, tick=False):
        periodic.sweep()
    assert mailoutbox == []
    with time_machine.travel(MORNING + 2 * MINUTE, tick=False):
        periodic.sweep()
    [email] = mailoutbox
    assert email.to == [sleeper.email]
    assert "2 notifications during your quiet hours" in email.subject
    for game in games:
        assert f"Your turn in game #{game.pk}." in email.body
        assert reverse("games:page", args=[game.pk]) in email.body
    assert {r.status for r in held.all()} == {Status.SENT}


def test_what_the_player_did_meanwhile_drops_out_of_the_held_message(committed, mailoutbox) -> None:
    sleeper = quiet_player("owl")
    with time_machine.travel(NIGHT - DAY, tick=False):
        game = new_game([sleeper, make_player("lark")])
    assert seat_at(game, 1).player == sleeper  # the deal's order
    with time_machine.travel(NIGHT, tick=False), committed():
        play_chat(game)
    # An owl plays at night, on the site: the "your turn" it was held for is over.
    with time_machine.travel(NIGHT + 30 * MINUTE, tick=False), committed():
        services.move_submit(game_id=game.pk, player=sleeper, version=1, move=rules.Pass(1))
    assert [e.to for e in mailoutbox] == [[seat_at(game, 0).player.email]]  # the lark's turn
    with time_machine.travel(MORNING + 2 * MINUTE, tick=False):
        periodic.sweep()
    assert len(mailoutbox) == 1
    assert Notification.objects.get(recipient=sleeper, kind="turn").status == Status.SKIPPED


@pytest.mark.parametrize(
    ("quiet_from", "quiet_until", "sent_at"),
    [
        (None, None, NIGHT + 61 * MINUTE),  # turned off at 00:30 in Paris: at the next sweep
        (23, 1, datetime(2026, 3, 5, 0, 0, tzinfo=UTC)),  # now ending at 1:00 in Paris
    ],
)
def test_quiet_hours_shortened_or_turned_off_release_what_they_held(
    committed, mailoutbox, quiet_from, quiet_until, sent_at
) -> None:
    sleeper = quiet_player("dormouse")
    with time_machine.travel(NIGHT - DAY, tick=False):
        game = new_game([sleeper, make_player("hare")])
    assert seat_at(game, 1).player == sleeper  # the deal's order
    with time_machine.travel(NIGHT, tick=False), committed():
        play_chat(game)  # held until 8:00 in Paris
    User.objects.filter(pk=sleeper.pk).update(quiet_from=quiet_from, quiet_until=quiet_until)
    for moment in (NIGHT + HOUR, sent_at - MINUTE):  # the settings saved at 00:30 in Paris
        with time_machine.travel(moment, tick=False):
            periodic.sweep()
    assert mailoutbox == []
    with time_machine.travel(sent_at + MINUTE, tick=False):
        periodic.sweep()
    [email] = mailoutbox
    assert email.to == [sleeper.email]
    assert f"It is your turn in Game {game.pk}" in email.body


# --- a deadline never falls in the quiet hours ------------------------------------------


def test_a_deadline_in_the_quiet_hours_moves_to_their_end(committed, mailoutbox) -> None:
    # The turn begins at 2:00 in Paris: three days later, 2:00 is in the quiet hours.
    start = datetime(2026, 3, 2, 1, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        game = new_game([make_player("nadia"), make_player("omar")])
    to_move = seat_at(game, 0).player
    User.objects.filter(pk=to_move.pk).update(
        time_zone="Europe/Paris", quiet_from=23, quiet_until=8
    )
    bare = start + game.days_per_move * DAY
    assert bare.astimezone(PARIS).hour == 2
    moved = bare.astimezone(PARIS).replace(hour=8)
    assert selectors.deadline_of(game) == moved
    with time_machine.travel(bare + MINUTE, tick=False):
        page = client_as(to_move, "en").get(reverse("games:page", args=[game.pk]))
        assert "(moved to the end of their quiet hours)" in page.content.decode()
        french = client_as(to_move, "fr").get(reverse("games:page", args=[game.pk]))
        assert "(reportée à la fin de ses heures calmes)" in french.content.decode()
        assert run_clock.delay().get()["timeouts"] == 0
    with time_machine.travel(moved + MINUTE, tick=False), committed():
        assert run_clock.delay().get()["timeouts"] == 1


# --- the reminders' schedule, and push per kind -----------------------------------------


def test_each_chosen_reminder_goes_once_the_nearest_due_only(committed, mailoutbox) -> None:
    start = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        game = new_game([make_player("rita", language="en"), make_player("sam", language="en")])
    to_move = seat_at(game, 0).player
    to_move.reminder_hours = [24, 2]
    to_move.save()
    deadline = selectors.deadline_of(game)
    assert deadline is not None

    def tick(at: datetime) -> int:
        with time_machine.travel(at, tick=False), committed():
            return deadlines.write_reminders()

    assert tick(deadline - 25 * 60 * MINUTE) == 0
    assert tick(deadline - 24 * 60 * MINUTE + MINUTE) == 1
    assert tick(deadline - 3 * 60 * MINUTE) == 0
    assert tick(deadline - 2 * 60 * MINUTE + MINUTE) == 1
    assert tick(deadline - 60 * MINUTE) == 0
    assert len(mailoutbox) == 2
    assert all(email.to == [to_move.email] for email in mailoutbox)


def test_a_reminder_in_quiet_hours_waits_for_their_end(committed, mailoutbox) -> None:
    # Deadline 13:00 in Paris (12:00 UTC); the 12 hours' reminder would come at 1:00.
    start = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        game = new_game([quiet_player("tess"), quiet_player("ugo")])
    to_move = seat_at(game, 0).player
    to_move.reminder_hours = [12]
    to_move.save()
    deadline = selectors.deadline_of(game)
    assert deadline is not None
    with time_machine.travel(deadline - 11 * 60 * MINUTE, tick=False), committed():
        assert deadlines.write_reminders() == 1
    [row] = Notification.objects.filter(kind="reminder")
    assert row.status == Status.PENDING and row.next_attempt_at.astimezone(PARIS).hour == 8
    assert mailoutbox == []
    with time_machine.travel(row.next_attempt_at + 2 * MINUTE, tick=False):
        periodic.sweep()
    [email] = mailoutbox
    assert email.to == [to_move.email] and "Reminder" in email.subject


def test_the_reminders_unsubscribe_link_stops_the_reminders_only(client) -> None:
    player = make_player("vera", language="en")
    link = unsubscribe_url(player, SENDABLE_KINDS["reminder"])
    answer = client.post(link)
    assert "reminders before a deadline" in answer.content.decode()
    player.refresh_from_db()
    assert (player.reminder_emails, player.turn_emails) == (False, "each")
