"""The site's processes, answering one hint each, for ``benchmarks.coldstart``.

gunicorn serves ``benchmarks.hintserver:application``: the site's own WSGI
application (so each worker starts as the site's do, the DAWG mapped by
``diamino_site/wsgi.py``) plus ``/_bench/hint?i=N``, the confirmé's best move
on position N of ``BENCH_HINT_STATES``. Celery runs ``-A benchmarks.hintserver``:
the site's Celery app (the DAWG mapped by its ``worker_init``) with a task
``bench.hint`` doing the same, on kombu's filesystem broker in
``BENCH_HINT_FOLDER`` so that the figures need no Redis. Never part of the site.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from diamino_site.wsgi import application as site
from infra.celery import app
from rules import view
from rules.serialize import state_from_dict
from rules.strategy import best_moves

if TYPE_CHECKING:
    from wsgiref.types import StartResponse, WSGIEnvironment

STATES = Path(os.environ.get("BENCH_HINT_STATES", "states.json"))
FOLDER = Path(os.environ.get("BENCH_HINT_FOLDER", "."))

app.conf.update(
    broker_url="filesystem://",
    broker_transport_options={
        "data_folder_in": str(FOLDER / "queue"),
        "data_folder_out": str(FOLDER / "queue"),
        "processed_folder": str(FOLDER / "done"),
        "control_folder": str(FOLDER / "control"),
        "store_processed": False,
        "polling_interval": 0.2,
    },
    result_backend=None,
    task_always_eager=False,
    task_ignore_result=True,
)


def answer(index: int) -> dict[str, object]:
    state = state_from_dict(json.loads(STATES.read_text(encoding="utf-8"))[index])
    start = time.perf_counter()
    best = best_moves(view(state, state.turn))
    return {"pid": os.getpid(), "best": best[0].notation, "s": time.perf_counter() - start}


@app.task(name="bench.hint")
def hint(index: int) -> None:
    result = answer(index)
    (FOLDER / f"answer-{result['pid']}.json").write_text(json.dumps(result), encoding="utf-8")


def application(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
    if environ.get("PATH_INFO") != "/_bench/hint":
        return site(environ, start_response)
    index = int(parse_qs(environ.get("QUERY_STRING", "")).get("i", ["0"])[0])
    body = json.dumps(answer(index)).encode()
    start_response("200 OK", [("Content-Type", "application/json")])
    return [body]
