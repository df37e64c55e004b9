"""The analysis of a finished game: the best move for each turn, shown beside the history."""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import timedelta
from html import escape as html_escape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

import rules
from games import bridge, reasons, selectors, services, tasks
from games.errors import GameError
from games.models import Game, Move
from tests.factories import make_player
from tests.games.conftest import rig, seat_at, start_game
from tests.games.test_bots import person_moves

pytestmark = pytest.mark.django_db

ANALYSED_KINDS = (Move.Kind.PLACE, Move.Kind.EXCHANGE, Move.Kind.PASS)


def analysis_of(move: Move) -> dict[str, Any]:
    """The analysis stored on an analysed ``move`` (the JSON field is nullable)."""
    assert move.analysis is not None
    return move.analysis


def finished_game(alice, committed, mode: str = "marque") -> Game:
    """A short game against the computer: three moves each, then the person resigns.

    Short because the analysis takes a fraction of a second to seconds a move;
    whole games are played in ``test_bots.py``.
    """
    game = services.game_against_computer(player=alice, mode=mode, level="debutant")
    if mode == "sans-marque":
        trim_hands(game, 12)
    assert game.to_move is not None
    if game.to_move.player != alice:
        with committed():
            tasks.computer_move(game.pk, game.move_count)
    game = person_moves(game, alice, committed, random.Random(5), limit=3)
    if game.status == Game.Status.RUNNING:
        with committed():
            services.game_resign(game_id=game.pk, player=alice)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def trim_hands(game: Game, size: int) -> None:
    """Deal ``size`` tiles a hand, the rest back in the reserve (test-only, like ``rig``).

    Sans marque deals far more than twelve tiles, and the first moves of a big
    hand take seconds each to analyse.
    """
    state = bridge.state_of(game)
    rest = [t for hand in state.hands for t in hand[size:]] + list(state.reserve)
    random.Random(2).shuffle(rest)
    hands = ["".join(hand[:size]) for hand in state.hands]
    trimmed = rules.new_game(state.config, hands, rest)
    game.setup = {"hands": hands, "reserve": "".join(trimmed.reserve)}
    game.state = rules.state_to_dict(trimmed)
    game.save(update_fields=["setup", "state"])
    for seat in game.seats.all():
        assert seat.position is not None
        seat.hand = hands[seat.position]
        seat.save(update_fields=["hand"])


def client_for(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(user)
    return client


@pytest.mark.parametrize("mode", ["marque", "sans-marque"])
def test_a_game_that_ends_is_analysed_move_by_move_by_a_worker(
    alice, committed, settings, mode
) -> None:
    settings.DIAMINO_ANALYSE_FINISHED_GAMES = True
    game = finished_game(alice, committed, mode)
    assert game.analysed_at is not None and game.analysis_queued_at is not None
    moves = list(game.moves.order_by("number"))
    analysed = [m for m in moves if m.kind in ANALYSED_KINDS]
    assert analysed and all(m.analysis is not None for m in analysed)
    for move in analysed:
        data = move.analysis
        assert data is not None
        assert data["best"] and isinstance(data["gain"], int)
        assert isinstance(data["played_best"], bool) and data["missed"] >= 0
    # The gain shown is points avec marque, tiles out of the hand sans marque.
    key = "points" if mode == "marque" else "tiles"
    assert all(analysis_of(m)["gain"] == analysis_of(m)[key] for m in analysed)


def test_the_finished_game_shows_the_best_move_beside_each_move(alice, committed, settings) -> None:
    settings.DIAMINO_ANALYSE_FINISHED_GAMES = True
    game = finished_game(alice, committed)
    html = client_for(alice).get(reverse("games:page", args=[game.pk])).content.decode()
    assert "le meilleur coup que l’ordinateur trouve" in html
    shown = html.count('class="move-analysis')
    assert shown == game.moves.filter(analysis__isnull=False).count() > 0
    missed = game.moves.filter(analysis__played_best=False).first()
    if missed is not None:
        assert analysis_of(missed)["best"] in html
        assert "Meilleur coup\u00a0:" in html


def test_the_analysis_uses_only_what_each_mover_saw(alice, committed, monkeypatch) -> None:
    game = finished_game(alice, committed)
    seen = []
    from rules import analysis as rules_analysis
    from rules import strategy as rules_strategy

    best_moves = rules_strategy.best_moves

    def capture(view, n=1):
        seen.append(view)
        return best_moves(view, n)

    monkeypatch.setattr(rules_analysis, "best_moves", capture)
    assert services.game_analyse(game_id=game.pk) is True
    assert seen and all(isinstance(view, rules.PlayerView) for view in seen)
    assert all(view.hands is None and view.hand is not None for view in seen)


def test_analysing_twice_writes_once(alice, committed) -> None:
    game = finished_game(alice, committed)
    assert tasks.analyse_game(game.pk) is True
    game.refresh_from_db()
    stamp = game.analysed_at
    assert tasks.analyse_game(game.pk) is False
    game.refresh_from_db()
    assert game.analysed_at == stamp


def test_an_annulled_game_is_not_analysed(alice, committed) -> None:
    game = finished_game(alice, committed)
    staff = make_player("sam", is_staff=True)
    services.game_annul(game_id=game.pk, by=staff, reason="test")
    assert tasks.analyse_game(game.pk) is False
    assert not Move.objects.filter(game=game, analysis__isnull=False).exists()
    with pytest.raises(GameError) as error:
        services.analysis_request(game_id=game.pk, player=alice)
    assert error.value.code == "not-finished"
    html = client_for(alice).get(reverse("games:page", args=[game.pk])).content.decode()
    assert "Analyser la partie" not in html and 'class="move-analysis' not in html


def test_a_running_game_is_not_analysed(alice, committed) -> None:
    with committed():
        game = services.game_against_computer(player=alice, mode="marque", level="debutant")
    assert tasks.analyse_game(game.pk) is False
    with pytest.raises(GameError):
        services.analysis_request(game_id=game.pk, player=alice)


def test_without_a_worker_a_player_asks_for_the_analysis_on_the_page(alice, committed) -> None:
    # The embedded default: no analysis at the end, which would hold up the last move.
    game = finished_game(alice, committed)
    assert game.analysis_queued_at is None and game.analysed_at is None
    client = client_for(alice)
    page = reverse("games:page", args=[game.pk])
    assert "Analyser la partie" in client.get(page).content.decode()
    with committed():
        response = client.post(reverse("games:analyse", args=[game.pk]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert 'id="history"' in response.content.decode()
    game.refresh_from_db()
    assert game.analysed_at is not None
    assert 'class="move-analysis' in client.get(page).content.decode()


def test_only_a_seated_player_asks_for_the_analysis(alice, committed) -> None:
    game = finished_game(alice, committed)
    outsider = make_player("oscar")
    with pytest.raises(GameError) as error:
        services.analysis_request(game_id=game.pk, player=outsider)
    assert error.value.code == "not-a-player"
    html = client_for(outsider).get(reverse("games:page", args=[game.pk])).content.decode()
    assert "Analyser la partie" not in html
    game.refresh_from_db()
    assert game.analysis_queued_at is None


def test_while_the_analysis_runs_the_history_says_so_and_polls(alice, committed) -> None:
    game = finished_game(alice, committed)
    Game.objects.filter(pk=game.pk).update(analysis_queued_at=timezone.now())
    client = client_for(alice)
    page = reverse("games:page", args=[game.pk])
    html = client.get(page).content.decode()
    assert "Analyse en cours" in html and "?historique=1" in html
    fragment = client.get(page + "?historique=1", HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<section class="card history" id="history"')
    # Asked again meanwhile: nothing more is queued.
    services.analysis_request(game_id=game.pk, player=alice)
    assert Game.objects.get(pk=game.pk).analysed_at is None


def test_an_analysis_lost_on_its_way_can_be_asked_for_again(alice, committed) -> None:
    game = finished_game(alice, committed)
    Game.objects.filter(pk=game.pk).update(
        analysis_queued_at=timezone.now() - selectors.PATIENCE - timedelta(minutes=1)
    )
    html = client_for(alice).get(reverse("games:page", args=[game.pk])).content.decode()
    assert "Analyser la partie" in html


def test_the_best_move_played_is_marked_best_not_shown_as_a_better_one(alice, bob) -> None:
    # Sans marque, the reserve empty: JE now leaves an S that goes out next
    # turn, which the search counts in. The move played must be judged the same.
    game = start_game([alice, bob], mode="sans-marque")
    config = bridge.config_of(game)
    rest = Counter(config.tiles.counts) - Counter("JSE")
    game = rig(game, ["JSE", "".join(sorted(rest.elements()))])
    first, second = seat_at(game, 0).player, seat_at(game, 1).player
    state = bridge.state_of(game)
    best = rules.best_moves(rules.view(state, 0), 1)[0]
    assert best.notation == "H8→ JE"
    services.move_submit(game_id=game.pk, player=first, version=0, move=best.move)
    services.game_resign(game_id=game.pk, player=second)
    assert services.game_analyse(game_id=game.pk) is True

    assert analysis_of(game.moves.get(number=1))["played_best"] is True
    html = client_for(first).get(reverse("games:page", args=[game.pk])).content.decode()
    played = html[html.index('<li class="move kind-place">') :].split("</li>")[0]
    assert "H8→ JE" in played and "le meilleur coup trouvé" in played
    assert "Meilleur coup" not in html


def test_the_analysis_says_why_the_best_move_ranks_first(alice, committed, settings) -> None:
    settings.DIAMINO_ANALYSE_FINISHED_GAMES = True
    game = finished_game(alice, committed)
    analysed = list(game.moves.filter(analysis__isnull=False))
    assert analysed and all(analysis_of(m)["why"] for m in analysed)  # what the search weighed
    html = client_for(alice).get(reverse("games:page", args=[game.pk])).content.decode()
    missed = [m for m in analysed if not analysis_of(m)["played_best"]]
    assert missed, "this game has moves the computer would have played otherwise"
    assert html.count('class="move-why"') == len(missed)
    for move in missed:
        for phrase in reasons.phrases(analysis_of(move)["why"], own=False):
            assert html_escape(phrase) in html
    # Said of the hand, not to the reader: the computer's moves are analysed too.
    for why in html.split('class="move-why"')[1:]:
        assert not re.search(r"\b(you|your|vous|votre|vos)\b", why.split("</span>")[0])
