"""A queued move (issue #36): laid out before one's turn, played the moment it comes.

Played through the same ``play`` as any move, in the transaction that gives
the seat the turn; kept "not played" with the reason otherwise; never played
twice, after a resignation, a time-out or an annulment; refused at once when
the hand cannot make it; shown to its player alone (R-HIDE-1).
"""

from __future__ import annotations

import random

import pytest
from django.core import mail
from django.urls import reverse

import rules
from accounts.models import User
from accounts.services import user_delete
from games import services
from games.errors import GameError
from games.models import Game, QueuedMove
from notifications.models import Notification
from tests.factories import client_as, make_player
from tests.games.conftest import rig, seat_at, snapshot, start_game
from tests.notifications.conftest import CHAT

pytestmark = pytest.mark.django_db

# Alice (position 0) opens with CHAT on H8; Bob (1) holds E and T to block her S
# on L8 (ET on K9, TE down from K8), an A to make ACHAT and an S to take L8 (CHATS).
HANDS = ("CHATEAUXSIR?", "KWYZEPOTALUS")


def play(game: Game, position: int, move: rules.Move) -> None:
    seat = seat_at(game, position)
    game.refresh_from_db()
    services.move_submit(
        game_id=game.pk,
        player=seat.player,
        version=game.move_count,
        move=move,
        rng=random.Random(7),
    )


def queue(game: Game, position: int, placements, *, returns: str = "", keep: str = "legal"):
    game.refresh_from_db()
    return services.queued_move_set(
        game_id=game.pk,
        player=seat_at(game, position).player,
        version=game.move_count,
        move=rules.Place(0, tuple(placements), returns=returns),
        keep=keep,
    )


def opened(players, mode: str = "marque") -> Game:
    """Alice has played CHAT on H8; Bob is to move."""
    game = rig(start_game(players, mode=mode), HANDS[: len(players)])
    play(game, 0, CHAT)
    return game


def last_move(game: Game):
    return game.moves.order_by("-number").select_related("seat__player").first()


def refusal_of(game: Game, position: int) -> dict:
    queued = QueuedMove.objects.get(seat=seat_at(game, position))
    assert queued.refusal is not None
    return queued.refusal


# --- played -----------------------------------------------------------------------------


def test_a_queued_move_is_played_when_the_turn_comes_and_the_next_player_is_told(
    alice, bob, carol
) -> None:
    game = rig(start_game([alice, bob, carol]), (*HANDS, "LEPOTIERMANU"))
    play(game, 0, CHAT)
    queue(game, 0, [("L8", "S")])  # CHATS, for when Bob and Carol have played
    play(game, 1, rules.Pass(1))
    assert game.moves.count() == 2  # not Alice's turn yet: it waits
    play(game, 2, rules.Pass(2))
    game.refresh_from_db()
    move = last_move(game)
    assert (move.number, move.seat.position, move.words) == (4, 0, ["CHATS"])
    assert game.to_move == seat_at(game, 1)
    assert not QueuedMove.objects.exists()  # played once, gone
    turns = Notification.objects.filter(kind="turn", channel="email")
    # Bob is told at once that it is his turn again; Alice got no "your turn" for the
    # turn her queued move played (only the one of the start).
    assert turns.filter(recipient=seat_at(game, 1).player).count() == 2
    assert turns.filter(recipient=seat_at(game, 0).player).count() == 1


def three_opened(alice, bob, carol) -> Game:
    """Alice has played CHAT on H8; Bob is to move, then Carol (PAN down through the A)."""
    game = rig(start_game([alice, bob, carol]), (*HANDS, "LEPOTIERMANU"))
    play(game, 0, CHAT)
    return game


def test_queued_moves_round_the_table_play_one_after_the_other(alice, bob, carol) -> None:
    """Carol and Alice both queued: Bob's move plays Carol's, which plays Alice's, and
    only Bob, to move again, is told it is his turn."""
    game = three_opened(alice, bob, carol)
    queue(game, 2, [("J7", "P"), ("J9", "N")])  # PAN
    queue(game, 0, [("L8", "S")])  # CHATS
    turns = Notification.objects.filter(kind="turn", channel="email")
    told = {n: turns.filter(recipient=seat_at(game, n).player).count() for n in range(3)}
    play(game, 1, rules.Pass(1))
    game.refresh_from_db()
    moves = list(game.moves.order_by("number").values_list("number", "seat__position", "words"))
    assert moves[1:] == [(2, 1, []), (3, 2, ["PAN"]), (4, 0, ["CHATS"])]
    assert game.to_move == seat_at(game, 1)
    assert not QueuedMove.objects.exists()
    now = {n: turns.filter(recipient=seat_at(game, n).player).count() for n in range(3)}
    assert now == {0: told[0], 1: told[1] + 1, 2: told[2]}


def test_a_time_out_that_hands_over_the_turn_plays_the_queued_move(alice, bob, carol) -> None:
    """At a table of three a time-out lets the others play on (R-END-4): the turn it
    hands over plays the next player's queued move at once."""
    game = three_opened(alice, bob, carol)
    queue(game, 2, [("J7", "P"), ("J9", "N")])
    services.game_timeout(game_id=game.pk, seat_id=seat_at(game, 1).pk)
    game.refresh_from_db()
    moves = list(game.moves.order_by("number").values_list("kind", "seat__position", "words"))
    assert moves[1:] == [("timeout", 1, []), ("place", 2, ["PAN"])]
    assert game.to_move == seat_at(game, 0)


def test_a_queued_move_with_a_diable_is_played_avec_marque(alice, bob) -> None:
    game = opened([alice, bob])
    queue(game, 0, [("L8", "s")])
    play(game, 1, rules.Pass(1))
    move = last_move(game)
    assert (move.seat.position, move.words) == (0, ["CHATS"])
    assert move.record["place"] == [["L8", "s"]]


def test_a_queued_move_gives_back_the_tiles_chosen_in_advance_sans_marque(alice, bob) -> None:
    """CHATEAUX covers the red devil on O8: the tile to give back was chosen when queued."""
    game = opened([alice, bob], mode="sans-marque")
    queue(game, 0, [("L8", "E"), ("M8", "A"), ("N8", "U"), ("O8", "X")], returns="R")
    play(game, 1, rules.Pass(1))
    move = last_move(game)
    assert (move.seat.position, move.words, move.tiles_returned) == (0, ["CHATEAUX"], "R")
    assert sorted(seat_at(game, 0).hand) == sorted("SI?")


def test_the_guarded_kind_is_played_when_nothing_near_it_changed(alice, bob) -> None:
    """TES down from K8; Bob's A on G8 (ACHAT) is not near its squares."""
    game = opened([alice, bob])
    queue(game, 0, [("K9", "E"), ("K10", "S")], keep="unchanged")
    play(game, 1, rules.Place(1, (("G8", "A"),)))
    move = last_move(game)
    assert (move.number, move.seat.position, move.words) == (3, 0, ["TES"])


# --- refused ------------------------------------------------------------------------------


def test_squares_taken_meanwhile_leave_the_move_not_played_and_the_player_to_move(
    alice, bob, django_capture_on_commit_callbacks
) -> None:
    game = opened([alice, bob])
    queue(game, 0, [("L8", "S")])
    mover = seat_at(game, 0).player
    mover.language = "en"
    mover.save(update_fields=["language"])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play(game, 1, rules.Place(1, (("L8", "S"),)))  # CHATS
    game.refresh_from_db()
    assert game.to_move == seat_at(game, 0)
    assert refusal_of(game, 0)["code"] == "occupied"
    assert "L8" in refusal_of(game, 0)["en"]
    # Alice is told why in her "your turn" email, and still sees it as not played.
    turn = Notification.objects.filter(kind="turn", channel="email").order_by("-pk").first()
    assert turn is not None and turn.context.get("queued") == "not-played"
    [email] = [m for m in mail.outbox if m.to == [mover.email]]
    assert "Your queued move H8→ (CHAT)S was not played: Square L8 is already taken." in email.body
    html = client_as(mover).get(reverse("games:page", args=[game.pk])).content.decode()
    assert "Not played" in html and "Square L8 is already taken." in html
    # Another player's email says nothing of it.
    assert all("queued" not in m.body for m in mail.outbox if m.to != [mover.email])


def test_a_queued_move_that_fails_to_play_leaves_the_move_before_it_standing(
    alice, bob, monkeypatch, caplog
) -> None:
    """Whatever goes wrong while the queued move is played (here the engine's call
    raises), Bob's move stands and is answered, and Alice is told it is her turn."""
    from games import bridge

    game = opened([alice, bob])
    queue(game, 0, [("L8", "S")])
    engine_play = bridge.play
    calls = []

    def failing_on_the_queued_move(game, move, rng):
        calls.append(move)
        if len(calls) == 2:  # Bob's pass, then Alice's queued move
            raise RuntimeError("the engine broke")
        return engine_play(game, move, rng)

    monkeypatch.setattr(bridge, "play", failing_on_the_queued_move)
    play(game, 1, rules.Pass(1))  # no error for Bob

    game.refresh_from_db()
    assert len(calls) == 2
    assert game.move_count == 2 and last_move(game).seat == seat_at(game, 1)
    assert game.to_move == seat_at(game, 0)
    assert refusal_of(game, 0)["code"] == "error"
    turn = (
        Notification.objects.filter(kind="turn", channel="email", recipient=seat_at(game, 0).player)
        .order_by("-pk")
        .first()
    )
    assert turn is not None and turn.context.get("queued") == "not-played"
    assert "not played" in caplog.text


def test_a_word_blocked_meanwhile(alice, bob) -> None:
    game = opened([alice, bob])
    queue(game, 0, [("L8", "S")])
    play(game, 1, rules.Place(1, (("K9", "E"), ("L9", "T"))))  # ET, and TE down from K8
    assert refusal_of(game, 0)["code"] == "not-a-word"
    assert "ST" in refusal_of(game, 0)["en"]


def test_the_guarded_kind_is_not_played_after_a_tile_near_it(alice, bob) -> None:
    """ACHATS would be legal, but a tile came on G8, next to its word."""
    game = opened([alice, bob])
    queue(game, 0, [("L8", "S")], keep="unchanged")
    play(game, 1, rules.Place(1, (("G8", "A"),)))  # ACHAT
    refusal = refusal_of(game, 0)
    assert refusal["code"] == "changed-near" and "G8" in refusal["en"] and "G8" in refusal["fr"]
    assert last_move(game).seat.position == 1


def test_the_kind_if_still_legal_plays_after_a_tile_near_it(alice, bob) -> None:
    game = opened([alice, bob])
    queue(game, 0, [("L8", "S")])
    play(game, 1, rules.Place(1, (("G8", "A"),)))
    assert last_move(game).words == ["ACHATS"]


def test_letters_not_in_hand_are_refused_at_once_with_the_move_s_message(alice, bob) -> None:
    game = opened([alice, bob])
    before = snapshot(game)
    with pytest.raises(rules.IllegalMove) as refused:
        queue(game, 0, [("L8", "S"), ("M8", "Z")])
    assert refused.value.code == "not-in-hand"
    assert refused.value.message_en == "You do not hold enough Z tiles in your hand."
    assert not QueuedMove.objects.exists() and snapshot(game) == before


def test_a_placement_illegal_only_for_now_may_be_queued(alice, bob) -> None:
    """Not touching any tile yet: the others' moves may reach it."""
    game = opened([alice, bob])
    queued = queue(game, 0, [("L10", "S"), ("M10", "I")])
    assert queued.waiting and queued.notation == "L10=S M10=I"


def test_the_player_to_move_cannot_queue(alice, bob) -> None:
    game = opened([alice, bob])
    with pytest.raises(GameError) as refused:
        queue(game, 1, [("L8", "E")])
    assert refused.value.code == "your-turn"


def test_a_page_older_than_the_game_cannot_queue(alice, bob) -> None:
    game = opened([alice, bob])
    with pytest.raises(GameError) as refused:
        services.queued_move_set(
            game_id=game.pk,
            player=seat_at(game, 0).player,
            version=0,
            move=rules.Place(0, (("L8", "S"),)),
        )
    assert refused.value.code == "moved-on"


# --- changed, cancelled, never twice ----------------------------------------------------


def test_a_queued_move_can_be_changed_until_the_turn(alice, bob) -> None:
    game = opened([alice, bob])
    queue(game, 0, [("L8", "S")], keep="unchanged")
    queue(game, 0, [("L8", "E"), ("M8", "A"), ("N8", "U")])  # CHATEAU instead
    assert QueuedMove.objects.count() == 1
    play(game, 1, rules.Pass(1))
    assert last_move(game).words == ["CHATEAU"]


def test_a_cancelled_queued_move_is_not_played(alice, bob) -> None:
    game = opened([alice, bob])
    queue(game, 0, [("L8", "S")])
    first = seat_at(game, 0).player
    assert services.queued_move_cancel(game_id=game.pk, player=first) is True
    assert services.queued_move_cancel(game_id=game.pk, player=first) is False
    play(game, 1, rules.Pass(1))
    game.refresh_from_db()
    assert game.move_count == 2 and game.to_move == seat_at(game, 0)


def test_a_move_not_played_is_dropped_once_the_player_moves(alice, bob) -> None:
    game = opened([alice, bob])
    queue(game, 0, [("L8", "S")])
    play(game, 1, rules.Place(1, (("L8", "S"),)))
    play(game, 0, rules.Pass(0))
    assert not QueuedMove.objects.exists()


def test_never_played_after_a_resignation(alice, bob, carol) -> None:
    game = rig(start_game([alice, bob, carol]), (*HANDS, "LEPOTIERMANU"))
    play(game, 0, CHAT)
    queue(game, 0, [("L8", "S")])
    services.game_resign(game_id=game.pk, player=seat_at(game, 0).player)
    assert not QueuedMove.objects.exists()
    play(game, 1, rules.Pass(1))
    play(game, 2, rules.Pass(2))
    assert not game.moves.filter(seat__position=0, kind="place", number__gt=1).exists()


def test_never_played_after_an_annulment(alice, bob, staff_member) -> None:
    game = opened([alice, bob])
    queue(game, 0, [("L8", "S")])
    services.game_annul(game_id=game.pk, by=staff_member, reason="test")
    assert not QueuedMove.objects.exists()


def test_a_deleted_account_takes_its_queued_move(alice, bob, carol) -> None:
    game = rig(start_game([alice, bob, carol]), (*HANDS, "LEPOTIERMANU"))
    play(game, 0, CHAT)
    queue(game, 0, [("L8", "S")])
    user_delete(user=seat_at(game, 0).player)
    assert not QueuedMove.objects.exists()


def test_the_end_of_the_game_drops_every_queued_move(alice, bob, carol) -> None:
    game = rig(start_game([alice, bob, carol]), (*HANDS, "LEPOTIERMANU"))
    play(game, 0, CHAT)
    queue(game, 0, [("L8", "S")])
    services.game_resign(game_id=game.pk, player=seat_at(game, 1).player)
    services.game_resign(game_id=game.pk, player=seat_at(game, 2).player)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and not QueuedMove.objects.exists()


def test_a_computer_never_queues(alice) -> None:
    game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    game.refresh_from_db()
    bot = next(s.player for s in game.seat_list() if s.player.is_computer)
    with pytest.raises(GameError) as refused:
        services.queued_move_set(
            game_id=game.pk,
            player=bot,
            version=game.move_count,
            move=rules.Place(0, (("H8", "A"),)),
        )
    assert refused.value.code == "computer"


# --- hidden information (R-HIDE-1) --------------------------------------------------------


def test_no_one_else_sees_a_queued_move(alice, bob, outsider) -> None:
    game = opened([alice, bob])
    queue(game, 0, [("L8", "E"), ("M8", "A"), ("N8", "U")])
    own = client_as(seat_at(game, 0).player).get(reverse("games:page", args=[game.pk]))
    assert "L8=E,M8=A,N8=U" in own.content.decode()
    for user in (seat_at(game, 1).player, outsider):
        client = client_as(user)
        url = reverse("games:page", args=[game.pk])
        for response in (
            client.get(url),
            client.get(url, {"since": "0"}, HTTP_HX_REQUEST="true"),
        ):
            html = response.content.decode()
            assert "CHATEAU" not in html and "M8=A" not in html and "queued-move" not in html
    assert (
        client_as(seat_at(game, 1).player).get(reverse("games:record", args=[game.pk])).status_code
        == 404
    )


@pytest.fixture
def staff_member(db) -> User:
    return make_player("sophie", is_staff=True)


# --- through the page -------------------------------------------------------------------


def test_queue_change_and_cancel_through_the_page(alice, bob) -> None:
    game = opened([alice, bob])
    client = client_as(seat_at(game, 0).player)
    page = reverse("games:page", args=[game.pk])
    waiting = client.get(page).content.decode()
    assert "Play when my turn comes" in waiting and 'action="/parties/' in waiting
    preview = client.post(
        reverse("games:preview", args=[game.pk]),
        {"version": 1, "action": "place", "placements": "L8=S"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "CHATS" in preview and 'data-ok="true"' in preview  # judged as if it were her turn
    answer = client.post(
        reverse("games:queue", args=[game.pk]),
        {"version": 1, "action": "place", "placements": "L8=S", "keep": "unchanged"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert 'data-queued="L8=S"' in answer and "Only if nothing near it changed" in answer
    assert QueuedMove.objects.get().keep == "unchanged"
    refused = client.post(
        reverse("games:queue", args=[game.pk]),
        {"version": 1, "action": "place", "placements": "L8=S,M8=Z"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "You do not hold enough Z tiles in your hand." in refused
    assert QueuedMove.objects.get().placements == "L8=S"  # the one queued before stays
    cancelled = client.post(reverse("games:queue_cancel", args=[game.pk]), HTTP_HX_REQUEST="true")
    assert "data-queued" not in cancelled.content.decode()
    assert not QueuedMove.objects.exists()


def test_the_player_to_move_gets_the_usual_form(alice, bob) -> None:
    game = opened([alice, bob])
    html = client_as(seat_at(game, 1).player).get(reverse("games:page", args=[game.pk]))
    text = html.content.decode()
    assert "Play when my turn comes" not in text and 'id="play-button"' in text


def test_the_turn_email_s_help_quoted_back_is_never_read_as_a_queued_move(alice, bob) -> None:
    from django.utils import translation

    from games import bridge
    from games.email_board import how_to_answer
    from rules.reply_notation import parse_later_read

    game = opened([alice, bob])
    seen = rules.view(bridge.state_of(Game.objects.get(pk=game.pk)), 0)
    for language in ("fr", "en"):
        with translation.override(language):
            help_text = how_to_answer()
        assert "later" in help_text or "plus tard" in help_text
        assert parse_later_read(help_text, seen) is None
        assert parse_later_read("> " + help_text.replace("\n", "\n> "), seen) is None
