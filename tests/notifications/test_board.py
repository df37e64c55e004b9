"""The board picture in the emails is legible: every text on it has WCAG AA contrast."""

from __future__ import annotations

import random
import re

import pytest

import rules
from games import services
from tests.games.conftest import seat_at
from tests.notifications.conftest import new_game
from tests.notifications.test_emails import html_of

pytestmark = pytest.mark.django_db

# WCAG 1.4.3 (AA): 4.5:1 for text under 18 pt; the board's letters are 11 and 12 px.
AA_SMALL_TEXT = 4.5
# CHAT on H8 with a diable as the T, so the email shows a diable among the move's tiles.
HANDS = ("CHA?EUXSIRNL", "LEPOTIERMANU")
CHAT = rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "t")))
CELL = re.compile(r'<td style="([^"]*)"[^>]*>([^<]*)</td>')


def luminance(colour: str) -> float:
    """WCAG 2's relative luminance of ``#rrggbb``."""
    channels = (int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5))
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def last(style: str, prop: str) -> str | None:
    """The value a style gives ``prop`` (the last one wins, as in CSS)."""
    values = re.findall(rf"(?:^|;)\s*{prop}\s*:\s*(#[0-9a-fA-F]{{6}})", style)
    return values[-1] if values else None


def test_contrast_is_computed_as_wcag_defines_it() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#fbeed6", "#a0703e") < AA_SMALL_TEXT  # the frame's old colours: 3.7:1


def test_every_letter_and_coordinate_of_the_email_board_has_aa_contrast(
    alice, bob, committed, mailoutbox
) -> None:
    game = new_game([alice, bob], hands=HANDS)
    with committed():
        services.move_submit(
            game_id=game.pk,
            player=seat_at(game, 0).player,
            version=0,
            move=CHAT,
            rng=random.Random(0),
        )
    html = html_of(mailoutbox[0])
    table = re.search(
        r'<table[^>]*style="([^"]*)"[^>]*>\s*<tr><td[^>]*></td>(.*?)</table>', html, re.S
    )
    assert table, "no board in the email"
    ground = last(table.group(1), "background")
    texts = [(style, text.strip()) for style, text in CELL.findall(table.group(2)) if text.strip()]
    coordinates = {text for _style, text in texts if text.isdigit() or len(text) == 1}
    assert {"A", "O", "1", "15", "C", "T"} <= coordinates, "the heads and the move are on the board"
    assert any("italic" in style for style, _text in texts), "the diable is on the board"
    poor = []
    for style, text in texts:
        colour, background = last(style, "color"), last(style, "background") or ground
        assert colour and background, f"{text!r} has no colour or no ground: {style}"
        ratio = contrast(colour, background)
        if ratio < AA_SMALL_TEXT:
            poor.append(f"{text} ({colour} on {background}: {ratio:.2f}:1)")
    assert not poor, "under 4.5:1: " + ", ".join(sorted(set(poor)))
