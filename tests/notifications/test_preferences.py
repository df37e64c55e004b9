"""Each player's email preferences decide what reaches them; skipped rows say why."""

from __future__ import annotations

import smtplib
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.mail.backends import locmem

from accounts.models import EmailChoice
from games import deadlines, services
from games.models import Game, Invitation
from notifications import sending
from notifications.models import Notification
from tests.factories import make_player
from tests.games.conftest import seat_at
from tests.notifications.conftest import new_game, play_chat, rows

pytestmark = pytest.mark.django_db
THREE_HANDS = ("CHATEAUXSIRN", "LEPOTIERMANU", "BONJOURASSEZ")


def set_turn_emails(user, value: str) -> None:
    user.turn_emails = value
    user.save(update_fields=["turn_emails"])


@pytest.mark.parametrize(
    ("preference", "status", "emails", "reason"),
    [
        (EmailChoice.EACH, "sent", 1, ""),
        (EmailChoice.DIGEST, "skipped", 0, "the player reads the daily digest instead"),
        (EmailChoice.NEVER, "skipped", 0, "turned off in the player's settings"),
    ],
)
def test_turn_emails_follow_the_players_choice(
    alice, bob, committed, mailoutbox, preference, status, emails, reason
) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    set_turn_emails(second, preference)
    with committed():
        play_chat(game)
    row = Notification.objects.get(kind="turn", recipient=second)
    assert (row.status, row.reason) == (status, reason)
    assert len(mailoutbox) == emails


def test_an_unconfirmed_address_gets_nothing(alice, bob, committed, mailoutbox) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    second.emailaddress_set.update(verified=False)  # type: ignore[attr-defined]  # allauth ships no types
    with committed():
        play_chat(game)
    assert mailoutbox == []
    assert Notification.objects.get(recipient=second).reason == "no confirmed email address"


def test_an_invitation_is_emailed_unless_the_player_turned_them_off(
    alice, bob, carol, committed, mailoutbox
) -> None:
    carol.invitation_emails = EmailChoice.NEVER
    carol.save()
    with committed():
        game = services.game_create(creator=alice, mode="marque", seats=3, invitees=[bob, carol])
    assert [m.to for m in mailoutbox] == [[bob.email]]
    message = mailoutbox[0]
    assert "alice" in message.subject
    assert f"/parties/{game.pk}/" in message.body
    assert rows(kind="invitation") == [
        ("invitation", "bob", "sent"),
        ("invitation", "carol", "skipped"),
    ]


def test_inviting_the_same_player_twice_writes_one_invitation_email(alice, bob) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=3)
    services.game_invite(game_id=game.pk, by=alice, invitee=bob)
    services.game_invite(game_id=game.pk, by=alice, invitee=bob)
    assert rows(kind="invitation") == [("invitation", "bob", "pending")]


def test_a_player_invited_again_after_leaving_the_table_is_emailed_again(
    alice, bob, carol, committed, mailoutbox
) -> None:
    with committed():
        game = services.game_create(creator=alice, mode="marque", seats=3, invitees=[bob])
    with committed():
        services.game_join(game_id=game.pk, player=bob)
        services.game_invite(game_id=game.pk, by=bob, invitee=carol)
        services.game_leave(game_id=game.pk, player=bob)
    assert Invitation.objects.get(game=game, invitee=bob).status == "declined"
    mailoutbox.clear()
    with committed():
        services.game_invite(game_id=game.pk, by=alice, invitee=bob)
    invitation = Invitation.objects.get(game=game, invitee=bob)
    assert (invitation.status, invitation.invited_by) == ("pending", alice)
    assert [m.to for m in mailoutbox] == [[bob.email]]
    assert rows(kind="invitation", recipient=bob) == [
        ("invitation", "bob", "sent"),
        ("invitation", "bob", "sent"),
    ]
    # The same invitation sent twice (a double submit) is still one email.
    with committed():
        services.game_invite(game_id=game.pk, by=alice, invitee=bob)
    assert len(mailoutbox) == 1
    assert services.game_join(game_id=game.pk, player=bob)


def test_an_invitation_that_is_no_longer_open_is_not_sent(alice, bob, mailoutbox) -> None:
    from notifications import sending

    game = services.game_create(creator=alice, mode="marque", seats=2, invitees=[bob])
    services.game_join(game_id=game.pk, player=bob)  # accepted before the email went
    row = Notification.objects.get(kind="invitation")
    assert Invitation.objects.get(game=game).status == "accepted"
    assert sending.send_one(row.pk).status == "skipped"
    assert mailoutbox == []


def test_when_the_game_starts_the_first_player_is_told_to_play_and_the_others_that_it_began(
    alice, bob, carol, committed, mailoutbox
) -> None:
    bob.language = "en"
    bob.save()
    with committed():
        game = new_game([alice, bob, carol], hands=THREE_HANDS, keep_start=True)
    first = seat_at(game, 0).player
    subjects = {m.to[0]: m.subject for m in mailoutbox}
    assert len(subjects) == 3
    for player in (alice, bob, carol):
        if player == first:
            assert subjects[player.email].endswith(f" {game.pk} has started: your turn")
        else:
            assert subjects[player.email].endswith(f" {game.pk} has started")
    assert rows(kind="turn") == [("turn", first.username, "sent")]


def test_game_over_emails_reach_every_player_who_wants_them(
    alice, bob, committed, mailoutbox
) -> None:
    game = new_game([alice, bob])
    alice.game_over_emails = EmailChoice.NEVER
    alice.save()
    with committed():
        services.game_resign(game_id=game.pk, player=alice)
    assert [m.to for m in mailoutbox] == [[bob.email]]
    assert sorted(rows(kind="game-over")) == [
        ("game-over", "alice", "skipped"),
        ("game-over", "bob", "sent"),
    ]
    assert not Notification.objects.filter(kind="turn").exists(), "no turn after the end"


def test_an_annulment_tells_every_player_why(alice, bob, committed, mailoutbox) -> None:
    staff = make_player("staff", is_staff=True)
    bob.language = "en"
    bob.save()
    game = new_game([alice, bob])
    with committed():
        services.game_annul(game_id=game.pk, by=staff, reason="Two accounts, one player.")
    assert sorted(m.to[0] for m in mailoutbox) == sorted([alice.email, bob.email])
    for message in mailoutbox:
        assert "Two accounts, one player." in message.body
        assert f" {game.pk} was annulled" in message.subject


# --- kinds read in the daily digest (#35) --------------------------------------------------

EVENING = datetime(2026, 3, 2, 19, tzinfo=UTC)  # 20:00 in Paris
MORNING = datetime(2026, 3, 3, 8, tzinfo=UTC)  # 9:00 in Paris, past the digest hour (8)
DIGEST_REASON = "the player reads the daily digest instead"


def digests_at(moment: datetime, committed) -> int:
    """Run beat's hourly digest step at ``moment`` and send what it wrote."""
    with time_machine.travel(moment, tick=False), committed():
        return deadlines.write_digests()


def test_an_invitation_read_in_the_digest_is_not_emailed_and_the_digest_names_it(
    alice, bob, committed, mailoutbox
) -> None:
    bob.language = "en"
    bob.invitation_emails = EmailChoice.DIGEST
    bob.save()
    with time_machine.travel(EVENING, tick=False), committed():
        table = services.game_create(creator=alice, mode="marque", seats=2, invitees=[bob])
    assert mailoutbox == []
    row = Notification.objects.get(kind="invitation", recipient=bob)
    assert (row.status, row.reason) == ("skipped", DIGEST_REASON)

    assert digests_at(MORNING, committed) == 1
    (message,) = mailoutbox
    assert message.to == [bob.email]
    assert message.subject == "[Diamino] 1 notification in your daily digest"
    assert f"alice invited you to game #{table.pk}." in message.body
    assert f"/parties/{table.pk}/" in message.body
    assert "waits for your move" not in message.body  # bob reads each turn email on its own
    assert "Unsubscribe from the daily digest:" in message.body
    # Told once: the next morning has nothing new, and no digest is written.
    assert digests_at(MORNING + timedelta(days=1), committed) == 0
    assert len(mailoutbox) == 1


def test_a_finished_game_read_in_the_digest_says_there_who_won(
    alice, bob, committed, mailoutbox
) -> None:
    with time_machine.travel(EVENING, tick=False):
        game = new_game([alice, bob])
    bob.game_over_emails = EmailChoice.DIGEST
    bob.save()
    with time_machine.travel(EVENING, tick=False), committed():
        services.game_resign(game_id=game.pk, player=alice)
    assert [m.to for m in mailoutbox] == [[alice.email]]  # alice reads each one
    mailoutbox.clear()

    assert digests_at(MORNING, committed) == 1
    (message,) = mailoutbox
    assert message.to == [bob.email]
    assert "Depuis votre précédent récapitulatif\u00a0:" in message.body
    assert f"La partie nº\u00a0{game.pk} est terminée\u00a0: bob l’a gagnée." in message.body
    assert "1 notification dans votre récapitulatif du jour" in message.subject


def test_a_digest_with_nothing_to_say_is_not_sent(alice, bob, committed, mailoutbox) -> None:
    for player in (alice, bob):
        player.invitation_emails = player.game_over_emails = EmailChoice.DIGEST
        player.save()
    # Digest readers with nothing new: no digest is written…
    assert digests_at(MORNING, committed) == 0
    # …and one written for an event gone since (its game deleted) is not sent.
    with time_machine.travel(EVENING, tick=False), committed():
        table = services.game_create(creator=alice, mode="marque", seats=2, invitees=[bob])
    with time_machine.travel(MORNING, tick=False):
        deadlines.write_digests()  # written, not yet sent (no commit run)
        Game.objects.filter(pk=table.pk).delete()
        digest = Notification.objects.get(kind="digest", recipient=bob)
        assert sending.send_one(digest.pk).status == "skipped"
    assert mailoutbox == []
    digest.refresh_from_db()
    assert digest.reason == "nothing to tell the player"


# --- the digest's cut-off and its events claimed (#35, review) ------------------------------

PARIS_8 = datetime(2026, 3, 3, 7, tzinfo=UTC)  # 8:00 in Paris: the digest time
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def reads_invitations_in_the_digest(player) -> None:
    player.language = "en"
    player.invitation_emails = EmailChoice.DIGEST
    player.save()


def invited(by, invitee, moment: datetime, committed) -> Game:
    with time_machine.travel(moment, tick=False), committed():
        return services.game_create(creator=by, mode="marque", seats=2, invitees=[invitee])


def told(table: Game, by: str = "alice") -> str:
    return f"{by} invited you to game #{table.pk}."


def bodies_to(player, mailoutbox) -> list[str]:
    return [m.body for m in mailoutbox if m.to == [player.email]]


def test_an_event_after_the_digest_time_waits_for_the_next_days_digest(
    alice, bob, committed, mailoutbox
) -> None:
    reads_invitations_in_the_digest(bob)
    afternoon = PARIS_8 + 7 * HOUR  # 15:00 in Paris: the day's digest time has passed
    table = invited(alice, bob, afternoon, committed)
    # No digest at any hour before the next 8:00 in Paris (the settings say "at 8:00")…
    assert [digests_at(afternoon + h * HOUR, committed) for h in range(1, 16)] == [0] * 15
    assert mailoutbox == []
    # …where it is.
    assert digests_at(PARIS_8 + DAY, committed) == 1
    (body,) = bodies_to(bob, mailoutbox)
    assert told(table) in body


def test_a_digest_caught_up_late_tells_only_what_came_before_the_digest_time(
    alice, bob, carol, committed, mailoutbox
) -> None:
    reads_invitations_in_the_digest(bob)
    before = invited(alice, bob, PARIS_8 - HOUR, committed)
    after = invited(carol, bob, PARIS_8 + HOUR // 2, committed)
    # Beat was down at 8:00; the run at 11:00 catches up the day's digest, as it was at 8:00.
    assert digests_at(PARIS_8 + 3 * HOUR, committed) == 1
    (body,) = bodies_to(bob, mailoutbox)
    assert told(before) in body
    assert told(after, "carol") not in body
    digest = Notification.objects.get(kind="digest", recipient=bob)
    assert datetime.fromisoformat(digest.context["until"]) == PARIS_8
    mailoutbox.clear()
    assert digests_at(PARIS_8 + DAY, committed) == 1
    (body,) = bodies_to(bob, mailoutbox)
    assert told(after, "carol") in body
    assert told(before) not in body


def test_an_invitation_no_longer_open_is_not_in_the_digest(
    alice, bob, carol, committed, mailoutbox
) -> None:
    reads_invitations_in_the_digest(bob)
    dave = make_player("dave")
    taken = invited(alice, bob, EVENING, committed)
    still_open = invited(dave, bob, EVENING, committed)
    with time_machine.travel(EVENING, tick=False), committed():
        services.game_join(game_id=taken.pk, player=carol)  # the table starts without bob
    assert digests_at(MORNING, committed) == 1
    (body,) = bodies_to(bob, mailoutbox)
    assert told(still_open, "dave") in body
    assert f"game #{taken.pk}" not in body


def test_a_digest_of_invitations_no_longer_open_only_is_not_sent_nor_written_again(
    alice, bob, committed, mailoutbox
) -> None:
    reads_invitations_in_the_digest(bob)
    table = invited(alice, bob, EVENING, committed)
    Invitation.objects.filter(game=table).update(status=Invitation.Status.DECLINED)
    assert digests_at(MORNING, committed) == 1
    assert bodies_to(bob, mailoutbox) == []
    digest = Notification.objects.get(kind="digest", recipient=bob)
    assert (digest.status, digest.reason) == ("skipped", "nothing to tell the player")
    # The invitation said nothing any more; it does not bring a digest row back every day.
    assert digests_at(MORNING + DAY, committed) == 0


def test_a_failed_digest_leaves_its_events_to_the_next_one(
    alice, bob, committed, mailoutbox, settings, monkeypatch
) -> None:
    reads_invitations_in_the_digest(bob)
    table = invited(alice, bob, EVENING, committed)
    settings.DIAMINO_NOTIFICATION_MAX_ATTEMPTS = 1

    def refused(self, messages):
        raise smtplib.SMTPServerDisconnected("the mail server went away")

    with monkeypatch.context() as patched:
        patched.setattr(locmem.EmailBackend, "send_messages", refused)
        assert digests_at(MORNING, committed) == 1
    assert Notification.objects.get(kind="digest", recipient=bob).status == "failed"
    assert digests_at(MORNING + DAY, committed) == 1
    (body,) = bodies_to(bob, mailoutbox)
    assert told(table) in body


@pytest.mark.parametrize(("days", "is_told"), [(6, True), (13, True), (14, False)])
def test_a_first_digest_after_days_away_tells_up_to_two_weeks_back(
    alice, bob, committed, mailoutbox, days, is_told
) -> None:
    reads_invitations_in_the_digest(bob)
    table = invited(alice, bob, EVENING, committed)
    # No digest run meanwhile (bob away, beat down): the next one says what bob missed,
    # unless it is more than two weeks old by then.
    assert digests_at(MORNING + days * DAY, committed) == int(is_told)
    assert [told(table) in body for body in bodies_to(bob, mailoutbox)] == [True] * is_told


def test_an_event_committed_after_the_digest_went_is_in_the_next_one(
    alice, bob, carol, committed, mailoutbox
) -> None:
    reads_invitations_in_the_digest(bob)
    first = invited(alice, bob, EVENING, committed)
    assert digests_at(PARIS_8, committed) == 1
    # Written at 7:59 in Paris, but its transaction commits after the digest was sent.
    late = invited(carol, bob, PARIS_8 - timedelta(minutes=1), committed)
    mailoutbox.clear()
    assert digests_at(PARIS_8 + DAY, committed) == 1
    (body,) = bodies_to(bob, mailoutbox)
    assert told(late, "carol") in body
    assert told(first) not in body  # told once
    event = Notification.objects.get(kind="invitation", recipient=bob, game=first)
    digest = Notification.objects.filter(kind="digest", recipient=bob).order_by("created_at")[0]
    assert event.context["told_in"] == digest.pk
    assert digest.context["events"] == [event.pk]
