"""A state as a JSON-able dict and back (the site caches it on the game row)."""

from __future__ import annotations

from typing import Any

from rules.dictionary import word_list_from_data, word_list_to_data
from rules.material import layout_from_data, layout_to_data, tiles_from_data, tiles_to_data
from rules.state import ACTIVE, MODES, RESIGNED, TIMED_OUT, GameConfig, GameResult, GameState

STATE_FORMAT = "diamino-state/1"


def config_to_dict(config: GameConfig) -> dict[str, Any]:
    """The record-style description of ``config`` (names for built-ins)."""
    return {
        "mode": config.mode,
        "layout": layout_to_data(config.layout),
        "tiles": tiles_to_data(config.tiles),
        "dictionary": word_list_to_data(config.words),
    }


def config_from_dict(data: dict[str, Any]) -> GameConfig:
    """Inverse of ``config_to_dict``; ValueError if unusable."""
    mode = data.get("mode")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    return GameConfig(
        mode=mode,
        layout=layout_from_data(data.get("layout")),
        tiles=tiles_from_data(data.get("tiles", "classique")),
        words=word_list_from_data(data.get("dictionary")),
    )


def state_to_dict(state: GameState) -> dict[str, Any]:
    """Everything in ``state`` as plain JSON types. Hands and reserve are strings."""
    result = state.result
    width = state.config.layout.width
    board = state.board
    return {
        "format": STATE_FORMAT,
        "config": config_to_dict(state.config),
        "board": "/".join(board[i : i + width] for i in range(0, len(board), width)),
        "hands": ["".join(h) for h in state.hands],
        "reserve": "".join(state.reserve),
        "scores": list(state.scores),
        "status": list(state.status),
        "turn": state.turn,
        "passed": list(state.passed),
        "move_count": state.move_count,
        "started": state.started,
        "result": None
        if result is None
        else {
            "end": result.end,
            "winners": list(result.winners),
            "scores": list(result.scores),
            "out_player": result.out_player,
            "black_square": result.black_square,
        },
    }


def state_from_dict(data: dict[str, Any], config: GameConfig | None = None) -> GameState:
    """Inverse of ``state_to_dict``. Pass ``config`` to skip loading it again.

    Raises ValueError if the data is not a state of this format.
    """
    try:
        if data.get("format") != STATE_FORMAT:
            raise ValueError("not a diamino-state/1 document")
        if config is None:
            config = config_from_dict(data["config"])
        board = data["board"].replace("/", "")
        layout = config.layout
        if len(board) != layout.width * layout.height:
            raise ValueError("the board does not fit the layout")
        status = tuple(data["status"])
        if any(s not in (ACTIVE, RESIGNED, TIMED_OUT) for s in status):
            raise ValueError("unknown player status")
        raw = data["result"]
        result = (
            None
            if raw is None
            else GameResult(
                end=raw["end"],
                winners=tuple(raw["winners"]),
                scores=tuple(raw["scores"]),
                out_player=raw["out_player"],
                black_square=bool(raw["black_square"]),
            )
        )
        return GameState(
            config=config,
            board=board,
            hands=tuple(tuple(h) for h in data["hands"]),
            reserve=tuple(data["reserve"]),
            scores=tuple(int(s) for s in data["scores"]),
            status=status,
            turn=int(data["turn"]),
            passed=tuple(int(p) for p in data["passed"]),
            move_count=int(data["move_count"]),
            started=bool(data["started"]),
            result=result,
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a usable state: {exc}") from exc
