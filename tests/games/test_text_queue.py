"""A queued move in the screen-reader mode (issues #36 and #37): typed, read back, queued,
said, cancelled, and what became of it when the turn came, in both languages.

The first player ("Alice") has opened with CHAT on H8 and holds an S; the second
("Bob") is to move. She types her next
move in the text game's field, ``H8 CHATS``, as in a reply to a turn email.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser

import pytest
from django.urls import reverse

import rules
from games import selectors, services, text_game
from games.models import Game, QueuedMove
from tests.factories import client_as, make_player
from tests.games.conftest import rig, seat_at, start_game
from tests.notifications.conftest import play_chat

pytestmark = pytest.mark.django_db

HANDS = ("CHATEAUXSIR?", "KWYZEPOTALUS")
HTMX = {"HX-Request": "true"}


@pytest.fixture
def game() -> Game:
    game = rig(start_game([make_player("alice"), make_player("bob")]), HANDS)
    play_chat(game)
    game.refresh_from_db()
    return game


def plain(text: str) -> str:
    return unescape(text).replace("\xa0", " ")


def post(client, name: str, game: Game, **data) -> str:
    url = reverse(f"games:{name}", args=[game.pk])
    answer = client.post(url, {"version": game.move_count, "texte": "1", **data}, headers=HTMX)
    assert answer.status_code == 200
    return plain(answer.content.decode())


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    words: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """What a reader hears of it: its text and its children's, spaces run together."""
        return " ".join("".join(self.words).split())


class Page(HTMLParser):
    """An answer as a reader meets it: its elements by id, its inputs, its text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.by_id: dict[str, Element] = {}
        self.inputs: list[dict[str, str | None]] = []
        self.whole = Element("", {})
        self.open: list[Element] = [self.whole]
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        if tag == "input":
            self.inputs.append(element.attrs)
        if element.attrs.get("id"):
            self.by_id[str(element.attrs["id"])] = element
        if tag not in VOID:
            self.open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        for element in self.open:
            element.words.append(data)

    def checked(self, name: str) -> list[str | None]:
        """The values of the inputs named ``name`` that are checked."""
        return [i.get("value") for i in self.inputs if i.get("name") == name and "checked" in i]

    def values(self, name: str) -> set[str | None]:
        return {i.get("value") for i in self.inputs if i.get("name") == name}


def announced(html: str) -> str:
    start = html.index('data-announce="') + len('data-announce="')
    return html[start : html.index('"', start)]


def bob_plays(game: Game, move: rules.Move) -> None:
    game.refresh_from_db()
    services.move_submit(
        game_id=game.pk,
        player=seat_at(game, 1).player,
        version=game.move_count,
        move=move,
        rng=random.Random(3),
    )


def poll(client, game: Game, token: str) -> str:
    page = reverse("games:page", args=[game.pk])
    answer = client.get(page, {"since": token, "texte": "1", "attente": "1"}, headers=HTMX)
    assert answer.status_code == 200
    return plain(answer.content.decode())


def test_out_of_turn_the_move_field_queues_with_the_choice_of_when(game) -> None:
    client = client_as(seat_at(game, 0).player, "en")
    html = plain(client.get(reverse("games:page", args=[game.pk]), {"texte": "1"}).content.decode())
    assert "Your next move" in html and "a placement typed here is queued" in html
    assert 'id="text-move"' in html and "When your turn comes, play it:" in html
    page = Page(html)
    assert page.values("keep") == {"legal", "unchanged"}
    assert page.checked("keep") == ["legal"]  # "if still legal" unless she chooses
    queue = page.by_id["text-queue"]
    assert (queue.tag, queue.text) == ("button", "Play when my turn comes")
    assert "text-play" not in page.by_id


@pytest.mark.parametrize(
    ("language", "read", "queued"),
    [
        (
            "en",
            "Press “Play when my turn comes” to queue it.",
            "Queued move: H8 CHATS, played when your turn comes "
            "only if nothing near it has changed.",
        ),
        (
            "fr",
            "Appuyez sur « Jouer quand ce sera mon tour » pour le prévoir.",
            "Coup prévu : H8 CHATS, joué à votre tour seulement si rien n’a changé autour.",
        ),
    ],
)
def test_a_placement_is_read_back_queued_and_said(game, language, read, queued) -> None:
    alice = seat_at(game, 0).player
    client = client_as(alice, language)
    read_back = post(client, "text_preview", game, coup="H8 CHATS")
    assert "CHATS" in read_back and read in read_back
    assert not QueuedMove.objects.exists()  # a read-back queues nothing

    html = post(client, "text_queue", game, coup="H8 CHATS", keep="unchanged")
    assert announced(html) == queued  # the live region says it once
    assert queued in html  # and the page, under "Queued move"
    assert 'id="text-queue-cancel"' in html
    row = QueuedMove.objects.get(seat=seat_at(game, 0))
    assert (row.placements, row.keep) == ("L8=S", "unchanged")


@pytest.mark.parametrize(
    ("language", "typed", "said"),
    [
        ("en", "A1 ZZZ", "You do not hold enough Z tiles"),  # never playable with her hand
        ("en", "exchange ABC", "Only a placement can be queued."),
        ("fr", "A1 ZZZ", " Z "),
        ("fr", "passe", "Seul un placement peut être prévu."),
    ],
)
def test_a_queued_move_refused_is_said_and_the_field_keeps_it(game, language, typed, said) -> None:
    client = client_as(seat_at(game, 0).player, language)
    html = post(client, "text_queue", game, coup=typed, keep="unchanged")
    page = Page(html)
    error = page.by_id["text-move-error"]
    assert error.attrs.get("role") == "alert" and said in error.text
    field = page.by_id["text-move"]
    assert (field.attrs.get("value"), field.attrs.get("aria-invalid")) == (typed, "true")
    assert page.checked("keep") == ["unchanged"]  # the kind chosen is kept too
    assert not QueuedMove.objects.exists()


def test_the_read_back_of_a_move_illegal_for_now_says_it_may_still_be_queued(game) -> None:
    client = client_as(seat_at(game, 0).player, "en")
    read_back = post(client, "text_preview", game, coup="A1 SI")  # touches nothing yet
    assert "It may still be queued: it is judged again when your turn comes" in read_back
    read_back = post(client, "text_preview", game, coup="pass")
    assert Page(read_back).whole.text == "Only a placement can be queued."


@pytest.mark.parametrize("typed", ["H8 BON", "pass"])
def test_the_read_back_never_asks_a_player_who_left_to_queue(typed) -> None:
    players = [make_player("alice"), make_player("bob"), make_player("carol")]
    game = rig(start_game(players), (*HANDS, "BONJOUREMIRS"))
    gone = seat_at(game, 2).player
    services.game_resign(game_id=game.pk, player=gone)  # out of turn: the others play on
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    read_back = post(client_as(gone, "en"), "text_preview", game, coup=typed)
    assert "queue" not in read_back and "Play when my turn comes" not in read_back
    assert "You have no move to make in this game." in read_back


def test_the_poll_says_the_queued_move_was_played(game) -> None:
    alice = seat_at(game, 0).player
    client = client_as(alice, "en")
    post(client, "text_queue", game, coup="H8 CHATS")
    game.refresh_from_db()
    token = selectors.live_token(game)
    page = plain(client.get(reverse("games:page", args=[game.pk]), {"texte": "1"}).content.decode())
    assert "attente=1" in page  # the poll tells the server a queued move was waiting
    bob = seat_at(game, 1).player
    bob_plays(game, rules.Pass(1))
    said = announced(poll(client, game, token))
    assert said.startswith(f"Your queued move was played. {bob} passed. {alice} placed CHATS")
    assert said.endswith(f"{bob} is to play.")


def test_a_move_played_by_hand_after_the_queued_one_was_refused_is_not_said_queued(game) -> None:
    alice = seat_at(game, 0).player
    client = client_as(alice, "en")
    post(client, "text_queue", game, coup="H8 CHATS")
    game.refresh_from_db()
    token = selectors.live_token(game)
    bob_plays(game, rules.Place(1, (("L8", "S"),)))  # CHATS is Bob's: hers is refused
    game.refresh_from_db()
    # Before her page polls, she plays by hand (another tab, or a reply by email).
    services.move_submit(
        game_id=game.pk, player=alice, version=game.move_count, move=rules.Place(0, (("H9", "E"),))
    )
    said = announced(poll(client, game, token))
    assert "Your queued move was played." not in said
    assert f"{alice} placed CE" in said


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "There was no queued move left to cancel."),
        ("fr", "Il n’y avait plus de coup prévu à annuler."),
    ],
)
def test_cancel_after_the_queued_move_went_with_a_move_by_hand_says_none_was_left(
    game, language, said
) -> None:
    alice = seat_at(game, 0).player
    client = client_as(alice, language)
    post(client, "text_queue", game, coup="H8 CHATS")
    game.refresh_from_db()
    shown = game.move_count
    bob_plays(game, rules.Place(1, (("L8", "S"),)))  # hers is refused, then played over
    game.refresh_from_db()
    services.move_submit(
        game_id=game.pk, player=alice, version=game.move_count, move=rules.Place(0, (("H9", "E"),))
    )
    news = announced(post(client, "queue_cancel", game, version=shown))
    assert news.startswith(f"{said} ") and "CE" in news


def test_only_its_own_player_is_told_a_move_came_from_the_queue(game) -> None:
    alice, bob = seat_at(game, 0).player, seat_at(game, 1).player
    post(client_as(alice, "en"), "text_queue", game, coup="H8 CHATS")
    bob_plays(game, rules.Pass(1))
    game.refresh_from_db()
    hers = selectors.game_view(game, alice).moves[-1]
    assert (hers.player, hers.from_queue) == (str(alice), True)
    assert not any(move.from_queue for move in selectors.game_view(game, bob).moves)
    assert not any(move.from_queue for move in selectors.game_view(game, None).moves)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Your queued move H8 CHATS was not played: "),
        ("fr", "Votre coup prévu H8 CHATS n’a pas été joué : "),
    ],
)
def test_the_poll_and_the_summary_say_why_the_queued_move_was_not_played(
    game, language, said
) -> None:
    alice = seat_at(game, 0).player
    client = client_as(alice, language)
    post(client, "text_queue", game, coup="H8 CHATS")
    game.refresh_from_db()
    token = selectors.live_token(game)
    bob_plays(game, rules.Place(1, (("L8", "S"),)))  # Bob takes L8 first: CHATS is his
    html = poll(client, game, token)
    news = announced(html)
    assert news.startswith(said) and "L8" in news
    summary = html[html.index('id="text-summary"') :]
    assert said in summary[: summary.index("</ul>")]
    assert 'id="text-queue-cancel"' in html  # "Forget it"
    game.refresh_from_db()
    assert game.move_count == 2  # Bob's move only; her turn now


def test_a_queued_move_is_cancelled_and_that_is_said(game) -> None:
    alice = seat_at(game, 0).player
    client = client_as(alice, "fr")
    post(client, "text_queue", game, coup="H8 CHATS")
    html = post(client, "queue_cancel", game)
    assert announced(html) == "Coup prévu annulé."
    assert 'id="text-queue-cancel"' not in html
    assert not QueuedMove.objects.exists()


@pytest.mark.parametrize(
    ("language", "played", "missed"),
    [
        ("en", "Your queued move was played.", "Queued move cancelled."),
        ("fr", "Votre coup prévu a été joué.", "Coup prévu annulé."),
    ],
)
def test_cancel_after_the_queued_move_was_played_says_so_and_the_moves_since(
    game, language, played, missed
) -> None:
    alice = seat_at(game, 0).player
    client = client_as(alice, language)
    post(client, "text_queue", game, coup="H8 CHATS")
    game.refresh_from_db()
    shown = game.move_count  # the version of her page, which has not polled since
    bob_plays(game, rules.Pass(1))  # her queued move is played at once
    html = post(client, "queue_cancel", game, version=shown)
    said = announced(html)
    assert missed not in said
    assert said.startswith(f"{played} ") and "CHATS" in said
    assert 'id="text-queue-cancel"' not in html


def test_cancel_from_an_older_page_says_cancelled_and_the_moves_since(game) -> None:
    client = client_as(seat_at(game, 0).player, "en")
    bob = seat_at(game, 1).player
    post(client, "text_queue", game, coup="H8 CHATS")
    game.refresh_from_db()
    shown = game.move_count
    bob_plays(game, rules.Place(1, (("L8", "S"),)))  # CHATS is Bob's: hers is not played
    said = announced(post(client, "queue_cancel", game, version=shown))
    assert said.startswith(f"Queued move cancelled. {bob} placed CHATS")
    assert said.endswith("Your turn.")
    assert not QueuedMove.objects.exists()


def test_the_queued_move_as_typed_and_its_tiles_while_not_a_move_yet() -> None:
    from django.utils import translation

    from games.presenters import QueuedView

    legal = QueuedView("H8→ (CHA)t", "K8=t", "", "legal", "If still legal")
    down = QueuedView("J8↓ (A)IL", "J9=I,J10=L", "", "legal", "If still legal")
    loose = QueuedView("A1=S A2=I", "A1=S,A2=I", "Q", "legal", "If still legal")
    assert text_game.queued_typed(legal) == "H8 CHAt"
    assert text_game.queued_typed(down) == "J8 v AIL"
    with translation.override("en"):
        assert text_game.queued_typed(loose) == "S on A1, I on A2"
    with translation.override("fr"):
        assert plain(text_game.queued_typed(loose)) == "S en A1, I en A2"


def test_without_javascript_a_queued_move_is_queued_or_refused_on_the_page(game) -> None:
    client = client_as(seat_at(game, 0).player, "en")
    url = reverse("games:text_queue", args=[game.pk])
    refused = client.post(url, {"version": game.move_count, "coup": "A1 ZZZ", "texte": "1"})
    assert refused.status_code == 400
    assert "You do not hold enough Z tiles" in plain(refused.content.decode())
    answer = client.post(url, {"version": game.move_count, "coup": "H8 CHATS", "texte": "1"})
    assert answer.status_code == 302
    assert answer["Location"] == reverse("games:page", args=[game.pk]) + "?texte=1"
    page = plain(client.get(answer["Location"]).content.decode())
    assert "Queued move: H8 CHATS, played when your turn comes if it is still legal." in page
