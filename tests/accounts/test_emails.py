"""build_email, wants_email and the one-click unsubscribe links they carry."""

from __future__ import annotations

import re
from typing import Any

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.emails import build_email, has_confirmed_address, unsubscribe_url, wants_email
from accounts.models import EMAIL_CHOICE_FIELDS, EmailChoice, User
from accounts.services import user_delete
from tests.emails import html_of
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def preferences(user: User) -> tuple[str, str, str]:
    user.refresh_from_db()
    return (user.turn_emails, user.invitation_emails, user.game_over_emails)


def test_an_email_goes_to_the_player_with_text_html_and_one_click_unsubscribe_headers(
    sample_email_templates: None, settings
) -> None:
    settings.SITE_URL = "https://diamino.example"
    alice = make_player("alice", language="en")
    # The token carries its signing time: the same second for both, however slow the machine.
    with time_machine.travel(timezone.now(), tick=False):
        message = build_email(alice, "sample", {"game_name": "Partie 7"}, kind="turn")
        link = unsubscribe_url(alice, "turn")
    assert message.to == ["alice@example.com"]
    assert message.subject == "[Diamino] Your turn — Partie 7"
    assert "alice: Partie 7" in message.body
    assert link.startswith("https://diamino.example/desabonnement/")
    assert link in message.body
    assert link in html_of(message)
    assert message.extra_headers["List-Unsubscribe"] == f"<{link}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_an_english_speaking_player_gets_the_email_in_english(sample_email_templates: None) -> None:
    message = build_email(make_player("ann", language="en"), "sample", {}, kind="game-over")
    assert "Unsubscribe from emails about finished games" in message.body
    assert '<html lang="en">' in html_of(message)


def test_a_french_speaking_player_gets_the_email_in_french(sample_email_templates: None) -> None:
    message = build_email(make_player("jean", language="fr"), "sample", {}, kind="game-over")
    assert "Se désabonner des e-mails concernant les parties terminées" in message.body
    assert "Vous recevez cet e-mail en tant que jean sur Diamino." in html_of(message)
    assert '<html lang="fr">' in html_of(message)


def test_allauth_emails_follow_the_recipients_language(
    client: Client, mailoutbox: list[mail.EmailMessage]
) -> None:
    make_player("ann", language="en")
    make_player("jean", language="fr")
    client.post("/accounts/password/reset/", {"email": "ann@example.com"})
    client.post("/accounts/password/reset/", {"email": "jean@example.com"})
    assert mailoutbox[0].subject == "[Diamino] Password Reset Email"
    assert mailoutbox[1].subject == "[Diamino] E-mail de réinitialisation de mot de passe"


@pytest.mark.parametrize(
    ("turn_emails", "kind", "wanted"),
    [
        (EmailChoice.EACH, "turn", True),
        (EmailChoice.EACH, "digest", False),
        (EmailChoice.DIGEST, "turn", False),
        (EmailChoice.DIGEST, "digest", True),
        (EmailChoice.NEVER, "turn", False),
        (EmailChoice.NEVER, "digest", False),
    ],
)
def test_it_sends_turn_emails_as_the_player_chose(
    turn_emails: str, kind: str, wanted: bool
) -> None:
    assert wants_email(make_player("alice", turn_emails=turn_emails), kind) is wanted


@pytest.mark.parametrize("field", ["invitation_emails", "game_over_emails"])
@pytest.mark.parametrize(
    ("choice", "each_time", "news", "digest"),
    [
        (EmailChoice.EACH, True, True, False),
        (EmailChoice.DIGEST, False, True, True),
        (EmailChoice.NEVER, False, False, False),
    ],
)
def test_invitations_and_finished_games_have_the_turns_three_choices(
    field: str, choice: str, each_time: bool, news: bool, digest: bool
) -> None:
    """Each time: its own email; the digest: a line of it instead (a league's step, which
    the digest does not list, still goes on its own); never: nothing."""
    kind = "invitations" if field == "invitation_emails" else "game-over"
    choices: dict[str, Any] = {"turn_emails": EmailChoice.NEVER, field: choice}
    player = make_player("alice", **choices)
    assert wants_email(player, kind) is each_time
    assert wants_email(player, f"{kind}-news") is news
    assert wants_email(player, "digest") is digest


def test_deleted_inactive_and_unconfirmed_players_get_nothing() -> None:
    deleted = user_delete(user=make_player("gone"))
    inactive = make_player("banned", is_active=False)
    unconfirmed = make_player("new", verified=False)
    for user in (deleted, inactive, unconfirmed):
        assert not any(wants_email(user, kind) for kind in ("turn", "invitations", "game-over"))


def test_an_address_counts_as_confirmed_only_if_verified_for_that_player_in_any_case() -> None:
    # Each case as the ORM's iexact query answered it before the check was compiled.
    player = make_player("Ana_B", email="Ana_B%x@Example.com")
    other = make_player("other", email="anaxb%x@example.com")
    EmailAddress.objects.create(user=other, email="ana_b%x@example.com", verified=True)
    assert has_confirmed_address(player)
    assert has_confirmed_address(other)
    # LIKE's wildcards in the address match only themselves ("%" would match the "x").
    player.email = "ana_b%@example.com"
    assert not has_confirmed_address(player)
    player.email = "anaxb%x@example.com"  # the other player's address, not this one's
    assert not has_confirmed_address(player)
    player.email = "ANA_B%X@EXAMPLE.COM"
    assert has_confirmed_address(player)
    EmailAddress.objects.filter(user=player).update(verified=False)
    assert not has_confirmed_address(player)
    player.email = ""
    assert not has_confirmed_address(player)


def test_it_refuses_an_unknown_kind_of_email(sample_email_templates: None) -> None:
    alice = make_player("alice")
    with pytest.raises(ValueError, match="unknown email kind"):
        wants_email(alice, "newsletter")
    with pytest.raises(ValueError, match="unknown email kind"):
        build_email(alice, "sample", {}, kind="newsletter")


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("turn", (EmailChoice.NEVER, EmailChoice.EACH, EmailChoice.EACH)),
        ("invitations", (EmailChoice.EACH, EmailChoice.NEVER, EmailChoice.EACH)),
        ("game-over", (EmailChoice.EACH, EmailChoice.EACH, EmailChoice.NEVER)),
        ("all", (EmailChoice.NEVER, EmailChoice.NEVER, EmailChoice.NEVER)),
    ],
)
def test_an_unsubscribe_link_turns_off_its_kind_of_email_without_logging_in(
    client: Client, kind: str, expected: tuple[str, str, str]
) -> None:
    alice = make_player("alice", language="en")
    page = client.post(unsubscribe_url(alice, kind))
    assert page.status_code == 200
    assert "You are unsubscribed" in page.content.decode()
    assert preferences(alice) == expected


def test_the_digests_link_turns_every_kind_read_in_the_digest_to_never(client: Client) -> None:
    alice = make_player(
        "alice",
        language="en",
        turn_emails=EmailChoice.DIGEST,
        invitation_emails=EmailChoice.EACH,
        game_over_emails=EmailChoice.DIGEST,
    )
    asked = client.get(unsubscribe_url(alice, "digest")).content.decode()
    assert "Stop the daily digest to alice@example.com?" in asked
    page = client.post(unsubscribe_url(alice, "digest")).content.decode()
    assert "alice@example.com will no longer receive the daily digest." in page
    assert preferences(alice) == (EmailChoice.NEVER, EmailChoice.EACH, EmailChoice.NEVER)


@pytest.mark.parametrize("kind", ["turn", "invitations", "game-over", "all"])
def test_following_an_unsubscribe_link_only_asks_and_changes_nothing(
    client: Client, kind: str
) -> None:
    """Mail scanners (Outlook Safe Links…) open every link: a GET must not unsubscribe."""
    alice = make_player("alice", language="en")
    link = unsubscribe_url(alice, kind)
    page = client.get(link)
    assert page.status_code == 200
    html = page.content.decode()
    assert "You are unsubscribed" not in html
    assert "alice@example.com?" in html
    assert re.search(r'<form method="post"[^>]*>', html)
    assert preferences(alice) == (EmailChoice.EACH,) * 3


def test_the_confirmation_page_asks_in_the_players_language(client: Client) -> None:
    jean = make_player("jean", language="fr")
    page = client.get(unsubscribe_url(jean, "invitations"))
    assert (
        "Ne plus envoyer à jean@example.com d’e-mails concernant les invitations\u00a0?"
        in page.content.decode()
    )


def test_the_confirmation_pages_button_unsubscribes(client: Client) -> None:
    alice = make_player("alice", language="en")
    link = unsubscribe_url(alice, "game-over")
    client.get(link)
    page = Client(enforce_csrf_checks=True).post(link)  # the page's form, as a browser sends it
    assert "alice@example.com will no longer receive emails about finished games" in (
        page.content.decode()
    )
    assert preferences(alice) == (EmailChoice.EACH, EmailChoice.EACH, EmailChoice.NEVER)


def test_the_unsubscribe_page_speaks_the_players_language(client: Client) -> None:
    jean = make_player("jean", language="fr")
    page = client.post(unsubscribe_url(jean, "all"))
    assert "jean@example.com ne recevra plus aucun e-mail de Diamino." in page.content.decode()


def test_mail_providers_can_unsubscribe_in_one_click_by_post_without_a_csrf_token(
    sample_email_templates: None,
) -> None:
    """RFC 8058: a POST of ``List-Unsubscribe=One-Click`` to the header's link."""
    alice = make_player("alice")
    message = build_email(alice, "sample", {}, kind="invitations")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        link, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    assert preferences(alice) == (EmailChoice.EACH, EmailChoice.NEVER, EmailChoice.EACH)


def test_a_tampered_unsubscribe_link_says_so_and_changes_nothing(client: Client) -> None:
    alice = make_player("alice", language="en")
    link = unsubscribe_url(alice, "turn")
    found = re.search(r"/desabonnement/([^/]+)/", link)
    assert found is not None
    token = found.group(1)
    tampered = link.replace(token, token[:-3] + ("abc" if token[-3:] != "abc" else "xyz"))
    for bad in (tampered, "/desabonnement/nonsense/"):
        for method in (client.get, client.post):
            page = method(bad, HTTP_ACCEPT_LANGUAGE="en")
            assert page.status_code == 400
            assert "nothing was changed" in page.content.decode()
        one_click = client.post(
            bad, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
        )
        assert one_click.status_code == 400
    assert preferences(alice) == (EmailChoice.EACH,) * 3


def test_a_token_signed_for_another_purpose_is_refused(client: Client) -> None:
    from django.core import signing

    alice = make_player("alice", language="en")
    forged = signing.dumps({"u": alice.pk, "k": "all"}, salt="something-else", compress=True)
    assert client.get(f"/desabonnement/{forged}/").status_code == 400
    assert client.post(f"/desabonnement/{forged}/").status_code == 400
    assert preferences(alice) == (EmailChoice.EACH,) * 3


def test_emails_are_not_built_for_a_player_without_an_address(sample_email_templates: None) -> None:
    alice = make_player("alice")
    EmailAddress.objects.filter(user=alice).delete()
    alice.email = ""
    with pytest.raises(ValueError, match="no email address"):
        build_email(alice, "sample", {}, kind="turn")


def test_every_email_choice_of_the_player_is_in_the_one_mapping() -> None:
    """The fields with three choices are read and written through ``EMAIL_CHOICE_FIELDS``:
    a field added without it would be missed by the digest, the unsubscribe links and
    account deletion."""
    fields = {
        field.name
        for field in User._meta.get_fields()
        if getattr(field, "choices", None) == EmailChoice.choices
    }
    assert fields == set(EMAIL_CHOICE_FIELDS.values())
