"""What ``make bench`` needs inside the server, and nothing when it is off.

With ``DIAMINO_BENCH_VIEWS=1`` (never in production) the site gains:

* ``/_bench/bare``: a view that answers ``ok`` through the whole middleware
  stack, the ceiling the load benchmark measures every endpoint against;
* ``/_bench/floor/<game>``: the least a game page can do for a signed-in
  player, to show how near the ceiling any game page could come;
* ``QueryCountMiddleware``: an ``X-Queries`` header on every response, the
  number of SQL statements the request ran, so the benchmark can report
  queries per request from the real server under load.

Off (the default) neither the URL nor the middleware exists.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db import connections
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.cache import never_cache

from accounts.requests import SignedInRequest
from games.models import Game, Seat

QUERIES_HEADER = "X-Queries"


@never_cache
def bare(request: HttpRequest) -> HttpResponse:
    """The cheapest answer this stack can give: routing and middleware, no work."""
    return HttpResponse("ok", content_type="text/plain")


@never_cache
@login_required
def floor(request: SignedInRequest, game_id: int) -> HttpResponse:
    """The least any game page must do for a player: read the game and their seat.

    Answers the player's hand as plain text: no template, no other seat, no
    history, no chat. Every real game page does this and more, so its
    throughput bounds the game page's from above (docs/PERFORMANCE.md).
    """
    game = get_object_or_404(Game, pk=game_id)
    seat = Seat.objects.filter(game=game, player=request.user).first()
    if seat is None:
        raise Http404
    return HttpResponse(seat.hand, content_type="text/plain")


class QueryCountMiddleware:
    """Counts the SQL statements a request runs, on every database connection.

    It sits first in ``MIDDLEWARE`` so the session and user look-ups, and the
    session save on the way out, are counted too.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        count = 0

        def counter(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any):
            nonlocal count
            count += 1
            return execute(sql, params, many, context)

        with ExitStack() as stack:
            for alias in connections:
                stack.enter_context(connections[alias].execute_wrapper(counter))
            response = self.get_response(request)
        response[QUERIES_HEADER] = str(count)
        return response
