"""Notifications a game event causes; called inside the service's transaction.

Each hook writes outbox rows (``notifications.services.notification_write``)
in the move's transaction: a refused or rolled-back move writes nothing, a
played move cannot lose its emails. Rows hold ids only; the email is rendered
when it is sent. Every row has a key naming the event, so writing it twice
(a retried service, a second sweep) gives one row.

Who hears what:

- invitation: the invitee.
- invitations held back: a player invited more than ``INVITEE_PER_DAY`` allows
  (``games/services/tables.py``), once per window of that limit. The only
  notice written outside the event's transaction: the event is a refusal,
  which rolls back.
- game started: the player who plays first gets their "your turn" email; the
  others learn the game began.
- a move: the next player gets "your turn" — only when the turn passed to
  them (a resignation out of turn keeps the same turn, and the same key), and
  not when their queued move is played at once in the same transaction
  (``turn_taken``: the player after them is told instead); a queued move that
  was not played is told in that "your turn" email, with why (``games/emails.py``);
- a time-out that does not end the game: every player learns who left (the
  next player through their "your turn" email when they read those);
- game over (by any move, resignation or time-out): every player, with the
  result;
- annulment: every player, with the moderators' reason;
- more time given (``games/services/time_given.py``): the player to move, once per gift,
  if they read their turn emails one by one (the digest shows the deadline).

- a chat message: the other players' devices (web push only), once per game per hour.

Every row above also goes to the recipient's devices as a web push when they
turned it on and chose it for that kind of event (``notifications/push.py``), in
the same transaction. The recipient's quiet hours hold both until they end
(``notifications/quiet.py``).

Computer players get nothing (``notification_write`` writes no row for them).
A person playing alone against computer players started the game and plays
it on the page, where the computers' replies appear within seconds: they get
no "game started" email and no "your turn" after a computer's move (the
reminder before the deadline, the digest and the game-over email still go).
"""

from __future__ import annotations

from accounts.emails import wants_email
from accounts.models import User
from games import clock
from games.models import ChatMessage, Game, Invitation, Move, Seat
from notifications.models import Notification
from notifications.push import chat_push_write
from notifications.services import notification_write

Kind = Notification.Kind


def _seats(game: Game) -> list[Seat]:
    # Within a move, the seats the service read and saved: no query.
    return game.seat_list()


def _turn(game: Game, seat: Seat) -> None:
    """``seat`` has the turn: the "your turn" email (once per turn, whatever the key's cause).

    With ``"queued": "not-played"`` when the seat's queued move was not played
    as the turn came: the email says why (``games/emails.py``).
    """
    key = clock.turn_key(game)
    context = {"turn": key}
    queued = seat.queued()
    if queued is not None and not queued.waiting:
        context["queued"] = "not-played"
    notification_write(
        recipient=seat.player,
        kind=Kind.TURN,
        key=f"turn:{key}",
        game_id=game.pk,
        context=context,
    )


def invitation(invitation: Invitation) -> None:
    """``invitation.invitee`` was invited to a table (again, after leaving it: a new key)."""
    stamp = int(invitation.created_at.timestamp() * 1_000_000)
    notification_write(
        recipient=invitation.invitee,
        kind=Kind.INVITATION,
        key=f"invitation:{invitation.pk}:{stamp}",
        game_id=invitation.game_id,
        context={"invitation": invitation.pk},
    )


def invitations_held(invitee: User, *, window_start: int, until: int, count: int) -> None:
    """Invitations to ``invitee`` are refused until ``until`` (a Unix time): tell them once.

    The key names the limit's window (``window_start``): every refusal in the
    window finds it taken, and the next window has its own notice.
    """
    notification_write(
        recipient=invitee,
        kind=Kind.INVITATIONS_HELD,
        key=f"invitations-held:{invitee.pk}:{window_start}",
        context={"until": until, "count": count},
    )


def _alone_with_computers(seats: list[Seat]) -> bool:
    """One person at the table, every other seat a computer player's."""
    return sum(not seat.player.is_computer for seat in seats) == 1


def game_started(game: Game) -> None:
    """The table is full (or its creator started it): everyone learns who plays first."""
    seats = _seats(game)
    if _alone_with_computers(seats):
        return  # the one person just started it, and is on the page
    for seat in seats:
        if seat.pk == game.to_move_id:
            _turn(game, seat)
        else:
            notification_write(
                recipient=seat.player,
                kind=Kind.GAME_STARTED,
                key=f"started:{game.pk}:{seat.player_id}",
                game_id=game.pk,
            )


def move_played(game: Game, move: Move, *, turn_taken: bool = False) -> None:
    """A move was played: the next player's turn, or the game is over.

    ``turn_taken``: the next player's queued move is played at once, in this
    transaction; they get no "your turn" (that move tells the next one).
    """
    seats = _seats(game)
    if game.status == Game.Status.FINISHED:
        for seat in seats:
            notification_write(
                recipient=seat.player,
                kind=Kind.GAME_OVER,
                key=f"game-over:{game.pk}:{seat.player_id}",
                game_id=game.pk,
                context={"move": move.pk},
            )
        return
    next_seat = next((s for s in seats if s.pk == game.to_move_id), None)
    mover = next((s for s in seats if s.pk == move.seat_id), None)
    told_by_turn_email = None
    if mover is not None and mover.player.is_computer and _alone_with_computers(seats):
        next_seat = None  # the person sees the reply on the page they just played on
    if turn_taken:
        next_seat = None
    timed_out = move.kind == Move.Kind.TIMEOUT
    if next_seat is not None and next_seat.player_id != move.seat.player_id:
        _turn(game, next_seat)
        # Asked only after a time-out (it reads the player's addresses): that
        # email shows the time-out as the last move.
        if timed_out and wants_email(next_seat.player, "turn"):
            told_by_turn_email = next_seat.pk
    if timed_out:
        for seat in seats:
            if seat.pk == told_by_turn_email:
                continue
            notification_write(
                recipient=seat.player,
                kind=Kind.TIMEOUT,
                key=f"timeout:{game.pk}:{move.number}:{seat.player_id}",
                game_id=game.pk,
                context={"move": move.pk},
            )


def chat_posted(game: Game, message: ChatMessage) -> None:
    """A chat message: a web push to the other players, at most one per game per hour.

    Push only (``notifications/push.py``): chat has no email.
    """
    chat_push_write(
        game_id=game.pk,
        author=message.author,
        recipients=[seat.player for seat in _seats(game)],
        now=message.created_at,
    )


def game_annulled(game: Game) -> None:
    """Staff annulled the game; ``game.annulled_reason`` says why."""
    for seat in _seats(game):
        notification_write(
            recipient=seat.player,
            kind=Kind.ANNULLED,
            key=f"annulled:{game.pk}:{seat.player_id}",
            game_id=game.pk,
        )


def time_given(game: Game, *, giver: Seat, receiver: Seat) -> None:
    """``giver`` gave ``receiver``, to move, one more day: the key names the turn and the day."""
    turn = clock.turn_key(game)
    notification_write(
        recipient=receiver.player,
        kind=Kind.TIME_GIFT,
        key=f"time-gift:{turn}:{game.turn_extra_days}",
        game_id=game.pk,
        context={"turn": turn, "giver": giver.pk},
    )
