"""Staff: a superuser made by ``createsuperuser`` signs in to the site, and the admin speaks Diamino."""

from __future__ import annotations

from io import StringIO

import pytest
from allauth.account.models import EmailAddress
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.factories import PASSWORD as PLAYER_PASSWORD
from tests.factories import make_player

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase, 42 times"


@pytest.fixture
def superuser(monkeypatch) -> User:
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command(
        "createsuperuser",
        interactive=False,
        username="chef",
        email="Chef@Example.com",
        stdout=StringIO(),
    )
    return User.objects.get(username="chef")


@pytest.mark.parametrize("login", ["chef", "chef@example.com"])
def test_a_superuser_from_createsuperuser_logs_in_through_the_sites_form(
    superuser: User, login: str
) -> None:
    client = Client()
    response = client.post(reverse("account_login"), {"login": login, "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert client.get(reverse("home")).wsgi_request.user == superuser
    assert client.get(reverse("admin:index")).status_code == 200


def test_a_superusers_address_counts_as_verified_and_primary(superuser: User) -> None:
    address = EmailAddress.objects.get(user=superuser)
    assert (address.email, address.verified, address.primary) == ("chef@example.com", True, True)


def test_a_player_who_signs_up_still_confirms_their_address() -> None:
    player = make_player("lea", verified=False)
    response = Client().post(
        reverse("account_login"), {"login": "lea", "password": PLAYER_PASSWORD}
    )
    assert not EmailAddress.objects.get(user=player).verified
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")


def test_a_superusers_own_unconfirmed_address_is_left_to_allauth() -> None:
    player = make_player("promu", verified=False)
    player.is_superuser = True
    player.save()
    assert list(EmailAddress.objects.filter(user=player).values_list("verified", flat=True)) == [
        False
    ]


def _admin_page(superuser: User, language: str, url_name: str = "admin:index") -> str:
    superuser.language = language
    superuser.save(update_fields=["language"])
    client = Client()
    client.force_login(superuser)
    response = client.get(reverse(url_name))
    assert response.status_code == 200
    return response.content.decode()


def test_the_admin_index_in_french_shows_the_sites_name_and_french_model_names(
    superuser: User,
) -> None:
    page = _admin_page(superuser, "fr")
    assert "<title>Administration de Diamino | Diamino</title>" in page
    assert ">Diamino</a>" in page  # the header
    assert "Django" not in page
    for section in ("Parties", "Joueurs", "Adresses e-mail", "Classements et niveaux"):
        assert f">{section}</a>" in page, section
    for model in ("Parties", "Coups", "Places", "Joueurs", "Périodes de vacances", "Notifications"):
        assert f">{model}</a>" in page, model
    assert ">Comptes</a>" not in page


def test_the_admin_index_in_english_shows_the_sites_name_and_english_model_names(
    superuser: User,
) -> None:
    page = _admin_page(superuser, "en")
    assert "<title>Diamino administration | Diamino</title>" in page
    assert "Django" not in page
    for section in ("Games", "Players", "Email addresses"):
        assert f">{section}</a>" in page, section
    for model in ("Games", "Moves", "Seats", "Players", "Vacations", "Notifications"):
        assert f">{model}</a>" in page, model
    assert ">Accounts</a>" not in page


def test_a_changelist_names_its_model_in_french(superuser: User) -> None:
    page = _admin_page(superuser, "fr", "admin:games_game_changelist")
    assert "objet partie" in page
    assert "objet game" not in page
