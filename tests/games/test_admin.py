"""The games admin: staff look into any game, check it and annul it; nobody else gets in."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from games import selectors, services
from games.models import Game
from games.signals import game_annulled
from moderation.models import Report
from tests.factories import make_player
from tests.games.conftest import seat_at, snapshot, start_game
from tests.games.played import play_game

if TYPE_CHECKING:
    from django.test.client import _MonkeyPatchedWSGIResponse

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:games_game_changelist"


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def texts(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.fixture
def staff(db):
    # English pages, so the assertions read the msgids whatever the French catalogue says.
    return make_player("modo", is_staff=True, language="en")


@pytest.fixture
def game(alice, bob):
    return play_game([alice, bob], seed=3, moves=6)


def annul(client: Client, games, **data) -> _MonkeyPatchedWSGIResponse:
    return client.post(
        reverse(CHANGELIST),
        {"action": "annul_games", ACTION_CHECKBOX_NAME: [g.pk for g in games], **data},
    )


# --- permissions ------------------------------------------------------------------------------


def admin_urls(game: Game) -> list[str]:
    first_move = game.moves.first()
    assert first_move is not None
    return [
        reverse("admin:index"),
        reverse(CHANGELIST),
        reverse("admin:games_game_change", args=[game.pk]),
        reverse("admin:games_game_check", args=[game.pk]),
        reverse("admin:games_game_annul", args=[game.pk]),
        reverse("admin:games_seat_changelist"),
        reverse("admin:games_seat_change", args=[seat_at(game, 0).pk]),
        reverse("admin:games_move_changelist"),
        reverse("admin:games_move_change", args=[first_move.pk]),
        reverse("admin:moderation_report_changelist"),
    ]


def test_staff_can_open_every_games_admin_page(game, staff) -> None:
    client = client_for(staff)
    for url in admin_urls(game):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("who", ["player", "other player", "outsider", "anonymous"])
def test_everyone_else_is_sent_to_the_admin_log_in_page(game, outsider, who) -> None:
    user = {"player": seat_at(game, 0).player, "other player": seat_at(game, 1).player}.get(
        who, outsider
    )
    client = Client() if who == "anonymous" else client_for(user)
    for url in admin_urls(game):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("admin:login") + "?next="), url


@pytest.mark.parametrize("who", ["player", "outsider", "anonymous"])
def test_an_action_posted_by_anyone_else_changes_nothing(game, outsider, who) -> None:
    before = snapshot(game)
    client = {"player": client_for(seat_at(game, 0).player), "outsider": client_for(outsider)}.get(
        who, Client()
    )
    response = annul(client, [game], apply="yes", reason="je perds")
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    response = client.post(reverse("admin:games_game_annul", args=[game.pk]), {"reason": "x"})
    assert response.status_code == 302
    assert snapshot(game) == before


def test_staff_cannot_edit_a_game_or_its_seats_by_hand(game, staff) -> None:
    before = snapshot(game)
    client = client_for(staff)
    html = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert 'name="state"' not in html and 'name="status"' not in html
    assert 'name="seats-0-hand"' not in html
    response = client.post(
        reverse("admin:games_game_change", args=[game.pk]), {"status": "finished"}
    )
    assert response.status_code == 403
    seat = seat_at(game, 0)
    response = client.post(reverse("admin:games_seat_change", args=[seat.pk]), {"hand": "ZZZ"})
    assert response.status_code == 403
    assert client.get(reverse("admin:games_game_add")).status_code == 403
    assert client.get(reverse("admin:games_game_delete", args=[game.pk])).status_code == 403
    assert snapshot(game) == before


# --- the list: filters and search -------------------------------------------------------------


def listed(client: Client, **params) -> set[int]:
    response = client.get(reverse(CHANGELIST), params)
    assert response.status_code == 200
    return {game.pk for game in response.context["cl"].result_list}


def test_the_list_filters_by_status_mode_annulment_and_reports(alice, bob, carol, staff) -> None:
    running = start_game([alice, bob])
    sans = start_game([bob, carol], mode="sans-marque")
    table = services.game_create(creator=carol, mode="marque", seats=2)
    annulled = start_game([alice, carol])
    services.game_annul(game_id=annulled.pk, by=staff, reason="test")
    Report.objects.create(reporter=alice, game=running, reason="cheating", text="aide")
    resolved = Report.objects.create(reporter=bob, game=sans, reason="abuse", text="insultes")
    resolved.status = Report.Status.RESOLVED
    resolved.save()
    client = client_for(staff)
    assert listed(client) == {running.pk, sans.pk, table.pk, annulled.pk}
    assert listed(client, status="open") == {table.pk}
    assert listed(client, mode="sans-marque") == {sans.pk}
    assert listed(client, annulled="yes") == {annulled.pk}
    assert listed(client, annulled="no") == {running.pk, sans.pk, table.pk}
    assert listed(client, reported="open") == {running.pk}
    assert listed(client, reported="any") == {running.pk, sans.pk}
    assert listed(client, reported="no") == {table.pk, annulled.pk}


def test_the_list_finds_games_by_player_username_email_or_display_name(alice, bob, staff) -> None:
    dora = make_player("dora", display_name="La Dormeuse", email="dora@exemple.fr")
    first = start_game([alice, bob])
    second = start_game([dora, bob])
    client = client_for(staff)
    assert listed(client, q="alice") == {first.pk}
    assert listed(client, q="dora@exemple.fr") == {second.pk}
    assert listed(client, q="Dormeuse") == {second.pk}
    assert listed(client, q="bob") == {first.pk, second.pk}
    assert listed(client, q=str(second.pk)) == {second.pk}


def test_the_list_shows_players_moves_and_dates(game, staff) -> None:
    html = client_for(staff).get(reverse(CHANGELIST)).content.decode()
    assert f"{seat_at(game, 0).player}, {seat_at(game, 1).player}" in html
    assert 'class="field-move_count">6<' in html


def inline_column(html: str, name: str) -> list[str]:
    """The read-only values of one column of an inline, top to bottom."""
    return re.findall(rf'<td class="field-{name}">\s*<p>(.*?)</p>', html)


def test_the_game_page_lists_the_moves_in_order_with_notation_words_and_points(game, staff) -> None:
    response = client_for(staff).get(reverse("admin:games_game_change", args=[game.pk]))
    html = response.content.decode()
    moves = list(game.moves.order_by("number"))
    assert inline_column(html, "number") == [str(m.number) for m in moves]
    assert inline_column(html, "notation") == [m.notation for m in moves]
    assert inline_column(html, "words_played") == [", ".join(m.words) for m in moves]
    assert inline_column(html, "points") == [str(m.points) for m in moves]
    assert reverse("games:staff_replay", args=[game.pk]) in html
    assert reverse("games:staff_record", args=[game.pk]) in html


# --- annul ------------------------------------------------------------------------------------


def test_the_annul_action_first_asks_for_a_reason(game, staff) -> None:
    before = snapshot(game)
    response = annul(client_for(staff), [game])
    assert response.status_code == 200
    assert 'name="reason"' in response.content.decode()
    assert snapshot(game) == before


def test_annulling_without_a_reason_is_refused_and_changes_nothing(game, staff) -> None:
    before = snapshot(game)
    response = annul(client_for(staff), [game], apply="yes", reason="   ")
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    assert snapshot(game) == before


def test_annulling_with_a_reason_annuls_the_game_and_tells_the_listeners(game, staff) -> None:
    heard = []

    def listener(sender, game, was_finished, **kwargs):
        heard.append((game.pk, was_finished))

    game_annulled.connect(listener)
    try:
        response = annul(client_for(staff), [game], apply="yes", reason="Comptes jumeaux")
    finally:
        game_annulled.disconnect(listener)
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ANNULLED
    assert (game.annulled_reason, game.annulled_by) == ("Comptes jumeaux", staff)
    assert game.annulled_at is not None
    assert heard == [(game.pk, False)]
    assert texts(response) == [f"Annulled game #{game.pk}; its players are told why."]


def test_an_annulled_game_leaves_the_turn_lists_and_its_page_says_why(game, staff) -> None:
    mover = seat_at(game, game.to_move.position).player
    other = seat_at(game, 1 - game.to_move.position).player
    assert selectors.my_games(mover)["my_turn"] == [game]
    annul(client_for(staff), [game], apply="yes", reason="Comptes jumeaux")
    for player in (mover, other):
        lists = selectors.my_games(player)
        assert lists["my_turn"] == [] and lists["waiting"] == []
        assert [g.pk for g in lists["finished"]] == [game.pk]
        html = client_for(player).get(reverse("games:page", args=[game.pk])).content.decode()
        assert 'class="annulled-reason"' in html and "Comptes jumeaux" in html
        assert 'id="move-form"' not in html
    assert selectors.next_game_to_play(mover) is None


def test_annulling_several_games_reports_the_ones_refused_without_failing(
    alice, bob, carol, staff
) -> None:
    running = start_game([alice, bob])
    table = services.game_create(creator=carol, mode="marque", seats=2)
    already = start_game([alice, carol])
    services.game_annul(game_id=already.pk, by=staff, reason="avant")
    response = annul(client_for(staff), [running, table, already], apply="yes", reason="lot")
    assert response.status_code == 302
    running.refresh_from_db()
    table.refresh_from_db()
    already.refresh_from_db()
    assert running.status == Game.Status.ANNULLED
    assert table.status == Game.Status.OPEN
    assert already.annulled_reason == "avant"
    messages = texts(response)
    assert f"Game #{table.pk} was not annulled: Only a started game can be annulled." in messages
    assert f"Game #{already.pk} was not annulled: Only a started game can be annulled." in messages
    assert f"Annulled game #{running.pk}; its players are told why." in messages


def test_one_game_can_be_annulled_from_its_own_page(game, staff) -> None:
    client = client_for(staff)
    url = reverse("admin:games_game_annul", args=[game.pk])
    assert client.post(url, {"reason": ""}).status_code == 400
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    response = client.post(url, {"reason": "Triche avérée"})
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:games_game_change", args=[game.pk])
    game.refresh_from_db()
    assert (game.status, game.annulled_reason) == (Game.Status.ANNULLED, "Triche avérée")


def test_a_finished_game_can_be_annulled_and_players_keep_the_record(alice, bob, staff) -> None:
    game = play_game([alice, bob], seed=3, moves=4, finish=True)
    annul(client_for(staff), [game], apply="yes", reason="Entente")
    game.refresh_from_db()
    assert game.status == Game.Status.ANNULLED
    assert client_for(alice).get(reverse("games:record", args=[game.pk])).status_code == 200


# --- check ------------------------------------------------------------------------------------


def check(client: Client, games) -> _MonkeyPatchedWSGIResponse:
    return client.post(
        reverse(CHANGELIST),
        {"action": "check_games", ACTION_CHECKBOX_NAME: [g.pk for g in games]},
    )


def test_checking_a_sound_game_says_it_is_consistent(game, staff) -> None:
    response = check(client_for(staff), [game])
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-consistent="true"' in html
    assert "Consistent: replaying the 6 moves gives exactly what is stored." in html


def test_checking_a_corrupted_game_names_each_difference(game, alice, carol, staff) -> None:
    sound = start_game([alice, carol])
    table = services.game_create(creator=carol, mode="marque", seats=2)
    seat = seat_at(game, 0)
    real = seat.hand
    seat.hand = "QQQ"
    seat.save(update_fields=["hand"])
    response = check(client_for(staff), [game, sound, table])
    html = response.content.decode()
    assert html.count('data-consistent="false"') == 1
    assert f'id="check-{game.pk}" data-consistent="false"' in html
    assert f'id="check-{sound.pk}" data-consistent="true"' in html
    assert "The table has not started: there is nothing to check." in html
    assert "1 difference between the replay and what is stored." in html
    row = f"<td>seat 0 ({seat.player}) hand</td><td><code>&quot;{real}&quot;</code></td><td><code>&quot;QQQ&quot;</code></td>"
    assert row in html


def test_one_game_can_be_checked_from_its_own_page(game, staff) -> None:
    game.moves.get(number=6).delete()
    response = client_for(staff).get(reverse("admin:games_game_check", args=[game.pk]))
    assert response.status_code == 200
    differences = response.context["results"][0]["differences"]
    assert differences[0].field == "move 6"
    assert "game move_count" in [d.field for d in differences]


# --- staff who play (R-HIDE-1: a conflict of interest) ----------------------------------------


@pytest.fixture
def seated_staff(db):
    return make_player("modo-joueur", is_staff=True, language="en")


def private_values(game: Game) -> list[str]:
    """Text that would betray the hidden information of a running ``game``."""
    game.refresh_from_db()
    assert game.setup is not None
    return [game.setup["reserve"], *(seat.hand for seat in game.seats.all())]


def test_a_seated_staff_member_s_admin_pages_leave_out_the_game_s_hidden_information(
    bob, seated_staff, staff
) -> None:
    game = play_game([seated_staff, bob], seed=3, moves=6)
    assert game.status == Game.Status.RUNNING
    client = client_for(seated_staff)
    move = game.moves.exclude(tiles_drawn="").first()
    assert move is not None
    pages = {
        "game": reverse("admin:games_game_change", args=[game.pk]),
        "seat": reverse("admin:games_seat_change", args=[seat_at(game, 1).pk]),
        "move": reverse("admin:games_move_change", args=[move.pk]),
    }
    for page, url in pages.items():
        response = client.get(url)
        assert response.status_code == 200, page
        html = response.content.decode()
        for value in private_values(game):
            assert value not in html, (page, value)
        for column in ("hand", "tiles_drawn", "tiles_returned", "record", "state_json"):
            assert f"field-{column}" not in html, (page, column)
    html = client.get(pages["game"]).content.decode()
    assert "You play in this game: another staff member must review it." in html
    for name in ("games:staff_replay", "games:staff_record", "admin:games_game_check"):
        assert reverse(name, args=[game.pk]) not in html
    assert reverse("admin:games_game_annul", args=[game.pk]) not in html
    # The public part is all there: the moves and the players.
    assert inline_column(html, "notation") == [m.notation for m in game.moves.order_by("number")]


def test_another_staff_member_sees_everything_of_that_game(bob, seated_staff, staff) -> None:
    game = play_game([seated_staff, bob], seed=3, moves=6)
    html = (
        client_for(staff).get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    )
    assert 'class="field-hand"' in html and 'class="field-tiles_drawn"' in html
    assert "field-state_json" in html
    for name in ("games:staff_replay", "games:staff_record", "admin:games_game_annul"):
        assert reverse(name, args=[game.pk]) in html
    seat_html = (
        client_for(staff)
        .get(reverse("admin:games_seat_change", args=[seat_at(game, 1).pk]))
        .content.decode()
    )
    assert seat_at(game, 1).hand in seat_html


def test_a_seated_staff_member_still_sees_everything_of_other_games(
    alice, bob, seated_staff
) -> None:
    theirs = play_game([seated_staff, bob], seed=3, moves=2)
    other = play_game([alice, bob], seed=3, moves=2)
    html = (
        client_for(seated_staff)
        .get(reverse("admin:games_game_change", args=[other.pk]))
        .content.decode()
    )
    assert 'class="field-hand"' in html
    assert reverse("games:staff_replay", args=[other.pk]) in html
    assert reverse("games:staff_replay", args=[theirs.pk]) not in html


@pytest.mark.parametrize("who", ["player", "outsider"])
def test_players_still_cannot_open_the_admin_of_a_game_a_staff_member_plays(
    bob, outsider, seated_staff, who
) -> None:
    game = play_game([seated_staff, bob], seed=3, moves=2)
    client = client_for(bob if who == "player" else outsider)
    response = client.get(reverse("admin:games_game_change", args=[game.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_a_seated_staff_member_cannot_check_their_running_game(bob, seated_staff, staff) -> None:
    game = play_game([seated_staff, bob], seed=3, moves=2)
    response = client_for(seated_staff).get(reverse("admin:games_game_check", args=[game.pk]))
    assert response.status_code == 403
    response = check(client_for(seated_staff), [game])
    assert f'id="check-{game.pk}"' not in response.content.decode()
    refusal = f"Game #{game.pk} was not checked: you play in it; another staff member must."
    assert refusal in texts(response)
    other = client_for(staff)
    assert check(other, [game]).status_code == 200
    assert other.get(reverse("admin:games_game_check", args=[game.pk])).status_code == 200


def test_a_seated_staff_member_s_finished_game_shows_its_hands_but_cannot_be_annulled_by_them(
    bob, seated_staff
) -> None:
    game = play_game([seated_staff, bob], seed=3, moves=4, finish=True)
    client = client_for(seated_staff)
    html = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert 'class="field-hand"' in html  # R-HIDE-1: after the end every hand is revealed
    assert reverse("games:staff_replay", args=[game.pk]) in html
    assert reverse("admin:games_game_annul", args=[game.pk]) not in html
    before = snapshot(game)
    response = annul(client, [game], apply="yes", reason="Je préfère l'oublier")
    assert snapshot(game) == before
    assert any(
        "You play in this game: another staff member must decide whether to annul it." in text
        for text in texts(response)
    )
    confirmation = client.post(reverse("admin:games_game_annul", args=[game.pk]))
    assert confirmation.context["refused"] == [game]


# --- the page in French ----------------------------------------------------------------------


def test_a_french_staff_member_reads_the_game_page_in_french_and_the_days_given_as_sentences(
    alice, bob
) -> None:
    game = start_game([alice, bob])
    assert game.to_move is not None
    to_move = game.to_move.player
    giver = bob if to_move == alice else alice
    services.time_give(
        game_id=game.pk, giver=giver, version=game.move_count, extra_days=game.turn_extra_days
    )
    french = client_for(make_player("moderatrice", is_staff=True, language="fr"))
    page = french.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    for label in ("Créateur", "Au trait", "Joueur", "Jours donnés"):
        assert f"{label}" in page, label
    for english in (">Creator<", ">To move<", ">Player<"):
        assert english not in page
    assert f"après le coup 0\u00a0: {giver} a donné un jour de plus à {to_move}." in page
    assert '"by"' not in page and "&quot;by&quot;" not in page


def test_an_english_staff_member_reads_the_days_given_as_sentences(alice, bob, staff) -> None:
    game = start_game([alice, bob])
    page = client_for(staff).get(reverse("admin:games_game_change", args=[game.pk]))
    assert "No day given yet." in page.content.decode()
    assert game.to_move is not None
    to_move = game.to_move.player
    giver = bob if to_move == alice else alice
    services.time_give(game_id=game.pk, giver=giver, version=0, extra_days=0)
    page = client_for(staff).get(reverse("admin:games_game_change", args=[game.pk]))
    assert f"after move 0: {giver} gave {to_move} one more day." in page.content.decode()
