"""Vacation: 20 days a calendar year, from now or booked ahead, refused beyond the allowance."""

from __future__ import annotations

import html
import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import formats, translation

from accounts import vacations
from accounts.models import Vacation
from accounts.vacations import VacationRefused, vacation_cancel, vacation_end, vacation_start
from tests.factories import make_player
from tests.french import misplaced_marks, text_of_html

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@pytest.fixture(autouse=True)
def english_refusals():
    """The services' refusals read in English here; a page speaks its player's language."""
    with translation.override("en"):
        yield


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def rows(user) -> list[tuple[datetime, datetime]]:
    return list(Vacation.objects.filter(user=user).values_list("starts_at", "ends_at"))


def test_a_vacation_starts_now_and_lasts_whole_days() -> None:
    alice = make_player("alice")
    vacation = vacation_start(user=alice, days=5, now=NOON)
    assert (vacation.starts_at, vacation.ends_at) == (NOON, NOON + timedelta(days=5))
    assert vacations.days_used(alice, 2026) == 5
    assert vacations.days_left(alice, 2026) == 15
    assert vacations.current_vacation(alice, NOON + timedelta(days=1)) == vacation


def test_coming_back_early_gives_back_the_days_not_begun() -> None:
    alice = make_player("alice")
    vacation_start(user=alice, days=10, now=NOON)
    vacation = vacation_end(user=alice, now=NOON + timedelta(days=2, hours=3))
    assert vacation is not None
    assert vacation.ends_at == NOON + timedelta(days=2, hours=3)
    assert vacations.days_used(alice, 2026) == 3, "a day begun is a day used"
    assert vacations.current_vacation(alice, NOON + timedelta(days=3)) is None


def test_more_than_the_twenty_days_of_a_year_is_refused_and_nothing_changes() -> None:
    alice = make_player("alice")
    vacation_start(user=alice, days=15, now=NOON)
    before = rows(alice)
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=alice, days=6, now=NOON + timedelta(days=30))
    assert refusal.value.code == "allowance"
    assert "5 days of vacation left in 2026" in refusal.value.message
    assert rows(alice) == before
    vacation_start(user=alice, days=5, now=NOON + timedelta(days=30))
    assert vacations.days_left(alice, 2026) == 0


@pytest.mark.parametrize("days", [0, -1, 21])
def test_a_number_of_days_outside_one_to_twenty_is_refused(days: int) -> None:
    alice = make_player("alice")
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=alice, days=days, now=NOON)
    assert refusal.value.code == "bad-days"
    assert rows(alice) == []


def test_a_second_vacation_cannot_overlap_the_first() -> None:
    alice = make_player("alice")
    vacation_start(user=alice, days=3, now=NOON)
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=alice, days=3, now=NOON + timedelta(days=1))
    assert refusal.value.code == "already"
    assert len(rows(alice)) == 1


def test_a_vacation_across_new_year_counts_each_day_in_its_own_year() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    start = datetime(2026, 12, 28, 9, 0, tzinfo=UTC)  # 10:00 in Paris
    vacation_start(user=alice, days=7, now=start)
    assert vacations.days_used(alice, 2026) == 4  # 28, 29, 30, 31 December
    assert vacations.days_used(alice, 2027) == 3
    # The new year's allowance already has 3 days spent.
    with pytest.raises(VacationRefused):
        vacation_start(user=alice, days=18, now=start + timedelta(days=30))
    vacation_start(user=alice, days=17, now=start + timedelta(days=30))


def test_the_vacation_page_starts_and_ends_a_vacation() -> None:
    alice = make_player("alice", language="en")
    client = client_for(alice)
    url = reverse("accounts:vacation")
    with time_machine.travel(NOON, tick=False):
        page = client.get(url).content.decode()
        assert "20 days left" in page
        response = client.post(url, {"action": "start", "days": "4"})
        assert response.status_code == 302
        page = client.get(url).content.decode()
        assert "You are on vacation until" in page
        assert "4 days used, 16 days left" in page
    with time_machine.travel(NOON + timedelta(hours=30), tick=False):
        client.post(url, {"action": "end"})
        assert "2 days used, 18 days left" in client.get(url).content.decode()


@pytest.mark.parametrize(
    ("language", "shown"),
    [
        ("en", "In 2026: 1 day used, 19 days left."),
        ("fr", "En 2026\u00a0: 1 jour utilisé, 19 jours restants."),
    ],
)
def test_the_days_used_and_left_agree_with_their_number(language: str, shown: str) -> None:
    alice = make_player("alice", language=language)
    vacation_start(user=alice, days=1, now=NOON)
    with time_machine.travel(NOON, tick=False):
        page = client_for(alice).get(reverse("accounts:vacation")).content.decode()
    assert shown in re.sub(r"[ \t\n]+", " ", html.unescape(page))


def test_the_vacation_page_explains_a_refusal_and_changes_nothing() -> None:
    alice = make_player("alice", language="en")
    vacation_start(user=alice, days=18, now=NOON - timedelta(days=40))
    before = rows(alice)
    with time_machine.travel(NOON, tick=False):
        response = client_for(alice).post(
            reverse("accounts:vacation"), {"action": "start", "days": "3"}
        )
    assert response.status_code == 400
    assert "You have 2 days of vacation left in 2026" in response.content.decode()
    assert rows(alice) == before


def test_the_vacation_page_needs_a_signed_in_player() -> None:
    response = Client().get(reverse("accounts:vacation"))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


# --- booked ahead -----------------------------------------------------------------------

PARIS = ZoneInfo("Europe/Paris")


def midnight(day: date, zone: ZoneInfo = PARIS) -> datetime:
    return datetime.combine(day, time(), tzinfo=zone)


def test_a_vacation_booked_ahead_starts_at_midnight_in_the_player_s_time_zone() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    vacation = vacation_start(user=alice, days=4, first_day=date(2026, 3, 10), now=NOON)
    assert (vacation.starts_at, vacation.ends_at) == (
        midnight(date(2026, 3, 10)),
        midnight(date(2026, 3, 14)),
    )
    assert vacation.starts_at == datetime(2026, 3, 9, 23, 0, tzinfo=UTC)
    # Not current yet, but planned: its days are already counted.
    assert vacations.current_vacation(alice, NOON) is None
    assert vacations.planned_vacations(alice, NOON) == [vacation]
    assert vacations.days_used(alice, 2026) == 4


def test_a_vacation_booked_for_today_starts_now() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    vacation = vacation_start(user=alice, days=2, first_day=date(2026, 3, 2), now=NOON)
    assert (vacation.starts_at, vacation.ends_at) == (NOON, NOON + timedelta(days=2))


def test_a_day_already_past_is_refused_and_nothing_changes() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=alice, days=2, first_day=date(2026, 3, 1), now=NOON)
    assert refusal.value.code == "past"
    assert "already past" in refusal.value.message
    assert rows(alice) == []


def test_the_day_is_past_or_not_in_the_player_s_time_zone() -> None:
    # 23:30 UTC on 1 March is already 2 March in Tokyo, still 1 March in New York.
    late = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)
    tokyo = make_player("tokyo", time_zone="Asia/Tokyo")
    with pytest.raises(VacationRefused):
        vacation_start(user=tokyo, days=1, first_day=date(2026, 3, 1), now=late)
    new_york = make_player("newyork", time_zone="America/New_York")
    vacation = vacation_start(user=new_york, days=1, first_day=date(2026, 3, 1), now=late)
    assert vacation.starts_at == late  # today there: from now


def test_a_first_day_beyond_the_horizon_is_refused(settings) -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    assert settings.DIAMINO_VACATION_BOOKING_HORIZON_DAYS == 90
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=alice, days=2, first_day=date(2026, 3, 2) + 91 * DAY, now=NOON)
    assert refusal.value.code == "too-far"
    assert "at most 90 days ahead" in refusal.value.message
    assert rows(alice) == []
    vacation = vacation_start(user=alice, days=2, first_day=date(2026, 3, 2) + 90 * DAY, now=NOON)
    assert vacation.starts_at == midnight(date(2026, 5, 31))


def test_the_horizon_is_a_setting(settings) -> None:
    settings.DIAMINO_VACATION_BOOKING_HORIZON_DAYS = 10
    alice = make_player("alice", time_zone="Europe/Paris")
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=alice, days=2, first_day=date(2026, 3, 13), now=NOON)
    assert "at most 10 days ahead" in refusal.value.message


@pytest.mark.parametrize(
    ("first_day", "days"),
    [
        (date(2026, 3, 8), 3),  # ends inside the planned vacation
        (date(2026, 3, 12), 5),  # starts inside it
        (date(2026, 3, 11), 1),  # inside it
        (date(2026, 3, 5), 15),  # around it
    ],
)
def test_a_vacation_overlapping_a_planned_one_is_refused(first_day: date, days: int) -> None:
    alice = make_player("alice", time_zone="Europe/Paris", language="en")
    vacation_start(user=alice, days=4, first_day=date(2026, 3, 10), now=NOON)
    before = rows(alice)
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=alice, days=days, first_day=first_day, now=NOON)
    assert refusal.value.code == "overlap"
    assert "overlap your vacation from" in refusal.value.message
    assert rows(alice) == before


def test_back_to_back_vacations_do_not_overlap() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    vacation_start(user=alice, days=4, first_day=date(2026, 3, 10), now=NOON)
    vacation_start(user=alice, days=2, first_day=date(2026, 3, 14), now=NOON)
    vacation_start(user=alice, days=2, first_day=date(2026, 3, 8), now=NOON)
    assert vacations.days_used(alice, 2026) == 8


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (date(2027, 3, 27), date(2027, 4, 3)),  # Paris moves its clocks forward on 28 March
        (date(2027, 10, 30), date(2027, 11, 6)),  # and back on 31 October
    ],
)
def test_across_a_change_of_summer_time_a_week_from_midnight_ends_at_midnight(
    first: date, second: date
) -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    now = (
        datetime(2027, 3, 1, 12, tzinfo=UTC)
        if first.month == 3
        else datetime(2027, 10, 1, tzinfo=UTC)
    )
    week = vacation_start(user=alice, days=7, first_day=first, now=now)
    assert week.ends_at.astimezone(PARIS) == midnight(second)
    # The next week starts right where the first ends: no overlap, no hour of clock between.
    vacation_start(user=alice, days=7, first_day=second, now=now)
    assert vacations.days_used(alice, 2027) == 14, "a 23- or 25-hour day is still one day"


@pytest.mark.parametrize(
    ("booked", "clash", "fits"),
    [
        # Starting now, over a vacation planned from the day after tomorrow; 1 day fits.
        ((date(2026, 3, 4), 4), (None, 3), (None, 1)),
        # Booked ahead while on vacation: from its last day no, from the day after it yes.
        ((None, 3), (date(2026, 3, 4), 3), (date(2026, 3, 6), 3)),
    ],
)
def test_a_vacation_overlapping_another_is_refused_one_next_to_it_is_not(
    booked: tuple[date | None, int], clash: tuple[date | None, int], fits: tuple[date | None, int]
) -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    for (first_day, days), code in ((booked, None), (clash, "overlap"), (fits, None)):
        if code is None:
            vacation_start(user=alice, days=days, first_day=first_day, now=NOON)
            continue
        with pytest.raises(VacationRefused) as refusal:
            vacation_start(user=alice, days=days, first_day=first_day, now=NOON)
        assert refusal.value.code == code
    assert len(rows(alice)) == 2


def test_a_planned_vacation_over_the_year_s_allowance_is_refused() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    vacation_start(user=alice, days=12, now=NOON)
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=alice, days=9, first_day=date(2026, 4, 1), now=NOON)
    assert refusal.value.code == "allowance"
    assert "8 days of vacation left in 2026" in refusal.value.message
    vacation_start(user=alice, days=8, first_day=date(2026, 4, 1), now=NOON)
    assert vacations.days_left(alice, 2026) == 0


def test_a_vacation_booked_across_new_year_needs_days_left_in_both_years() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    december = datetime(2026, 12, 10, 12, 0, tzinfo=UTC)
    # 18 days of 2027 already booked in January.
    vacation_start(user=alice, days=18, first_day=date(2027, 1, 10), now=december)
    # From 29 December for 5 days: 3 days of 2026 (29, 30, 31) and 2 of 2027.
    booked = vacation_start(user=alice, days=5, first_day=date(2026, 12, 29), now=december)
    assert vacations.days_used(alice, 2026) == 3
    assert vacations.days_used(alice, 2027) == 20
    booked.delete()
    # Three days in 2027 is one too many, though 2026 has 20 left.
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=alice, days=6, first_day=date(2026, 12, 29), now=december)
    assert refusal.value.code == "allowance"
    assert "2 days of vacation left in 2027" in refusal.value.message
    assert vacations.days_used(alice, 2026) == 0


def test_a_passed_deadline_refuses_a_vacation_from_now_only() -> None:
    """A vacation booked ahead starts after now: it cannot push a deadline already passed."""
    from games import clock
    from tests.games.conftest import seat_at, start_game

    with time_machine.travel(NOON, tick=False):
        game = start_game([make_player("alice"), make_player("bob")])
    player = seat_at(game, 0).player
    deadline = clock.deadline_of(game)
    assert deadline is not None
    late = deadline + timedelta(minutes=2)
    with pytest.raises(VacationRefused) as refusal:
        vacation_start(user=player, days=2, now=late)
    assert refusal.value.code == "out-of-time"
    tomorrow = vacations.local_today(player, late) + DAY
    vacation_start(user=player, days=2, first_day=tomorrow, now=late)
    assert clock.deadline_of(game) == deadline  # the time-out still stands


# --- cancelling ---------------------------------------------------------------------------


def test_cancelling_a_planned_vacation_gives_its_days_back() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    planned = vacation_start(user=alice, days=6, first_day=date(2026, 3, 10), now=NOON)
    assert vacations.days_left(alice, 2026) == 14
    cancelled = vacation_cancel(user=alice, vacation_id=planned.pk, now=NOON + DAY)
    assert cancelled.starts_at == midnight(date(2026, 3, 10))
    assert rows(alice) == []
    assert vacations.days_left(alice, 2026) == 20


def test_a_vacation_already_started_cannot_be_cancelled_only_ended() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    planned = vacation_start(user=alice, days=6, first_day=date(2026, 3, 10), now=NOON)
    before = rows(alice)
    with pytest.raises(VacationRefused) as refusal:
        vacation_cancel(user=alice, vacation_id=planned.pk, now=planned.starts_at)
    assert refusal.value.code == "started"
    assert "come back early" in refusal.value.message
    assert rows(alice) == before
    # Coming back the first morning uses one day.
    vacation_end(user=alice, now=planned.starts_at + timedelta(hours=9))
    assert vacations.days_used(alice, 2026) == 1


def test_nobody_cancels_another_player_s_vacation() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    bob = make_player("bob")
    planned = vacation_start(user=alice, days=6, first_day=date(2026, 3, 10), now=NOON)
    with pytest.raises(VacationRefused) as refusal:
        vacation_cancel(user=bob, vacation_id=planned.pk, now=NOON)
    assert refusal.value.code == "not-found"
    assert len(rows(alice)) == 1


def test_coming_back_early_leaves_the_planned_vacations_alone() -> None:
    alice = make_player("alice", time_zone="Europe/Paris")
    vacation_start(user=alice, days=2, now=NOON)
    planned = vacation_start(user=alice, days=3, first_day=date(2026, 3, 20), now=NOON)
    vacation_end(user=alice, now=NOON + timedelta(hours=5))
    assert vacations.planned_vacations(alice, NOON + timedelta(hours=5)) == [planned]
    assert vacations.days_used(alice, 2026) == 4


# --- the page -----------------------------------------------------------------------------

URL = "/compte/vacances/"


def test_the_page_books_lists_and_cancels_a_vacation_ahead() -> None:
    alice = make_player("alice", language="en", time_zone="Europe/Paris")
    client = client_for(alice)
    with time_machine.travel(NOON, tick=False):
        response = client.post(
            URL, {"action": "plan", "plan-first_day": "2026-03-10", "plan-days": "4"}
        )
        assert response.status_code == 302
        page = client.get(response["Location"]).content.decode()
        assert "Your vacation is booked: your clocks will stop from" in page
        assert "Planned vacations" in page
        assert "Cancel this vacation" in page
        assert "4 days used, 16 days left" in page
        assert "You are on vacation until" not in page
        planned = Vacation.objects.get(user=alice)
        response = client.post(URL, {"action": "cancel", "vacation": str(planned.pk)})
        assert response.status_code == 302
        page = client.get(URL).content.decode()
        assert "is cancelled: its days are given back" in page
        assert "Planned vacations" not in page
        assert "0 days used, 20 days left" in page
    assert rows(alice) == []


def test_the_page_shows_each_year_a_planned_vacation_reaches() -> None:
    alice = make_player("alice", language="en", time_zone="Europe/Paris")
    december = datetime(2026, 12, 10, 12, 0, tzinfo=UTC)
    vacation_start(user=alice, days=5, first_day=date(2026, 12, 29), now=december)
    with time_machine.travel(december, tick=False):
        page = client_for(alice).get(URL).content.decode()
    assert "In 2026: 3 days used, 17 days left." in page
    assert "In 2027: 2 days used, 18 days left." in page


@pytest.mark.parametrize(
    ("language", "first_day", "days", "expected"),
    [
        ("en", "2026-03-01", "2", "This day is already past: choose today or a day to come."),
        ("fr", "2026-03-01", "2", "Ce jour est déjà passé\u00a0: choisissez aujourd’hui"),
        ("en", "2026-06-01", "2", "A vacation can be booked at most 90 days ahead"),
        ("fr", "2026-06-01", "2", "Des vacances se réservent au plus 90 jours à l’avance"),
        ("en", "2026-03-11", "2", "These days overlap your vacation from March 10, 2026"),
        ("fr", "2026-03-11", "2", "Ces jours chevauchent vos vacances du 10 mars 2026"),
        ("en", "2026-04-01", "17", "You have 16 days of vacation left in 2026"),
        ("fr", "2026-04-01", "17", "jours de vacances restants\u00a0: 16\u00a0; jours demandés"),
    ],
)
def test_the_page_explains_each_refusal_in_the_player_s_language(
    language: str, first_day: str, days: str, expected: str
) -> None:
    alice = make_player("alice", language=language, time_zone="Europe/Paris")
    vacation_start(user=alice, days=4, first_day=date(2026, 3, 10), now=NOON)
    before = rows(alice)
    with time_machine.travel(NOON, tick=False):
        response = client_for(alice).post(
            URL, {"action": "plan", "plan-first_day": first_day, "plan-days": days}
        )
    assert response.status_code == 400
    assert expected in html.unescape(response.content.decode())
    assert rows(alice) == before


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "This vacation has already started: to restart your clocks, come back early."),
        ("fr", "Ces vacances ont déjà commencé\u00a0: pour relancer vos pendules, revenez"),
    ],
)
def test_the_page_refuses_to_cancel_a_vacation_that_has_started(language, expected) -> None:
    alice = make_player("alice", language=language, time_zone="Europe/Paris")
    vacation = vacation_start(user=alice, days=4, first_day=date(2026, 3, 10), now=NOON)
    with time_machine.travel(vacation.starts_at + timedelta(hours=1), tick=False):
        response = client_for(alice).post(URL, {"action": "cancel", "vacation": str(vacation.pk)})
    assert response.status_code == 400
    assert expected in html.unescape(response.content.decode())
    assert len(rows(alice)) == 1


def test_the_page_in_french_books_and_cancels() -> None:
    alice = make_player("alice", language="fr", time_zone="Europe/Paris")
    client = client_for(alice)
    with time_machine.travel(NOON, tick=False):
        page = client.get(URL).content.decode()
        assert "Réserver des vacances à l’avance" in page
        assert 'min="2026-03-02" max="2026-05-31"' in page
        client.post(URL, {"action": "plan", "plan-first_day": "2026-03-10", "plan-days": "4"})
        page = html.unescape(client.get(URL).content.decode())
        assert (
            "Vos vacances sont réservées\u00a0: vos pendules s’arrêteront du 10 mars 2026" in page
        )
        assert "Vacances prévues" in page
        vacation = Vacation.objects.get(user=alice)
        client.post(URL, {"action": "cancel", "vacation": str(vacation.pk)})
        page = html.unescape(client.get(URL).content.decode())
    assert "Vos vacances du 10 mars 2026 00:00 sont annulées\u00a0: leurs jours" in page
    assert misplaced_marks(text_of_html(page)) == []


def test_a_bad_date_is_a_form_error_and_changes_nothing() -> None:
    alice = make_player("alice", language="en")
    with time_machine.travel(NOON, tick=False):
        response = client_for(alice).post(
            URL, {"action": "plan", "plan-first_day": "someday", "plan-days": "3"}
        )
    assert response.status_code == 400
    assert rows(alice) == []


def test_a_sentence_that_ends_with_a_time_ends_with_one_full_stop() -> None:
    # English times ended with "a.m."/"p.m.": "until Dec. 3, 2026, 10:19 a.m.."
    alice = make_player("alice", language="en", time_zone="Europe/Paris")
    client = client_for(alice)
    url = reverse("accounts:vacation")
    with time_machine.travel(datetime(2026, 12, 1, 9, 19, tzinfo=UTC), tick=False):
        response = client.post(url, {"action": "start", "days": "2"}, follow=True)
    text = text_of_html(response.content.decode())
    assert "Enjoy your vacation: your clocks stop until Dec. 3, 2026, 10:19 AM." in text
    assert "You are on vacation until Dec. 3, 2026, 10:19 AM." in text
    assert ".." not in text
    with translation.override("en"):
        for name in ("DATETIME_FORMAT", "SHORT_DATETIME_FORMAT", "TIME_FORMAT"):
            assert not formats.date_format(datetime(2026, 12, 3, 22, 0), name).endswith(".")


def test_a_vacation_no_clock_would_hear_of_is_refused_loudly() -> None:
    from django.core.exceptions import ImproperlyConfigured

    from accounts.signals import vacation_starting
    from games.vacations import clocks_stop

    alice = make_player("alice")
    vacation_starting.disconnect(dispatch_uid="clocks-stop")
    try:
        with pytest.raises(ImproperlyConfigured):
            vacation_start(user=alice, days=2)
    finally:
        vacation_starting.connect(clocks_stop, dispatch_uid="clocks-stop")
    assert not Vacation.objects.filter(user=alice).exists()
    assert vacation_start(user=alice, days=2).user == alice
