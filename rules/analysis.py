"""Post-game analysis: for each move played, the best move the computer finds.

The game is replayed with the engine; before each move, the mover's view
(``rules.view(state, mover)``) is all the analysis uses, so it judges a move
with what the player knew then, never with the hands revealed at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.engine import apply
from rules.errors import IllegalMove
from rules.player_view import view
from rules.record import Record, parse_record
from rules.state import Exchange, GameState, Move, Pass, Place, same_move
from rules.strategy import Suggestion, best_moves, evaluate_move


@dataclass(frozen=True, slots=True)
class MoveAnalysis:
    """One move of the game next to the best one found from the same view.

    ``number``: the move's 1-based place in the list of moves. ``played`` and
    ``best`` are scored alike (``Suggestion.score``; ``points`` avec marque,
    ``tiles`` sans marque are what a page shows).
    """

    number: int
    player: int
    played: Suggestion
    best: Suggestion

    @property
    def missed(self) -> float:
        """How much better the best move was, in equity (0 when the move played was it)."""
        if same_move(self.best.move, self.played.move):
            return 0.0
        return max(0.0, self.best.score - self.played.score)

    @property
    def played_best(self) -> bool:
        """The move played was the best found (or as good)."""
        return self.missed == 0.0


def analyse_moves(initial: GameState, moves: Sequence[Move]) -> list[MoveAnalysis]:
    """Analyse ``moves`` played from ``initial``.

    Placements, exchanges and passes are analysed; resignations and moves the
    engine rejects are replayed or skipped as ``rules.record.replay`` does,
    with no entry.
    """
    state = initial
    analyses: list[MoveAnalysis] = []
    for number, move in enumerate(moves, start=1):
        if state.over:
            break
        entry: MoveAnalysis | None = None
        if isinstance(move, Place | Exchange | Pass) and move.player == state.turn:
            seen = view(state, move.player)
            try:
                played = evaluate_move(seen, move)
            except IllegalMove:
                played = None
            if played is not None:
                entry = MoveAnalysis(number, move.player, played, best_moves(seen, 1)[0])
        try:
            state, _ = apply(state, move)
        except IllegalMove:
            continue
        if entry is not None:
            analyses.append(entry)
    return analyses


def analyse_game(record: Record | dict[str, Any] | str) -> list[MoveAnalysis]:
    """Analyse a game record (``diamino-record/1``: parsed, a dict or JSON text)."""
    if not isinstance(record, Record):
        record = parse_record(record)
    return analyse_moves(record.initial, record.moves)
