"""Production error pages are the site's, in the visitor's language (DEBUG off)."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from tests.factories import page_language

pytestmark = pytest.mark.django_db

FRENCH = {
    400: "Requête incorrecte",
    403: "Accès refusé",
    404: "Page introuvable",
    500: "Une erreur est survenue",
}
ENGLISH = {
    400: "Bad request",
    403: "Not allowed",
    404: "Page not found",
    500: "Something went wrong",
}
PATHS = {
    400: "/_test/suspicious",
    403: "/_test/forbidden",
    404: "/no-such-page/",
    500: "/_test/crash",
}


@pytest.fixture
def production(settings):
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.site.error_urls"
    settings.SECURE_SSL_REDIRECT = False


@pytest.mark.parametrize("status", sorted(PATHS))
@pytest.mark.parametrize(("language", "headings"), [("fr", FRENCH), ("en", ENGLISH)])
def test_each_error_page_is_the_sites_in_the_visitors_language(
    production, status, language, headings
):
    client = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE=language)
    response = client.get(PATHS[status])
    assert response.status_code == status
    html = response.content.decode()
    assert page_language(html) == language
    assert f"<h1>{headings[status]}</h1>" in html
    assert 'class="site-header"' in html and "css/site.css" in html
    assert "Not Found" not in html and "Server Error" not in html
    other = ENGLISH if language == "fr" else FRENCH
    assert other[status] not in html


def test_a_bad_host_gets_the_400_page(production):
    response = Client(HTTP_ACCEPT_LANGUAGE="en").get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert "<h1>Bad request</h1>" in response.content.decode()


def test_a_form_sent_without_its_security_token_gets_the_sites_page(production):
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="fr")
    response = client.post("/_test/form")
    assert response.status_code == 403
    assert "<h1>Formulaire expiré</h1>" in response.content.decode()


def test_the_403_page_says_why_a_view_refused(production):
    from tests.factories import make_player
    from tests.games.conftest import start_game

    alice = make_player("alice", language="fr")
    game = start_game([alice, make_player("bob")])
    client = Client()
    client.force_login(alice)
    response = client.get(f"/equipe/parties/{game.pk}/rejouer/")
    assert response.status_code == 403
    html = response.content.decode()
    assert "<h1>Accès refusé</h1>" in html
    assert "Cette page est réservée à l’équipe." in html


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_500_page_renders_with_no_request_and_an_empty_context(language):
    """As Django's server_error view renders it: no context processors, nothing to read."""
    with translation.override(language):
        html = render_to_string("500.html")
    assert ("Une erreur est survenue" if language == "fr" else "Something went wrong") in html


def test_the_500_page_needs_no_database(django_assert_num_queries):
    with django_assert_num_queries(0):
        render_to_string("500.html")
