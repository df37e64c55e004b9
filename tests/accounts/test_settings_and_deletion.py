"""The settings page, the language switch, and deleting one's account."""

from __future__ import annotations

from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import EmailChoice, User
from tests.factories import PASSWORD, make_player, page_language

pytestmark = pytest.mark.django_db

SETTINGS = {
    "display_name": "  Alice   la  Reine ",
    "language": "en",
    "time_zone": "Asia/Tokyo",
    "turn_emails": EmailChoice.NEVER,
    "invitation_emails": EmailChoice.DIGEST,
    "game_over_emails": EmailChoice.EACH,
}


def signed_in(username: str, **fields: Any) -> tuple[Client, User]:
    client = Client()
    user = make_player(username, **fields)
    client.force_login(user)
    return client, user


def test_the_settings_page_needs_a_log_in(client: Client) -> None:
    response = client.get(reverse("accounts:settings"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_a_player_changes_their_profile_and_email_preferences() -> None:
    client, alice = signed_in("alice")
    response = client.post(reverse("accounts:settings"), SETTINGS, follow=True)
    assert "Your settings are saved." in response.content.decode()
    alice.refresh_from_db()
    assert alice.display_name == "Alice la Reine"
    assert (alice.language, alice.time_zone) == ("en", "Asia/Tokyo")
    assert (alice.turn_emails, alice.invitation_emails, alice.game_over_emails) == (
        EmailChoice.NEVER,
        EmailChoice.DIGEST,
        EmailChoice.EACH,
    )
    # Others see the name with the username beside it: it cannot be borrowed.
    assert str(alice) == "Alice la Reine (@alice)"


def test_pages_follow_the_players_language_and_time_zone() -> None:
    client, _ = signed_in("alice", language="en", time_zone="Asia/Tokyo")
    page = client.get(reverse("accounts:settings")).content.decode()
    assert page_language(page) == "en"
    assert '<option value="Asia/Tokyo" selected>' in page


def test_a_players_time_zone_lasts_for_their_own_request_only() -> None:
    # What runs next in the same thread (an email rendered by a task run in
    # place, the next request) keeps the site's zone, not the last player's.
    client, _ = signed_in("alice", time_zone="America/New_York")
    assert client.get(reverse("accounts:settings")).status_code == 200
    assert timezone.get_current_timezone_name() == "Europe/Paris"


@pytest.mark.parametrize(
    ("zone", "message"),
    [
        ("Mars/Olympus", "Select a valid choice."),
        ("../../etc/passwd", "Select a valid choice."),
        ("", "This field is required."),
    ],
)
def test_it_refuses_a_time_zone_that_does_not_exist(zone: str, message: str) -> None:
    client, alice = signed_in("alice", language="en")
    response = client.post(reverse("accounts:settings"), {**SETTINGS, "time_zone": zone})
    assert response.status_code == 200
    assert message in response.content.decode()
    alice.refresh_from_db()
    assert (alice.time_zone, alice.language, alice.display_name) == ("Europe/Paris", "en", "")


@pytest.mark.parametrize("choice", [EmailChoice.EACH, EmailChoice.DIGEST, EmailChoice.NEVER])
def test_invitations_and_finished_games_each_save_the_choice_made(choice: str) -> None:
    client, alice = signed_in("alice", language="en")
    for field in ("invitation_emails", "game_over_emails"):
        response = client.post(reverse("accounts:settings"), {**SETTINGS, field: choice})
        assert response.status_code == 302
        alice.refresh_from_db()
        assert getattr(alice, field) == choice
        page = client.get(reverse("accounts:settings")).content.decode()
        assert f'name="{field}" value="{choice}" required id="id_{field}_' in page
        assert page.split(f'name="{field}" value="{choice}"')[1].split(">")[0].endswith("checked")


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Select a valid choice. on is not one of the available choices."),
        ("fr", "Sélectionnez un choix valide. on n’en fait pas partie."),
    ],
)
def test_an_email_choice_it_does_not_know_is_refused_and_nothing_is_saved(
    language: str, message: str
) -> None:
    """ "on" is what the checkbox of before #35 sent, from a page left open since."""
    client, alice = signed_in("alice", language=language)
    response = client.post(
        reverse("accounts:settings"),
        {**SETTINGS, "language": language, "invitation_emails": "on"},
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    alice.refresh_from_db()
    assert (alice.invitation_emails, alice.turn_emails, alice.time_zone) == (
        EmailChoice.EACH,
        EmailChoice.EACH,
        "Europe/Paris",
    )


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "The daily digest goes once a day at 7:00 in your time zone (America/Toronto)"),
        ("fr", "Le récapitulatif du jour part une fois par jour à 7 h dans votre fuseau horaire"),
    ],
)
def test_the_settings_page_says_when_the_daily_digest_goes(
    language: str, sentence: str, settings: Any
) -> None:
    settings.DIAMINO_DIGEST_HOUR = 7
    client, _ = signed_in("alice", language=language, time_zone="America/Toronto")
    page = client.get(reverse("accounts:settings")).content.decode()
    assert sentence in page


@pytest.mark.django_db(transaction=True)
def test_an_account_from_before_the_three_choices_keeps_what_it_got() -> None:
    """Migration 0014 on real rows: an on/off switch that was on is *each time*, off is
    *never*; back to 0013, only *never* is off (a digest reader hears of it: on)."""
    before, after = (
        [("accounts", "0013_notification_choices")],
        [("accounts", "0014_email_choices")],
    )
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps.get_model("accounts", "User")
    on = old.objects.create(username="on", invitation_emails=True, game_over_emails=True)
    off = old.objects.create(username="off", invitation_emails=False, game_over_emails=False)
    mixed = old.objects.create(username="mixed", invitation_emails=True, game_over_emails=False)

    def choices() -> dict[str, tuple[str, str]]:
        return {
            u.username: (u.invitation_emails, u.game_over_emails)
            for u in User.objects.filter(pk__in=[on.pk, off.pk, mixed.pk])
        }

    executor.loader.build_graph()
    executor.migrate(after)
    assert choices() == {
        "on": (EmailChoice.EACH, EmailChoice.EACH),
        "off": (EmailChoice.NEVER, EmailChoice.NEVER),
        "mixed": (EmailChoice.EACH, EmailChoice.NEVER),
    }
    User.objects.filter(pk=on.pk).update(invitation_emails=EmailChoice.DIGEST)
    executor.loader.build_graph()
    executor.migrate(before)
    switches = {
        u.username: (u.invitation_emails, u.game_over_emails)
        for u in old.objects.filter(pk__in=[on.pk, off.pk, mixed.pk])
    }
    assert switches == {"on": (True, True), "off": (False, False), "mixed": (True, False)}
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_the_header_language_switch_sticks_for_a_signed_in_player() -> None:
    client, alice = signed_in("alice", language="fr")
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    alice.refresh_from_db()
    assert alice.language == "en"
    assert page_language(client.get("/").content.decode()) == "en"


def test_the_nav_links_to_settings_and_the_players_own_page() -> None:
    client, _ = signed_in("alice", language="fr")
    page = client.get("/").content.decode()
    assert f'href="{reverse("accounts:settings")}">Réglages</a>' in page
    assert 'href="/joueurs/alice/"' in page


def test_deleting_an_account_removes_personal_data_and_keeps_the_row() -> None:
    client, alice = signed_in("alice", display_name="Alice", first_name="Alice", language="en")
    response = client.post(reverse("accounts:delete"), {"password": PASSWORD}, follow=True)
    assert "Your account is deleted" in response.content.decode()
    assert not get_user(client).is_authenticated

    gone = User.objects.get(pk=alice.pk)
    assert gone.username == f"ancien-{alice.pk}"
    assert (gone.email, gone.display_name, gone.first_name) == ("", "", "")
    assert not gone.has_usable_password()
    assert gone.is_active is False
    assert gone.deleted_at is not None
    assert not EmailAddress.objects.filter(user_id=alice.pk).exists()
    assert not User.objects.filter(username="alice").exists()


def test_a_deleted_player_is_called_former_player_in_each_language() -> None:
    from django.utils import translation

    from accounts.services import user_delete

    gone = user_delete(user=make_player("alice", display_name="Alice"))
    with translation.override("en"):
        assert str(gone) == "Former player"
    with translation.override("fr"):
        assert str(gone) == "Ancien joueur"


def test_a_deleted_player_cannot_log_in_again() -> None:
    client, _ = signed_in("alice")
    client.post(reverse("accounts:delete"), {"password": PASSWORD})
    for login in ("alice", "alice@example.com"):
        client.post(reverse("account_login"), {"login": login, "password": PASSWORD})
        assert not get_user(client).is_authenticated


def test_a_wrong_password_deletes_nothing() -> None:
    client, alice = signed_in("alice", language="en")
    response = client.post(reverse("accounts:delete"), {"password": "not-mine"})
    assert "This is not your password. Nothing was deleted." in response.content.decode()
    alice.refresh_from_db()
    assert (alice.username, alice.email, alice.is_active, alice.deleted_at) == (
        "alice",
        "alice@example.com",
        True,
        None,
    )
    assert get_user(client).is_authenticated


def test_deletion_needs_a_post_with_the_password() -> None:
    client, alice = signed_in("alice", language="en")
    page = client.get(reverse("accounts:delete"))
    assert "Delete my account for good" in page.content.decode()
    alice.refresh_from_db()
    assert alice.deleted_at is None


def test_a_player_changes_their_address_once_the_new_one_is_confirmed(
    mailoutbox: list,
) -> None:
    import re

    client, alice = signed_in("alice", language="en")
    client.post(reverse("account_email"), {"action_add": "", "email": "alice@new.example"})
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == ["alice@new.example"]

    assert isinstance(mailoutbox[0].body, str)
    found = re.search(r"http://\S+/accounts/confirm-email/\S+/", mailoutbox[0].body)
    assert found is not None
    link = found.group(0)
    client.post(link)
    alice.refresh_from_db()
    assert alice.email == "alice@new.example"
    assert list(EmailAddress.objects.filter(user=alice).values_list("email", flat=True)) == [
        "alice@new.example"
    ]


def test_a_player_changes_their_password() -> None:
    client, alice = signed_in("alice", language="en")
    client.post(
        reverse("account_change_password"),
        {
            "oldpassword": PASSWORD,
            "password1": "nouveau-diamant-7",
            "password2": "nouveau-diamant-7",
        },
    )
    alice.refresh_from_db()
    assert alice.check_password("nouveau-diamant-7")


def test_a_wrong_current_password_changes_nothing() -> None:
    client, alice = signed_in("alice", language="en")
    response = client.post(
        reverse("account_change_password"),
        {
            "oldpassword": "wrong",
            "password1": "nouveau-diamant-7",
            "password2": "nouveau-diamant-7",
        },
    )
    assert "Please type your current password." in response.content.decode()
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
