"""The game page template, rendered with hand-built GameViews (no database).

These tests check what a player or a screen reader gets from the page: every
square named and its kind marked without colour, the viewer's own hand only
(R-HIDE-1), the preview fragment, and the finished game's revealed hands.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse
from django.utils import translation
from django.utils.html import json_script

from games.presenters import (
    AnalysisView,
    DrawRound,
    GameView,
    GiftView,
    MoveView,
    SeatView,
    SquareView,
    TileView,
    notation_shown,
    tab_title,
)

LAYOUT = """\
R......R......R
.#...G...G...#.
..#.........#..
...#.......#...
....#.....#....
.G...G...G...G.
...............
R......D......R
...............
.G...G...G...G.
....#.....#....
...#.......#...
..#.........#..
.#...G...G...#.
R......R......R"""
KINDS = {".": "plain", "D": "start", "#": "black", "G": "green", "R": "red"}
COLUMNS = "ABCDEFGHIJKLMNO"
VALUES = {"C": 3, "H": 4, "A": 1, "T": 1}
# CHAT on row 8 from the start square, the T played by a diable; "AH" down from I7 is the last move.
TILES = {"H8": ("C", False), "I8": ("H", False), "J8": ("A", False), "K8": ("T", True)}
LAST_MOVE = {"I7": ("A", False)}
ROOT = Path(__file__).resolve().parents[2]
URLS = {
    "page": "/parties/7/",
    "preview": "/parties/7/apercu/",
    "play": "/parties/7/jouer/",
    "resign": "/parties/7/abandonner/",
    "chat": "/parties/7/chat/",
    "record": "/parties/7/partie.txt",
    "check_word": "/mots/verifier/",
    "report": "/parties/7/signaler/",
    "replay": "/parties/7/rejouer.json",
}


def board_rows() -> tuple[tuple[SquareView, ...], ...]:
    rows = []
    for r, line in enumerate(LAYOUT.splitlines()):
        row = []
        for c, char in enumerate(line):
            name = f"{COLUMNS[c]}{r + 1}"
            letter, diable = {**TILES, **LAST_MOVE}.get(name, (None, False))
            row.append(
                SquareView(
                    name=name,
                    col=c,
                    row=r,
                    kind=KINDS[char],
                    letter=letter,
                    is_diable=diable,
                    value=None if letter is None else 0 if diable else VALUES[letter],
                    is_last_move=name in LAST_MOVE,
                )
            )
        rows.append(tuple(row))
    return tuple(rows)


def seats(*, over: bool = False) -> tuple[SeatView, ...]:
    deadline = datetime(2025, 3, 4, 18, 30, tzinfo=UTC)
    return (
        SeatView(
            position=0,
            name="Alice",
            profile_url="/joueurs/alice/",
            hand_size=12,
            score=10,
            status="active",
            is_turn=not over,
            is_me=True,
            deadline=deadline,
            is_winner=over,
            final_hand="QK?" if over else None,
        ),
        SeatView(
            position=1,
            name="Bob",
            profile_url="/joueurs/bob/",
            hand_size=11,
            score=-5,
            status="resigned",
            is_turn=False,
            is_me=False,
            on_vacation=True,
            final_hand="WXYZ" if over else None,
        ),
    )


def game_view(**changes) -> GameView:
    hand = tuple(
        TileView(index=i, letter=letter, value=VALUES.get(letter, 0 if letter == "?" else 2))
        for i, letter in enumerate("ESSAIMONT?")
    )
    view = GameView(
        version=6,
        mode="marque",
        status="running",
        columns=tuple(COLUMNS),
        rows=board_rows(),
        seats=seats(),
        reserve_size=64,
        my_hand=hand,
        my_position=0,
        is_my_turn=True,
        can_exchange=True,
        moves=(
            MoveView(
                1, "Alice", "place", "H8 CHAT", ("CHAT",), 0, datetime(2025, 3, 1, tzinfo=UTC)
            ),
            MoveView(2, "Bob", "exchange", "x 3", (), 0, datetime(2025, 3, 2, tzinfo=UTC)),
            MoveView(3, "Alice", "place", "I7 AH ↓", ("AH",), 10, datetime(2025, 3, 3, tzinfo=UTC)),
        ),
        first_player_draw=(DrawRound(draws=(("Alice", "B"), ("Bob", "?"))),),
        hand_slots=12,
        letter_values=VALUES,
    )
    return replace(view, **changes)


def render(template: str = "games/game.html", *, language: str = "en", **context) -> str:
    request = RequestFactory().get("/parties/7/")
    request.user = AnonymousUser()
    defaults = {
        "game": SimpleNamespace(pk=7),
        "view": game_view(),
        "urls": URLS,
        "tab_title": "Game 7",
        "chat_messages": [],
        "can_chat": True,
    }
    with translation.override(language):
        return render_to_string(template, {**defaults, **context}, request=request)


def squares(html: str) -> list[str]:
    return re.findall(r'<div role="gridcell"[^>]*>', html)


def square(html: str, name: str) -> str:
    (tag,) = [tag for tag in squares(html) if f'data-square="{name}"' in tag]
    return tag


def test_the_board_has_225_named_squares():
    html = render()
    cells = squares(html)
    assert len(cells) == 225
    assert all('aria-label="' in cell and "data-kind=" in cell for cell in cells)
    assert 'aria-label="A2, empty"' in square(html, "A2")


def test_the_five_kinds_of_square_are_told_apart_without_colour():
    html = render()
    assert 'aria-label="H9, empty"' in square(html, "H9")
    assert 'data-kind="black"' in square(html, "B2") and "black square, empty" in square(html, "B2")
    assert 'data-kind="green"' in square(html, "F2") and "green devil, empty" in square(html, "F2")
    assert 'data-kind="red"' in square(html, "A1") and "red devil, empty" in square(html, "A1")
    # Each special kind also carries a visible glyph.
    for name, glyph in {"B2": "✕", "F2": "G", "A1": "R"}.items():
        assert re.search(
            rf'data-square="{name}"[^>]*><span class="sq-mark" aria-hidden="true">{glyph}<', html
        )


def test_the_start_square_is_marked_when_empty():
    rows = tuple(tuple(replace(sq, letter=None, value=None) for sq in row) for row in board_rows())
    html = render(view=game_view(rows=rows, moves=()))
    assert 'aria-label="H8, Start, empty"' in square(html, "H8")
    assert re.search(r'data-square="H8"[^>]*><span class="sq-mark" aria-hidden="true">★<', html)


def test_tiles_show_their_letter_value_and_the_last_move():
    html = render()
    assert 'aria-label="H8, letter C, 3 points"' in square(html, "H8")
    assert 'aria-label="K8, letter T, 0 points, joker"' in square(html, "K8")
    assert "last-move" in square(html, "I7") and "letter A, 1 point, last move" in square(
        html, "I7"
    )
    assert "last-move" not in square(html, "H8")
    # The letter and the points are two words of the text, "T 0", as the name says them.
    assert (
        '<span class="tile board-tile is-diable" aria-hidden="true"><span class="tile-letter">T</span> <span class="tile-value">0</span>'
        in html
    )


def test_column_letters_and_row_numbers_are_shown():
    html = render()
    assert re.findall(r'<span class="col-head" role="columnheader">([A-Z])</span>', html) == list(
        COLUMNS
    )
    assert re.findall(r'<span class="row-head" role="rowheader">(\d+)</span>', html) == [
        str(n) for n in range(1, 16)
    ]


def test_my_hand_has_twelve_numbered_slots_in_avec_marque():
    html = render()
    assert html.count('class="hand-slot"') == 12
    numbers = re.findall(r'<span class="slot-number" aria-hidden="true">(\d+)</span>', html)
    assert numbers == [str(n) for n in range(1, 13)]
    assert html.count('class="tile hand-tile') == 10
    assert 'data-letter="?"' in html and 'aria-label="joker, 0 points"' in html


def test_each_tile_stays_in_its_numbered_slot_when_slots_are_empty():
    hand = (
        TileView(index=0, letter="A", value=1),
        TileView(index=3, letter="K", value=10),
        TileView(index=11, letter="?", value=0),
    )
    html = render(view=game_view(my_hand=hand))
    slots = re.findall(r'<li class="hand-slot">(.*?)</li>', html, re.S)
    assert len(slots) == 12
    letters = [re.findall(r'data-letter="(.)"', slot) for slot in slots]
    assert letters == [["A"], [], [], ["K"], *[[]] * 7, ["?"]]


def test_hand_tiles_are_named_by_letter_and_points_in_french():
    hand = (
        TileView(index=0, letter="A", value=1),
        TileView(index=1, letter="K", value=10),
        TileView(index=2, letter="?", value=0),
    )
    html = render(view=game_view(my_hand=hand), language="fr")
    buttons = re.findall(r'<button type="button" class="tile hand-tile[^>]*>.*?</button>', html)
    assert buttons == [
        '<button type="button" class="tile hand-tile" data-index="0" data-letter="A" '
        'data-value="1" aria-pressed="false" aria-label="A, 1 point"><span class="tile-letter" '
        'aria-hidden="true">A</span> <span class="tile-value" aria-hidden="true">1</span></button>',
        '<button type="button" class="tile hand-tile" data-index="1" data-letter="K" '
        'data-value="10" aria-pressed="false" aria-label="K, 10 points"><span class="tile-letter" '
        'aria-hidden="true">K</span> <span class="tile-value" aria-hidden="true">10</span></button>',
        # French says "0 point": zero takes the singular.
        '<button type="button" class="tile hand-tile is-diable" data-index="2" data-letter="?" '
        'data-value="0" aria-pressed="false" aria-label="diable, 0 point"><span class="tile-letter" '
        'aria-hidden="true">?</span> <span class="tile-value" aria-hidden="true">0</span></button>',
    ]


def test_a_diable_on_the_board_is_escaped_and_labelled_in_french():
    with translation.override("fr"):
        html = render_to_string(
            "games/game.html#board",
            {"view": game_view(), "urls": URLS, "game": SimpleNamespace(pk=7)},
        )
    assert 'aria-label="K8, lettre T, 0 point, diable"' in square(html, "K8")
    assert 'aria-label="H8, lettre C, 3 points"' in square(html, "H8")
    assert 'aria-label="B2, case noire, vide"' in square(html, "B2")


def test_sans_marque_shows_a_rack_without_slot_numbers():
    hand = tuple(TileView(index=i, letter="E", value=1) for i in range(40))
    html = render(view=game_view(mode="sans-marque", hand_slots=0, my_hand=hand))
    assert "hand-rack" in html
    assert "slot-number" not in html
    assert html.count('class="tile hand-tile') == 40


def test_a_spectator_sees_no_hand_and_no_move_form():
    html = render(view=game_view(my_hand=None, my_position=None, is_my_turn=False))
    assert 'id="hand"' not in html
    assert 'id="move-form"' not in html
    assert "resign-form" not in html


def test_other_players_hands_never_appear_only_their_sizes():
    html = render()
    assert "WXYZ" not in html
    assert "<dt>Tiles</dt><dd>11</dd>" in html
    assert "Final hand" not in html


def test_seats_show_turn_status_deadline_vacation_and_the_reserve():
    html = render()
    assert 'href="/joueurs/alice/"' in html
    assert "to play" in html
    assert "resigned" in html
    assert "on vacation" in html
    assert '<time datetime="2025-03-04' in html
    assert "64 tiles in the reserve" in html
    assert "Who plays first" in html


def test_the_move_form_posts_the_version_and_hidden_move_fields():
    html = render()
    assert 'action="/parties/7/jouer/"' in html
    assert re.search(r'name="version" id="move-version" value="6"', html)
    for name in ("placements", "returns", "exchange", "csrfmiddlewaretoken"):
        assert f'name="{name}"' in html
    assert 'hx-post="/parties/7/apercu/"' in html
    assert re.search(r'id="play-button" disabled', html)
    assert 'name="action" value="pass"' in html
    assert 'action="/parties/7/abandonner/"' in html


def test_exchange_is_disabled_when_the_reserve_is_too_small():
    html = render(view=game_view(can_exchange=False))
    assert re.search(r'id="exchange-button" disabled', html)


def test_the_page_polls_whoever_is_to_move_and_not_once_over():
    token = "6.running.0"
    for view in (game_view(), game_view(is_my_turn=False)):
        html = render(view=view, live_token=token, poll_seconds=6)
        assert 'hx-get="/parties/7/?since=6.running.0"' in html
        assert 'hx-include="#chat-seen"' in html  # and the chat's count
        assert 'hx-trigger="every 6s, visibilitychange from:document"' in html
        assert 'hx-select-oob="#chat-body"' in html  # the chat comes with the news
    assert "?since=" not in render(view=game_view(over=True), live_token=token)


def test_the_history_lists_move_notations_newest_last():
    html = render("games/game.html#history")
    notations = re.findall(r'<code class="move-notation">([^<]*)</code>', html)
    assert notations == ["H8 CHAT", "x 3", "I7 AH ↓"]
    assert "10 points" in html


@pytest.mark.parametrize(
    ("points", "shown"), [(1, "1 point"), (-1, "-1 point"), (-14, "-14 points")]
)
def test_move_points_agree_in_french_whatever_their_sign(points, shown):
    move = MoveView(
        1, "Alice", "place", "H8 CHAT", ("CHAT",), points, datetime(2025, 3, 1, tzinfo=UTC)
    )
    html = render("games/game.html#history", language="fr", view=game_view(moves=(move,)))
    assert f'<span class="move-points">{shown}</span>' in html


def test_the_history_escapes_names_and_notations_and_keeps_the_phrases_in_french():
    played = datetime(2025, 3, 1, tzinfo=UTC)
    moves = (
        MoveView(
            1,
            "<b>Al</b>",
            "place",
            "H8 <i>",
            ("CHAT",),
            3,
            played,
            analysis=AnalysisView("H8 CHATS", ("CHATS",), 2, 1, False),
            gifts=(GiftView("Bob & Co", "<b>Al</b>", to_me=True),),
        ),
        MoveView(2, "Bob & Co", "pass", "-", (), 0, played, gifts=(GiftView("X", "Y"),)),
    )
    view = game_view(
        mode="sans-marque", moves=moves, opening_gifts=(GiftView("Me", "Bob", by_me=True),)
    )
    html = render("games/game.html#history", language="fr", view=view)
    assert "<b>Al</b>" not in html and "<i>" not in html
    assert '<span class="move-player">&lt;b&gt;Al&lt;/b&gt;</span>' in html
    assert '<code class="move-notation">H8 &lt;i&gt;</code>' in html
    items = re.findall(r'<li class="move kind-([a-z]+)"', html)
    assert items == ["gift", "place", "gift", "pass", "gift"]  # each day given after its move
    assert "Vous avez donné un jour de plus à Bob." in html
    assert "Bob &amp; Co vous a donné un jour de plus." in html
    assert "X a donné un jour de plus à Y." in html
    # Sans marque the analysis counts tiles out of the hand, not points.
    assert (
        "Meilleur coup\u00a0: <code>H8 CHATS</code> "
        "(2 lettres sorties de la main\u00a0; joué\u00a0: 1)" in html
    )


def test_the_preview_fragment_shows_words_devils_and_points():
    preview = {
        "ok": True,
        "words": ["CHATS", "SI"],
        "devils": ["Red devil on A1: +10 points"],
        "points": 10,
        "goes_out": False,
        "returns_needed": 2,
    }
    html = render("games/game.html#preview", preview=preview)
    assert html.strip().startswith('<div id="preview"')
    assert 'data-ok="true"' in html and 'data-returns-needed="2"' in html
    assert "CHATS" in html and "SI" in html
    assert "Red devil on A1: +10 points" in html
    assert "choose 2 tiles to give back" in html
    assert "board" not in html


def test_the_preview_fragment_shows_the_broken_rule():
    preview = {
        "ok": False,
        "message": "The tiles must form one line with no gap.",
        "rule": "R-PLACE-3",
    }
    html = render("games/game.html#preview", preview=preview)
    assert 'data-ok="false"' in html
    assert "one line with no gap" in html
    # The rule is a link to its paragraph on the rules page, not a bare "(R-PLACE-3)".
    assert 'href="/regles/#R-PLACE-3"' in html and "See the rule" in html
    assert "(R-PLACE-3)" not in html


def test_the_preview_fragment_escapes_the_message():
    html = render(
        "games/game.html#preview", preview={"ok": False, "message": "<b>x</b>", "rule": ""}
    )
    assert "<b>x</b>" not in html and "&lt;b&gt;" in html


def test_a_finished_game_reveals_every_hand_and_links_the_record():
    view = game_view(
        over=True,
        status="finished",
        end="out",
        winners=("Alice",),
        is_my_turn=False,
        seats=seats(over=True),
    )
    html = render(view=view)
    assert "Game over" in html and "Winner: Alice" in html
    assert re.search(r"Final hand:.*W.*X.*Y.*Z", html, re.S)
    assert 'href="/parties/7/partie.txt"' in html
    assert 'data-url="/parties/7/rejouer.json?jusqua=6"' in html and 'data-replay="next"' in html
    assert 'id="move-form"' not in html and 'id="hand"' not in html
    assert "every 10s" not in html


def test_chat_messages_are_escaped_and_the_form_only_shows_when_allowed():
    message = SimpleNamespace(
        author="Bob", text="<script>alert(1)</script>", created_at=datetime(2025, 3, 1, tzinfo=UTC)
    )
    html = render(chat_messages=[message])
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'maxlength="500"' in html
    assert 'name="text"' not in render(chat_messages=[message], can_chat=False)
    fragment = render("games/game.html#chat", chat_messages=[message])
    assert fragment.strip().startswith('<div id="chat-body">')


def test_a_refused_move_comes_back_as_the_move_error_fragment():
    html = render("games/game.html#move_error", message="Someone moved first: reload.")
    assert html.strip().startswith('<div id="move-error"')
    assert 'role="alert"' in html and "Someone moved first: reload." in html
    assert 'id="move-error" class="move-error"></div>' in render()


def test_a_chat_error_is_shown_in_the_chat_fragment():
    html = render("games/game.html#chat", chat_error="Too long.")
    assert html.strip().startswith('<div id="chat-body">') and "Too long." in html


def test_the_word_check_form_targets_its_result():
    # The word check is the same on every page: it names the view's URL itself.
    url = reverse("games:check_word")
    html = render()
    assert f'hx-get="{url}"' in html and 'name="mot"' in html and 'id="word-check"' in html


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_board_js_parses():
    result = subprocess.run(
        ["node", "--check", str(ROOT / "static" / "js" / "board.js")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_a_preview_asking_for_red_devil_returns_tells_the_page_how_many():
    """Issue 18, defect 1: the error branch said 0, so no picker appeared (R-PLACE-7)."""
    preview = {"ok": False, "message": "Give back exactly 1 tile", "returns_needed": 1}
    html = render("games/game.html#preview", preview=preview)
    assert 'data-returns-needed="1"' in html
    other = {"ok": False, "message": "HCA is not a word", "rule": "R-PLACE-4"}
    assert 'data-returns-needed="0"' in render("games/game.html#preview", preview=other)


def test_a_finished_game_shows_each_player_s_final_place():
    """A blocked sans-marque game has no winner, but its players are ranked (R-END-2)."""
    alice, bob = seats(over=True)
    view = game_view(
        over=True,
        status="finished",
        end="blocked",
        winners=(),
        is_my_turn=False,
        seats=(replace(alice, place=2), replace(bob, place=1)),
    )
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", render(view=view)))
    assert "Alice" in text and "Final place 2" in text and "Final place 1" in text
    assert "Final place" not in render()  # not while the game runs


@pytest.mark.parametrize(
    ("notation", "english"),
    [
        ("Échange 3", "Exchange 3"),
        ("Passe", "Pass"),
        ("Abandon", "Resignation"),
        ("Temps dépassé", "Time-out"),
        ("M8→ (TA)S −1", "M8→ (TA)S −1"),
    ],
)
def test_a_notation_is_shown_in_the_reader_s_language(notation, english):
    with translation.override("en"):
        assert notation_shown(notation) == english
    with translation.override("fr"):
        assert notation_shown(notation) == notation


@pytest.mark.parametrize(
    ("language", "mine", "theirs"),
    [("en", "(Your turn) Game 12", "Game 12"), ("fr", "(À vous) Partie 12", "Partie 12")],
)
def test_the_tab_title_names_the_game_and_says_when_it_is_the_viewer_s_turn(
    language, mine, theirs
) -> None:
    with translation.override(language):
        assert tab_title(game_view(is_my_turn=True), 12) == mine
        assert tab_title(game_view(is_my_turn=False), 12) == theirs
        assert tab_title(game_view(is_my_turn=True, over=True), 12) == theirs


def test_the_page_shows_the_tab_title_in_its_title_and_its_game_area() -> None:
    html = render(tab_title="(Your turn) Game <b>&")
    assert "<title>(Your turn) Game &lt;b&gt;&amp; · Diamino</title>" in html
    assert 'data-tab-title="(Your turn) Game &lt;b&gt;&amp; · Diamino"' in html


def test_the_letters_values_script_is_json_script_s_for_each_set_of_values() -> None:
    for values in (VALUES, {"Z": 10, "<b>&": 1}, VALUES):
        html = render(view=game_view(letter_values=values))
        assert str(json_script(values, "letter-values")) in html
