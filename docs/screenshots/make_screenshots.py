"""Render the game page with the test's hand-built GameViews and photograph it.

    .venv/bin/python docs/screenshots/make_screenshots.py

Needs Debian's Chromium (``apt-get install chromium``). Writes the HTML to
/tmp and the PNGs next to this file: a phone (390×844) and a desktop
(1280×900) view of a game in progress, a sans-marque rack and a finished game.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "diamino_site.settings")

import django  # noqa: E402

django.setup()

from games.presenters import TileView  # noqa: E402
from tests.games.test_game_template import game_view, render, seats  # noqa: E402

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"


def shoot(name: str, html: str, size: str) -> None:
    html = html.replace('"/static/', f'"file://{ROOT}/static/')
    page = Path("/tmp") / f"diamino-{name}.html"
    page.write_text(html, encoding="utf-8")
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--screenshot={HERE / f'{name}.png'}",
            f"--window-size={size}",
            f"file://{page}",
        ],
        check=True,
        capture_output=True,
    )


def main() -> None:
    preview = {
        "ok": True,
        "words": ["SAC"],
        "devils": [],
        "points": 0,
        "goes_out": False,
        "returns_needed": 0,
    }
    shoot("game-phone", render(preview=preview), "390,1500")
    shoot("game-desktop", render(preview=preview), "1280,1100")
    rack = tuple(TileView(index=i, letter="EASTRIONLU?"[i % 11], value=1) for i in range(32))
    shoot(
        "rack-phone",
        render(view=game_view(mode="sans-marque", hand_slots=0, my_hand=rack)),
        "390,1500",
    )
    over = game_view(
        over=True,
        status="finished",
        end="out",
        winners=("Alice",),
        is_my_turn=False,
        seats=seats(over=True),
    )
    shoot("finished-phone", render(view=over, replay_json=[[["H8", "C", False]]]), "390,1200")
    error = {
        "ok": False,
        "message": "Les lettres doivent former une seule ligne, sans trou.",
        "rule": "R-PLACE-3",
    }
    shoot("error-phone", render(view=replace(game_view(), version=7), preview=error), "390,1300")


if __name__ == "__main__":
    main()
