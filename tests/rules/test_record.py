"""Game records and the referee (RECORD.md)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Exchange, Pass, Place, RecordError, Resign, load_tiles
from rules.record import judge, judge_document, parse_record, write_record
from rules.referee import main
from tests.rules.helpers import SMALL_ROWS, WORDS, config

ROOT = Path(__file__).resolve().parents[2]

HANDS = ["CHATSEL", "ETAROIS"]
_REST = Counter(load_tiles("classique").counts) - Counter("".join(HANDS))
RESERVE = "".join(sorted(_REST.elements(), key=lambda t: (t == "?", t)))


def record(moves, /, **changes):
    document = {
        "format": "diamino-record/1",
        "mode": "marque",
        "layout": "classique",
        "tiles": "classique",
        "dictionary": {"words": sorted(WORDS.words)},
        "players": ["alice", "bob"],
        "hands": HANDS,
        "reserve": RESERVE,
        "moves": moves,
    }
    document.update(changes)
    return document


CHAT = {"player": 0, "place": [["H8", "C"], ["I8", "H"], ["J8", "A"], ["K8", "T"]]}


def test_a_record_is_judged_move_by_move():
    judgement = judge_document(
        record(
            [
                CHAT,
                {"player": 1, "place": [["L8", "S"]]},
                {"player": 1, "place": [["N8", "S"]]},
                {"player": 1, "exchange": "E"},
                {"player": 0, "pass": True},
                {"player": 1, "resign": True},
                {"player": 0, "pass": True},
            ]
        )
    )
    moves = judgement["moves"]
    assert moves[0] == {
        "ok": True,
        "words": ["CHAT"],
        "scores": [0, 0],
        "hand_sizes": [12, 7],
        "reserve": 112 - 14 - 9,
    }
    assert moves[1]["ok"] and moves[1]["words"] == ["CHATS"]
    assert moves[2]["ok"] is False and moves[2]["rule"] == "R-TURN-1"
    assert moves[2]["code"] == "not-your-turn" and moves[2]["message"] == "It is not your turn."
    assert moves[2]["message_fr"] == "Ce n’est pas votre tour."
    assert moves[3]["ok"] is False  # an illegal move changes nothing: still player 0's turn
    assert moves[4]["ok"] and moves[5]["ok"]
    assert moves[6] == {
        "ok": False,
        "rule": "R-END-1",
        "code": "game-over",
        "message": "The game is over.",
        "message_fr": "La partie est terminée.",
    }
    assert judgement["over"] and judgement["end"] == "last-player"
    assert judgement["winners"] == [0]
    assert len(judgement["hands"]) == 2


def test_without_a_reserve_draws_come_from_the_record():
    document = record([dict(CHAT, draw="EEEEEEEEE")])
    del document["reserve"]
    judgement = judge_document(document)
    assert judgement["moves"][0]["ok"]
    document["moves"][0]["draw"] = "KK"
    assert judge_document(document)["moves"][0]["code"] == "draw-count"
    del document["moves"][0]["draw"]
    entry = judge_document(document)["moves"][0]
    assert (entry["code"], entry["rule"]) == ("draw-missing", "R-PLACE-8")


def test_a_record_can_carry_its_own_layout_and_tiles():
    document = record(
        [{"player": 0, "place": [["D4", "C"], ["E4", "H"], ["F4", "A"], ["G4", "T"]]}],
        layout=SMALL_ROWS,
        tiles={"C": [1, 3], "H": [1, 4], "A": [3, 1], "T": [1, 1], "S": [2, 1], "?": [1, 0]},
        hands=["CHATS", "A?"],
        reserve="AS",
        mode="sans-marque",
    )
    judgement = judge_document(document)
    assert judgement["moves"][0]["ok"]
    assert judgement["moves"][0]["hand_sizes"] == [2, 2]  # S plus a green-devil penalty tile


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "x"}, "format"),
        ({"mode": "scrabble"}, "mode"),
        ({"layout": "nowhere"}, "layout"),
        ({"tiles": {"A": "x"}}, "tile"),
        ({"dictionary": 3}, "dictionary"),
        ({"players": ["a"]}, "players"),
        ({"players": ["a", "b", "c", "d", "e"]}, "players"),
        ({"hands": ["CHAT"]}, "hands"),
        ({"hands": ["CHAT1", "A"]}, "not a tile"),
        ({"hands": ["ZZ", "A"]}, "hands"),
        ({"reserve": "AB"}, "tile set"),
        ({"moves": [{"player": 0}]}, "move 1"),
        ({"moves": [{"player": "0", "pass": True}]}, "move 1"),
        ({"moves": [{"player": 0, "pass": True, "exchange": "A"}]}, "move 1"),
        ({"moves": [{"player": 0, "place": [["H8"]]}]}, "move 1"),
        ({"moves": {"player": 0}}, "moves"),
    ],
)
def test_an_unusable_record_raises_record_error(change, message):
    with pytest.raises(RecordError) as info:
        judge_document(record([], **change))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_write_record_round_trips_through_parse():
    cfg = config("marque")
    moves = [
        (Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "T"))), "EEEEEEEEE"),
        (Exchange(1, "E"), "A"),
        (Pass(0), None),
        (Resign(1, timeout=True), None),
    ]
    document = write_record(cfg, ["a", "b"], HANDS, moves)
    assert document["moves"][3] == {"player": 1, "resign": True, "timeout": True}
    parsed = parse_record(json.dumps(document))
    assert parsed.moves == (
        Place(0, moves[0][0].tiles, "", "EEEEEEEEE"),
        Exchange(1, "E", "A"),
        Pass(0),
        Resign(1, True),
    )
    assert judge(parsed)["end"] == "last-player"


def run_referee(args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "rules.referee", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_referee_prints_the_judgement_and_exits_0(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record([CHAT])))
    done = run_referee([str(path)])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["moves"][0]["words"] == ["CHAT"]
    done = run_referee(["-"], stdin=json.dumps(record([CHAT, CHAT])))
    assert done.returncode == 0
    assert json.loads(done.stdout)["moves"][1]["ok"] is False


def test_referee_exits_2_with_one_line_on_unusable_input(tmp_path):
    for stdin in ("not json", "[]", json.dumps(record([], mode="x"))):
        done = run_referee(["-"], stdin=stdin)
        assert done.returncode == 2
        assert done.stdout == "" and done.stderr.count("\n") == 1
    assert run_referee([str(tmp_path / "missing.json")]).returncode == 2
    assert run_referee([]).returncode == 2


def referee_into(stdout, path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "rules.referee", str(path)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )


def test_referee_exits_0_quietly_when_its_reader_has_already_gone(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record([CHAT])))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the judgement is written
    try:
        done = referee_into(write_end, path)
    finally:
        os.close(write_end)
    _, stderr = done.communicate(timeout=60)
    assert done.returncode == 0
    assert stderr == b""


def test_referee_exits_0_quietly_when_its_reader_stops_early(tmp_path):
    # `python -m rules.referee game.json | head -c 50`, with a judgement far
    # longer than the pipe holds, so the reader leaves in the middle of it.
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record([CHAT] * 3000)))
    done = referee_into(subprocess.PIPE, path)
    assert len(done.stdout.read(50)) == 50
    done.stdout.close()
    stderr = done.stderr.read()
    assert done.wait(timeout=60) == 0
    assert b"Traceback" not in stderr and stderr == b""


def test_referee_exits_2_with_one_line_when_the_judgement_cannot_be_written(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here to fill")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record([CHAT])))
    with open("/dev/full", "wb") as full:
        done = referee_into(full, path)
        _, stderr = done.communicate(timeout=60)
    assert done.returncode == 2
    assert stderr.decode().count("\n") == 1 and "cannot write" in stderr.decode()


def test_referee_judges_a_french_record():
    pytest.importorskip("rules.wordlist")
    try:
        judgement = judge_document(record([CHAT], dictionary="fr"))
    except RecordError as exc:
        pytest.skip(f"the French list is not built here: {exc}")
    assert judgement["moves"][0]["ok"]


# --- fuzz ---------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
FIELDS = ["format", "mode", "layout", "tiles", "dictionary", "players", "hands", "reserve"]
MOVE_KEYS = ["player", "place", "exchange", "pass", "resign", "returns", "draw", "timeout"]


def judged_or_refused(document) -> None:
    try:
        judgement = judge_document(document)
    except RecordError as exc:
        assert "\n" not in str(exc)
        return
    json.dumps(judgement)
    assert len(judgement["moves"]) == len(document["moves"])


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    field=st.sampled_from([*FIELDS, "moves"]),
    value=json_values,
    moves=st.lists(
        st.dictionaries(st.sampled_from(MOVE_KEYS), json_values, max_size=4), max_size=4
    ),
)
def test_fuzzed_records_are_judged_or_refused_never_crash(field, value, moves):
    document = record([CHAT, *moves])
    document[field] = value
    judged_or_refused(document)
    judged_or_refused(record([CHAT, *moves]))


@settings(max_examples=100, deadline=None)
@given(
    player=st.integers(-1, 3),
    squares=st.lists(
        st.tuples(st.text("ABHIOPZ0189", min_size=0, max_size=4), st.text("AaZ?é1", max_size=2)),
        max_size=5,
    ),
    returns=st.text("AEZ?a", max_size=3),
    draw=st.none() | st.text("AEZ?", max_size=12),
)
def test_fuzzed_placements_are_judged(player, squares, returns, draw):
    move = {"player": player, "place": [list(s) for s in squares], "returns": returns}
    if draw is not None:
        move["draw"] = draw
    for mode in ("marque", "sans-marque"):
        judged_or_refused(record([CHAT, copy.deepcopy(move)], mode=mode))


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200))
def test_referee_main_never_raises_on_bytes(data):
    with tempfile.NamedTemporaryFile(suffix=".json") as handle:
        handle.write(data)
        handle.flush()
        assert main([handle.name]) == 2
