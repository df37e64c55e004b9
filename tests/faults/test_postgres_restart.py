"""PostgreSQL restarted while two players play, under gunicorn with three workers.

What the players see: during the outage a 503 page in the site's design and
their language, never a traceback; a move is either played whole or not at all
(the audit replays the moves and compares every stored copy, the outbox
included); once PostgreSQL is back every worker serves again, without being
restarted. The database is a private cluster (``postgres_server.py``).
"""

from __future__ import annotations

import random
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from benchmarks.web import page as game_page
from benchmarks.web import stack
from tests.faults.postgres_server import (  # noqa: F401 (fixtures)
    faults_data_dir,
    make_site,
    migrated_template,
    postgres_server,
)
from tests.ports import free_port

pytestmark = pytest.mark.services

WORKERS = 3
CSRF = secrets.token_hex(16)  # 32 characters: a CSRF secret, sent as cookie and header


class Player:
    """A signed-in browser: its session cookie, and htmx's headers on posts."""

    def __init__(self, base_url: str, session: str) -> None:
        self.base_url = base_url
        self.cookie = f"sessionid={session}; csrftoken={CSRF}"

    def request(
        self, path: str, data: dict[str, str] | None = None, htmx: bool = False
    ) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.base_url + path, data=body)
        request.add_header("Cookie", self.cookie)
        # A French browser: without the database the player's own setting cannot be
        # read, and the 503 page speaks the browser's language.
        request.add_header("Accept-Language", "fr-FR,fr;q=0.9")
        if data is not None:
            request.add_header("X-CSRFToken", CSRF)
        if htmx:
            request.add_header("HX-Request", "true")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


def test_a_postgresql_restart_mid_game_is_a_503_then_every_worker_serves_again(
    postgres_server,  # noqa: F811 (the fixtures imported above)
    migrated_template,  # noqa: F811
    faults_data_dir,  # noqa: F811
) -> None:
    site = make_site(postgres_server, migrated_template, faults_data_dir)
    game = f"/parties/{site.game}/"
    play = f"/parties/{site.game}/jouer/"
    with stack.gunicorn(site.env, free_port(), WORKERS, faults_data_dir) as web:
        players = [Player(web.base_url, site.sessions[name]) for name in ("alice", "bob")]
        for _ in range(2 * WORKERS):  # every worker holds a connection to the database
            for player in players:
                assert player.request(game)[0] == 200
        mover = next(p for p in players if game_page.read(p.request(game)[1]).my_turn)
        seen = game_page.read(mover.request(game)[1])
        move = game_page.form_fields(game_page.choose(seen, random.Random(3)), seen.version)

        postgres_server.stop("fast")  # every session cut, as in a restart
        try:
            status, html = players[0].request(game)
            assert status == 503
            assert 'class="site-header"' in html and "Diamino revient dans un instant" in html
            assert "Traceback" not in html
            status, html = mover.request(play, move, htmx=True)
            assert status == 503 and 'id="move-error"' in html  # shown in place on the board
            assert players[1].request("/healthz")[0] == 503
        finally:
            postgres_server.start()

        # Back: every worker serves, each on a new connection (CONN_HEALTH_CHECKS).
        for _ in range(3 * WORKERS):
            for player in players:
                assert player.request(game)[0] == 200
        assert site.run("check", str(site.game)) == {
            "differences": [],
            "move_count": 0,  # the move sent during the outage was refused
            "moves": 0,
            "turn_emails": 1,  # the first player's, when the game started
        }

        # A crash while the move is being played: it is committed whole or not at all.
        answer: list[int] = []
        sending = threading.Thread(target=lambda: answer.append(mover.request(play, move, True)[0]))
        sending.start()
        time.sleep(0.05)
        postgres_server.stop("immediate")
        sending.join(timeout=60)
        postgres_server.start()
        assert answer and answer[0] in (200, 503)
        after_crash = site.run("check", str(site.game))
        played = after_crash["move_count"]
        assert after_crash == {
            "differences": [],
            "move_count": played,
            "moves": played,
            "turn_emails": 1 + played,  # the move's own email to the next player, or none
        }
        assert played in (0, 1)

        # Sent again (the player reloads and plays, or the page retries): played once.
        status, html = mover.request(play, move, htmx=True)
        assert status == 200
        assert game_page.move_refused(html) == (played == 1)  # moved on: already played
        assert site.run("check", str(site.game)) == {
            "differences": [],
            "move_count": 1,
            "moves": 1,
            "turn_emails": 2,
        }
        for player in players:
            assert player.request(game)[0] == 200
