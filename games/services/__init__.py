"""The only way a game changes: the services, by concept.

Each verb is keyword-only and one transaction; those that change a game lock
its row, check the version the page was built at and apply a due time-out
first (``kernel.py``, which only these modules import). Callers use the verbs
from here: ``services.move_submit``, ``services.game_join``…

- ``tables.py`` — open a table, invite, join, leave, start; a computer's seat.
- ``moves.py`` — preview, submit, resign, the time-out.
- ``queued.py`` — a move queued for one's next turn (the kernel plays it).
- ``hints.py`` — a hint for the player to move.
- ``time_given.py`` — one more day for the player to move.
- ``analysis.py`` — the post-game analysis, asked for and computed.
- ``chat.py`` — the table's chat.
- ``moderation.py`` — staff annul a game.
"""

from __future__ import annotations

from games.bridge import Preview
from games.services.analysis import analysis_request, game_analyse
from games.services.chat import CHAT_MAX_LENGTH, chat_post
from games.services.hints import hint_request
from games.services.moderation import game_annul
from games.services.moves import game_resign, game_timeout, move_preview, move_submit
from games.services.queued import queued_move_cancel, queued_move_set
from games.services.tables import (
    INVITATIONS_PER_HOUR,
    INVITEE_PER_DAY,
    SAME_INVITEE_PER_DAY,
    TABLES_PER_HOUR,
    game_against_computer,
    game_create,
    game_create_organised,
    game_invite,
    game_join,
    game_leave,
    game_seat_computer,
    game_start,
    game_unseat_computer,
)
from games.services.time_given import time_give

__all__ = [
    "CHAT_MAX_LENGTH",
    "INVITATIONS_PER_HOUR",
    "INVITEE_PER_DAY",
    "SAME_INVITEE_PER_DAY",
    "TABLES_PER_HOUR",
    "Preview",
    "analysis_request",
    "chat_post",
    "game_against_computer",
    "game_analyse",
    "game_annul",
    "game_create",
    "game_create_organised",
    "game_invite",
    "game_join",
    "game_leave",
    "game_resign",
    "game_seat_computer",
    "game_start",
    "game_timeout",
    "game_unseat_computer",
    "hint_request",
    "move_preview",
    "move_submit",
    "queued_move_cancel",
    "queued_move_set",
    "time_give",
]
