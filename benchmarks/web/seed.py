"""``python -m benchmarks.web.seed``: the bench database, ready to be played on.

Run by ``benchmarks.web.stack`` in a subprocess whose environment points
Django at the bench database (never the developer's). It migrates, collects
the static files (``DEBUG=0`` serves them through WhiteNoise's manifest), makes
the players and their games through ``games.services`` — the same door the
site uses — plays a few moves in each so the boards are mid-game, and signs
every player in. It prints one JSON document on stdout for the load generator:
each player's username, game id and session cookie.

Players are signed in with ``django.contrib.auth.login`` (via the test
client's ``force_login``), not through the log-in form: the form would cost
~0.5 s of password hashing per player on the server being measured, and
allauth's rate limit (30 log-ins a minute per address) would refuse most of
the log-ins coming from 127.0.0.1. The cookie is a real session row,
exactly what the form would have produced.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any


def _tables(spec: str) -> list[int]:
    """``"2x13,3x4"`` -> thirteen 2-seat tables then four 3-seat ones."""
    tables: list[int] = []
    for part in spec.split(","):
        seats, count = part.split("x")
        tables += [int(seats)] * int(count)
    return tables


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.web.seed")
    parser.add_argument("--tables", default="2x13,3x4,4x3", help="SEATSxCOUNT,...")
    parser.add_argument("--premoves", type=int, default=16, help="moves played in each game")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--first", type=int, default=1, help="the first player's number")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="games each table plays, one after the other (the later ones from the start)",
    )
    args = parser.parse_args(argv)
    from benchmarks.web.stack import is_bench_database

    name = os.environ.get("DATABASE_URL", "").rsplit("/", 1)[-1]
    if not is_bench_database(name):
        # Seeding wipes nothing, but it must never write players into a real database.
        print("refusing to seed: DATABASE_URL is not a bench database", file=sys.stderr)
        return 2

    import django

    django.setup()
    from allauth.account.models import EmailAddress
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from accounts.models import User
    from games import services

    started = time.perf_counter()
    call_command("migrate", interactive=False, verbosity=0)
    migrated = time.perf_counter()
    call_command("collectstatic", interactive=False, verbosity=0)

    rng = random.Random(args.seed + args.first)
    players: list[dict[str, object]] = []
    number = args.first - 1
    for k, seats in enumerate(_tables(args.tables)):
        mode = "marque" if k % 2 == 0 else "sans-marque"
        users = []
        for _ in range(seats):
            number += 1
            user = User.objects.create_user(
                username=f"joueur{number:03d}", email=f"joueur{number:03d}@bench.invalid"
            )  # no password: nobody logs in through the form (see the module docstring)
            EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
            users.append(user)
        games = []
        for round_ in range(args.rounds):
            game = services.game_create(creator=users[0], mode=mode, seats=seats)
            for user in users[1:]:
                services.game_join(game_id=game.pk, player=user, rng=rng)
            if round_ == 0:
                play_moves(game, args.premoves, rng)
            games.append(game.pk)
        for user in users:
            client = Client()
            client.force_login(user)
            players.append(
                {
                    "username": user.username,
                    "game": games[0],
                    "games": games,
                    "mode": mode,
                    "seats": seats,
                    "session": client.cookies[settings.SESSION_COOKIE_NAME].value,
                }
            )
    json.dump(
        {
            "players": players,
            "games": len({p["game"] for p in players}),
            "migrate_seconds": round(migrated - started, 1),
            "seed_seconds": round(time.perf_counter() - started, 1),
        },
        sys.stdout,
    )
    return 0


def play_moves(
    game: Any, moves: int, rng: random.Random, after: Callable[[], None] | None = None
) -> None:
    """Play up to ``moves`` random moves in ``game`` through the services (fewer if it
    ends), ``after()`` after each: a mid-game board."""
    from games import bridge, services
    from games.models import Game
    from rules.randomplay import find_move

    by_position = {s.position: s.player for s in game.seats.all()}
    for _ in range(moves):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        state = bridge.state_of(game)
        services.move_submit(
            game_id=game.pk,
            player=by_position[state.turn],
            version=game.move_count,
            move=find_move(state, rng),
            rng=rng,
        )
        if after is not None:
            after()
    game.refresh_from_db()


if __name__ == "__main__":
    sys.exit(main())
