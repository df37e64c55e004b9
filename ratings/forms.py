"""The leaderboards' filters, read from the query string.

A bad value (an old link, a hand-edited URL) falls back to the default
rather than failing: a leaderboard always has something to show.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from ratings import selectors


class StatsFilterForm(forms.Form):
    tri = forms.ChoiceField(
        label=_("Sort by"),
        choices=[(column.slug, column.label) for column in selectors.COLUMNS],
        required=False,
    )
    periode = forms.ChoiceField(
        label=_("Period"), choices=list(selectors.PERIODS.items()), required=False
    )
    joueurs = forms.TypedChoiceField(
        label=_("Players at the table"),
        choices=[("", _("Any number"))] + [(str(n), str(n)) for n in selectors.MARQUE_TABLE_SIZES],
        coerce=int,
        empty_value=None,
        required=False,
    )
    min = forms.IntegerField(
        label=_("Minimum games"),
        min_value=1,
        max_value=selectors.MAX_MIN_GAMES,
        required=False,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def __init__(self, data: QueryDict | None = None, **kwargs: Any) -> None:
        super().__init__(data, **kwargs)
        self.fields["min"].widget.attrs["placeholder"] = str(selectors.DEFAULT_MIN_GAMES)

    def stats_query(self) -> selectors.StatsQuery:
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return selectors.StatsQuery(
            sort=data.get("tri") or selectors.DEFAULT_SORT,
            period=data.get("periode") or selectors.DEFAULT_PERIOD,
            table_size=data.get("joueurs"),
            min_games=data.get("min") or selectors.DEFAULT_MIN_GAMES,
        )


class RatingFilterForm(forms.Form):
    provisoires = forms.BooleanField(label=_("Include provisional ratings"), required=False)

    def include_provisional(self) -> bool:
        self.is_valid()
        return bool(getattr(self, "cleaned_data", {}).get("provisoires"))
