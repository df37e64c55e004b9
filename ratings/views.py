"""The leaderboards: statistics of avec-marque games, and ratings per mode.

One view per URL serves the page and, for htmx, the fragment that changes
with the filters and the page (``"ratings/leaderboard.html#table"``); links
and the filter form work without JavaScript.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import OrderBy, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from accounts.requests import HtmxRequest
from games.models import Mode
from ratings import selectors
from ratings.forms import RatingFilterForm, StatsFilterForm
from ratings.models import PROVISIONAL_GAMES

PER_PAGE = 50


@dataclass(frozen=True)
class MyPlace:
    """The signed-in player's row: its place and the page it is on (None if absent)."""

    place: int | None
    page: int | None


def _my_place(
    request: HttpRequest, rows: QuerySet, order: list[OrderBy], key: str = "pk"
) -> MyPlace | None:
    if not request.user.is_authenticated:
        return None
    place = selectors.place_of(rows, order, request.user.pk, key)
    return MyPlace(place, None if place is None else (place - 1) // PER_PAGE + 1)


def _page(request: HttpRequest, rows: QuerySet) -> Page:
    return Paginator(rows, PER_PAGE).get_page(request.GET.get("page"))


def _template(request: HtmxRequest, page: str) -> str:
    # A history restore after a pushed URL needs the whole page, not the fragment.
    if request.htmx and not request.htmx.history_restore_request:
        return f"{page}#table"
    return page


@require_GET
@vary_on_headers("HX-Request")
def leaderboard(request: HtmxRequest) -> HttpResponse:
    form = StatsFilterForm(request.GET)
    query = form.stats_query()
    rows = selectors.marque_leaderboard(query)
    return render(
        request,
        _template(request, "ratings/leaderboard.html"),
        {
            "form": form,
            "query": query,
            "columns": selectors.COLUMNS,
            "page": _page(request, rows),
            "me": _my_place(request, rows, query.order),
        },
    )


@require_GET
@vary_on_headers("HX-Request")
def rating_board(request: HtmxRequest, mode: str) -> HttpResponse:
    if mode not in Mode.values:
        raise Http404
    form = RatingFilterForm(request.GET)
    include_provisional = form.include_provisional()
    rows = selectors.rating_leaderboard(mode, include_provisional=include_provisional)
    return render(
        request,
        _template(request, "ratings/ratings.html"),
        {
            "form": form,
            "mode": mode,
            "mode_label": Mode(mode).label,
            "modes": Mode.choices,
            "include_provisional": include_provisional,
            "provisional_games": PROVISIONAL_GAMES,
            "page": _page(request, rows),
            "me": _my_place(request, rows, list(selectors.RATING_ORDER), "player_id"),
        },
    )
