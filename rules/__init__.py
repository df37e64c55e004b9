"""The Diamino Compétition rules engine: pure Python, no Django (except ``apps.py``).

Typical use::

    from rules import make_config, deal, new_game, apply, Place
    config = make_config("marque", words="fr")
    hands, reserve = deal(config, 2, rng)
    state = new_game(config, hands, reserve)
    state, events = apply(state, Place(0, (("H8", "C"), ("I8", "H"))), rng=rng)
"""

from __future__ import annotations

from rules.analysis import MoveAnalysis, analyse_game, analyse_moves
from rules.dictionary import WordList, WordSet, get_word_list
from rules.engine import apply, legal
from rules.errors import IllegalMove, RecordError
from rules.material import Layout, TileSet, load_layout, load_tiles
from rules.movegen import legal_placements
from rules.notation import (
    NotatedMove,
    board_from_text,
    board_to_text,
    format_notation,
    notate,
    notation_to_move,
    parse_notation,
    position_text,
)
from rules.player_view import PlayerView, ranking, ranks, view
from rules.queued import changed_near, check_queueable
from rules.serialize import state_from_dict, state_to_dict
from rules.setup import (
    FirstPlayerDraw,
    deal,
    deal_size,
    draw_first_player,
    make_config,
    new_game,
    player_counts,
    seat_rotation,
)
from rules.squares import format_square, parse_square
from rules.state import (
    Event,
    Exchange,
    GameConfig,
    GameOver,
    GameResult,
    GameState,
    Move,
    MoveSummary,
    Pass,
    Passed,
    Place,
    PointsScored,
    Resign,
    Resigned,
    SquareCovered,
    TilesDrawn,
    TilesPlaced,
    TilesReturned,
    WordFormed,
    summarize,
)
from rules.strategy import LEVELS, Suggestion, best_moves, choose_move, evaluate_move

__all__ = [
    "LEVELS",
    "Event",
    "Exchange",
    "FirstPlayerDraw",
    "GameConfig",
    "GameOver",
    "GameResult",
    "GameState",
    "IllegalMove",
    "Layout",
    "Move",
    "MoveAnalysis",
    "MoveSummary",
    "NotatedMove",
    "Pass",
    "Passed",
    "Place",
    "PlayerView",
    "PointsScored",
    "RecordError",
    "Resign",
    "Resigned",
    "SquareCovered",
    "Suggestion",
    "TileSet",
    "TilesDrawn",
    "TilesPlaced",
    "TilesReturned",
    "WordFormed",
    "WordList",
    "WordSet",
    "analyse_game",
    "analyse_moves",
    "apply",
    "best_moves",
    "board_from_text",
    "board_to_text",
    "changed_near",
    "check_queueable",
    "choose_move",
    "deal",
    "deal_size",
    "draw_first_player",
    "evaluate_move",
    "format_notation",
    "format_square",
    "get_word_list",
    "legal",
    "legal_placements",
    "load_layout",
    "load_tiles",
    "make_config",
    "new_game",
    "notate",
    "notation_to_move",
    "parse_notation",
    "parse_square",
    "player_counts",
    "position_text",
    "ranking",
    "ranks",
    "seat_rotation",
    "state_from_dict",
    "state_to_dict",
    "summarize",
    "view",
]
