"""Move and board notation (docs/NOTATION.md), and the state as JSON."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import (
    Exchange,
    Pass,
    Place,
    Resign,
    apply,
    board_from_text,
    board_to_text,
    format_notation,
    notate,
    notation_to_move,
    parse_notation,
    position_text,
    state_from_dict,
    state_to_dict,
)
from rules.notation import NotatedMove
from tests.rules.helpers import put, start, tiles


@pytest.fixture
def chat():
    return put(start("sans-marque", ("ZCHATSE?", "ETAROIS")), "H8", True, "CHAT")


@pytest.mark.parametrize(
    ("move", "text"),
    [
        (Place(0, tiles("H8C", "I8H", "J8A", "K8T")), "H8→ CHAT"),
        (Place(0, tiles("H8C", "H9H", "H10A", "H11t")), "H8↓ CHAt"),
        (Exchange(0, "CHA"), "Échange 3"),
        (Pass(0), "Passe"),
        (Resign(0), "Abandon"),
        (Resign(0, timeout=True), "Temps dépassé"),
    ],
)
def test_moves_are_notated(move, text):
    state = start("sans-marque", ("CHAT?S", "ETAROIS"))
    assert format_notation(notate(state, move)) == text
    assert str(parse_notation(text)) == text


def test_tiles_already_on_the_board_are_in_parentheses():
    state = put(start("marque", ("CT", "E")), "I8", True, "HA")
    assert str(notate(state, Place(0, tiles("H8C", "K8T")))) == "H8→ C(HA)T"


def test_a_single_tile_with_a_vertical_word_is_notated_down(chat):
    assert str(notate(chat, Place(0, tiles("J9S")))) == "J8↓ (A)S"
    assert str(notate(chat, Place(0, tiles("L8S")))) == "H8→ (CHAT)S"


def test_returns_are_shown_as_a_count_only():
    layout_state = put(start("sans-marque", ("SZE", "RA")), "M8", True, "TA")
    move = Place(0, tiles("O8S"), returns="Z")
    assert str(notate(layout_state, move)) == "M8→ (TA)S −1"


@pytest.mark.parametrize(
    ("ascii_text", "text"),
    [
        ("H8-> CHAT", "H8→ CHAT"),
        ("h8 v c(HA)t", "H8↓ c(HA)t"),
        ("M8-> (TA)S -1", "M8→ (TA)S −1"),
        ("Echange 2", "Échange 2"),
        ("passe", "Passe"),
        ("Temps depasse", "Temps dépassé"),
    ],
)
def test_ascii_alternatives_are_read(ascii_text, text):
    assert str(parse_notation(ascii_text)) == text


@pytest.mark.parametrize("bad", ["", "H8 CHAT", "H8→ C", "H8→ C((H))", "H8→ C(", "Échange", "Z"])
def test_bad_notation_is_rejected(bad):
    with pytest.raises(ValueError):
        parse_notation(bad)


def test_notation_gives_back_the_placement(chat):
    move = Place(0, tiles("K9E", "L9T"))
    text = str(notate(chat, move))
    assert notation_to_move(text, chat, 0) == move
    assert notation_to_move("Passe", chat, 0) == Pass(0)
    with pytest.raises(ValueError):
        notation_to_move("Échange 2", chat, 0)
    with pytest.raises(ValueError):
        notation_to_move("H8→ (CHOT)S", chat, 0)


letters = st.text("ABCXYZabc", min_size=1, max_size=3)


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(["place", "exchange", "pass", "resign", "timeout"]),
    col=st.sampled_from("ABHO"),
    row=st.integers(1, 15),
    across=st.booleans(),
    parts=st.lists(st.tuples(letters, st.booleans()), min_size=1, max_size=4),
    returns=st.integers(0, 3),
    count=st.integers(1, 9),
)
def test_notation_round_trips(kind, col, row, across, parts, returns, count):
    word = ""
    for text, old in parts:
        word += f"({text})" if old and not word.endswith(")") else text
    if sum(c.isalpha() for c in word) < 2:
        word += "A"
    if kind == "place":
        notated = NotatedMove("place", f"{col}{row}", across, word, returns)
    elif kind == "exchange":
        notated = NotatedMove("exchange", count=count)
    else:
        notated = NotatedMove(kind)
    assert parse_notation(format_notation(notated)) == notated


def test_position_text_round_trips(chat):
    state, _ = apply(chat, Place(0, tiles("L8s")))
    text = position_text(state)
    assert text.split("/")[7] == ".......CHATs...."[:15]
    assert board_from_text(text, state.config.layout) == state.board
    assert board_from_text(text.replace("/", "\n"), state.config.layout) == state.board
    assert board_to_text(state.board, 15) == text
    for bad in ("", text + "/...............", text.replace("C", "1")):
        with pytest.raises(ValueError):
            board_from_text(bad, state.config.layout)


def test_state_round_trips_through_json(chat):
    state, _ = apply(chat, Place(0, tiles("L8S")))
    state, _ = apply(state, Resign(1, timeout=True))
    data = json.loads(json.dumps(state_to_dict(state)))
    assert state_from_dict(data) == state
    assert state_from_dict(data, state.config) == state
    with pytest.raises(ValueError):
        state_from_dict({"format": "x"})


def test_no_module_of_rules_imports_django_or_the_site():
    forbidden = {"django", "games", "accounts", "diamino_site"}
    package = Path(__file__).resolve().parents[2] / "rules"
    offenders = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            else:
                continue
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in forbidden]
    assert offenders == []
