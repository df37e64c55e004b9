"""Who may play, what the others see of a player, and the confirm-first page."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core import mail
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation
from django_htmx.middleware import HtmxDetails

from accounts.models import User
from accounts.permissions import can_play, player_required
from accounts.services import user_delete
from tests.factories import make_player

pytestmark = pytest.mark.django_db


@player_required
def play_view(request: HttpRequest) -> HttpResponse:
    return HttpResponse("let's play")


def call(user: User | AnonymousUser, *, htmx: bool = False) -> HttpResponse:
    headers = {"HX-Request": "true"} if htmx else {}
    request = RequestFactory().get("/parties/nouvelle/", headers=headers)
    request.user = user
    setattr(request, "htmx", HtmxDetails(request))  # noqa: B010 (django-htmx's middleware does it)
    return play_view(request)


def test_a_confirmed_player_can_play() -> None:
    alice = make_player("alice")
    assert can_play(alice)
    assert call(alice).content == b"let's play"


def test_visitors_deleted_inactive_and_unconfirmed_players_cannot_play() -> None:
    assert not can_play(AnonymousUser())
    assert not can_play(None)
    assert not can_play(make_player("new", verified=False))
    assert not can_play(make_player("banned", is_active=False))
    assert not can_play(user_delete(user=make_player("gone")))


def test_a_visitor_is_sent_to_log_in() -> None:
    response = call(AnonymousUser())
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert "next=/parties/nouvelle/" in response["Location"]


def test_an_htmx_request_from_a_visitor_gets_a_403_and_a_redirect_to_log_in() -> None:
    response = call(AnonymousUser(), htmx=True)
    assert response.status_code == 403
    assert response["HX-Redirect"].startswith(reverse("account_login"))


def test_an_unconfirmed_player_is_told_to_confirm_their_address_first() -> None:
    newcomer = make_player("new", verified=False, language="en")
    response = call(newcomer)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:confirm_email_first"))

    client = Client()
    client.force_login(newcomer)
    page = client.get(response["Location"]).content.decode()
    assert "Confirm your address first" in page
    assert "new@example.com" in page


@pytest.mark.parametrize(
    ("language", "why"),
    [
        ("en", "Confirm your email address before you join or create games."),
        ("fr", "Confirmez votre adresse e-mail avant de rejoindre ou de créer des parties."),
    ],
)
def test_an_htmx_request_from_an_unconfirmed_player_gets_a_403_saying_why(language, why) -> None:
    with translation.override(language):  # as LocaleMiddleware leaves it for the request
        response = call(make_player("new", verified=False, language=language), htmx=True)
    assert response.status_code == 403
    assert why in response.content.decode()


def test_the_confirm_first_page_sends_the_confirmation_again(
    mailoutbox: list[mail.EmailMessage],
) -> None:
    newcomer = make_player("new", verified=False, language="en")
    client = Client()
    client.force_login(newcomer)
    page = client.post(reverse("accounts:confirm_email_first"), follow=True).content.decode()
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == ["new@example.com"]
    assert "/accounts/confirm-email/" in mailoutbox[0].body
    assert "new@example.com" in page

    page = client.post(reverse("accounts:confirm_email_first"), follow=True).content.decode()
    assert len(mailoutbox) == 1
    assert "A confirmation email was sent a few minutes ago" in page


def test_a_confirmed_player_skips_the_confirm_first_page() -> None:
    client = Client()
    client.force_login(make_player("alice"))
    response = client.get(reverse("accounts:confirm_email_first"), {"next": "/joueurs/alice/"})
    assert response["Location"] == "/joueurs/alice/"
    response = client.get(
        reverse("accounts:confirm_email_first"), {"next": "https://evil.example/"}
    )
    assert response["Location"] == "/"


def test_anyone_sees_a_players_public_page(client: Client) -> None:
    make_player("alice", display_name="Alice la Reine")
    page = client.get("/joueurs/alice/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Alice la Reine" in page
    assert "@alice" in page
    assert "Member since" in page
    assert "alice@example.com" not in page


def test_a_deleted_players_page_says_former_player_and_shows_nothing_personal(
    client: Client,
) -> None:
    gone = user_delete(user=make_player("alice", display_name="Alice la Reine"))
    assert client.get("/joueurs/alice/").status_code == 404
    response = client.get(gone.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 410
    assert "Former player" in response.content.decode()
    assert "Alice" not in response.content.decode()


def test_an_unknown_player_is_not_found(client: Client) -> None:
    assert client.get("/joueurs/nobody/").status_code == 404


@pytest.mark.parametrize(
    "url_name",
    ["account_login", "account_signup", "account_reset_password"],
)
def test_allauth_pages_for_visitors_wear_the_site_design(client: Client, url_name: str) -> None:
    page = client.get(reverse(url_name), follow=True).content.decode()
    assert 'class="site-header"' in page
    assert 'class="container narrow account-page"' in page


@pytest.mark.parametrize(
    "url_name",
    ["account_email", "account_change_password", "accounts:settings", "accounts:delete"],
)
def test_account_pages_for_players_wear_the_site_design_with_the_settings_menu(
    url_name: str,
) -> None:
    client = Client()
    client.force_login(make_player("alice"))
    page = client.get(reverse(url_name)).content.decode()
    assert 'class="site-header"' in page
    assert 'class="settings-nav"' in page
