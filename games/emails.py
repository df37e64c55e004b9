"""The game's notifications as emails, rendered when they are sent, from fresh rows.

Each renderer (``RENDERERS``, registered in ``GamesConfig.ready``) returns the
template name and context ``notifications.renderers.render`` turns into the
message, or raises ``Skip`` when the notification no longer makes sense (the
player already moved, the table closed, no game waits any more).

What a game email shows comes from a spectator's ``game_view``: the board,
the last move with its words and points, the players and their scores — and
never another player's hand or the tiles a move drew (R-HIDE-1).

The emails that ask the recipient to move (turn, reminder, more time given,
the digest) are a playable position (play by mail, #24): their text holds
``email_board.text_position`` with the recipient's own hand, and their
``Reply-To`` (the context's ``reply_to``, which the outbox puts on the
message) is the seat's signed reply address at the game's version
(``games.reply_address.reply_address``), or the no-reply address when the player
turned playing by email off — then the email does not say how to answer.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.emails import absolute_url
from accounts.models import EmailChoice, User
from games import clock, push, selectors
from games import email_board as board
from games.models import Game, Invitation, Seat
from games.presenters import notation_shown
from games.reply_address import noreply_address, reply_address
from notifications.models import Notification
from notifications.renderers import Renderer, Skip, recipient_of
from notifications.services import digest_events

Kind = Notification.Kind


def game_url(game: Game) -> str:
    return absolute_url(reverse("games:page", args=[game.pk]))


def game_title(game: Game) -> str:
    return _("Game %(number)s") % {"number": game.pk}


def _last_move(game: Game) -> dict[str, Any] | None:
    move = game.moves.select_related("seat__player").order_by("-number").first()
    if move is None:
        return None
    return {
        "number": move.number,
        "player": selectors.seat_name(move.seat),
        "kind": move.kind,
        "notation": notation_shown(move.notation),
        "words": list(move.words),
        "points": move.points,
    }


def game_context(game: Game, user: User) -> dict[str, Any]:
    """What every game email shows; call it in the recipient's language."""
    view = selectors.game_view(game, None)  # a spectator's view: no hand, no reserve
    to_move = next((s for s in view.seats if s.is_turn), None)
    return {
        "game": game,
        "game_title": game_title(game),
        "mode_label": game.get_mode_display(),
        "game_url": game_url(game),
        "board": board.html_picture(view),
        "board_text": board.text_picture(view),
        "seats": view.seats,
        "show_scores": game.mode == "marque" or view.over,
        "last_move": _last_move(game),
        "to_move": to_move,
        "deadline": to_move.deadline if to_move else None,
        "days_per_move": game.days_per_move,
        "time_zone": user.time_zone,
        "marque": game.mode == "marque",
    }


def playable(game: Game, user: User) -> dict[str, Any]:
    """What makes an email a position ``user`` can answer with a move (#24).

    ``position_text`` (``email_board.text_position``, with the player's hand),
    ``reply_to`` (the seat's reply address at ``game.move_count``, or the no-reply
    address when the player does not play by email, or the site receives no mail:
    ``MAIL_IN_ENABLED``), ``answer_lines`` (how to
    answer; empty then) and ``play_by_email``. Call it in the recipient's language.
    """
    seat = next((s for s in game.seat_list() if s.player_id == user.pk), None)
    by_email = settings.MAIL_IN_ENABLED and bool(user.play_by_email) and seat is not None
    view = selectors.game_view(game, user if seat is not None else None)
    address = reply_address(seat, game.move_count) if by_email and seat else noreply_address()
    return {
        "position_text": board.position_of(view, user.time_zone),
        "hand": view.my_hand or (),
        "numbered_hand": view.hand_slots > 0,
        "reserve_line": board.reserve_line(view.reserve_size),
        "play_by_email": by_email,
        "reply_to": address,
        "reply_mailto": f"mailto:{address}?subject={quote(game_title(game))}",
        "answer_lines": board.how_to_answer() if by_email else "",
    }


def _game(row: Notification) -> Game:
    if row.game is None:
        raise Skip("the game no longer exists")
    return row.game


def _still_this_turn(row: Notification, game: Game) -> None:
    if (
        game.status != Game.Status.RUNNING
        or game.turn_started_at is None
        or game.to_move_id is None
        or clock.turn_key(game) != row.context.get("turn")
        or not game.seats.filter(pk=game.to_move_id, player=row.recipient).exists()
    ):
        raise Skip("the turn is over already")


def _queued_not_played(game: Game, user: User) -> dict[str, Any]:
    """The recipient's own queued move that was not played as their turn came, and why.

    Read for the recipient's seat only: a queued move is hidden information.
    """
    seat = game.seats.select_related("queued_move").filter(player=user).first()
    queued = seat.queued() if seat is not None else None
    if queued is None or queued.waiting or not queued.refusal:
        return {}
    english = (get_language() or user.language).startswith("en")
    return {
        "queued_notation": queued.notation,
        "queued_reason": queued.refusal.get("en" if english else "fr", ""),
    }


def _turn(row: Notification) -> tuple[str, dict[str, Any]]:
    game = _game(row)
    _still_this_turn(row, game)
    user = recipient_of(row)
    queued = _queued_not_played(game, user) if row.context.get("queued") else {}
    return "turn", {**game_context(game, user), "first_move": game.move_count == 0, **queued}


def _reminder(row: Notification) -> tuple[str, dict[str, Any]]:
    game = _game(row)
    _still_this_turn(row, game)
    vacation_url = absolute_url(reverse("accounts:vacation"))
    return "reminder", {**game_context(game, recipient_of(row)), "vacation_url": vacation_url}


def _time_gift(row: Notification) -> tuple[str, dict[str, Any]]:
    game = _game(row)
    _still_this_turn(row, game)
    giver = game.seats.select_related("player").filter(pk=row.context.get("giver")).first()
    if giver is None:
        raise Skip("the giver's seat is not in the game any more")
    return "time_gift", {
        **game_context(game, recipient_of(row)),
        "giver": selectors.seat_name(giver),
        "extra_days": game.turn_extra_days,
    }


def _game_started(row: Notification) -> tuple[str, dict[str, Any]]:
    game = _game(row)
    if game.status != Game.Status.RUNNING:
        raise Skip("the game is not running any more")
    return "game_started", game_context(game, recipient_of(row))


def _timeout(row: Notification) -> tuple[str, dict[str, Any]]:
    game = _game(row)
    move = game.moves.select_related("seat__player").filter(pk=row.context.get("move")).first()
    if move is None:
        raise Skip("the time-out is not in the game any more")
    return "timeout", {
        **game_context(game, recipient_of(row)),
        "timed_out": selectors.seat_name(move.seat),
        "it_was_me": move.seat.player_id == row.recipient_id,
    }


def _ranking(game: Game) -> list[dict[str, Any]]:
    seats = game.seats.select_related("player").order_by("rank", "position")
    return [
        {
            "rank": seat.rank,
            "name": selectors.seat_name(seat),
            "score": seat.score,
            "is_winner": seat.is_winner,
            "status": seat.status,
            "status_label": Seat.Status(seat.status).label,
        }
        for seat in seats
    ]


def _game_over(row: Notification) -> tuple[str, dict[str, Any]]:
    game = _game(row)
    if game.status != Game.Status.FINISHED:
        raise Skip("the game is not finished")
    ranking = _ranking(game)
    me = next((s for s in game.seats.all() if s.player_id == row.recipient_id), None)
    return "game_over", {
        **game_context(game, recipient_of(row)),
        "ranking": ranking,
        "winners": [r["name"] for r in ranking if r["is_winner"]],
        "i_won": bool(me and me.is_winner),
        "end_label": Game.End(game.end).label if game.end else "",
    }


def _annulled(row: Notification) -> tuple[str, dict[str, Any]]:
    game = _game(row)
    if game.status != Game.Status.ANNULLED:
        raise Skip("the game is not annulled")
    return "annulled", {
        "game": game,
        "game_title": game_title(game),
        "game_url": game_url(game),
        "reason": game.annulled_reason,
    }


def open_invitation(row: Notification) -> Invitation:
    """The invitation ``row`` is about, while the invitee can still take the seat.

    ``Skip`` once it is not: withdrawn or answered, or its table started without the
    invitee, or deleted. The invitation's own email and its line in the digest
    (``digest_lines``) both ask here.
    """
    invitation = (
        Invitation.objects.select_related("game", "invited_by")
        .filter(pk=row.context.get("invitation"))
        .first()
    )
    if (
        invitation is None
        or invitation.status != Invitation.Status.PENDING
        or invitation.game.status != Game.Status.OPEN
    ):
        raise Skip("the invitation is no longer open")
    return invitation


def _invitation(row: Notification) -> tuple[str, dict[str, Any]]:
    invitation = open_invitation(row)
    game = invitation.game
    return "invitation", {
        "game": game,
        "game_title": _("Table #%(id)s") % {"id": game.pk},
        "game_url": game_url(game),
        "inviter": str(invitation.invited_by),
        "mode_label": game.get_mode_display(),
        "seats_wanted": game.seats_wanted,
        "players": [str(s.player) for s in game.seats.select_related("player")],
        "days_per_move": game.days_per_move,
    }


def _contact() -> tuple[str, str]:
    """The team's address, as a link and as shown: the site's published contact.

    ``DIAMINO_SECURITY_CONTACT`` is the one contact the site publishes
    (security.txt), the operators' (the first of ``ADMINS``) unless set.
    """
    url = settings.DIAMINO_SECURITY_CONTACT
    return url, url.removeprefix("mailto:")


def _invitations_held(row: Notification) -> tuple[str, dict[str, Any]]:
    until = datetime.fromtimestamp(int(row.context.get("until", 0)), tz=UTC)
    if until <= timezone.now():
        raise Skip("invitations to the player are no longer held back")
    contact_url, contact = _contact()
    return "invitations_held", {
        "until": until,
        "count": row.context.get("count"),
        "my_games_url": absolute_url(reverse("games:mine")),
        "contact_url": contact_url,
        "contact": contact,
    }


def waiting_games(user: User) -> list[dict[str, Any]]:
    """The games where it is ``user``'s turn, nearest deadline first, for the digest."""
    games = list(
        Game.objects.filter(status=Game.Status.RUNNING, to_move__player=user).prefetch_related(
            "seats__player"
        )
    )
    deadlines = clock.deadlines_of(games)
    entries = []
    for game in games:
        entries.append(
            {
                **playable(game, user),
                "game_title": game_title(game),
                "mode_label": game.get_mode_display(),
                "game_url": game_url(game),
                "deadline": deadlines[game.pk],
                "opponents": [str(s.player) for s in game.seats.all() if s.player_id != user.pk],
                "last_move": _last_move(game),
            }
        )
    entries.sort(key=lambda e: (e["deadline"] is None, e["deadline"]))
    return entries


def digest_lines(user: User, until: datetime) -> list[tuple[int, dict[str, Any]]]:
    """The events ``user`` reads in the digest not told yet, written before ``until``
    (``notifications.services.digest_events``): each event's id and its line.

    Each line is the event's push payload (``games/push.py``: its ``body`` and ``url``), the
    one line-builder the quiet hours' summary uses too. An event that says nothing any more
    (its game gone, an invitation no longer open: ``open_invitation``) is left out, and
    counted as told with the others: there is nothing to tell of it later either.
    """
    lines = []
    for event in digest_events(user, until=until).select_related("recipient"):
        try:
            if event.kind == Kind.INVITATION:
                open_invitation(event)
            lines.append((event.pk, push.payload(event)))
        except Skip:
            lines.append((event.pk, {}))
    return lines


def digest_cutoff(row: Notification) -> datetime:
    """What the digest ``row`` tells happened before this moment: its day's digest time
    (``games.deadlines.write_digests``); a row without it (a preview) says all until now."""
    until = row.context.get("until")
    if until:
        return datetime.fromisoformat(until)
    return row.created_at or timezone.now()


def _digest(row: Notification) -> tuple[str, dict[str, Any]]:
    """The games waiting for the player's move (when they read their turns here) and the
    events of the kinds they read here not told yet, up to the digest's cut-off; ``Skip``
    when neither.

    The ids of the events it went through are put in the row's context (``events``): the
    outbox marks them told once the digest is sent, or skipped because none of them has
    anything left to say (``notifications.services.digest_told``).
    Every game waiting now is listed, even one whose turn came after the cut-off: it was
    the cut-off that decided whether a digest is due (``write_digests``), and a digest
    caught up late may as well show the position as it is.
    """
    user = recipient_of(row)
    entries = waiting_games(user) if user.turn_emails == EmailChoice.DIGEST else []
    events = digest_lines(user, digest_cutoff(row))
    lines = [line for _pk, line in events if line]
    # Before a skip too: events that said nothing any more are not gone through again.
    row.context = {**row.context, "events": [pk for pk, _line in events]}
    if not entries and not lines:
        raise Skip("nothing to tell the player")
    return "digest", {
        "entries": entries,
        "lines": lines,
        "my_games_url": absolute_url(reverse("games:mine")),
        "time_zone": user.time_zone,
    }


def _playable(renderer: Renderer) -> Renderer:
    """``renderer``'s email made a position its recipient can answer with a move (#24)."""

    def render(row: Notification) -> tuple[str, dict[str, Any]]:
        name, context = renderer(row)
        game, user = _game(row), row.recipient
        if user is None:
            raise Skip("the notification has no recipient")
        return name, {**context, **playable(game, user)}

    render.__name__ = render.__qualname__ = f"playable{renderer.__name__}"
    return render


def _playable_digest(row: Notification) -> tuple[str, dict[str, Any]]:
    """The digest, each game with its position and its own reply address (``waiting_games``).

    One Reply-To for one game; with several, each game's address is in the body and a
    reply to the digest itself goes to the no-reply address (which answers how to play).
    "Answer this email" (``answer_lines``) is true of a digest of one game only.
    """
    name, context = _digest(row)
    entries = context["entries"]
    only = entries[0] if len(entries) == 1 else None
    return name, {
        **context,
        "reply_to": only["reply_to"] if only else noreply_address(),
        "answer_lines": only["answer_lines"] if only else "",
    }


_playable_turn = _playable(_turn)
_playable_reminder = _playable(_reminder)
_playable_time_gift = _playable(_time_gift)

# Registered in ``GamesConfig.ready`` (``notifications.renderers``).
RENDERERS: dict[str, Renderer] = {
    Kind.INVITATION: _invitation,
    Kind.INVITATIONS_HELD: _invitations_held,
    Kind.GAME_STARTED: _game_started,
    Kind.TURN: _playable_turn,
    Kind.REMINDER: _playable_reminder,
    Kind.DIGEST: _playable_digest,
    Kind.TIMEOUT: _timeout,
    Kind.TIME_GIFT: _playable_time_gift,
    Kind.GAME_OVER: _game_over,
    Kind.ANNULLED: _annulled,
}
