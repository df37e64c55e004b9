"""Staff are told of a new report: who gets the email, what it says, and when it is dropped."""

from __future__ import annotations

import pytest

from accounts.services import user_delete
from games.errors import GameError
from moderation import notify
from moderation.models import Report
from moderation.services import own_case, report_create, report_resolve
from notifications.models import Notification
from notifications.sending import send_one
from tests.factories import make_player
from tests.games.conftest import start_game
from tests.moderation.conftest import report, seat_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def modo(db):
    return make_player("modo", is_staff=True, language="fr", time_zone="Europe/Paris")


@pytest.fixture
def mod(db):
    return make_player("mod", is_staff=True, language="en", time_zone="UTC")


def alerts() -> list[tuple[str, str]]:
    """(recipient, status) of the report emails written, by recipient."""
    return sorted(
        Notification.objects.filter(kind=Notification.Kind.REPORT).values_list(
            "recipient__username", "status"
        )
    )


def test_each_staff_member_gets_one_email_with_the_reason_the_text_and_the_admin_link(
    game, alice, bob, modo, mod, committed, mailoutbox, settings
) -> None:
    settings.SITE_URL = "https://diamino.example"
    with committed():
        filed = report(game, alice, about=bob, text="Des mots introuvables\nà chaque coup.")
    by_address = {message.to[0]: message for message in mailoutbox}
    assert sorted(by_address) == [mod.email, modo.email]
    link = f"https://diamino.example/admin/moderation/report/{filed.pk}/change/"
    french, english = by_address[modo.email], by_address[mod.email]
    assert french.subject == (
        f"[Diamino] Nouveau signalement — Partie {game.pk}\u00a0: "
        "Triche (aide extérieure, logiciel de recherche de mots)"
    )
    assert f"Partie {game.pk}\u00a0: alice a signalé bob." in french.body
    assert "Motif\u00a0: Triche (aide extérieure" in french.body
    assert english.subject == (
        f"[Diamino] New report — Game {game.pk}: Cheating (outside help, a word-finding program)"
    )
    assert f"alice reported bob in Game {game.pk}." in english.body
    assert "Reason: Cheating (outside help, a word-finding program)" in english.body
    for message in (french, english):
        html = next(body for body, kind in message.alternatives if kind == "text/html")
        assert "Des mots introuvables\nà chaque coup." in message.body
        assert "Des mots introuvables<br>à chaque coup." in html
        assert link in message.body and f'href="{link}"' in html
        assert f"https://diamino.example/parties/{game.pk}/" in message.body


def test_the_email_gives_the_username_of_a_player_who_chose_a_display_name(
    game, alice, bob, mod, committed, mailoutbox
) -> None:
    # Display names are chosen freely, even another player's name: staff need the username.
    alice.display_name = "Équipe Diamino"
    bob.display_name = "carol"
    for player in (alice, bob):
        player.save(update_fields=["display_name"])
    with committed():
        report(game, alice, about=bob)
    (message,) = mailoutbox
    html = next(body for body, kind in message.alternatives if kind == "text/html")
    for body in (message.body, html):
        assert f"Équipe Diamino (@alice) reported carol (@bob) in Game {game.pk}." in body


def test_a_report_about_the_game_itself_says_so(game, carol, mod, committed, mailoutbox) -> None:
    with committed():
        report(game, carol, reason="other", text="La partie s'est bloquée.")
    (message,) = mailoutbox
    assert f"carol reported Game {game.pk}." in message.body
    assert "Reason: Something else" in message.body


def test_a_staff_member_who_plays_in_the_game_or_is_reported_is_not_told(
    alice, carol, modo, committed, mailoutbox
) -> None:
    # Staff who play: the reporter, the reported player, and one merely seated at the game.
    reporter = make_player("juge", is_staff=True)
    reported = make_player("accuse", is_staff=True)
    seated = make_player("voisin", is_staff=True)
    game = start_game([reporter, reported, seated, alice])
    with committed():
        filed = report(game, reporter, about=reported)
    assert alerts() == [("modo", "sent")]
    assert [message.to for message in mailoutbox] == [[modo.email]]
    # The same rule as resolving: told exactly when they may resolve it.
    for staff in (reporter, reported, seated, modo):
        told = Notification.objects.filter(recipient=staff, kind="report").exists()
        assert told is (own_case(filed, staff) is None)


def test_players_and_inactive_or_deleted_staff_are_not_told(
    game, alice, bob, modo, committed, mailoutbox
) -> None:
    make_player("ancien", is_staff=True, is_active=False)
    user_delete(user=make_player("parti", is_staff=True))
    make_player("oscar")
    with committed():
        report(game, alice, about=bob)
    assert alerts() == [("modo", "sent")]
    assert len(mailoutbox) == 1


def test_a_refused_report_tells_nobody_even_before_its_rollback(
    game, alice, bob, modo, committed, mailoutbox
) -> None:
    report(game, alice, about=bob)
    Notification.objects.all().delete()
    # report_create is one transaction, whose rollback would hide anything a refusal
    # wrote or queued. Run without it: the refusal must come before the report and
    # the staff's emails are written.
    # transaction.atomic's wrapper keeps __wrapped__ (functools.wraps); its stub type does not say so.
    without_its_transaction = report_create.__wrapped__  # type: ignore[attr-defined]
    with committed(), pytest.raises(GameError) as error:
        without_its_transaction(
            reporter=alice,
            game_id=game.pk,
            reported_seat_id=seat_of(game, bob).pk,
            reason="cheating",
            text="Encore.",
        )
    assert error.value.code == "already-reported"
    assert (alerts(), mailoutbox) == ([], [])
    assert Report.objects.count() == 1


def test_at_most_one_email_per_staff_member_and_report(
    game, alice, bob, carol, modo, committed, mailoutbox
) -> None:
    with committed():
        filed = report(game, alice, about=bob)
        notify.report_filed(filed)  # a retried service writes the same keys
    with committed():
        report(game, carol, about=bob)  # another report is another email
    assert alerts() == [("modo", "sent"), ("modo", "sent")]
    assert len(mailoutbox) == 2


def test_the_email_is_dropped_when_the_report_was_resolved_before_it_went(
    game, alice, bob, modo, mod, mailoutbox
) -> None:
    filed = report(game, alice, about=bob)  # not committed: nothing sent yet
    report_resolve(report_id=filed.pk, by=mod, resolution="Rien à signaler.")
    row = Notification.objects.get(recipient=modo)
    assert send_one(row.pk).status == "skipped"
    row.refresh_from_db()
    assert row.reason == "the report is resolved already"
    assert mailoutbox == []


def test_the_email_is_dropped_when_the_recipient_is_no_longer_staff(
    game, alice, bob, modo, mailoutbox
) -> None:
    report(game, alice, about=bob)
    modo.is_staff = False
    modo.save()
    row = Notification.objects.get(recipient=modo)
    assert send_one(row.pk).status == "skipped"
    row.refresh_from_db()
    assert row.reason == "the recipient is no longer staff"


def test_a_staff_member_can_turn_report_emails_off(
    game, alice, bob, carol, modo, committed, mailoutbox, client
) -> None:
    with committed():
        report(game, alice, about=bob)
    (message,) = mailoutbox
    assert "Se désabonner des e-mails concernant nouveaux signalements (équipe)" in message.body
    client.post(message.extra_headers["List-Unsubscribe"].strip("<>"))
    modo.refresh_from_db()
    assert modo.report_emails is False
    assert (modo.turn_emails, modo.invitation_emails, modo.game_over_emails) == ("each",) * 3
    with committed():
        report(game, carol, about=bob)
    assert len(mailoutbox) == 1
    row = Notification.objects.filter(recipient=modo).order_by("-pk").first()
    assert row is not None
    assert (row.status, row.reason) == ("skipped", "turned off in the player's settings")


def test_only_staff_see_the_report_emails_setting(client, alice, modo) -> None:
    client.force_login(modo)
    page = client.get("/compte/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert 'name="report_emails"' in page
    client.force_login(alice)
    page = client.get("/compte/").content.decode()
    assert 'name="report_emails"' not in page
