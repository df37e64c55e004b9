"""Which load to play next while looking for the site's capacity: pure logic, no I/O.

The capacity is the most players at once for which a step passes (both p95
under the limit, no error). Steps climb a ladder (50, 100, 200, 400, …) until
one fails, the loads that must be measured anyway (the target's) are added, and
the gap between the highest pass below the first failure and that failure is
halved a few times, to a multiple of the unit (the scenario's size: whole games).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Bracket:
    """What the steps say of the capacity: it lies in ``[passed, failed)``."""

    passed: int | None  # the most players seen to pass; None when even the fewest failed
    failed: int | None  # the fewest players seen to fail above it; None when none failed


def bracket(outcomes: Mapping[int, bool]) -> Bracket:
    """The capacity's bracket from each load's outcome (True: passed).

    A noisy machine can fail a load and pass a larger one; the first failure
    bounds the capacity, and only passes below it count.
    """
    failed = min((n for n, ok in outcomes.items() if not ok), default=None)
    below = [n for n, ok in outcomes.items() if ok and (failed is None or n < failed)]
    return Bracket(max(below, default=None), failed)


def next_load(
    outcomes: Mapping[int, bool],
    ladder: Sequence[int],
    unit: int,
    *,
    required: Sequence[int] = (),
    halvings: int = 2,
) -> int | None:
    """The next number of players to play with; None when the search is over."""
    for players in sorted(ladder):
        if players not in outcomes:
            return players
        if not outcomes[players]:
            break
    for players in sorted(required):
        if players not in outcomes:
            return players
    done = [n for n in outcomes if n not in ladder and n not in required]
    found = bracket(outcomes)
    if found.passed is None or found.failed is None or len(done) >= halvings:
        return None
    middle = round((found.passed + found.failed) / 2 / unit) * unit
    if middle in (found.passed, found.failed) or middle in outcomes:
        return None
    return middle
