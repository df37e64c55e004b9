"""A page names its render-blocking files in its answer's Link header (issue #38).

A phone asks for them ahead of the page's deferred scripts. Each file named is
one the page uses (a preload left unused costs a phone bytes for nothing, and
the browser warns of it), and each style sheet or parser-blocking script the
page uses is named (one left out waits for the parser).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.http import HttpRequest, HttpResponse
from django.template import Context, Template
from django.templatetags.static import static
from django.test import Client
from django.urls import reverse

from diamino_site.preload import PreloadMiddleware
from tests.factories import client_as, make_player
from tests.games.conftest import seat_at, start_game
from tests.leagues.pages_helpers import make_players, running_season

pytestmark = pytest.mark.django_db

ENTRY = re.compile(r"<([^>]+)>; rel=preload; as=(style|script)")


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
    """The files a ``Link`` header names to preload, and what each is; every entry must be one."""
    entries = [ENTRY.fullmatch(entry) for entry in link.split(", ")] if link else []
    assert all(entries), link
    return [(m.group(1), m.group(2)) for m in entries if m]


def test_each_page_names_exactly_the_files_its_first_paint_waits_for() -> None:
    game = start_game([make_player("alice"), make_player("bob")])
    player = seat_at(game, 0).player
    client = client_as(player)
    pages = [
        reverse("home"),
        reverse("games:lobby"),
        reverse("games:page", args=[game.pk]),
        reverse("learn:guided"),
        reverse("learn:rules"),
        reverse("learn:rules_print"),
        reverse("leagues:list"),
        reverse("ratings:leaderboard"),
        reverse("ratings:ratings", args=["marque"]),
        reverse("accounts:player", args=[player.username]),
        reverse("accounts:settings"),
    ]
    names_what_it_uses(client, pages)


def test_the_league_pages_and_the_staff_replay_too() -> None:
    players = make_players(4)
    season, division = running_season(players)
    slug = season.league.slug
    league_pages = [
        reverse("leagues:league", args=[slug]),
        reverse("leagues:season", args=[slug, season.number]),
        reverse("leagues:division", args=[slug, season.number, division.pk]),
    ]
    names_what_it_uses(client_as(players[0]), league_pages)

    game = start_game([make_player("alice"), make_player("bob")])
    staff = client_as(make_player("modo", is_staff=True))
    names_what_it_uses(staff, [reverse("games:staff_replay", args=[game.pk])])


def names_what_it_uses(client: Client, pages: list[str]) -> None:
    for path in pages:
        response = client.get(path)
        assert response.status_code == 200, path
        files = blocking(response.content.decode())
        assert files, path
        assert sorted(preloaded(response.get("Link"))) == sorted(set(files)), path


def test_an_htmx_answer_names_nothing() -> None:
    game = start_game([make_player("alice"), make_player("bob")])
    player = client_as(seat_at(game, 0).player)
    fragment = player.get(
        reverse("games:page", args=[game.pk]), {"since": "stale"}, HTTP_HX_REQUEST="true"
    )
    assert fragment.status_code == 200 and b'id="game-area"' in fragment.content
    assert "Link" not in fragment  # the game area alone: no head, nothing to fetch early


def test_only_a_page_names_what_its_templates_noted() -> None:
    """An error drawn after a template had noted its files (a 500) names none of them."""
    noted = Template("{% load preload %}{% preload 'css/board.css' %}")

    def answer(status: int, kind: str) -> HttpResponse:
        def view(request: HttpRequest) -> HttpResponse:
            noted.render(Context({"request": request}))
            response = HttpResponse("<p>…</p>", status=status, content_type=kind)
            response["Link"] = "</feed>; rel=alternate"
            return response

        return PreloadMiddleware(view)(HttpRequest())

    page = answer(200, "Text/HTML; charset=UTF-8")
    assert (
        page["Link"]
        == f"</feed>; rel=alternate, <{static('css/board.css')}>; rel=preload; as=style"
    )
    assert answer(500, "text/html; charset=utf-8")["Link"] == "</feed>; rel=alternate"
    assert answer(200, "application/json")["Link"] == "</feed>; rel=alternate"


def test_the_tag_gives_the_address_without_a_request_and_refuses_other_files() -> None:
    template = Template("{% load preload %}{% preload 'css/site.css' %}")
    assert template.render(Context({})) == static("css/site.css")  # the outage page's case
    with pytest.raises(ValueError, match="style sheet or a script"):
        Template("{% load preload %}{% preload 'favicon.svg' %}").render(Context({}))
