"""A queued move's early judgement (rules/queued.py, issue #36): refused at once only when
no later move can make it legal; "nothing near it changed" looks at its words and beside."""

from __future__ import annotations

import pytest

from rules import IllegalMove, Place, changed_near, check_queueable, view
from rules.reply_notation import parse_later_read, parse_reply_read
from tests.rules.helpers import put, start


@pytest.fixture
def chat():
    """CHAT across from H8; player 1 holds E, T, A, S and a diable."""
    return put(start("marque", ("CHATEAUXSIRN", "ETASO?")), "H8", True, "CHAT")


@pytest.mark.parametrize(
    ("tiles", "returns", "code"),
    [
        ((("L8", "Z"),), "", "not-in-hand"),
        ((("K8", "S"),), "", "occupied"),
        ((("L8", "S"), ("M9", "E")), "", "not-in-line"),
        ((("L8", "s"), ("L8", "E")), "", "duplicate-square"),
    ],
)
def test_what_no_later_move_can_lift_is_refused_at_once(chat, tiles, returns, code) -> None:
    with pytest.raises(IllegalMove) as refused:
        check_queueable(chat, Place(1, tiles, returns=returns))
    assert refused.value.code == code


@pytest.mark.parametrize(
    "tiles",
    [
        (("L8", "S"),),  # legal now, though not player 1's turn
        (("L10", "E"), ("M10", "T")),  # not touching yet
        (("L8", "O"),),  # CHATO is no word; a tile on M8 could make one
    ],
)
def test_what_may_become_legal_may_wait(chat, tiles) -> None:
    check_queueable(chat, Place(1, tiles))


def test_changed_near_names_the_squares_taken_on_or_beside_its_words(chat) -> None:
    layout = chat.config.layout
    then = chat.board
    queued = (("L8", "S"),)  # CHATS: H8 to L8
    assert changed_near(layout, then, then, queued) == ()
    beside = put(chat, "G8", True, "A").board  # ACHAT, next to H8
    assert changed_near(layout, then, beside, queued) == ("G8",)
    below = put(chat, "K9", False, "E").board  # under the T
    assert changed_near(layout, then, below, queued) == ("K9",)
    far = put(chat, "H9", False, "O").board
    assert changed_near(layout, then, far, (("K9", "E"), ("K10", "S"))) == ()


def test_a_later_line_is_never_this_turn_s_move(chat) -> None:
    text = "plus tard : H8 CHATS\nK8 v TES"
    move, line = parse_reply_read(text, view(chat, 1))
    assert isinstance(move, Place) and line == "K8 v TES"
    assert move.tiles == (("K9", "E"), ("K10", "S"))
    later = parse_later_read(text, view(chat, 1))
    assert later is not None and later[0].tiles == (("L8", "S"),)
    assert parse_later_read("K8 v TES", view(chat, 1)) is None
