"""Computer players' accounts: created on demand, one level at a time, reused.

A user holds one seat per game (``one_seat_per_player``), and a table may seat
several computer players of the same level, so each level has as many
accounts as the busiest table needed: ``ordinateur-debutant-1``, ``-2``… A
computer player has no password (it cannot log in), no email address (it gets
no email) and every email turned off; it never books a vacation.
"""

from __future__ import annotations

from collections.abc import Collection

from django.db import IntegrityError, transaction

from accounts.models import EMAIL_CHOICE_FIELDS, BotLevel, EmailChoice, User

USERNAME_PREFIX = "ordinateur-"
DISPLAY_NAMES = {
    BotLevel.DEBUTANT: "Ordinateur (débutant)",
    BotLevel.CONFIRME: "Ordinateur (confirmé)",
}


def computer_user(level: str, *, besides: Collection[int] = ()) -> User:
    """A computer player of ``level`` whose id is not in ``besides`` (those already seated)."""
    if level not in BotLevel.values:
        raise ValueError(f"unknown computer level {level!r}")
    free = User.objects.filter(bot_level=level).exclude(pk__in=list(besides)).order_by("pk").first()
    if free is not None:
        return free
    number = User.objects.filter(bot_level=level).count() + 1
    while True:
        username = f"{USERNAME_PREFIX}{level}-{number}"
        try:
            # A savepoint: the name may be taken (an old account, or another
            # table creating the same computer player at this moment).
            with transaction.atomic():
                return _create(username, level)
        except IntegrityError:
            taken = User.objects.filter(username=username, bot_level=level).first()
            if taken is not None and taken.pk not in besides:
                return taken
            number += 1


def _create(username: str, level: str) -> User:
    user = User(
        username=username,
        display_name=DISPLAY_NAMES[BotLevel(level)],
        bot_level=level,
        email="",
        report_emails=False,
        **dict.fromkeys(EMAIL_CHOICE_FIELDS.values(), EmailChoice.NEVER),
    )
    user.set_unusable_password()
    user.save()
    return user
