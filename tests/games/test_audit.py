"""Check the game: replaying the stored moves finds every stored copy that disagrees."""

from __future__ import annotations

import pytest

import rules
from games import bridge, services
from games.audit import Difference, game_check
from games.models import Game, Move
from tests.factories import make_player
from tests.games.conftest import seat_at
from tests.games.played import play_game

pytestmark = pytest.mark.django_db


def fields(differences: list[Difference]) -> list[str]:
    return [d.field for d in differences]


@pytest.fixture
def game(alice, bob):
    """A game a dozen moves in: placements with draws, so hands and reserve have moved."""
    game = play_game([alice, bob], seed=3, moves=12)
    assert game.move_count == 12 and game.status == Game.Status.RUNNING
    return game


@pytest.mark.parametrize(
    ("mode", "n_players", "seed"),
    [("marque", 2, 3), ("marque", 3, 5), ("sans-marque", 2, 3), ("sans-marque", 4, 4)],
)
def test_a_game_played_to_its_end_is_consistent(mode, n_players, seed) -> None:
    players = [make_player(f"c{seed}x{k}") for k in range(n_players)]
    game = play_game(players, mode=mode, seed=seed, finish=True)
    assert game.status == Game.Status.FINISHED
    assert game_check(game) == []


def test_a_running_game_is_consistent(game) -> None:
    assert game_check(game) == []


def test_an_open_table_has_nothing_to_check(alice) -> None:
    table = services.game_create(creator=alice, mode="marque", seats=2)
    assert game_check(table) == []


def test_an_annulled_game_is_still_consistent(game) -> None:
    services.game_annul(game_id=game.pk, by=make_player("modo", is_staff=True), reason="test")
    game.refresh_from_db()
    assert game_check(game) == []


def test_a_changed_hand_on_a_seat_is_named_with_both_values(game) -> None:
    seat = seat_at(game, 1)
    real = seat.hand
    seat.hand = "ZZZ"
    seat.save(update_fields=["hand"])
    assert game_check(game) == [Difference(f"seat 1 ({seat.player}) hand", f'"{real}"', '"ZZZ"')]


def test_a_changed_square_of_the_stored_board_is_named(game) -> None:
    state = bridge.state_of(game)
    empty = state.board.index(".")
    board = list(state.board)
    board[empty] = "Q"
    game.state["board"] = rules.board_to_text("".join(board), state.config.layout.width)
    game.save(update_fields=["state"])
    square = state.config.layout.name_of(empty)
    assert game_check(game) == [Difference(f"state.board {square}", '"."', '"Q"')]


def test_a_changed_score_is_caught_in_the_state_and_on_the_seat(game) -> None:
    seat = seat_at(game, 0)
    real = seat.score
    game.state["scores"][0] = real + 50
    game.save(update_fields=["state"])
    seat.score = real + 50
    seat.save(update_fields=["score"])
    assert game_check(game) == [
        Difference(f"state.scores seat 0 ({seat.player})", str(real), str(real + 50)),
        Difference(f"seat 0 ({seat.player}) score", str(real), str(real + 50)),
    ]


def test_a_changed_reserve_is_caught(game) -> None:
    reserve = game.state["reserve"]
    game.state["reserve"] = reserve[::-1]
    game.save(update_fields=["state"])
    assert fields(game_check(game)) == ["state.reserve"]


def test_the_last_move_deleted_is_caught(game) -> None:
    game.moves.get(number=12).delete()
    differences = fields(game_check(game))
    assert differences[0] == "move 12"  # missing
    assert "game move_count" in differences
    assert any(f.startswith("state.") for f in differences), "the stored state is one move ahead"


def test_a_move_deleted_in_the_middle_stops_the_replay_at_the_first_illegal_move(game) -> None:
    game.moves.get(number=5).delete()
    differences = game_check(game)
    assert differences[0] == Difference("move 5", '"a stored move"', "null")
    assert differences[1].field == "move 6"
    assert "R-TURN-1" in differences[1].stored  # move 6 is now played out of turn


def test_a_changed_move_row_is_caught_against_the_engine(game) -> None:
    move = game.moves.get(number=3)
    move.points += 7
    move.words = ["TRICHE"]
    move.save(update_fields=["points", "words"])
    differences = game_check(game)
    assert fields(differences) == ["move 3 words", "move 3 points"]
    assert differences[1] == Difference("move 3 points", str(move.points - 7), str(move.points))


def test_a_changed_move_record_that_the_rules_refuse_is_caught(game) -> None:
    move = Move.objects.get(game=game, number=1)
    move.record = {**move.record, "place": [["A1", "Z"]]}
    move.save(update_fields=["record"])
    differences = game_check(game)
    assert fields(differences) == ["move 1"]
    assert differences[0].expected == '"a legal move"'


def test_an_unreadable_deal_is_reported_not_raised(game) -> None:
    game.setup = {"hands": ["ABC"]}
    game.save(update_fields=["setup"])
    differences = game_check(game)
    assert fields(differences) == ["record"]


def test_a_wrong_status_or_turn_on_the_game_row_is_caught(game) -> None:
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, to_move=None)
    game.refresh_from_db()
    assert fields(game_check(game)) == ["game status", "game to_move"]
