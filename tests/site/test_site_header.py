"""Every page's header and footer (templates/base.html): the same links for everyone in
one language, and the visitor's own name, page, CSRF token and current path on each request."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.factories import make_player, page_as

pytestmark = pytest.mark.django_db


def header(html: str) -> str:
    return html[html.index("<body") : html.index("<main")]


def footer(html: str) -> str:
    return html[html.index("<footer") : html.index("</footer>")]


def test_each_signed_in_player_sees_their_own_name_and_page_in_the_same_links() -> None:
    alice = make_player("alice", display_name="Alice <b>&")
    bob = make_player("bob")
    for_alice = header(page_as(alice, "/regles/"))
    for_bob = header(page_as(bob, "/regles/"))
    assert '<li class="nav-user">Alice &lt;b&gt;&amp;</li>' in for_alice
    assert '<a href="/joueurs/alice/">My page</a>' in for_alice
    assert '<li class="nav-user">bob</li>' in for_bob
    assert '<a href="/joueurs/bob/">My page</a>' in for_bob
    assert "alice" not in for_bob.lower()
    for html in (for_alice, for_bob):
        assert '<a href="/parties/mes-parties/">My games</a>' in html
        assert '<button type="submit" class="link-button">Log out</button>' in html
        assert 'lang="fr">Français</button>' in html


def test_the_header_follows_the_language_page_after_page() -> None:
    alice = make_player("alice")
    english, french = (header(page_as(alice, "/", language=lang)) for lang in ("en", "fr"))
    assert "Skip to content" in english and "Aller au contenu" in french
    assert ">My games</a>" in english and ">Mes parties</a>" in french
    assert 'lang="fr">Français</button>' in english
    assert 'lang="en">English</button>' in french
    assert "How to play" in footer(page_as(alice, "/", language="en"))
    assert "Comment jouer" in footer(page_as(alice, "/", language="fr"))


def test_a_visitor_signed_out_is_offered_to_log_in_not_their_games() -> None:
    page_as(make_player("alice"), "/")  # the signed-in header drawn first, in the same process
    html = header(Client(HTTP_ACCEPT_LANGUAGE="en").get("/regles/").content.decode())
    assert '<a href="/accounts/login/">Log in</a>' in html
    assert "My games" not in html and "Log out" not in html and "alice" not in html


def test_each_page_s_language_switch_returns_to_it_with_its_own_csrf_token() -> None:
    alice = make_player("alice")
    client = Client()
    client.force_login(alice)
    tokens = set()
    for path in ("/regles/", "/classement/?page=2"):
        html = header(client.get(path).content.decode())
        assert f'<input type="hidden" name="next" value="{path}">' in html
        # The log-out and the language forms, and htmx's header, with this page's token.
        found = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        assert len(found) == 2
        assert found[0] == found[1] == re.findall(r'"X-CSRFToken": "([^"]+)"', html)[0]
        tokens.add(found[0])
    assert len(tokens) == 2  # masked afresh on each page
