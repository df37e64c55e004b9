"""Why the computer suggests a move, in the reader's language.

``rules.strategy`` says what its evaluation weighed in a move as ``Reason``
codes (``rules/strategy.py`` documents each); this turns them into the short
phrases a hint and the post-game analysis show. A reason comes either as the
``Reason`` itself or as the dict a hint or an analysis stores.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.presenters import notation_shown
from rules.engine import RED_BONUS_POINTS
from rules.strategy import Reason


def reason_data(reason: Reason) -> dict[str, Any]:
    """A reason as JSON, for the hint and analysis the database keeps."""
    return {"code": reason.code, "amount": reason.amount, "tiles": reason.tiles}


def phrases(reasons: Iterable[Reason | Mapping[str, Any]], *, own: bool = True) -> list[str]:
    """Each reason as a phrase; codes this site does not know are left out.

    ``own``: said to the player whose hand it is ("your tiles", a hint); otherwise
    of whoever held it ("the hand", the analysis of a finished game, which every
    viewer reads about every player's moves, the computer's too).
    """
    out = []
    for reason in reasons:
        data = reason_data(reason) if isinstance(reason, Reason) else reason
        text = phrase(
            str(data.get("code", "")),
            int(data.get("amount", 0)),
            str(data.get("tiles", "")),
            own=own,
        )
        if text:
            out.append(text)
    return out


def phrase(code: str, amount: int, tiles: str, *, own: bool = True) -> str:
    n = amount
    if not own:
        third = _third_person(code, n, tiles)
        if third:
            return third
    if code == "red-points":
        count = max(1, n // RED_BONUS_POINTS)
        return ngettext(
            "+%(points)d points on a red devil",
            "+%(points)d points on %(count)d red devils",
            count,
        ) % {"points": n, "count": count}
    if code == "green-points":
        return _("each other player gains %(points)d (green devils)") % {"points": n}
    if code == "goes-out":
        if n:
            return _("places all your tiles: +%(points)d points") % {"points": n}
        return _("places all your tiles and wins (the score counts hands hidden until the end)")
    if code == "black-square":
        return _("on a black square: the end score is doubled")
    if code == "sheds":
        return ngettext(
            "%(count)d tile out of your hand", "%(count)d tiles out of your hand", n
        ) % {"count": n}
    if code == "returns":
        return _("gives back %(tiles)s for the red devils, the tiles you need least") % {
            "tiles": tiles
        }
    if code == "green-draw":
        return ngettext(
            "draws %(count)d penalty tile (green devil)",
            "draws %(count)d penalty tiles (green devils)",
            n,
        ) % {"count": n}
    if code == "plays-heavy":
        return _("gets rid of %(tiles)s, heavy to keep to the end") % {"tiles": tiles}
    if code == "plays-awkward":
        return _("gets rid of %(tiles)s, tiles that make few words") % {"tiles": tiles}
    if code == "keeps-diable":
        return ngettext("keeps your joker for later", "keeps your jokers for later", n)
    if code == "keeps":
        return _("keeps %(tiles)s, tiles that play well together") % {"tiles": tiles}
    if code == "out-next":
        return _("the tiles you keep can all go out next turn")
    if code == "opens-red":
        return ngettext(
            "but opens a red devil to the next player",
            "but opens %(count)d red devils to the next player",
            n,
        ) % {"count": n}
    if code == "exchange":
        return _(
            "your tiles are hard to place: exchanging %(tiles)s is worth more than any word"
        ) % {"tiles": tiles}
    if code == "pass":
        return _("nothing you can place or exchange is worth more than passing")
    ahead = {
        "ahead-points": _("ranks ahead of %(other)s: it scores more"),
        "ahead-tiles": _("ranks ahead of %(other)s: it gets more tiles out of your hand"),
        "ahead-hand": _("ranks ahead of %(other)s: the tiles it keeps are better"),
        "ahead-safety": _("ranks ahead of %(other)s: it opens fewer red devils to the next player"),
        "ahead-out-next": _("ranks ahead of %(other)s: the tiles it keeps can go out next turn"),
        "ahead-close": _("about as good as %(other)s"),
    }
    if code in ahead:
        return ahead[code] % {"other": notation_shown(tiles)}
    return ""


def _third_person(code: str, n: int, tiles: str) -> str:
    """The phrases that say "you" to the hand's owner, said of the hand instead; "" for the
    others, which read the same for anyone."""
    if code == "goes-out":
        if n:
            return _("places every tile in hand: +%(points)d points") % {"points": n}
        return _("places every tile in hand and wins (the score counts hands hidden until the end)")
    if code == "sheds":
        return ngettext("%(count)d tile out of the hand", "%(count)d tiles out of the hand", n) % {
            "count": n
        }
    if code == "returns":
        return _("gives back %(tiles)s for the red devils, the tiles least needed") % {
            "tiles": tiles
        }
    if code == "keeps-diable":
        return ngettext("keeps the joker for later", "keeps the jokers for later", n)
    if code == "out-next":
        return _("the tiles kept can all go out next turn")
    if code == "exchange":
        return _(
            "the tiles were hard to place: exchanging %(tiles)s is worth more than any word"
        ) % {"tiles": tiles}
    if code == "pass":
        return _("nothing that could be placed or exchanged is worth more than passing")
    if code == "ahead-tiles":
        return _("ranks ahead of %(other)s: it gets more tiles out of the hand") % {
            "other": notation_shown(tiles)
        }
    return ""
