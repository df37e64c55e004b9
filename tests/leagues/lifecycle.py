"""Helpers for the leagues' lifecycle tests: leagues, seasons, ratings, and games played out.

``play_out`` drives every running league game of a season through the games'
verbs with a fixed order of strength: at each turn the strongest player still
in the game exchanges a tile (a move that never blocks the game), the others
pass on their first turn and resign on their second, so the strongest at every
table wins. Idle players never move: the clock times them out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

import time_machine
from django.dispatch import Signal

import rules
from accounts.models import User
from games import deadlines, services
from games.models import Game, Mode, Seat
from leagues import signals
from leagues.models import League, Season
from ratings.models import Rating
from tests.factories import make_player

T0 = datetime.fromisoformat("2027-01-04T09:00:00+00:00")


def make_league(**fields: Any) -> League:
    fields.setdefault("name", "Ligue du mardi")
    fields.setdefault("slug", "ligue-du-mardi")
    fields.setdefault("table_size", 2)
    fields.setdefault("days_per_move", 1)
    fields.setdefault("season_days", 14)
    fields.setdefault("registration_days", 3)
    fields.setdefault("division_min", 2)
    fields.setdefault("division_max", 4)
    return League.objects.create(**fields)


def make_season(
    league: League,
    *,
    number: int = 1,
    opens: datetime = T0 + timedelta(hours=1),
    closes: datetime = T0 + timedelta(days=1),
    starts: datetime | None = None,
    ends: datetime | None = None,
    state: str = Season.State.ANNOUNCED,
) -> Season:
    starts = starts or closes
    return Season.objects.create(
        league=league,
        number=number,
        state=state,
        registration_opens_at=opens,
        registration_closes_at=closes,
        starts_at=starts,
        ends_at=ends or starts + timedelta(days=league.season_days),
    )


def rated_players(prefix: str, count: int) -> list[User]:
    """``count`` verified players, the first the best rated (avec marque)."""
    players = []
    for i in range(count):
        player = make_player(f"{prefix}{i}")
        ordinal = 10.0 - i
        Rating.objects.create(
            player=player, mode=Mode.MARQUE, mu=25 + ordinal, sigma=1 / 3, ordinal=ordinal
        )
        players.append(player)
    return players


class Heard:
    """Every league signal sent, as (name, season id), in order."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []
        self._receivers: list[tuple[Signal, Callable[..., None]]] = []
        for name in (
            "registration_opened",
            "season_started",
            "season_last_week",
            "season_finished",
        ):
            signal = getattr(signals, name)

            def receiver(sender: Any, season: Season, _name: str = name, **kwargs: Any) -> None:
                self.sent.append((_name, season.pk))

            signal.connect(receiver, weak=False)
            self._receivers.append((signal, receiver))

    def names(self, season: Season) -> list[str]:
        return [name for name, pk in self.sent if pk == season.pk]

    def close(self) -> None:
        for signal, receiver in self._receivers:
            signal.disconnect(receiver)


def _turn(game: Game, strength: dict[int, int], idle: set[int]) -> bool:
    """Play the turn of ``game``'s player to move; False when they are idle."""
    seats = game.seat_list()
    mover = next(s for s in seats if s.pk == game.to_move_id)
    if mover.player_id in idle:
        return False
    active = [s for s in seats if s.status == Seat.Status.ACTIVE]
    strongest = min(active, key=lambda s: strength[s.player_id])
    moved = game.moves.filter(seat=mover).exists()
    assert mover.position is not None
    if mover.pk == strongest.pk:
        move: rules.Move = rules.Exchange(mover.position, mover.hand[0])
    elif not moved:
        move = rules.Pass(mover.position)
    else:
        services.game_resign(game_id=game.pk, player=mover.player)
        return True
    services.move_submit(game_id=game.pk, player=mover.player, version=game.move_count, move=move)
    return True


def play_out(
    season: Season,
    strength: Sequence[User],
    idle: Iterable[User] = (),
    *,
    traveller: time_machine.Traveller | None = None,
) -> None:
    """Play every league game of ``season`` to its end (see the module's docstring).

    ``strength``: the players, strongest first. With idle players, ``traveller``
    (a ``time_machine.travel(...)`` started with ``tick=False``) is moved on a
    day and a bit at a time and the clock applied, so they time out.
    """
    rank = {player.pk: i for i, player in enumerate(strength)}
    idle_ids = {player.pk for player in idle}
    for _round in range(500):
        running = list(
            Game.objects.filter(
                league_game__division__season=season, status=Game.Status.RUNNING
            ).order_by("pk")
        )
        if not running:
            return
        progressed = False
        for game in running:
            progressed |= _turn(game, rank, idle_ids)
        if not progressed:
            assert traveller is not None, "idle players left waiting and no time machine"
            traveller.shift(timedelta(days=1, hours=1))
            deadlines.apply_timeouts()
    raise AssertionError("the season's games did not end")
