"""With the database gone, a request gets a 503 page in the site's design, never half a move.

The real outage (PostgreSQL stopped and started under a running site) is
``tests/faults/test_postgres_restart.py``; here the database error is raised
where a restart raises it, on the embedded default.
"""

from __future__ import annotations

import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation

from diamino_site.views import server_error
from games import notify
from notifications.models import Notification
from tests.factories import make_player, page_language
from tests.games.conftest import rig, seat_at, snapshot, start_game

HANDS = ("CHATEAUXSIRN", "KWYZEPOTMLUE")
CHAT = {"version": 0, "action": "place", "placements": "H8=C,I8=H,J8=A,K8=T"}


def handled(error: Exception, language: str = "fr", **request):
    """The site's handler500, called as Django calls it: while handling ``error``."""
    with translation.override(language):
        try:
            raise error
        except Exception:
            return server_error(RequestFactory().get("/parties/3/", **request))


# No database mark: any query the page made would fail the test.
def test_the_503_page_renders_without_the_database_in_the_site_s_design() -> None:
    response = handled(OperationalError("connection to server at 127.0.0.1 failed"))
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    page = response.content.decode()
    assert page_language(page) == "fr" and 'class="site-header"' in page
    assert "Diamino revient dans un instant" in page
    assert "Le site ne peut pas joindre sa base de données pour le moment" in page
    assert 'href="/parties/3/"' in page  # try the page again
    assert 'id="move-error"' in page  # what the game page shows in place of a move's answer
    assert "Traceback" not in page
    # No language switch: it would post without a CSRF token and meet the 403 page.
    assert "set_language" not in page and 'class="lang-switch"' not in page


def test_the_503_page_speaks_english_to_an_english_request() -> None:
    page = handled(InterfaceError("connection already closed"), "en").content.decode()
    assert page_language(page) == "en"
    assert "The site cannot reach its database just now: try again in a minute." in page


def test_another_error_is_still_a_500() -> None:
    assert handled(ValueError("a bug")).status_code == 500


def test_a_database_error_raised_from_another_one_is_an_outage() -> None:
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError as lost:
        wrapped = RuntimeError("while reading the player")
        wrapped.__cause__ = lost
    assert handled(wrapped).status_code == 503


@pytest.fixture
def game(db):
    return rig(start_game([make_player("alice"), make_player("bob")]), HANDS)


def client_for(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_a_signed_in_player_gets_the_503_page_when_the_database_is_gone(game, monkeypatch) -> None:
    client = client_for(seat_at(game, 0).player)

    def gone(request):
        raise OperationalError("connection to server at 127.0.0.1, port 5432 failed")

    # The first query of a signed-in request: the session's player, in a middleware.
    monkeypatch.setattr("django.contrib.auth.get_user", gone)
    response = client.get(reverse("games:page", args=[game.pk]))
    assert response.status_code == 503
    assert "Diamino revient dans un instant" in response.content.decode()
    answer = client.post(reverse("games:play", args=[game.pk]), CHAT, HTTP_HX_REQUEST="true")
    assert answer.status_code == 503 and 'id="move-error"' in answer.content.decode()


@pytest.mark.django_db
def test_a_move_whose_connection_breaks_before_the_commit_leaves_nothing_behind(
    game, monkeypatch
) -> None:
    before = snapshot(game)
    outbox = list(Notification.objects.values_list("key", flat=True))
    real = notify.move_played

    def written_then_lost(*args, **kwargs):
        real(*args, **kwargs)  # the Move row, the state, the seats and the outbox row written
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(notify, "move_played", written_then_lost)
    client = client_for(seat_at(game, 0).player)
    response = client.post(reverse("games:play", args=[game.pk]), CHAT)
    assert response.status_code == 503
    assert snapshot(game) == before
    assert list(Notification.objects.values_list("key", flat=True)) == outbox
