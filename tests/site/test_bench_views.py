"""The benchmark's URL and query header exist only when DIAMINO_BENCH_VIEWS asks for them."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client
from django.urls import clear_url_caches

import diamino_site.urls
from diamino_site.bench import QUERIES_HEADER
from tests.factories import make_player
from tests.games.conftest import start_game

ROOT = Path(__file__).resolve().parents[2]
MIDDLEWARE = "diamino_site.bench.QueryCountMiddleware"


@pytest.fixture
def bench_on(settings) -> Iterator[None]:
    """The site as `make bench` runs it: the switch on, the URL conf rebuilt from it."""
    settings.DIAMINO_BENCH_VIEWS = True
    settings.MIDDLEWARE = [MIDDLEWARE, *settings.MIDDLEWARE]
    importlib.reload(diamino_site.urls)
    clear_url_caches()
    yield
    settings.DIAMINO_BENCH_VIEWS = False
    importlib.reload(diamino_site.urls)
    clear_url_caches()


def test_the_bench_views_and_the_header_are_absent_by_default(client: Client) -> None:
    assert client.get("/_bench/floor/1").status_code == 404
    response = client.get("/_bench/bare")
    assert response.status_code == 404
    assert QUERIES_HEADER not in response
    assert QUERIES_HEADER not in client.get("/")


@pytest.mark.django_db
def test_with_the_switch_on_the_bare_view_answers_ok_without_a_query(bench_on) -> None:
    response = Client().get("/_bench/bare")
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response[QUERIES_HEADER] == "0"


@pytest.mark.django_db
def test_the_header_counts_every_query_of_a_signed_in_request(bench_on) -> None:
    client = Client()
    client.force_login(make_player("counted"))
    # The session and the user are each looked up once; the bare view adds nothing.
    assert client.get("/_bench/bare")[QUERIES_HEADER] == "2"
    lobby = client.get("/parties/")
    assert int(lobby[QUERIES_HEADER]) > 2


def _middleware_with(env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DIAMINO_"))}
    script = "from django.conf import settings; print(settings.MIDDLEWARE[0])"
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "diamino_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.strip()


def test_the_environment_variable_turns_the_middleware_on_and_only_it() -> None:
    assert _middleware_with({}) != MIDDLEWARE
    assert _middleware_with({"DIAMINO_BENCH_VIEWS": "1"}) == MIDDLEWARE


@pytest.mark.django_db
def test_the_floor_answers_the_player_s_hand_after_reading_the_game_and_the_seat(bench_on) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    game = start_game([alice, bob])
    client = Client()
    client.force_login(bob)
    response = client.get(f"/_bench/floor/{game.pk}")
    assert response.status_code == 200
    assert response.content.decode() == game.seats.get(player=bob).hand
    # The session and the user, then the game and the seat: what every game page reads.
    assert response[QUERIES_HEADER] == "4"


@pytest.mark.django_db
def test_the_floor_is_for_the_game_s_players_only(bench_on) -> None:
    game = start_game([make_player("alice"), make_player("bob")])
    client = Client()
    assert client.get(f"/_bench/floor/{game.pk}").status_code == 302  # to the log-in page
    client.force_login(make_player("oscar"))
    assert client.get(f"/_bench/floor/{game.pk}").status_code == 404
    assert client.get(f"/_bench/floor/{game.pk + 1}").status_code == 404
