"""Queries compiled once per process (games/compiled.py) give what the ORM gives, for each id.

Each compiled query is run for two games (or players, or moments) in turn,
so that SQL kept with the first one's values would show as the second one's
rows; and each answer is compared with the plain ORM queryset's.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Prefetch
from django.db.models.signals import post_save
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import rules
from accounts.models import Vacation
from games import clock, selectors, services
from games.compiled import CompiledQuery, insert, save_fields
from games.models import ChatMessage, Game, Move, Seat
from games.services import kernel
from tests.games.conftest import start_game

pytestmark = pytest.mark.django_db


def _fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


@pytest.fixture
def games(alice, bob, carol, outsider):
    return start_game([alice, bob]), start_game([carol, outsider, alice])


def test_each_game_gets_its_own_seats_in_play_order_with_their_players(games) -> None:
    for game in (*games, *games):
        fresh = Game.objects.get(pk=game.pk)
        seats = fresh.seat_list()
        orm = list(
            Seat.objects.filter(game=game)
            .select_related("player")
            .order_by("position", "joined_at", "pk")
        )
        assert [_fields(s) for s in seats] == [_fields(s) for s in orm]
        assert [_fields(s.player) for s in seats] == [_fields(s.player) for s in orm]
        with CaptureQueriesContext(connection) as after:
            assert [s.pk for s in fresh.seats.all()] == [s.pk for s in orm]
            assert all(s.game is fresh for s in seats)
            assert [s.player.username for s in fresh.seat_list()] == [
                s.player.username for s in orm
            ]
        assert not after.captured_queries, "the seats, their players and game are read once"


def test_seats_already_prefetched_are_kept(games) -> None:
    game = Game.objects.prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("-position"))
    ).get(pk=games[1].pk)
    with CaptureQueriesContext(connection) as read:
        seats = game.seat_list()
    assert not read.captured_queries
    assert [s.position for s in seats] == [2, 1, 0]


def test_the_game_read_is_the_one_asked_for(games) -> None:
    for game in (*games, *games):
        found = selectors.game_or_none(game.pk)
        assert found is not None
        assert _fields(found) == _fields(Game.objects.get(pk=game.pk))
    assert selectors.game_or_none(max(g.pk for g in games) + 1) is None


def test_vacations_are_each_players_that_end_after_the_moment(alice, bob, carol) -> None:
    now = timezone.now()
    Vacation.objects.create(user=alice, starts_at=now - timedelta(days=5), ends_at=now)
    Vacation.objects.create(
        user=alice, starts_at=now + timedelta(days=1), ends_at=now + timedelta(days=3)
    )
    Vacation.objects.create(
        user=bob, starts_at=now - timedelta(days=1), ends_at=now + timedelta(days=2)
    )
    Vacation.objects.create(
        user=carol, starts_at=now - timedelta(days=9), ends_at=now - timedelta(days=8)
    )

    def orm(ids, since) -> dict:
        found: dict = {}
        for user_id, starts_at, ends_at in Vacation.objects.filter(
            user_id__in=ids, ends_at__gt=since
        ).values_list("user_id", "starts_at", "ends_at"):
            found.setdefault(user_id, []).append((starts_at, ends_at))
        return {k: sorted(v) for k, v in found.items()}

    cases = [
        ([alice.pk], now - timedelta(days=1)),
        ([alice.pk], now + timedelta(hours=1)),
        ([bob.pk], now - timedelta(days=1)),
        ([alice.pk, bob.pk], now - timedelta(days=30)),
        ([alice.pk, bob.pk, carol.pk], now - timedelta(days=30)),
        ([alice.pk, bob.pk, carol.pk], now + timedelta(days=10)),
        ([carol.pk, bob.pk], now),
    ]
    answers = []
    for ids, since in cases:
        got = {k: sorted(v) for k, v in clock.vacations_of(ids, since).items() if v}
        assert got == orm(ids, since), (ids, since)
        answers.append(got)
    assert answers[0] != answers[1], "the moment is a parameter, not kept from the first call"
    assert len(answers[4]) == 3 and answers[5] == {}


def test_the_chat_is_the_games_last_messages_oldest_first_with_their_authors(games) -> None:
    first, second = games
    for k in range(55):
        ChatMessage.objects.create(game=first, author=first.seat_list()[k % 2].player, text=f"a{k}")
    ChatMessage.objects.create(game=second, author=second.seat_list()[0].player, text="b")
    shown = selectors.chat_messages(first)
    assert [m.text for m in shown] == [f"a{k}" for k in range(5, 55)]
    with CaptureQueriesContext(connection) as authors:
        assert [m.author.username for m in shown[:2]] == [
            first.seat_list()[1].player.username,
            first.seat_list()[0].player.username,
        ]
    assert not authors.captured_queries
    assert [m.text for m in selectors.chat_messages(second)] == ["b"]


def test_the_locked_game_is_the_one_asked_for(games) -> None:
    with transaction.atomic():
        for game in (*games, *games):
            assert kernel.locked_game(game.pk).pk == game.pk


@pytest.mark.django_db(transaction=True)
def test_the_game_is_locked_only_in_a_transaction(alice, bob) -> None:
    game = start_game([alice, bob])
    with transaction.atomic():
        assert kernel.locked_game(game.pk).pk == game.pk
    if not connection.features.has_select_for_update:
        pytest.skip("SQLite has no FOR UPDATE")
    with pytest.raises(TransactionManagementError):
        kernel.locked_game(game.pk)


def test_a_query_the_compiled_form_cannot_keep_is_refused(games) -> None:
    with pytest.raises(ValueError):
        CompiledQuery(lambda pk: Game.objects.filter(pk=pk).prefetch_related("seats"), int).list(1)
    with pytest.raises(ValueError):
        CompiledQuery(lambda pk: Game.objects.filter(pk=pk).values("pk"), int).list(1)
    with pytest.raises(ValueError):  # the id is not a parameter of the SQL
        CompiledQuery(lambda pk: Game.objects.all(), int).list(1)


def test_the_move_rows_are_the_games_own_up_to_the_version_asked(games) -> None:
    first, second = games
    for game, count in ((first, 1), (second, 2)):  # never every player: no blocked end
        for _ in range(count):
            game.refresh_from_db()
            seat = next(s for s in game.seat_list() if s.pk == game.to_move_id)
            services.move_submit(
                game_id=game.pk,
                player=seat.player,
                version=game.move_count,
                move=rules.Pass(seat.position),
            )
    columns = (
        "number",
        "seat_id",
        "kind",
        "notation",
        "words",
        "points",
        "created_at",
        "analysis",
        "record",
    )
    for game in (first, second, first):
        game.refresh_from_db()
        for up_to in (game.move_count, 1, 0):
            orm = list(
                Move.objects.filter(game=game, number__lte=up_to)
                .order_by("number")
                .values_list(*columns)
            )
            assert selectors._MOVE_ROWS.list(game.pk, up_to) == orm
            assert len(orm) == min(up_to, game.move_count)


def test_save_fields_writes_those_fields_of_that_row_alone_as_save_does(games) -> None:
    first, second = games
    first_before = _fields(Game.objects.get(pk=first.pk))
    second_before = _fields(Game.objects.get(pk=second.pk))
    first.state = {**first.state, "marker": [1, "é"]}
    first.move_count += 5
    first.turn_extra_days = 2
    first.to_move = first.seat_list()[-1]
    first.end = "not saved"
    save_fields(first, ["state", "move_count", "turn_extra_days", "to_move"])
    after = _fields(Game.objects.get(pk=first.pk))
    assert after == {
        **first_before,
        "state": first.state,
        "move_count": first_before["move_count"] + 5,
        "turn_extra_days": 2,
        "to_move_id": first.seat_list()[-1].pk,
    }
    assert _fields(Game.objects.get(pk=second.pk)) == second_before


def test_save_fields_refuses_a_row_that_is_gone_as_save_does(games) -> None:
    seat = games[0].seat_list()[0]
    Seat.objects.filter(pk=seat.pk).update(score=7)
    seat.pk = 10**9
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        save_fields(seat, ["score"])


def test_save_fields_leaves_a_model_with_listeners_to_save(games) -> None:
    heard = []

    def listener(sender, instance, update_fields, **kwargs) -> None:
        heard.append(set(update_fields))

    post_save.connect(listener, sender=Seat)
    try:
        seat = games[0].seat_list()[0]
        seat.score = 42
        save_fields(seat, ["score"])
    finally:
        post_save.disconnect(listener, sender=Seat)
    assert heard == [{"score"}]
    assert Seat.objects.get(pk=seat.pk).score == 42


def _new_move(game: Game, number: int, **fields) -> Move:
    return Move(
        game=game,
        number=number,
        seat=game.seat_list()[0],
        kind=Move.Kind.PLACE,
        record={"type": "place", "tiles": [["H8", "É"]]},
        notation="H8 É",
        words=["É", "ÉTÉ"],
        tiles_drawn="AB",
        **{"points": 12, **fields},
    )


def test_insert_writes_the_row_save_writes_and_gives_it_its_id(games) -> None:
    first, second = games
    by_orm = _new_move(second, 90)
    by_orm.save()
    row = _new_move(first, 90)
    with CaptureQueriesContext(connection) as queries:
        insert(row)
    assert len(queries) == 1
    assert row.pk is not None and row.pk != by_orm.pk and not row._state.adding
    assert row.created_at is not None  # auto_now_add, as save sets it
    read = _fields(Move.objects.get(pk=row.pk))
    assert read == _fields(row)
    expected = {**_fields(by_orm), "id": row.pk, "game_id": first.pk, "seat_id": row.seat_id}
    assert read == {**expected, "created_at": row.created_at}
    # A second insert is a second row: nothing of the first statement's values is kept.
    other = _new_move(second, 91, points=3)
    insert(other)
    assert Move.objects.get(pk=other.pk).points == 3
    assert Move.objects.get(pk=row.pk).points == 12


def test_insert_raises_djangos_integrity_error_on_a_taken_move_number(games) -> None:
    first, _ = games
    insert(_new_move(first, 90))
    with pytest.raises(IntegrityError), transaction.atomic():
        insert(_new_move(first, 90))
    assert Move.objects.filter(game=first, number=90).count() == 1


def test_insert_leaves_a_model_with_listeners_to_save(games) -> None:
    heard = []

    def listener(sender, instance, created, **kwargs) -> None:
        heard.append(created)

    post_save.connect(listener, sender=Move)
    try:
        row = _new_move(games[0], 90)
        insert(row)
    finally:
        post_save.disconnect(listener, sender=Move)
    assert heard == [True]
    assert Move.objects.get(pk=row.pk).notation == "H8 É"
