"""What other apps may learn about a game's life, without games depending on them.

The games app sends these from its services, inside the service's
transaction, so a receiver's writes commit or roll back with the game. The
leaderboards (``ratings``) listen; the games app imports none of its
listeners, which keeps the dependency one way: ratings → games. Within
games, the post-game analysis (``games/services/analysis.py``) listens to
``game_finished`` and the computer players (``games/computer.py``) to
``turn_to_play``, so the services' kernel imports neither.

Receivers get ``game`` (the locked, saved row) as a keyword argument.
"""

from __future__ import annotations

from django.dispatch import Signal

# The last move ended the game: statuses, scores, ranks and winners are saved.
game_finished = Signal()

# Staff annulled the game (running or finished): it counts for nothing.
game_annulled = Signal()

# The game started, or a move was played and the game goes on: ``game.to_move`` is to
# play at ``game.move_count`` (its seats and players loaded: receivers need no query).
turn_to_play = Signal()
