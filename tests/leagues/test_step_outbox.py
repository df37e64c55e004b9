"""A season step's emails are outbox rows written in the step's transaction (#34).

As a move's: a step that commits has its emails, a step that rolls back has
none, and a crash between the commit and the send loses nothing (the sweep
sends what is left, once).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.mail.backends.locmem import EmailBackend as LocmemBackend
from django.db import DatabaseError

from leagues import notify, services, tasks
from leagues.models import Registration, Season
from notifications import periodic
from notifications.models import Notification
from tests.leagues.lifecycle import play_out
from tests.leagues.pages_helpers import make_league, make_players, running_season

pytestmark = pytest.mark.django_db
Status = Notification.Status


@pytest.fixture
def season(mailoutbox):
    """A running season of four players; the start's emails dropped, to watch one step's."""
    players = make_players(4)
    season, _division = running_season(players, league=make_league())
    Notification.objects.all().delete()
    mailoutbox.clear()
    return season


def statuses(kind: str) -> list[str]:
    return list(Notification.objects.filter(kind=kind).values_list("status", flat=True))


def recipients(mailoutbox) -> list[str]:
    return sorted(message.to[0] for message in mailoutbox)


def emails_of(season: Season) -> list[str]:
    return sorted(p.player.email for p in season.placements.select_related("player"))


def test_a_step_that_commits_has_its_emails_and_each_is_sent_once(
    season, django_capture_on_commit_callbacks, mailoutbox
) -> None:
    last_week = season.ends_at - timedelta(days=6)
    with time_machine.travel(last_week, tick=False):
        with django_capture_on_commit_callbacks(execute=True):
            assert tasks.seasons_advance()["last_week"] == 1  # beat's task
            # Written with the step, before its commit sends them.
            assert statuses(notify.LAST_WEEK) == [Status.PENDING] * 4
            assert mailoutbox == []
        assert statuses(notify.LAST_WEEK) == [Status.SENT] * 4
        assert recipients(mailoutbox) == emails_of(season)
        # Beat again: the step is done, nothing written; the sweep finds nothing to send.
        with django_capture_on_commit_callbacks(execute=True):
            assert tasks.seasons_advance()["last_week"] == 0
    with time_machine.travel(last_week + timedelta(minutes=10), tick=False):
        assert periodic.sweep() == 0
    assert Notification.objects.filter(kind=notify.LAST_WEEK).count() == 4
    assert len(mailoutbox) == 4


def test_a_step_that_rolls_back_has_no_emails_and_its_retry_has_them_once(
    season, django_capture_on_commit_callbacks, mailoutbox, monkeypatch
) -> None:
    play_out(season, [p.player for p in season.placements.select_related("player")])
    mailoutbox.clear()
    Notification.objects.all().delete()
    end = season.ends_at + timedelta(hours=1)

    written_when_it_failed: list[int] = []

    def disk_full(*args, **kwargs):
        written_when_it_failed.append(
            Notification.objects.filter(kind=notify.FINAL_STANDING).count()
        )
        raise DatabaseError("could not extend file: No space left on device")

    # The close fails after writing the final standings' rows, as it carries the
    # players over to the next season: the whole step rolls back, rows and all.
    with monkeypatch.context() as patch, time_machine.travel(end, tick=False):
        patch.setattr(Registration.objects, "bulk_create", disk_full)
        with (
            django_capture_on_commit_callbacks(execute=True) as callbacks,
            pytest.raises(DatabaseError),
        ):
            services.season_close(season_id=season.pk, now=end)
        assert written_when_it_failed == [4], "the final standings' rows were in the step"
        assert callbacks == [], "nothing to run after a rollback"
        season.refresh_from_db()
        assert season.state == Season.State.RUNNING
        assert not Notification.objects.exists()
        with django_capture_on_commit_callbacks(execute=True):
            assert tasks.seasons_advance()["close"] == 0, "beat logs the failure and goes on"
        assert not Notification.objects.exists()
    with time_machine.travel(end + timedelta(minutes=10), tick=False):
        assert periodic.sweep() == 0
    assert mailoutbox == []
    # The disk has room again: beat's next run closes the season, one email each.
    with (
        time_machine.travel(end + timedelta(minutes=11), tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert tasks.seasons_advance()["close"] == 1
    assert statuses(notify.FINAL_STANDING) == [Status.SENT] * 4
    assert statuses(notify.REGISTRATION_OPEN) == [Status.SENT] * 4
    assert recipients(mailoutbox) == sorted(emails_of(season) * 2)


def test_a_crash_between_the_commit_and_the_send_leaves_the_emails_to_the_sweep_once(
    season, mailoutbox
) -> None:
    last_week = season.ends_at - timedelta(days=6)
    with time_machine.travel(last_week, tick=False):
        # The step commits, and the process dies before its on-commit callbacks
        # queue the sends (tests never commit: the callbacks are dropped, as lost).
        assert services.season_last_week(season_id=season.pk, now=last_week)
        assert statuses(notify.LAST_WEEK) == [Status.PENDING] * 4
        assert mailoutbox == []
        assert periodic.sweep() == 0, "not yet a minute late"
    with time_machine.travel(last_week + timedelta(minutes=2), tick=False):
        assert periodic.sweep() == 4
        assert periodic.sweep() == 0
    assert statuses(notify.LAST_WEEK) == [Status.SENT] * 4
    assert recipients(mailoutbox) == emails_of(season)


class WorkerKilled(BaseException):
    """The worker's process dying mid-send: not an error the sender can catch and record."""


class DyingSMTP(LocmemBackend):
    """Kills the worker the first time it is asked to deliver, then delivers."""

    deaths = 0

    def send_messages(self, messages):
        if type(self).deaths == 0:
            type(self).deaths += 1
            raise WorkerKilled
        return super().send_messages(messages)


def test_a_worker_killed_before_delivering_a_step_s_email_leaves_it_to_the_sweep_once(
    season, django_capture_on_commit_callbacks, mailoutbox, settings
) -> None:
    settings.EMAIL_BACKEND = "tests.leagues.test_step_outbox.DyingSMTP"
    DyingSMTP.deaths = 0
    last_week = season.ends_at - timedelta(days=6)
    with time_machine.travel(last_week, tick=False):
        with pytest.raises(WorkerKilled), django_capture_on_commit_callbacks(execute=True):
            assert services.season_last_week(season_id=season.pk, now=last_week)
        # The first send died holding its row; the rest were never queued.
        assert sorted(statuses(notify.LAST_WEEK)) == [Status.PENDING] * 3 + [Status.SENDING]
        assert mailoutbox == []
    with time_machine.travel(last_week + timedelta(minutes=2), tick=False):
        assert periodic.sweep() == 3, "the held row waits for its sender's lease"
    assert len(mailoutbox) == 3
    after_lease = last_week + settings.DIAMINO_NOTIFICATION_LEASE + timedelta(minutes=1)
    with time_machine.travel(after_lease, tick=False):
        assert periodic.sweep() == 1
        assert periodic.sweep() == 0
    assert statuses(notify.LAST_WEEK) == [Status.SENT] * 4
    assert recipients(mailoutbox) == emails_of(season)
