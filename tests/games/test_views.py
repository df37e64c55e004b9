"""The game pages for the player to move, another player, an outsider and an anonymous visitor."""

from __future__ import annotations

import random
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse, set_script_prefix

import rules
from benchmarks.web.page import form_fields
from games import bridge, services
from games.models import Game
from rules.randomplay import find_move
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, snapshot, start_game
from tests.games.played import play_game

pytestmark = pytest.mark.django_db

# Distinct hands: position 0 holds no K, W, Y or Z, position 1 holds them all.
HANDS = ("CHATEAUXSIRN", "KWYZEPOTMLUE")


def hand_tiles(html: str) -> list[str]:
    """The letters of the hand tiles a page shows."""
    return re.findall(r'class="tile hand-tile[^"]*" data-index="\d+" data-letter="(.)"', html)


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def game(alice, bob):
    return rig(start_game([alice, bob]), HANDS)


def test_the_player_to_move_sees_the_board_and_only_their_own_hand(game) -> None:
    first, second = seat_at(game, 0), seat_at(game, 1)
    response = client_for(first.player).get(reverse("games:page", args=[game.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert sorted(hand_tiles(html)) == sorted(HANDS[0])
    assert html.count('role="gridcell"') == 225
    assert 'aria-label="H8, ' in html
    assert second.hand not in html


def test_another_player_sees_their_own_hand_not_the_mover_s(game) -> None:
    second = seat_at(game, 1)
    html = client_for(second.player).get(reverse("games:page", args=[game.pk])).content.decode()
    assert sorted(hand_tiles(html)) == sorted(HANDS[1])


def test_a_spectator_sees_no_hand_at_all(game, outsider) -> None:
    html = client_for(outsider).get(reverse("games:page", args=[game.pk])).content.decode()
    assert hand_tiles(html) == []
    assert 'id="move-form"' not in html


def test_an_anonymous_visitor_is_sent_to_log_in(game) -> None:
    response = Client().get(reverse("games:page", args=[game.pk]))
    assert response.status_code == 302
    assert reverse("account_login") in response["Location"]


def test_no_page_or_fragment_reveals_another_hand_or_the_reserve(game, outsider) -> None:
    """R-HIDE-1: nothing reachable before the end names the other hand's or the reserve's tiles."""
    first = seat_at(game, 0)
    services.move_submit(
        game_id=game.pk,
        player=first.player,
        version=0,
        move=rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "T"))),
    )
    game.refresh_from_db()
    state = rules.state_from_dict(game.state, rules.make_config("marque", words="fr"))
    reserve = "".join(state.reserve)
    for user in (first.player, outsider):
        client = client_for(user)
        pages = [
            client.get(reverse("games:page", args=[game.pk])),
            client.get(
                reverse("games:page", args=[game.pk]), {"since": "0"}, HTTP_HX_REQUEST="true"
            ),
        ]
        for response in pages:
            html = response.content.decode()
            assert "KWYZ" not in html and reserve not in html
            assert "KWYZEPOTMLUE" not in html
            assert not ({"K", "W", "Y", "Z"} & set(hand_tiles(html)))
        assert client.get(reverse("games:record", args=[game.pk])).status_code == 404


def test_no_page_fragment_or_replay_reveals_another_player_s_queued_move(game, outsider) -> None:
    """R-HIDE-1: a queued move (issue #36) is made from its player's hand: only they see it."""
    first, second = seat_at(game, 0), seat_at(game, 1)
    services.move_submit(
        game_id=game.pk,
        player=first.player,
        version=0,
        move=rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "T"))),
    )
    services.queued_move_set(
        game_id=game.pk, player=first.player, version=1, move=rules.Place(0, (("L8", "S"),))
    )
    url = reverse("games:page", args=[game.pk])
    own = client_for(first.player).get(url).content.decode()
    assert 'data-queued="L8=S"' in own and "(CHAT)S" in own
    for user in (second.player, outsider):
        client = client_for(user)
        for response in (
            client.get(url),
            client.get(url, {"since": "0"}, HTTP_HX_REQUEST="true"),
            client.get(reverse("games:replay", args=[game.pk])),
        ):
            text = response.content.decode()
            assert "L8=S" not in text and "(CHAT)S" not in text and "data-queued" not in text


def test_the_poll_answers_204_when_nothing_changed(game) -> None:
    client = client_for(seat_at(game, 1).player)
    url = reverse("games:page", args=[game.pk])
    since = {"since": "0.running.0", "chat": "0"}  # selectors.live_token, the chat's count
    assert client.get(url, since, HTTP_HX_REQUEST="true").status_code == 204
    services.move_submit(
        game_id=game.pk, player=seat_at(game, 0).player, version=0, move=rules.Pass(0)
    )
    response = client.get(url, since, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert 'id="game-area"' in response.content.decode()


def test_playing_through_the_page(game) -> None:
    client = client_for(seat_at(game, 0).player)
    response = client.post(
        reverse("games:play", args=[game.pk]),
        {"version": 0, "action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"},
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.move_count == 1
    assert list(game.moves.values_list("notation", flat=True)) == ["H8→ CHAT"]


def test_an_illegal_move_through_the_page_shows_the_reason_and_changes_nothing(game) -> None:
    client = client_for(seat_at(game, 0).player)
    before = snapshot(game)
    response = client.post(
        reverse("games:play", args=[game.pk]),
        {"version": 0, "action": "place", "placements": "H8=H,I8=C,J8=A"},
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    html = response.content.decode()
    assert "HCA" in html and 'role="alert"' in html
    assert snapshot(game) == before


def test_a_double_submit_through_the_page_plays_once(game) -> None:
    client = client_for(seat_at(game, 0).player)
    data = {"version": 0, "action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"}
    client.post(reverse("games:play", args=[game.pk]), data)
    response = client.post(reverse("games:play", args=[game.pk]), data, follow=True)
    assert "moved on" in response.content.decode() or "avancé" in response.content.decode()
    assert Game.objects.get(pk=game.pk).move_count == 1


def test_the_preview_shows_words_or_the_broken_rule(game) -> None:
    client = client_for(seat_at(game, 0).player)
    url = reverse("games:preview", args=[game.pk])
    good = client.post(
        url,
        {"version": 0, "action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"},
        HTTP_HX_REQUEST="true",
    )
    assert "CHAT" in good.content.decode() and 'data-ok="true"' in good.content.decode()
    bad = client.post(
        url,
        {"version": 0, "action": "place", "placements": "I8=C,J8=H"},
        HTTP_HX_REQUEST="true",
    )
    assert 'data-ok="false"' in bad.content.decode()
    assert Game.objects.get(pk=game.pk).move_count == 0


def test_an_outsider_cannot_act_in_a_game(game, outsider) -> None:
    client = client_for(outsider)
    before = snapshot(game)
    response = client.post(
        reverse("games:play", args=[game.pk]),
        {"version": 0, "action": "pass"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 403
    assert (
        client.post(reverse("games:resign", args=[game.pk]), HTTP_HX_REQUEST="true").status_code
        == 403
    )
    assert client.post(reverse("games:chat", args=[game.pk]), {"text": "hi"}).status_code == 404
    assert snapshot(game) == before


def test_every_post_needs_the_csrf_token(game) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(seat_at(game, 0).player)
    response = client.post(reverse("games:play", args=[game.pk]), {"version": 0, "action": "pass"})
    assert response.status_code == 403
    assert Game.objects.get(pk=game.pk).move_count == 0


def test_the_finished_game_reveals_hands_and_offers_the_record(game) -> None:
    services.game_resign(game_id=game.pk, player=seat_at(game, 1).player)
    client = client_for(seat_at(game, 0).player)
    html = client.get(reverse("games:page", args=[game.pk])).content.decode()
    assert "KWYZEPOTMLUE" in html or all(ch in html for ch in "KWYZ")
    record = client.get(reverse("games:record", args=[game.pk]))
    assert record.status_code == 200
    document = record.json()
    assert document["format"] == "diamino-record/1"
    judgement = rules.record.judge_document(document)
    assert judgement["over"] and judgement["end"] == "last-player"
    assert judgement["winners"] == [0]


@pytest.mark.parametrize("moves", [0, 100])
def test_the_game_page_query_count_does_not_grow_with_moves(
    game, moves, django_assert_max_num_queries
) -> None:
    players = {s.position: s.player for s in game.seats.all()}
    for number in range(moves):
        services.move_submit(
            game_id=game.pk,
            player=players[number % 2],
            version=number,
            move=rules.Exchange(0, seat_at(game, number % 2).hand[0]),
        )
    client = client_for(players[0])
    with django_assert_max_num_queries(14):
        response = client.get(reverse("games:page", args=[game.pk]))
    assert response.status_code == 200


def _sql(queries) -> list[str]:
    """The statements that touch the game's tables (not the test's savepoints)."""
    return [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]


def test_a_move_through_htmx_reads_the_game_once_and_writes_only_what_changed(game) -> None:
    client = client_for(seat_at(game, 0).player)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            reverse("games:play", args=[game.pk]),
            {"version": 0, "action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 200 and 'data-version="1"' in response.content.decode()
    sql = _sql(queries)
    assert sum('FROM "games_game"' in q for q in sql) == 1  # the locked read, nothing else
    assert sum(q.startswith('UPDATE "games_seat"') for q in sql) == 1  # only the mover's seat
    assert not any("games_chatmessage" in q for q in sql)  # the fragment shows no chat
    assert sum('FROM "games_seat"' in q for q in sql) == 1  # read under the lock, then reused


# A placement in a game 12 moves in, through htmx as the page sends it, answered
# with the new game area: the session and the user (2); under the game's lock, the
# game and its seats with their players (2), the move, the mover's seat and the
# game written (3); the next player's "your turn" row, after checking their address,
# inserted in a savepoint so that a key already written leaves the move standing (4);
# the game area's moves and vacations (2). Plus the test's own savepoint and its
# release (2), which stand for the request's BEGIN and COMMIT.
MOVE_QUERIES = 15


def _placement_changing_the_mover_alone(state: rules.GameState, seed: int) -> rules.Place:
    """A random placement that changes the mover's hand, and no other seat, drawing with ``seed``.

    So exactly one seat is written: not a green devil (+5 points to every other
    player, their seats written), nor a draw giving back the very hand.
    """
    turn = state.turn
    rng = random.Random(seed)
    for _ in range(500):
        move = find_move(state, rng)
        if not isinstance(move, rules.Place):
            continue
        after, _events = rules.apply(state, move, rng=random.Random(seed))
        others_same = all(
            (after.hands[p], after.scores[p]) == (state.hands[p], state.scores[p])
            for p in range(state.n_players)
            if p != turn
        )
        if after.result is None and others_same and after.hands[turn] != state.hands[turn]:
            return move
    raise AssertionError("no such placement found")


@pytest.mark.parametrize("players", [2, 4])
def test_a_mid_game_placement_costs_a_fixed_number_of_queries(
    players, django_assert_num_queries, monkeypatch
) -> None:
    game = play_game([make_player(f"player{k}") for k in range(players)], moves=12)
    state = bridge.state_of(game)
    move = _placement_changing_the_mover_alone(state, seed=7)
    monkeypatch.setattr("games.services.moves.system_rng", lambda: random.Random(7))
    mover = next(s.player for s in game.seats.all() if s.position == state.turn)
    client = client_for(mover)
    with django_assert_num_queries(MOVE_QUERIES):
        response = client.post(
            reverse("games:play", args=[game.pk]),
            form_fields(move, game.move_count),
            HTTP_HX_REQUEST="true",
        )
    assert f'data-version="{game.move_count + 1}"' in response.content.decode()


def test_a_pass_writes_no_seat(game) -> None:
    client = client_for(seat_at(game, 0).player)
    with CaptureQueriesContext(connection) as queries:
        client.post(
            reverse("games:play", args=[game.pk]),
            {"version": 0, "action": "pass"},
            HTTP_HX_REQUEST="true",
        )
    assert not any(q.startswith('UPDATE "games_seat"') for q in _sql(queries))
    assert Game.objects.get(pk=game.pk).move_count == 1


def test_a_move_to_a_missing_game_is_a_404(alice) -> None:
    response = client_for(alice).post(
        reverse("games:play", args=[999]), {"version": 0, "action": "pass"}
    )
    assert response.status_code == 404


def test_the_poll_s_fragment_does_not_read_the_chat(game) -> None:
    services.move_submit(
        game_id=game.pk, player=seat_at(game, 0).player, version=0, move=rules.Pass(0)
    )
    client = client_for(seat_at(game, 1).player)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(
            reverse("games:page", args=[game.pk]), {"since": "0"}, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200
    assert not any("games_chatmessage" in q for q in _sql(queries))


def test_lobby_lists_open_public_tables(alice, bob) -> None:
    public = services.game_create(creator=alice, mode="marque", seats=3)
    private = services.game_create(creator=alice, mode="marque", seats=2, invitation_only=True)
    html = client_for(bob).get(reverse("games:lobby")).content.decode()
    assert reverse("games:page", args=[public.pk]) in html
    assert reverse("games:page", args=[private.pk]) not in html


def test_creating_a_table_from_the_lobby(alice) -> None:
    response = client_for(alice).post(
        reverse("games:create"),
        {"mode": "sans-marque", "seats": 5, "days_per_move": 7, "invite": ""},
    )
    game = Game.objects.get()
    assert response["Location"] == reverse("games:page", args=[game.pk])
    assert (game.mode, game.seats_wanted, game.days_per_move) == ("sans-marque", 5, 7)


def test_creating_a_table_with_bad_input_says_why(alice) -> None:
    response = client_for(alice).post(
        reverse("games:create"),
        {"mode": "marque", "seats": 6, "days_per_move": 3, "invite": "nobody"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "nobody" in html
    assert not Game.objects.exists()


def test_my_games_puts_my_turn_first_and_the_next_button_goes_there(alice, bob) -> None:
    game = start_game([alice, bob])
    mover = seat_at(game, 0).player
    client = client_for(mover)
    html = client.get(reverse("games:mine")).content.decode()
    assert reverse("games:page", args=[game.pk]) in html
    assert client.get(reverse("games:next"))["Location"] == reverse("games:page", args=[game.pk])
    waiting = client_for(seat_at(game, 1).player)
    assert waiting.get(reverse("games:next"))["Location"] == reverse("games:mine")


def test_check_a_word_folds_and_answers() -> None:
    make_player("checker")
    response = Client().get(reverse("games:check_word"), {"mot": "élève"}, HTTP_HX_REQUEST="true")
    assert "ELEVE" in response.content.decode() and "✓" in response.content.decode()
    response = Client().get(reverse("games:check_word"), {"mot": "chatz"})
    assert "CHATZ" in response.content.decode() and "✗" in response.content.decode()


def test_the_player_page_lists_started_games(game) -> None:
    player = seat_at(game, 0).player
    html = client_for(player).get(reverse("accounts:player", args=[player.username])).content
    assert reverse("games:page", args=[game.pk]) in html.decode()


def test_the_move_list_speaks_the_reader_s_language_and_the_moves_keep_their_notation(
    game,
) -> None:
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    first.language, second.language = "en", "fr"
    first.save()
    second.save()
    services.move_submit(game_id=game.pk, player=first, version=0, move=rules.Exchange(0, "CH"))
    services.move_submit(game_id=game.pk, player=second, version=1, move=rules.Pass(1))
    services.game_resign(game_id=game.pk, player=first)
    page = reverse("games:page", args=[game.pk])

    def notations(user) -> list[str]:
        html = client_for(user).get(page).content.decode()
        return re.findall(r'<code class="move-notation">([^<]*)</code>', html)

    assert notations(first) == ["Exchange 2", "Pass", "Resignation"]
    assert notations(second) == ["Échange 2", "Passe", "Abandon"]
    stored = list(game.moves.order_by("number").values_list("notation", flat=True))
    assert stored == ["Échange 2", "Passe", "Abandon"]  # docs/NOTATION.md


def test_the_tab_title_and_icon_tell_the_player_to_move_it_is_their_turn(game) -> None:
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    page = reverse("games:page", args=[game.pk])
    mine = client_for(first).get(page).content.decode()
    assert f"<title>(À vous) Partie {game.pk} · Diamino</title>" in mine
    assert re.search(r'<link rel="icon" href="[^"]*favicon-turn\.svg" type="image/svg\+xml"', mine)
    theirs = client_for(second).get(page).content.decode()
    assert f"<title>Partie {game.pk} · Diamino</title>" in theirs
    assert re.search(r'<link rel="icon" href="[^"]*/favicon\.svg" type="image/svg\+xml"', theirs)
    # The poll's fragment carries the title and icon the page takes on (static/js/tab.js).
    services.move_submit(game_id=game.pk, player=first, version=0, move=rules.Pass(0))
    fragment = (
        client_for(second)
        .get(f"{page}?since=0.running.0&chat=0", HTTP_HX_REQUEST="true")
        .content.decode()
    )
    assert f'data-tab-title="(À vous) Partie {game.pk} · Diamino"' in fragment
    assert re.search(r'data-favicon="[^"]*favicon-turn\.svg"', fragment)


def test_an_english_page_calls_the_tile_a_joker_never_a_diable(alice, bob) -> None:
    game = rig(start_game([alice, bob]), ("?HATEAUXSIRN", "KWYZEPOTMLUE"))
    first = seat_at(game, 0).player
    first.language = "en"
    first.save()
    html = client_for(first).get(reverse("games:page", args=[game.pk])).content.decode()
    assert (
        'aria-label="joker, 0 points"' in html and "Which letter does the joker stand for?" in html
    )
    # What is left is markup (class names, ids, the "Sort" list's values), never words a
    # player reads.
    words = re.sub(
        r"(is-diable|diable-(dialog|title|hint)|data-t-diable|-diables-(first|last))", "", html
    )
    assert "diable" not in words.lower()


def test_each_game_s_page_links_to_its_own_game(alice, bob) -> None:
    first, second = start_game([alice, bob]), start_game([alice, bob])
    for game, other in ((first, second), (second, first)):
        html = client_for(alice).get(reverse("games:page", args=[game.pk])).content.decode()
        mine = reverse(
            "games:play" if seat_at(game, 0).player == alice else "games:page", args=[game.pk]
        )
        assert f'"{mine}' in html  # the move form, or the poll while waiting
        assert f'action="{reverse("games:chat", args=[game.pk])}"' in html
        assert f'<a href="{reverse("moderation:report", args=[game.pk])}">' in html
        assert f'"/parties/{other.pk}/' not in html


def links(html: str) -> list[str]:
    return re.findall(r'(?:href|action|hx-get|hx-post)="(/[^"]*)"', html)


def test_behind_a_script_prefix_the_page_s_links_carry_it_and_only_there(game) -> None:
    client = client_for(seat_at(game, 0).player)
    page = reverse("games:page", args=[game.pk])
    plain = client.get(page).content.decode()  # first without: nothing kept is reused below
    # What Django's WSGI handler does with a request's SCRIPT_NAME (the test client does not).
    set_script_prefix("/sous/")
    try:
        prefixed = client.get(page).content.decode()
    finally:
        set_script_prefix("/")
    again = client.get(page).content.decode()
    # Not through reverse(): the icon at the site's root, the static files (their storage
    # takes the prefix once), and the board's cached legend (games/page_cache.py).
    ours = [
        url
        for url in links(prefixed)
        if url != "/favicon.ico" and not url.startswith("/static/") and not url.endswith("#cases")
    ]
    assert len(ours) > 15
    assert all(url.startswith("/sous/") for url in ours), ours
    assert "/sous/joueurs/bob/" in ours and f"/sous/parties/{game.pk}/signaler/" in ours
    assert links(again) == links(plain)
    assert not any(url.startswith("/sous") for url in links(again))
