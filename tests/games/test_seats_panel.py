"""The game page's "Players" card (in games/game.html).

What a player reads there: names escaped, each badge and fact in French and
in English, the deadline in their time zone with the days given, the give-time
form only for whom may give a day (and with a token the server accepts), the
revealed hands, and the first-player draw.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.presenters import DrawRound, SeatView
from tests.games.conftest import seat_at
from tests.games.test_game_template import URLS, game_view, render, seats
from tests.games.test_gifts import HOUR, T0, at_t0

DEADLINE = datetime(2025, 3, 4, 18, 30, tzinfo=UTC)  # 19:30 in Paris, the site's time zone
BACK = datetime(2025, 3, 20, 7, 0, tzinfo=UTC)
NASTY = "<b>Al</b> & Co"
GIVE_TIME = URLS | {"give_time": "/parties/7/plus-de-temps/"}


def card(html: str) -> str:
    """The Players card of a rendered page."""
    (section,) = re.findall(r'<section class="card seats">.*?</section>', html, re.S)
    return section


def text(html: str) -> str:
    """The card as a reader reads it: tags dropped, spaces (no-break ones too) collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def waiting_view(**changes):
    """My page while ``NASTY`` is to move with two days given, and I may give a third."""
    me, other = seats()
    to_move = replace(
        other, name=NASTY, status="active", is_turn=True, deadline=DEADLINE, on_vacation=False
    )
    view = game_view(
        seats=(replace(me, is_turn=False, deadline=None), to_move),
        is_my_turn=False,
        extra_days=2,
        can_give_time=True,
        first_player_draw=(DrawRound(draws=((NASTY, "?"), ("Alice", "B"))),),
    )
    return replace(view, **changes)


def finished_view():
    """A finished game: Alice first with a joker left, Bob resigned, Carol timed out with none."""
    alice, bob = seats(over=True)
    carol = SeatView(2, "Carol", None, 0, 3, "timed-out", is_turn=False, is_me=False)
    return game_view(
        over=True,
        status="finished",
        end="out",
        winners=("Alice",),
        is_my_turn=False,
        seats=(
            replace(alice, place=1),
            replace(bob, place=2, on_vacation=False),
            replace(carol, place=3, final_hand=""),
        ),
    )


def test_a_player_s_name_is_escaped_everywhere_the_card_shows_it():
    html = render(view=waiting_view(), urls=GIVE_TIME, max_extra_days=7)
    section = card(html)
    assert "<b>Al</b>" not in html
    escaped = "&lt;b&gt;Al&lt;/b&gt; &amp; Co"
    assert f'<a href="/joueurs/bob/">{escaped}</a>' in section
    assert f">Give {escaped} one more day</button>" in section
    assert f"<li>{escaped}: <span" in section  # the first-player draw
    assert f"Waiting for {escaped}." in html  # the turn banner


def test_a_profile_link_is_escaped_and_a_name_without_one_is_plain_text():
    alice, bob = seats()
    view = game_view(
        seats=(replace(alice, profile_url='/joueurs/a"&b/'), replace(bob, profile_url=None))
    )
    section = card(render(view=view))
    assert '<a href="/joueurs/a&quot;&amp;b/">Alice</a>' in section
    assert "\n              Bob\n" in section and 'href="/joueurs/bob/"' not in section


def test_the_deadline_is_in_the_viewer_s_time_zone_with_the_days_given_in_english():
    with timezone.override("America/New_York"):
        section = card(render(view=waiting_view(), urls=GIVE_TIME, max_extra_days=7))
    assert (
        '<dt>Deadline</dt><dd><time datetime="2025-03-04T13:30:00-05:00">March 4, 2025, 1:30 PM</time> '
        '<span class="muted time-given">(+2 days given)</span></dd>'
    ) in section
    assert "to play" in section and "(you)" in section
    assert "24 hours more on this turn; at most 7 days in all." in section


def test_the_deadline_and_the_days_given_in_french():
    one_day = waiting_view(extra_days=1)
    section = card(render(language="fr", view=one_day, urls=GIVE_TIME, max_extra_days=7))
    assert (
        '<dt>Échéance</dt><dd><time datetime="2025-03-04T19:30:00+01:00">4 mars 2025 19:30</time> '
        '<span class="muted time-given">(+1 jour donné)</span></dd>'
    ) in section
    assert "à jouer" in section and "(vous)" in section
    assert "Donner un jour de plus à &lt;b&gt;Al&lt;/b&gt; &amp; Co" in section
    assert "24 heures de plus pour ce tour\u00a0; 7 jours au plus en tout." in section
    assert "(+" not in card(render(language="fr", view=waiting_view(extra_days=0)))


@pytest.mark.parametrize(
    ("language", "until", "plain", "ahead"),
    [
        (
            "en",
            "on vacation until March 20, 2025, 8:00 AM",
            "on vacation",
            "on vacation from March 20, 2025, 8:00 AM",
        ),
        (
            "fr",
            "en vacances jusqu’au 20 mars 2025 08:00",
            "en vacances",
            "en vacances à partir du 20 mars 2025 08:00",
        ),
    ],
)
def test_vacation_badges_say_until_when_or_from_when(language, until, plain, ahead):
    alice, bob = seats()
    away = replace(bob, on_vacation=True, vacation_until=BACK)
    html = card(render(language=language, view=game_view(seats=(alice, away))))
    assert f'<span class="badge vacation"><span aria-hidden="true">✈</span> {until}</span>' in html
    html = card(
        render(language=language, view=game_view(seats=(alice, replace(away, vacation_until=None))))
    )
    assert f'<span aria-hidden="true">✈</span> {plain}</span>' in html
    # A vacation booked to begin before the deadline of the player to move.
    booked = replace(alice, vacation_from=BACK)
    assert ahead in card(render(language=language, view=game_view(seats=(booked, bob))))


@pytest.mark.parametrize(
    ("language", "phrases"),
    [
        (
            "en",
            [
                "Alice (you) ♛ winner Tiles 12 Score 10 Final place 1 Final hand: Q K ? joker",
                "Bob Tiles 11 Score -5 Final place 2 Status resigned Final hand: W X Y Z",
                "Carol Tiles 0 Score 3 Final place 3 Status timed out Final hand: none",
            ],
        ),
        (
            "fr",
            [
                "Alice (vous) ♛ gagnant Lettres 12 Score 10 Place finale 1 Main finale : Q K ? diable",
                "Bob Lettres 11 Score -5 Place finale 2 Statut a abandonné Main finale : W X Y Z",
                "Carol Lettres 0 Score 3 Place finale 3 Statut hors délai Main finale : aucune",
            ],
        ),
    ],
)
def test_a_finished_game_shows_places_statuses_and_the_hands_left(language, phrases):
    html = card(render(language=language, view=finished_view()))
    for phrase in phrases:
        assert phrase in text(html)
    # The joker is shown as "?" and named for screen readers.
    assert (
        '<span class="mini-tile is-diable"><span aria-hidden="true">?</span>'
        '<span class="visually-hidden">'
    ) in html
    assert 'class="give-time"' not in html and "to play" not in html and "à jouer" not in html


def test_the_give_time_form_is_only_beside_the_player_to_move_and_only_when_allowed():
    allowed = card(render(view=waiting_view(), urls=GIVE_TIME, max_extra_days=7))
    (seat_with_form,) = [li for li in allowed.split("<li ")[1:] if 'class="give-time"' in li]
    assert seat_with_form.startswith('class="seat status-active is-turn"')
    assert 'action="/parties/7/plus-de-temps/"' in seat_with_form
    assert 'name="version" value="6"' in seat_with_form
    assert 'name="extra_days" value="2"' in seat_with_form
    refused = card(render(view=waiting_view(can_give_time=False), urls=GIVE_TIME))
    assert 'class="give-time"' not in refused
    assert "No more time can be given" not in refused
    full = card(render(view=waiting_view(can_give_time=False, extra_days=7, extra_days_full=True)))
    assert '<p class="muted time-given">No more time can be given on this turn.</p>' in full


@pytest.mark.django_db
def test_the_give_time_form_carries_a_token_the_server_accepts(alice, bob):
    game = at_t0([alice, bob])
    giver = seat_at(game, 1).player
    client = Client(enforce_csrf_checks=True)
    client.force_login(giver)
    with time_machine.travel(T0 + HOUR, tick=False):
        html = card(client.get(reverse("games:page", args=[game.pk])).content.decode())
        (token,) = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        response = client.post(
            reverse("games:give_time", args=[game.pk]),
            {"csrfmiddlewaretoken": token, "version": 0, "extra_days": 0},
        )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.turn_extra_days == 1


@pytest.mark.parametrize(
    ("language", "reserve", "draw"),
    [
        ("en", "64 tiles in the reserve", "Who plays first: the draw"),
        ("fr", "64 lettres dans la réserve", "Qui joue en premier : le tirage"),
    ],
)
def test_the_reserve_and_the_first_player_draw(language, reserve, draw):
    html = card(render(language=language, view=waiting_view()))
    assert f'<p class="reserve">{reserve}</p>' in html
    assert f"<summary>{draw}</summary>".replace(" : ", "\u00a0: ") in html
    joker = "joker" if language == "en" else "diable"
    assert f'<span class="mini-tile">{joker}</span> · Alice' in html
    one = card(render(language=language, view=waiting_view(reserve_size=1, first_player_draw=())))
    assert reserve.replace("64", "1").replace("tiles", "tile").replace("lettres", "lettre") in one
    assert "<details" not in one


def test_the_resign_form_is_for_a_seated_player_still_in_a_running_game():
    assert 'class="resign-form"' in render()
    alice, bob = seats()
    assert 'class="resign-form"' not in render(
        view=game_view(seats=(replace(alice, status="resigned"), bob))
    )
    assert 'class="resign-form"' not in render(view=game_view(my_hand=None, my_position=None))
    assert 'class="resign-form"' not in render(view=finished_view())


def test_the_turn_banner_names_the_player_to_move_or_says_it_is_mine():
    assert "Your turn." in render()
    assert "En attente de &lt;b&gt;Al&lt;/b&gt; &amp; Co." in render(
        language="fr", view=waiting_view()
    )
    nobody = waiting_view(seats=tuple(replace(s, is_turn=False) for s in seats()))
    banner = re.search(r'<p class="turn-banner".*?</p>', render(view=nobody), re.S)
    assert banner is not None and "Waiting" not in banner.group()
