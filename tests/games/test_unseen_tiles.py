"""The game page's "Unseen tiles" panel (games.presenters.UnseenView, in games/game.html).

What a player reads there: the tile set less the board and their own hand, by
letter, with the reserve's size and each other player's hand size; never more
than they may see (R-HIDE-1): dealing the other hands and the reserve
differently, with the same sizes, leaves the panel as it was.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.urls import reverse

import rules
from games import bridge, services
from games.presenters import UnseenView
from tests.factories import page_as
from tests.games.conftest import rig, seat_at, start_game
from tests.games.test_views import client_for
from tests.rules.test_unseen import on_board, positions

pytestmark = pytest.mark.django_db

# Position 0 holds no K, W, Y or Z, position 1 holds them all.
HANDS = ("CHATEAUXSIRN", "KWYZEPOTMLUE")
# The same size as HANDS[1], none of its letters.
OTHER = "AAEEIINNRRSS"


def panel(html: str) -> str | None:
    """The "Unseen tiles" card of a page, or None when the page has none."""
    found = re.findall(r'<section class="card unseen".*?</section>', html, re.S)
    return found[0] if found else None


def text(html: str) -> str:
    """As a reader reads it: tags dropped, spaces (no-break ones too) collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def letters(card: str) -> Counter[str]:
    """The panel's tiles and counts: each item is a tile (``?`` a diable), then its count."""
    shown: Counter[str] = Counter()
    for item in re.findall(r"<li>(.*?)</li>", card, re.S):
        words = text(item)
        shown[words[0]] = int(re.findall(r"\d+", words)[-1])
    return shown


@pytest.fixture
def game(alice, bob):
    return rig(start_game([alice, bob]), HANDS)


def page(game, user, language: str = "en") -> str:
    return page_as(user, reverse("games:page", args=[game.pk]), language=language)


def test_the_player_reads_the_set_less_their_hand_and_where_the_rest_is(game) -> None:
    me, other = seat_at(game, 0), seat_at(game, 1)
    config = bridge.config_of(game)
    card = panel(page(game, me.player))
    assert card is not None
    assert letters(card) == Counter(config.tiles.counts) - Counter(HANDS[0])
    reserve = sum(config.tiles.counts.values()) - 24
    assert f"Reserve: {reserve} · {other.player}: 12" in text(card)
    assert f"Unseen tiles ({reserve + 12})" in text(card)
    assert f"{me.player}:" not in text(card)  # the viewer's own hand is not unseen


def test_the_panel_is_in_french_too(game) -> None:
    card = panel(page(game, seat_at(game, 0).player, language="fr"))
    assert card is not None
    assert "Lettres non vues" in text(card) and "Réserve : " in text(card)
    assert "diables ×" in text(card) or "diable ×" in text(card)


def test_the_panel_never_tells_the_other_hand_from_the_reserve(game, alice, bob) -> None:
    """Another deal of the tiles alice cannot see, same sizes: alice's panel is unchanged."""
    before = panel(page(game, seat_at(game, 0).player))
    assert before is not None
    assert HANDS[1] not in before
    other = rig(start_game([alice, bob]), (HANDS[0], OTHER))
    assert bridge.state_of(other).hands[1] != bridge.state_of(game).hands[1]
    after = panel(page(other, seat_at(other, 0).player))
    assert seat_at(other, 0).player == seat_at(game, 0).player
    assert after == before


def test_a_spectator_reads_the_set_less_the_board(game, outsider) -> None:
    config = bridge.config_of(game)
    card = panel(page(game, outsider))
    assert card is not None
    assert letters(card) == Counter(config.tiles.counts)
    assert "Tiles not on the board" in text(card)
    for seat in (seat_at(game, 0), seat_at(game, 1)):
        assert f"{seat.player}: 12" in text(card)


def test_after_a_move_the_poll_brings_the_new_counts(game) -> None:
    me, other = seat_at(game, 0), seat_at(game, 1)
    services.move_submit(
        game_id=game.pk,
        player=me.player,
        version=0,
        move=rules.Place(0, (("H8", "C"), ("I8", "H"), ("J8", "A"), ("K8", "T"))),
    )
    game.refresh_from_db()
    state = bridge.state_of(game)
    other.player.language = "en"
    other.player.save(update_fields=["language"])
    fragment = (
        client_for(other.player)
        .get(reverse("games:page", args=[game.pk]), {"since": "0"}, HTTP_HX_REQUEST="true")
        .content.decode()
    )
    card = panel(fragment)
    assert card is not None
    full = Counter(state.config.tiles.counts)
    assert letters(card) == full - on_board(state.board) - Counter(state.hands[1])
    assert f"Reserve: {len(state.reserve)} · {me.player}: 12" in text(card)


def test_a_finished_game_shows_no_unseen_tiles(game) -> None:
    services.game_resign(game_id=game.pk, player=seat_at(game, 1).player)
    assert panel(page(game, seat_at(game, 0).player)) is None


@pytest.mark.parametrize("mode", ["marque", "sans-marque"])
def test_the_panel_s_values_match_the_true_state_in_random_games(mode) -> None:
    """``UnseenView.of`` from each seat's view: the reserve and the other hands, nothing else."""
    for state in positions(mode, 3, 7):
        if state.over:
            break
        names = ("ann", "ben", "cat")
        for seat in range(3):
            unseen = UnseenView.of(rules.view(state, seat), names)
            hidden = Counter(state.reserve)
            for other, hand in enumerate(state.hands):
                if other != seat:
                    hidden.update(hand)
            assert Counter(dict(unseen.letters)) == hidden
            assert unseen.total == len(state.reserve) + sum(
                len(h) for k, h in enumerate(state.hands) if k != seat
            )
            assert unseen.reserve == len(state.reserve)
            assert unseen.hands == tuple(
                (names[k], len(h)) for k, h in enumerate(state.hands) if k != seat
            )
            assert [t for t, _ in unseen.letters] == sorted(
                (t for t, _ in unseen.letters), key=lambda t: (t == "?", t)
            )
