"""``python -m benchmarks.soak.audit``: what the soak's database holds, as one JSON document.

Run by the soak in a subprocess whose environment points Django at the soak's
own database. ``devices``, after seeding: the push players' devices (JSON on
stdin, ``[{username, endpoint, p256dh, auth}]``) stored as ``PushSubscription``
rows. ``queue``, before the players start: every pending outbox row
(the seed's, whose messages went with the Redis emptied after seeding) is
handed to the worker, as the seed's commits did. Without an argument, once
the players have stopped and the outbox has drained, it reads, and writes
nothing:

- ``games``: for each game, its move count, status, the audit's differences
  (``games.audit.game_check``: every stored copy against a replay of the moves)
  and whether its tiles add up (``inventory``: the board's tiles, a diable
  counting as ``?``, plus every hand plus the reserve is the game's tile set);
- ``moves``: every Move row as ``[game, number, player]``;
- ``emails``: every outbox row, email or push, as ``[id, kind, channel, status,
  Message-ID, reason, created (seconds since the epoch)]``;
- ``inbound``: every stored reply as ``[Message-ID, state, game, the move's number]``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any


def inventory(state: Any) -> str:
    """ "" when board + hands + reserve is the full set; else what differs."""
    from rules.material import DIABLE

    counted: Counter[str] = Counter()
    for square in state.board:
        if square.isupper():
            counted[square] += 1
        elif square.islower():
            counted[DIABLE] += 1
    for hand in state.hands:
        counted.update(hand)
    counted.update(state.reserve)
    full = Counter(dict(state.config.tiles.counts))
    if counted == full:
        return ""
    extra, missing = counted - full, full - counted
    return f"extra {dict(extra)}, missing {dict(missing)}"


def queue() -> dict[str, int]:
    from notifications.models import Notification
    from notifications.services import notification_queue

    pending = Notification.objects.filter(status=Notification.Status.PENDING)
    return {"queued": sum(notification_queue(pk) for pk in pending.values_list("pk", flat=True))}


def devices(subscriptions: list[dict[str, str]]) -> dict[str, int]:
    """Each push player's device, as the settings' view stores a browser's subscription.

    Stored directly rather than posted to the view: the view takes only https
    endpoints (push services are), and the soak's push sink is plain http on
    127.0.0.1. The view's checks are tests/notifications/test_push.py's.
    """
    from accounts.models import User
    from notifications.models import PushSubscription

    names = [s["username"] for s in subscriptions]
    users = {user.username: user for user in User.objects.filter(username__in=names)}
    PushSubscription.objects.bulk_create(
        PushSubscription(
            user=users[s["username"]],
            endpoint=s["endpoint"],
            p256dh=s["p256dh"],
            auth=s["auth"],
            user_agent="diamino soak",
        )
        for s in subscriptions
    )
    return {"devices": len(subscriptions)}


def main(argv: list[str]) -> int:
    import django

    django.setup()
    if argv == ["queue"]:
        json.dump(queue(), sys.stdout)
        return 0
    if argv == ["devices"]:
        json.dump(devices(json.load(sys.stdin)), sys.stdout)
        return 0
    from bymail.models import InboundMessage
    from games import bridge
    from games.audit import game_check
    from games.models import Game, Move
    from notifications import sending
    from notifications.models import Notification

    games = []
    for game in Game.objects.exclude(setup=None).order_by("pk"):
        games.append(
            {
                "id": game.pk,
                "move_count": game.move_count,
                "status": game.status,
                "differences": [str(d) for d in game_check(game)][:10],
                "inventory": inventory(bridge.state_of(game)),
            }
        )
    moves = list(
        Move.objects.order_by("game_id", "number").values_list(
            "game_id", "number", "seat__player__username"
        )
    )
    emails = [
        [
            row.pk,
            row.kind,
            row.channel,
            row.status,
            sending.message_id(row),
            row.reason,
            row.created_at.timestamp(),
        ]
        for row in Notification.objects.order_by("pk")
    ]
    inbound = list(
        InboundMessage.objects.order_by("pk").values_list(
            "message_id", "state", "game_id", "move__number"
        )
    )
    json.dump({"games": games, "moves": moves, "emails": emails, "inbound": inbound}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
