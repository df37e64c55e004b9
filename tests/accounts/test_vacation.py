"""Vacation: 20 days a calendar year, clocks stopped, refused beyond the allowance."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from accounts import vacations
from accounts.models import Vacation
from accounts.vacations import VacationRefused, vacation_end, vacation_start
from tests.factories import make_player

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


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
