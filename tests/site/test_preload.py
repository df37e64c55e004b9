"""A page names its render-blocking files in its answer's Link header (issue #38).

A phone asks for them as the answer's headers arrive, before it has parsed the
page's head. Each file named is one the page uses (a preload left unused costs a
phone bytes for nothing, and the browser warns of it), and each style sheet or
parser-blocking script the page uses is named (one left out waits for the parser).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.template import Context, Template
from django.urls import reverse

from tests.factories import client_as, make_player
from tests.games.conftest import seat_at, start_game

pytestmark = pytest.mark.django_db

LINK = re.compile(r"<([^>]+)>;\s*rel=preload;\s*as=(style|script)")


class Blocking(HTMLParser):
    """The style sheets and the parser-blocking scripts of a page, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.files: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "link" and named.get("rel") == "stylesheet" and named.get("href"):
            self.files.append((str(named["href"]), "style"))
        blocks = not ({"defer", "async"} & named.keys()) and named.get("type") != "module"
        if tag == "script" and named.get("src") and blocks:
            self.files.append((str(named["src"]), "script"))


def blocking(html: str) -> list[tuple[str, str]]:
    parser = Blocking()
    parser.feed(html)
    return parser.files


def preloaded(link: str | None) -> list[tuple[str, str]]:
    """The files a ``Link`` header names to preload, and what each is."""
    return LINK.findall(link or "")


def test_each_page_names_exactly_the_files_its_first_paint_waits_for() -> None:
    game = start_game([make_player("alice"), make_player("bob")])
    client = client_as(seat_at(game, 0).player)
    pages = [
        reverse("home"),
        reverse("games:lobby"),
        reverse("games:page", args=[game.pk]),
        reverse("learn:guided"),
        reverse("learn:rules"),
        reverse("learn:rules_print"),
        reverse("leagues:list"),
        reverse("ratings:leaderboard"),
        reverse("accounts:settings"),
    ]
    for path in pages:
        response = client.get(path)
        assert response.status_code == 200, path
        files = blocking(response.content.decode())
        assert files, path
        assert sorted(preloaded(response.get("Link"))) == sorted(set(files)), path


def test_the_game_page_names_its_style_sheets_and_menu_js() -> None:
    game = start_game([make_player("alice"), make_player("bob")])
    response = client_as(seat_at(game, 0).player).get(reverse("games:page", args=[game.pk]))
    named = {
        url.rsplit("/", 1)[-1].split(".")[0] + "." + kind
        for url, kind in preloaded(response.get("Link"))
    }
    assert named == {"site.style", "board.style", "menu.script"}


def test_an_htmx_answer_names_nothing() -> None:
    game = start_game([make_player("alice"), make_player("bob")])
    player = client_as(seat_at(game, 0).player)
    fragment = player.get(
        reverse("games:page", args=[game.pk]), {"since": "stale"}, HTTP_HX_REQUEST="true"
    )
    assert fragment.status_code == 200 and b'id="game-area"' in fragment.content
    assert "Link" not in fragment  # the game area alone: no head, nothing to fetch early


def test_the_tag_gives_the_address_without_a_request_and_refuses_other_files() -> None:
    from django.template import TemplateSyntaxError
    from django.templatetags.static import static

    template = Template("{% load preload %}{% preload 'css/site.css' %}")
    assert template.render(Context({})) == static("css/site.css")  # the outage page's case
    with pytest.raises(TemplateSyntaxError, match="style sheet or a script"):
        Template("{% load preload %}{% preload 'favicon.svg' %}").render(Context({}))
