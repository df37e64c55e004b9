"""The services are the only way a game changes; every refusal changes nothing."""

from __future__ import annotations

import random

import pytest
from django.utils import translation

import rules
from games import bridge, services
from games.errors import GameError
from games.models import Game, Invitation, Move, Seat
from rules.randomplay import find_move
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, snapshot, start_game

pytestmark = pytest.mark.django_db

# Hands that let position 0 open with CHAT on H8 (marque: 12 tiles each).
OPENING = ("CHATEAUXSIRN", "LEPOTIERMANU")


def place(*pairs: str) -> rules.Place:
    """``place("H8C", "I8H")`` — the player is set by the service."""
    return rules.Place(0, tuple((p[:-1], p[-1]) for p in pairs))


# --- tables ----------------------------------------------------------------------------


def test_creating_a_table_seats_the_creator(alice) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=3, days_per_move=5)
    assert game.status == Game.Status.OPEN
    assert list(game.seats.values_list("player__username", flat=True)) == ["alice"]
    assert game.word_list == "fr-1"
    assert game.days_per_move == 5


@pytest.mark.parametrize(("mode", "seats"), [("marque", 5), ("marque", 1), ("sans-marque", 9)])
def test_it_refuses_a_number_of_seats_the_mode_does_not_allow(alice, mode, seats) -> None:
    with pytest.raises(GameError) as error:
        services.game_create(creator=alice, mode=mode, seats=seats)
    assert error.value.code == "bad-seats"
    assert not Game.objects.exists()


def test_it_refuses_odd_days_per_move(alice) -> None:
    with pytest.raises(GameError) as error:
        services.game_create(creator=alice, mode="marque", seats=2, days_per_move=4)
    assert error.value.code == "bad-days"
    assert not Game.objects.exists()


def test_an_unconfirmed_address_cannot_create_or_join(alice) -> None:
    newcomer = make_player("newcomer", verified=False)
    with pytest.raises(GameError) as error:
        services.game_create(creator=newcomer, mode="marque", seats=2)
    assert error.value.code == "unverified"
    game = services.game_create(creator=alice, mode="marque", seats=2)
    with pytest.raises(GameError):
        services.game_join(game_id=game.pk, player=newcomer)
    assert game.seats.count() == 1


def test_the_game_starts_when_the_last_seat_is_taken(alice, bob) -> None:
    game = start_game([alice, bob])
    seats = list(game.seats.order_by("position"))
    assert [s.position for s in seats] == [0, 1]
    assert all(len(s.hand) == 12 for s in seats)  # R-SETUP-4
    assert game.to_move == seats[0]
    assert game.first_player_draw, "the first-player draw is recorded (R-SETUP-1)"
    drawn_by = {seat_pk for round_ in game.first_player_draw for seat_pk, _tile in round_}
    assert drawn_by == {s.pk for s in seats}
    state = bridge.state_of(game)
    assert len(state.reserve) == 112 - 24


def test_sans_marque_deals_by_the_number_of_players(alice, bob, carol) -> None:
    game = start_game([alice, bob, carol], mode="sans-marque")
    assert sorted(len(s.hand) for s in game.seats.all()) == [32, 32, 32]  # R-SETUP-4


def test_joining_twice_a_full_or_started_table_is_refused(alice, bob, carol) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=2)
    with pytest.raises(GameError) as error:
        services.game_join(game_id=game.pk, player=alice)
    assert error.value.code == "already-seated"
    services.game_join(game_id=game.pk, player=bob, rng=random.Random(2))
    before = snapshot(game)
    with pytest.raises(GameError) as error:
        services.game_join(game_id=game.pk, player=carol)
    assert error.value.code == "not-open"
    assert snapshot(game) == before


def test_an_invitation_only_table_admits_only_the_invited(alice, bob, carol) -> None:
    game = services.game_create(
        creator=alice, mode="marque", seats=3, invitation_only=True, invitees=[bob]
    )
    with pytest.raises(GameError) as error:
        services.game_join(game_id=game.pk, player=carol)
    assert error.value.code == "invitation-only"
    services.game_join(game_id=game.pk, player=bob)
    assert Invitation.objects.get(invitee=bob).status == Invitation.Status.ACCEPTED


def test_a_seated_player_can_invite_and_an_outsider_cannot(alice, bob, carol, outsider) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=3)
    services.game_invite(game_id=game.pk, by=alice, invitee=bob)
    with pytest.raises(GameError) as error:
        services.game_invite(game_id=game.pk, by=outsider, invitee=carol)
    assert error.value.code == "not-a-player"
    assert list(game.invitations.values_list("invitee__username", flat=True)) == ["bob"]


def test_leaving_before_the_start_frees_the_seat(alice, bob) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=3)
    services.game_join(game_id=game.pk, player=bob)
    services.game_leave(game_id=game.pk, player=bob)
    assert list(game.seats.values_list("player__username", flat=True)) == ["alice"]


def test_the_creator_leaving_closes_the_table(alice, bob) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=3)
    services.game_join(game_id=game.pk, player=bob)
    services.game_leave(game_id=game.pk, player=alice)
    assert not Game.objects.filter(pk=game.pk).exists()


def test_nobody_can_leave_a_running_game_except_by_resigning(alice, bob) -> None:
    game = start_game([alice, bob])
    with pytest.raises(GameError) as error:
        services.game_leave(game_id=game.pk, player=bob)
    assert error.value.code == "not-open"


def test_the_creator_starts_the_table_with_two_players(alice, bob, carol) -> None:
    game = services.game_create(creator=alice, mode="sans-marque", seats=4)
    with pytest.raises(GameError) as error:
        services.game_start(game_id=game.pk, by=alice)
    assert error.value.code == "too-few"
    services.game_join(game_id=game.pk, player=bob)
    with pytest.raises(GameError) as error:
        services.game_start(game_id=game.pk, by=bob)
    assert error.value.code == "not-creator"
    services.game_start(game_id=game.pk, by=alice, rng=random.Random(3))
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    assert game.seats_wanted == 2
    assert sorted(len(s.hand) for s in game.seats.all()) == [40, 40]


# --- moves -------------------------------------------------------------------------------


def test_a_legal_placement_is_played_and_kept(alice, bob) -> None:
    game = rig(start_game([alice, bob]), OPENING)
    first = seat_at(game, 0)
    move = services.move_submit(
        game_id=game.pk,
        player=first.player,
        version=0,
        move=place("H8C", "I8H", "J8A", "K8T"),
        rng=random.Random(0),
    )
    game.refresh_from_db()
    assert (move.number, move.kind, move.words, move.notation) == (1, "place", ["CHAT"], "H8→ CHAT")
    assert len(move.tiles_drawn) == 4  # marque refill (R-PLACE-8)
    assert game.move_count == 1
    assert game.to_move == seat_at(game, 1)
    first.refresh_from_db()
    assert len(first.hand) == 12
    assert bridge.state_of(game).board.count(".") == 225 - 4


def test_an_illegal_move_is_refused_with_the_rule_and_changes_nothing(alice, bob) -> None:
    game = rig(start_game([alice, bob]), OPENING)
    first = seat_at(game, 0)
    before = snapshot(game)
    with pytest.raises(rules.IllegalMove) as error:
        services.move_submit(
            game_id=game.pk, player=first.player, version=0, move=place("H8C", "I8H", "J8X")
        )
    assert error.value.rule in {"R-HAND-1", "R-PLACE-4"}
    assert snapshot(game) == before


def test_a_non_word_is_refused_naming_the_word(alice, bob) -> None:
    game = rig(start_game([alice, bob]), OPENING)
    first = seat_at(game, 0)
    with pytest.raises(rules.IllegalMove) as error:
        services.move_submit(
            game_id=game.pk, player=first.player, version=0, move=place("H8H", "I8C", "J8A")
        )
    assert error.value.code == "not-a-word"
    assert "HCA" in error.value.message("fr")


def test_a_move_number_already_taken_is_refused_as_the_game_having_moved_on(alice, bob) -> None:
    # Another process wrote move 1 after this one read the game at version 0: the
    # database's unique move number refuses the second, and the player is told.
    game = rig(start_game([alice, bob]), OPENING)
    first = seat_at(game, 0)
    Move.objects.create(game=game, number=1, seat=first, kind="pass", notation="-", record={})
    before = snapshot(game)
    with pytest.raises(GameError) as error:
        services.move_submit(
            game_id=game.pk, player=first.player, version=0, move=place("H8C", "I8H", "J8A", "K8T")
        )
    assert error.value.code == "moved-on"
    assert snapshot(game) == before


def test_playing_out_of_turn_is_refused(alice, bob) -> None:
    game = rig(start_game([alice, bob]), OPENING)
    second = seat_at(game, 1)
    before = snapshot(game)
    with pytest.raises(rules.IllegalMove) as error:
        services.move_submit(game_id=game.pk, player=second.player, version=0, move=rules.Pass(0))
    assert error.value.rule == "R-TURN-1"
    assert snapshot(game) == before


def test_a_stale_or_double_submission_plays_once(alice, bob) -> None:
    game = rig(start_game([alice, bob]), OPENING)
    first = seat_at(game, 0)
    services.move_submit(
        game_id=game.pk, player=first.player, version=0, move=place("H8C", "I8H", "J8A", "K8T")
    )
    before = snapshot(game)
    with pytest.raises(GameError) as error:
        services.move_submit(
            game_id=game.pk, player=first.player, version=0, move=place("H8C", "I8H", "J8A", "K8T")
        )
    assert error.value.code == "moved-on"
    with translation.override("en"):
        assert "moved on" in str(error.value.message)
    with translation.override("fr"):
        assert "La partie a avancé" in str(error.value.message)
    assert snapshot(game) == before


def test_an_outsider_cannot_move(alice, bob, outsider) -> None:
    game = start_game([alice, bob])
    with pytest.raises(GameError) as error:
        services.move_submit(game_id=game.pk, player=outsider, version=0, move=rules.Pass(0))
    assert error.value.code == "not-a-player"


def test_exchange_and_pass_are_turns(alice, bob) -> None:
    game = rig(start_game([alice, bob]), OPENING)
    first, second = seat_at(game, 0), seat_at(game, 1)
    exchange = services.move_submit(
        game_id=game.pk, player=first.player, version=0, move=rules.Exchange(0, "XN")
    )
    assert (exchange.kind, exchange.notation, len(exchange.tiles_drawn)) == (
        "exchange",
        "Échange 2",
        2,
    )
    passed = services.move_submit(
        game_id=game.pk, player=second.player, version=1, move=rules.Pass(0)
    )
    assert (passed.kind, passed.notation) == ("pass", "Passe")
    game.refresh_from_db()
    assert game.to_move == first


def test_preview_judges_without_saving(alice, bob) -> None:
    game = rig(start_game([alice, bob]), OPENING)
    first = seat_at(game, 0)
    before = snapshot(game)
    good = services.move_preview(
        game_id=game.pk, player=first.player, version=0, move=place("H8C", "I8H", "J8A", "K8T")
    )
    assert good.ok and good.words == ("CHAT",)
    bad = services.move_preview(
        game_id=game.pk, player=first.player, version=0, move=place("I8C", "J8H")
    )
    assert not bad.ok and bad.rule == "R-PLACE-2" and bad.message
    assert snapshot(game) == before


@pytest.mark.parametrize(
    ("hand", "returns", "effect"),
    [
        ("ABAISSAIQ", "Q", "Red devil on O8: give back one tile"),
        ("ABAISSAI", "", "Red devil on O8: nothing to give back, your hand is empty"),
    ],
)
def test_the_preview_of_a_red_devil_says_what_it_asks_for_sans_marque(
    alice, bob, hand, returns, effect
) -> None:
    """R-PLACE-7: one tile back while tiles are left, nothing once the hand is empty."""
    game = rig(start_game([alice, bob], mode="sans-marque"), (hand, "ROTSNEL"))
    abaissai = place("H8A", "I8B", "J8A", "K8I", "L8S", "M8S", "N8A", "O8I")
    with translation.override("en"):
        preview = services.move_preview(
            game_id=game.pk,
            player=seat_at(game, 0).player,
            version=0,
            move=rules.Place(0, abaissai.tiles, returns=returns),
        )
    assert preview.ok and preview.goes_out and preview.devils == (effect,)
    assert preview.returns_needed == len(returns)


def test_resigning_in_a_two_player_game_ends_it(alice, bob) -> None:
    game = rig(start_game([alice, bob]), OPENING)
    second = seat_at(game, 1)
    move = services.game_resign(game_id=game.pk, player=second.player)  # not in turn: allowed
    game.refresh_from_db()
    assert move.kind == "resign" and move.notation == "Abandon"
    assert game.status == Game.Status.FINISHED and game.end == "last-player"
    winner, loser = seat_at(game, 0), seat_at(game, 1)
    assert winner.is_winner and not loser.is_winner
    assert (winner.rank, loser.rank) == (1, 2)
    assert loser.status == Seat.Status.RESIGNED
    with pytest.raises(GameError) as error:
        services.move_submit(game_id=game.pk, player=winner.player, version=1, move=rules.Pass(0))
    assert error.value.code == "not-running"


def test_a_three_player_game_goes_on_after_a_resignation(alice, bob, carol) -> None:
    game = start_game([alice, bob, carol])
    services.game_resign(game_id=game.pk, player=seat_at(game, 1).player)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    services.move_submit(
        game_id=game.pk, player=seat_at(game, 0).player, version=1, move=rules.Pass(0)
    )
    game.refresh_from_db()
    assert game.to_move == seat_at(game, 2), "the resigned seat is skipped (R-END-4)"


def test_a_timeout_applies_only_to_the_player_to_move(alice, bob, carol) -> None:
    game = start_game([alice, bob, carol])
    assert services.game_timeout(game_id=game.pk, seat_id=seat_at(game, 1).pk) is None
    move = services.game_timeout(game_id=game.pk, seat_id=seat_at(game, 0).pk)
    assert move is not None and move.kind == "timeout"
    assert seat_at(game, 0).status == Seat.Status.TIMED_OUT


def test_chat_is_for_seated_players_and_limited(alice, bob, outsider) -> None:
    game = start_game([alice, bob])
    services.chat_post(game_id=game.pk, author=alice, text="  Bonne partie !  ")
    assert list(game.chat_messages.values_list("text", flat=True)) == ["Bonne partie !"]
    with pytest.raises(GameError):
        services.chat_post(game_id=game.pk, author=outsider, text="hello")
    with pytest.raises(GameError) as error:
        services.chat_post(game_id=game.pk, author=alice, text="x" * 501)
    assert error.value.code == "chat-long"
    for _ in range(5):
        services.chat_post(game_id=game.pk, author=alice, text="encore")
    with pytest.raises(GameError) as error:
        services.chat_post(game_id=game.pk, author=alice, text="trop")
    assert error.value.code == "chat-fast"


# --- the state is a cache of the moves -------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "n_players", "seed"),
    [
        ("marque", 2, 1),
        ("marque", 3, 5),
        ("marque", 4, 2),
        ("sans-marque", 2, 3),
        ("sans-marque", 3, 7),
        ("sans-marque", 5, 4),
        ("sans-marque", 8, 6),
    ],
)
def test_replaying_the_moves_gives_the_stored_state(mode, n_players, seed) -> None:
    players = [make_player(f"p{seed}x{k}") for k in range(n_players)]
    game = start_game(players, mode=mode, seed=seed)
    rng = random.Random(seed)
    by_position = {s.position: s.player for s in game.seats.all()}
    for _ in range(400):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        state = bridge.state_of(game)
        move = find_move(state, rng)
        services.move_submit(
            game_id=game.pk,
            player=by_position[state.turn],
            version=game.move_count,
            move=move,
            rng=rng,
        )
    game.refresh_from_db()
    states = bridge.replay(game)
    assert rules.state_to_dict(states[-1]) == game.state
    assert len(states) == game.move_count + 1
    assert Move.objects.filter(game=game).count() == game.move_count


# --- annulment -------------------------------------------------------------------------


def test_staff_can_annul_a_running_game_and_the_game_says_why_and_by_whom(alice, bob) -> None:
    game = start_game([alice, bob])
    staff = make_player("modo", is_staff=True)
    services.game_annul(game_id=game.pk, by=staff, reason="Comptes jumeaux")
    game.refresh_from_db()
    assert game.status == Game.Status.ANNULLED
    assert game.annulled_reason == "Comptes jumeaux"
    assert game.annulled_by == staff
    assert game.annulled_at is not None
    assert game.to_move is None


def test_annulling_tells_listeners_whether_the_game_had_finished(alice, bob) -> None:
    from games.signals import game_annulled

    heard = []

    def listener(sender, game, was_finished, **kwargs):
        heard.append((game.pk, was_finished))

    game = start_game([alice, bob])
    services.game_resign(game_id=game.pk, player=bob)
    game_annulled.connect(listener)
    try:
        services.game_annul(game_id=game.pk, by=make_player("modo", is_staff=True), reason="x")
    finally:
        game_annulled.disconnect(listener)
    assert heard == [(game.pk, True)]


def test_finishing_a_game_tells_listeners_once(alice, bob) -> None:
    from games.signals import game_finished

    heard = []

    def listener(sender, game, **kwargs):
        heard.append((game.pk, game.status))

    game = start_game([alice, bob])
    game_finished.connect(listener)
    try:
        services.game_resign(game_id=game.pk, player=bob)
    finally:
        game_finished.disconnect(listener)
    assert heard == [(game.pk, Game.Status.FINISHED)]


@pytest.mark.parametrize("finished", [False, True])
def test_a_staff_member_cannot_annul_a_game_they_play_in_and_nothing_changes(bob, finished) -> None:
    seated_staff = make_player("modo-joueur", is_staff=True)
    game = start_game([seated_staff, bob])
    if finished:
        services.game_resign(game_id=game.pk, player=seated_staff)
    before = snapshot(game)
    with pytest.raises(GameError) as error:
        services.game_annul(game_id=game.pk, by=seated_staff, reason="Je perdais")
    assert (error.value.code, error.value.status) == ("own-game", 403)
    assert snapshot(game) == before
    other_staff = make_player("autre-modo", is_staff=True)
    services.game_annul(game_id=game.pk, by=other_staff, reason="Entente")
    game.refresh_from_db()
    assert game.status == Game.Status.ANNULLED


def test_a_player_cannot_annul_a_game_and_nothing_changes(alice, bob) -> None:
    game = start_game([alice, bob])
    before = snapshot(game)
    with pytest.raises(GameError) as error:
        services.game_annul(game_id=game.pk, by=alice, reason="je perds")
    assert error.value.code == "not-staff"
    assert snapshot(game) == before


@pytest.mark.parametrize("reason", ["", "   "])
def test_an_annulment_needs_a_reason(alice, bob, reason) -> None:
    game = start_game([alice, bob])
    before = snapshot(game)
    with pytest.raises(GameError) as error:
        services.game_annul(game_id=game.pk, by=make_player("modo", is_staff=True), reason=reason)
    assert error.value.code == "no-reason"
    assert snapshot(game) == before


def test_an_open_table_cannot_be_annulled(alice) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=2)
    with pytest.raises(GameError) as error:
        services.game_annul(game_id=game.pk, by=make_player("modo", is_staff=True), reason="x")
    assert error.value.code == "not-annullable"
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN
