"""Reads: what each page shows, built for one viewer.

``game_view`` is the only way a template learns about a game's tiles, and it
puts the viewer's own hand in and nobody else's (R-HIDE-1) until the game is
over. Query counts stay flat: the seats (with players) and the moves are each
fetched once, whatever the number of moves.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, cast

from django.conf import settings
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language

import rules
from accounts.models import HandOrder, User
from games import badges, bridge, clock, page_cache, policies, reasons
from games.models import ChatMessage, Game, Invitation, Move, QueuedMove, Seat
from games.presenters import (
    AnalysisView,
    DrawRound,
    GameView,
    GiftView,
    Hint,
    MoveView,
    QueuedView,
    SeatView,
    SquareView,
    TileView,
    UnseenView,
    notation_shown,
)
from rules.engine import MARQUE_HAND

SQUARE_KIND_NAMES = {".": "plain", "D": "start", "#": "black", "G": "green", "R": "red"}


def seat_name(seat: Seat) -> str:
    return str(seat.player)


def deadline_of(game: Game) -> datetime | None:
    """When the player to move times out (R-END-4); ``games/clock.py`` computes it."""
    return clock.deadline_of(game)


def _profile_url(seat: Seat) -> str | None:
    player = seat.player
    if (
        getattr(player, "deleted_at", None) is not None
        or not player.is_active
        or player.is_computer
    ):
        return None
    return player.get_absolute_url()


def game_view(game: Game, viewer: User | None) -> GameView:
    """The game page's content for ``viewer`` (None or anonymous: a spectator)."""
    config = bridge.config_of(game)
    layout = config.layout
    seats = game.seat_list()  # after a move, the seats the service saved: no query
    # Plain rows, not Move instances: the history needs a few columns, and each
    # seat's name is known from ``seats`` (no join to the players). At 16 moves
    # this halved the query's cost, and it grows with every move.
    # The same for every viewer of this version: from the cache (games/page_cache.py).
    # Up to this version only: a move committed since the game was read must not
    # be kept as part of this version.
    moves = page_cache.move_rows(game, lambda: _move_rows(game))
    me = next((s for s in seats if viewer is not None and s.player_id == viewer.pk), None)
    hint = current_hint(game, me) if me is not None else None
    values = dict(config.tiles.values)

    state = rules.state_from_dict(game.state, config) if game.state else None
    over = game.is_over
    board = state.board if state else "." * (layout.width * layout.height)
    last = last_squares(moves[-1][-1]) if moves else set()
    columns = board_columns(config)
    hinted = set(hint.squares) if hint else set()
    # Built only if the board is drawn: its HTML is usually in the cache (games/page_cache.py).
    rows = cast(
        tuple[tuple[SquareView, ...], ...],
        SimpleLazyObject(lambda: board_rows(config, board, last, hinted)),
    )

    now = timezone.now()
    # One query for every seated player's vacations: the badge and the deadline.
    vacations = clock.vacations_of(
        [s.player_id for s in seats], min(now, game.turn_started_at or now)
    )
    to_move = next((s for s in seats if s.pk == game.to_move_id), None)
    away = vacations.get(to_move.player_id, []) if to_move else []
    player_to_move = to_move.player if to_move else None
    deadline = clock.deadline_of(game, player=player_to_move, vacations=away)
    # Moved to the end of the quiet hours of the player to move (#35): the page says so.
    deadline_quiet = deadline is not None and deadline != clock.deadline_of(
        game, player=player_to_move, vacations=away, with_quiet=False
    )
    turn = state.turn if state and not state.over else None
    winners = set(state.result.winners) if state and state.result else set()
    seat_views = _seat_views(
        seats, state, me, turn, winners, (deadline, deadline_quiet), vacations, now, over
    )
    my_position = me.position if me is not None and state is not None else None
    my_hand = _my_hand(state, me, values)
    by_pk = {s.pk: seat_name(s) for s in seats}
    gifts = _gifts(game, by_pk, me)
    can_give_time = (
        game.status == Game.Status.RUNNING
        and me is not None
        and to_move is not None
        and policies.gift_refusal(me, to_move) is None
        and policies.gift_cap_refusal(game, to_move) is None
        and deadline is not None
        and deadline > now
    )
    finished = game.status == Game.Status.FINISHED
    return GameView(
        version=game.move_count,
        mode=game.mode,
        status=game.status,
        columns=columns,
        rows=rows,
        seats=seat_views,
        reserve_size=len(state.reserve) if state else 0,
        my_hand=my_hand,
        my_position=my_position,
        is_my_turn=bool(state and me and turn == me.position and game.status == "running"),
        can_exchange=bool(state and state.reserve),
        moves=_move_views(moves, by_pk, gifts, finished, me),
        first_player_draw=tuple(
            DrawRound(tuple((by_pk.get(pk, "?"), tile) for pk, tile in round_))
            for round_ in game.first_player_draw
        ),
        over=over,
        end=game.end or None,
        winners=tuple(seat_name(s) for s in seats if s.position in winners),
        hand_slots=MARQUE_HAND if game.mode == "marque" else 0,
        # Read from the viewer's row already loaded (the request's user): no query.
        hand_order=viewer.hand_order
        if me is not None and viewer is not None
        else HandOrder.UNSORTED,
        letter_values=values,
        annulled_reason=game.annulled_reason,
        annulled_at=game.annulled_at,
        rated=game.rated,
        computer_to_move=to_move is not None and to_move.player.is_computer and not over,
        hint=hint,
        hints_left=hints_left(game, me) if me is not None else 0,
        analysis=_analysis_state(game, now),
        extra_days=game.turn_extra_days if to_move is not None else 0,
        extra_days_full=game.turn_extra_days >= clock.MAX_EXTRA_DAYS,
        can_give_time=can_give_time,
        opening_gifts=tuple(gifts.get(0, ())),
        unseen=_unseen(state, seats, my_position) if state is not None and not over else None,
        queued=_queued(me) if me is not None and not over else None,
        can_queue=bool(
            state
            and me is not None
            and game.status == Game.Status.RUNNING
            and me.status == Seat.Status.ACTIVE
            and turn != me.position
            and not me.player.is_computer
        ),
    )


def _queued(me: Seat) -> QueuedView | None:
    """The viewer's own queued move (R-HIDE-1: only ever built for the viewer's seat)."""
    queued = me.queued()
    if queued is None:
        return None
    language = get_language() or "fr"
    reason = ""
    if queued.refusal:
        reason = queued.refusal.get("en" if language.startswith("en") else "fr", "")
    return QueuedView(
        notation=queued.notation,
        placements=queued.placements,
        returns=queued.returns,
        keep=queued.keep,
        keep_label=str(QueuedMove.Keep(queued.keep).label),
        reason=reason,
    )


def _unseen(state: rules.GameState, seats: list[Seat], position: int | None) -> UnseenView:
    """The tiles ``position`` (None: a spectator) has not seen, from that seat's view only.

    ``rules.view`` keeps what the seat may see (R-HIDE-1); ``UnseenView.of``
    reads nothing else, so the other hands and the reserve stay counts.
    """
    by_position = {s.drawn_position: seat_name(s) for s in seats}
    names = tuple(by_position.get(k, "?") for k in range(len(state.hands)))
    return UnseenView.of(rules.view(state, position), names)


def _seat_views(
    seats: list[Seat],
    state: rules.GameState | None,
    me: Seat | None,
    turn: int | None,
    winners: set[int],
    deadlines: tuple[datetime | None, bool],
    vacations: dict[int, list],
    now: datetime,
    over: bool,
) -> tuple[SeatView, ...]:
    """Each seat as the viewer sees it: score, turn, deadline, vacation, the final hand.

    ``deadlines``: the deadline of the player to move, and whether their quiet hours moved it.
    """
    deadline, deadline_quiet = deadlines
    # The ranking is the rules' (a blocked sans-marque game has no winner but has places).
    places = rules.ranks(state) if state and state.result else None
    back_at = {
        s.pk: None if over else clock.on_vacation_until(vacations.get(s.player_id, []), now)
        for s in seats
    }
    return tuple(
        SeatView(
            position=s.position if s.position is not None else k,
            name=seat_name(s),
            profile_url=_profile_url(s),
            hand_size=len(state.hands[s.drawn_position]) if state else 0,
            score=state.scores[s.drawn_position] if state else 0,
            status=state.status[s.drawn_position] if state else s.status,
            is_turn=turn is not None and s.position == turn,
            is_me=me is not None and s.pk == me.pk,
            is_winner=s.position in winners,
            deadline=deadline if turn is not None and s.position == turn else None,
            deadline_quiet=deadline_quiet and turn is not None and s.position == turn,
            on_vacation=back_at[s.pk] is not None,
            vacation_until=back_at[s.pk],
            vacation_from=clock.vacation_ahead(
                vacations.get(s.player_id, []), deadline, back_at[s.pk] or now
            )
            if turn is not None and s.position == turn
            else None,
            final_hand="".join(state.hands[s.drawn_position]) if (state and over) else None,
            place=places[s.drawn_position] if places else None,
            is_computer=s.player.is_computer,
        )
        for k, s in enumerate(seats)
    )


def _my_hand(
    state: rules.GameState | None, me: Seat | None, values: dict[str, int]
) -> tuple[TileView, ...] | None:
    """The viewer's own tiles (R-HIDE-1: nobody else's); None for a spectator."""
    if me is None or state is None:
        return None
    return tuple(
        TileView(index=k, letter=t, value=values.get(t, 0))
        for k, t in enumerate(state.hands[me.drawn_position])
    )


def _analysis_state(game: Game, now: datetime) -> str:
    """The analysis as the page shows it: "done", "pending", "missing", or "" before the end.

    Only once the game is finished: the analysis judges moves with what each
    player knew, and it is written only then anyway.
    """
    if game.status != Game.Status.FINISHED:
        return ""
    if game.analysed_at is not None:
        return "done"
    return "pending" if analysis_pending(game, now) else "missing"


def _move_views(
    moves: list[tuple],
    by_pk: dict[int, str],
    gifts: dict[int, list[GiftView]],
    finished: bool,
    me: Seat | None,
) -> tuple[MoveView, ...]:
    """The history: each move with its player, words, points, analysis and the days given;
    whether it was played from the queue for the viewer's own moves only (R-HIDE-1)."""
    return tuple(
        MoveView(
            number=number,
            player=by_pk.get(seat_id, "?"),
            kind=kind,
            notation=notation_shown(notation),
            words=tuple(words),
            points=points,
            played_at=played_at,
            analysis=_analysis_view(analysed) if finished and analysed else None,
            gifts=tuple(gifts.get(number, ())),
            from_queue=from_queue and me is not None and seat_id == me.pk,
        )
        for number, seat_id, kind, notation, words, points, played_at, analysed, from_queue, _ in (
            moves
        )
    )


def _gifts(game: Game, by_pk: dict[int, str], me: Seat | None) -> dict[int, list[GiftView]]:
    """The days given in the game, by the number of moves played when each was given."""
    found: dict[int, list[GiftView]] = defaultdict(list)
    for gift in game.time_gifts:
        found[gift["after"]].append(
            GiftView(
                giver=by_pk.get(gift["by"], "?"),
                receiver=by_pk.get(gift["to"], "?"),
                by_me=me is not None and gift["by"] == me.pk,
                to_me=me is not None and gift["to"] == me.pk,
            )
        )
    return found


def _analysis_view(data: dict[str, Any]) -> AnalysisView:
    return AnalysisView(
        best=notation_shown(data["best"]),
        words=tuple(data.get("words", ())),
        gain=data.get("gain", 0),
        played_gain=data.get("played_gain", 0),
        played_best=data.get("played_best", False),
        others_points=data.get("others_points", 0),
        why=tuple(reasons.phrases(data.get("why", ()), own=False)),
    )


def board_columns(config: rules.GameConfig) -> tuple[str, ...]:
    """The column letters above the board: A, B, C…"""
    return tuple(rules.format_square(c, 0)[0] for c in range(config.layout.width))


def board_rows(
    config: rules.GameConfig, board: str, last: set[str], hinted: set[str] | None = None
) -> tuple[tuple[SquareView, ...], ...]:
    """The board's squares row by row; ``last`` names the squares the latest move filled,
    ``hinted`` the empty squares the viewer's hint would fill.

    Shared by the game page and the staff replay, so both draw the same board.
    """
    layout = config.layout
    values = dict(config.tiles.values)
    hinted = hinted or set()
    squares = [
        _square_view(square, ch, values, last, hinted)
        for square, ch in zip(_squares(layout), board, strict=True)
    ]
    width = layout.width
    return tuple(tuple(squares[i : i + width]) for i in range(0, len(squares), width))


def _square_view(
    square: tuple[str, int, int, str],
    ch: str,
    values: dict[str, int],
    last: set[str],
    hinted: set[str],
) -> SquareView:
    """One square: ``ch`` is its character in the board's text ("." when empty)."""
    name, c, r, kind = square
    if ch == ".":
        return SquareView(name=name, col=c, row=r, kind=kind, is_hint=name in hinted)
    return SquareView(
        name=name,
        col=c,
        row=r,
        kind=kind,
        letter=ch.upper(),
        is_diable=ch.islower(),
        value=0 if ch.islower() else values.get(ch, 0),
        is_last_move=name in last,
    )


def last_squares(record: dict[str, Any]) -> set[str]:
    """The squares the move recorded as ``record`` placed tiles on."""
    return {square for square, _letter in record.get("place", [])}


@lru_cache(maxsize=16)
def _squares(layout: rules.Layout) -> tuple[tuple[str, int, int, str], ...]:
    """Each square's name, column, row and kind: fixed by the layout, so worked out once."""
    width = layout.width
    return tuple(
        (layout.name_of(i), i % width, i // width, SQUARE_KIND_NAMES[kind])
        for i, kind in enumerate(layout.cells)
    )


# --- lists -----------------------------------------------------------------------


CHAT_SHOWN = 50  # the game page shows the last 50 messages


def _move_rows(game: Game) -> list[tuple[Any, ...]]:
    """The columns of the game's moves the page shows, up to the game's version."""
    return list(
        Move.objects.filter(game_id=game.pk, number__lte=game.move_count)
        .order_by("number")
        .values_list(
            "number",
            "seat_id",
            "kind",
            "notation",
            "words",
            "points",
            "created_at",
            "analysis",
            "from_queue",
            "record",
        )
    )


def game_or_none(pk: int) -> Game | None:
    return Game.objects.filter(pk=pk).first()


def live_token(game: Game) -> str:
    """What an open game page shows that others change, read off the game's row alone.

    The page polls with it (``?since=``) and gets a 204 while it is the same, so
    the check costs the one query that reads the game. Each part changes with
    one kind of news: the move counter with a move, a resignation or a time-out
    (all moves, ``services.kernel.play``); the status with an annulment or the
    end; the days given this turn with a gift (back to 0 only with a new move).

    The chat's count (``Game.chat_count``, raised by ``services.chat_post``) is
    sent beside it (``&chat=``), from the chat itself: the chat's own answer
    brings the new count with the messages, so that the player's own message
    does not make the next poll bring the page again (and wipe a refusal the
    chat shows).
    """
    return f"{game.move_count}.{game.status}.{game.turn_extra_days}"


def chat_messages(game: Game) -> list[ChatMessage]:
    """The game's last ``CHAT_SHOWN`` chat messages with their authors, oldest first."""
    latest = game.chat_messages.select_related("author").order_by("-pk")[:CHAT_SHOWN]
    return list(latest)[::-1]


def table_visible_to(game: Game, viewer: Any) -> bool:
    """Whether ``viewer`` may know of ``game``: an invitation-only table, until it
    starts, only to its players, the players invited to it and staff.

    Like ``open_tables``: a private table is hidden from the lobby, so its page
    at its (sequential) id must not show who sits and who is invited either.
    Once it starts it is a game like any other, watchable by the signed-in.
    """
    if not game.invitation_only or game.status != Game.Status.OPEN:
        return True
    if not viewer.is_authenticated:
        return False
    if viewer.is_active and viewer.is_staff:
        return True
    return (
        game.seats.filter(player=viewer).exists()
        or game.invitations.filter(invitee=viewer).exists()
    )


def open_tables(viewer: User | None) -> QuerySet[Game]:
    """Tables waiting for players: public ones, and those the viewer is invited to."""
    tables = Game.objects.filter(status=Game.Status.OPEN)
    visible = Q(invitation_only=False)
    if viewer is not None and viewer.is_authenticated:
        visible |= Q(invitations__invitee=viewer) | Q(seats__player=viewer)
    return (
        tables.filter(visible)
        .distinct()
        .select_related("creator")
        .prefetch_related("seats__player")
        .order_by("-created_at")
    )


def my_games(player: User) -> dict[str, list[Game]]:
    """The player's games: my turn (nearest deadline first), waiting, invitations, open, finished.

    Each game carries ``my_seat``, ``deadline``, ``opponents`` (the other
    players, in play order) and ``against_computer``; an invitation's game
    carries ``invited_by``; the running and finished ones their ``badges``
    (``games/badges.py``).
    """
    in_order = Seat.objects.select_related("player").order_by("position", "joined_at", "pk")
    seats = list(
        Seat.objects.filter(player=player)
        .select_related("game")
        .prefetch_related(Prefetch("game__seats", queryset=in_order))
    )
    deadlines = clock.deadlines_of([seat.game for seat in seats])
    my_turn: list[Game] = []
    waiting: list[Game] = []
    open_: list[Game] = []
    finished: list[Game] = []
    for seat in seats:
        game = seat.game
        game.deadline = deadlines[game.pk]
        game.my_seat = seat
        _name_the_others(game, player)
        if game.status == Game.Status.RUNNING:
            (my_turn if game.to_move_id == seat.pk else waiting).append(game)
        elif game.status == Game.Status.OPEN:
            open_.append(game)
        else:
            finished.append(game)
    far = timezone.now() + timedelta(days=3650)
    my_turn.sort(key=lambda g: g.deadline or far)
    waiting.sort(key=lambda g: g.deadline or far)
    finished.sort(key=lambda g: g.finished_at or g.created_at, reverse=True)
    badges.attach([*my_turn, *waiting, *finished[:50]])  # a league's division…
    return {
        "my_turn": my_turn,
        "waiting": waiting,
        "invited": _invitations_of(player, seated={seat.game_id for seat in seats}, seats=in_order),
        "open": open_,
        "finished": finished[:50],
    }


def _invitations_of(player: User, *, seated: set[int], seats: QuerySet[Seat]) -> list[Game]:
    """Tables not started yet that invite ``player``, who has not taken a seat there."""
    invitations = (
        Invitation.objects.filter(
            invitee=player, status=Invitation.Status.PENDING, game__status=Game.Status.OPEN
        )
        .exclude(game_id__in=seated)
        .select_related("game", "invited_by")
        .prefetch_related(Prefetch("game__seats", queryset=seats))
        .order_by("-created_at")
    )
    games = []
    for invitation in invitations:
        game = invitation.game
        game.invited_by = invitation.invited_by
        _name_the_others(game, player)
        games.append(game)
    return games


def _name_the_others(game: Game, player: User) -> None:
    """Who ``player`` plays with (prefetched seats, in play order), and whether a computer."""
    game.opponents = [seat.player for seat in game.seats.all() if seat.player_id != player.pk]
    game.against_computer = any(opponent.is_computer for opponent in game.opponents)


def next_game_to_play(player: User) -> Game | None:
    """The game where it is the player's turn with the nearest deadline."""
    games = my_games(player)["my_turn"]
    return games[0] if games else None


# --- hints and the analysis, as the pages and the services read them ----------------------


def hints_left(game: Game, seat: Seat) -> int:
    """How many hints the player at ``seat`` may still ask for (0 in a rated game)."""
    if game.rated:
        return 0
    return max(0, settings.DIAMINO_HINTS_PER_GAME - seat.hints_used)


def current_hint(game: Game, seat: Seat) -> Hint | None:
    """The hint the player asked for at this move number, shown until they move."""
    data = seat.hint
    if not data or data.get("version") != game.move_count or game.status != Game.Status.RUNNING:
        return None
    return Hint.from_data(data, left=hints_left(game, seat))


PATIENCE = timedelta(minutes=15)


def analysis_pending(game: Game, now: datetime | None = None) -> bool:
    """A worker was asked for the analysis a short while ago and has not finished."""
    now = now or timezone.now()
    queued = game.analysis_queued_at
    return game.analysed_at is None and queued is not None and now - queued < PATIENCE
