"""Celery tasks of the games app: they take ids, read fresh rows, and are safe to run twice.

Some tasks keep the registered names they had before they moved here
(``games.bot_move``, ``games.bot_sweep``, and the clock's ``notifications.clock``
and ``notifications.digests``, from ``notifications/tasks.py``): messages waiting
in the broker, beat's schedule and the monitoring of the periodic tasks name them.
"""

from __future__ import annotations

from celery import shared_task

from games import computer, deadlines, services


@shared_task(name="games.bot_move", ignore_result=True)
def computer_move(game_id: int, version: int) -> bool:
    """A computer player's move at ``version``; nothing if the game has moved on."""
    return computer.computer_turn_play(game_id=game_id, version=version) is not None


@shared_task(name="games.bot_sweep", ignore_result=True)
def computer_sweep() -> int:
    """Queue again the computer players' turns whose task was lost."""
    return computer.computer_turns_requeue()


@shared_task(name="games.analyse", ignore_result=True)
def analyse_game(game_id: int) -> bool:
    """The post-game analysis of a finished game (``games/services/analysis.py``)."""
    return services.game_analyse(game_id=game_id)


@shared_task(name="notifications.clock", ignore_result=True)
def run_clock() -> dict[str, int]:
    """Time-outs first (a player out of time needs no reminder), then reminders."""
    return {"timeouts": deadlines.apply_timeouts(), "reminders": deadlines.write_reminders()}


@shared_task(name="notifications.digests", ignore_result=True)
def send_digests() -> int:
    return deadlines.write_digests()
