"""``python -m tests.faults.site COMMAND``: the fault tests' hands inside the site's database.

Run in a subprocess whose environment points Django at the fault tests' own
private PostgreSQL (``tests/faults/postgres_server.py``), so the test process
never holds a connection to it that an outage would break. Each command
prints one JSON document.

- ``prepare``: migrate, collect the static files (DEBUG=0 serves the manifest).
- ``seed``: two players at a started game, signed in; the game, their sessions.
- ``check GAME``: the audit's differences (``games.audit.game_check``: every
  stored copy against a replay of the moves), the move count and Move rows,
  and the outbox rows a move writes.
- ``outbox``: every outbox row with its status, attempts and Message-ID.
- ``expire-leases``: move every sender's claim 11 minutes back, past the lease
  (10 minutes), rather than wait for it.
- ``sweep``: what beat runs every minute (``notifications.periodic.sweep``).
"""

from __future__ import annotations

import json
import random
import sys
from datetime import timedelta


def prepare() -> dict:
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    return {"ok": True}


def seed() -> dict:
    from allauth.account.models import EmailAddress
    from django.conf import settings
    from django.test import Client

    from accounts.models import User
    from games import services

    players = []
    for name in ("alice", "bob"):
        user = User.objects.create_user(username=name, email=f"{name}@example.com")
        EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
        players.append(user)
    game = services.game_create(creator=players[0], mode="marque", seats=2)
    services.game_join(game_id=game.pk, player=players[1], rng=random.Random(7))
    sessions = {}
    for user in players:
        client = Client()
        client.force_login(user)
        sessions[user.username] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"game": game.pk, "sessions": sessions}


def check(game_id: int) -> dict:
    from games.audit import game_check
    from games.models import Game
    from notifications.models import Notification

    game = Game.objects.get(pk=game_id)
    return {
        "differences": [str(d) for d in game_check(game)],
        "move_count": game.move_count,
        "moves": game.moves.count(),
        "turn_emails": Notification.objects.filter(game=game, kind="turn").count(),
    }


def outbox() -> dict:
    from notifications import sending
    from notifications.models import Notification

    rows = Notification.objects.order_by("pk")
    return {
        "rows": [
            {
                "id": row.pk,
                "status": row.status,
                "attempts": row.attempts,
                "message_id": sending.message_id(row),
            }
            for row in rows
        ]
    }


def expire_leases() -> dict:
    from django.conf import settings
    from django.db.models import F

    from notifications.models import Notification

    back = settings.DIAMINO_NOTIFICATION_LEASE + timedelta(minutes=1)
    moved = Notification.objects.filter(status="sending").update(claimed_at=F("claimed_at") - back)
    return {"moved": moved}


def sweep() -> dict:
    from notifications import periodic

    return {"queued": periodic.sweep()}


def main(argv: list[str]) -> int:
    import django

    django.setup()
    commands = {
        "prepare": prepare,
        "seed": seed,
        "outbox": outbox,
        "expire-leases": expire_leases,
        "sweep": sweep,
    }
    result = check(int(argv[1])) if argv[0] == "check" else commands[argv[0]]()
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
