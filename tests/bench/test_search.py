"""The capacity search steps the load up a ladder, then halves the gap a few times."""

from __future__ import annotations

from benchmarks.web.search import Bracket, bracket, next_load

LADDER = (50, 100, 200, 400, 800)


def search(
    passes_below: int, *, required: tuple[int, ...] = (50, 200), halvings: int = 2
) -> list[int]:
    """The loads played, in order, on a machine where fewer than ``passes_below`` players pass."""
    outcomes: dict[int, bool] = {}
    played = []
    while (
        players := next_load(outcomes, LADDER, 50, required=required, halvings=halvings)
    ) is not None:
        played.append(players)
        outcomes[players] = players < passes_below
        assert len(played) < 20, played
    return played


def test_it_climbs_until_a_step_fails_then_halves_the_gap_twice() -> None:
    assert search(passes_below=330) == [50, 100, 200, 400, 300, 350]
    assert bracket({50: True, 100: True, 200: True, 400: False, 300: True, 350: False}) == (
        Bracket(passed=300, failed=350)
    )


def test_it_stops_halving_at_one_scenario_s_players() -> None:
    # 100 passes, 200 fails: 150 is the only load between them.
    assert search(passes_below=180) == [50, 100, 200, 150]


def test_the_target_s_load_is_played_even_above_the_first_failure() -> None:
    assert search(passes_below=80) == [50, 100, 200]
    assert search(passes_below=80, required=(50, 400)) == [50, 100, 400]


def test_a_machine_passing_every_step_ends_at_the_ladder_s_top() -> None:
    assert search(passes_below=10_000) == list(LADDER)
    assert bracket(dict.fromkeys(LADDER, True)) == Bracket(passed=800, failed=None)


def test_a_machine_failing_the_first_step_has_no_capacity_to_bracket() -> None:
    assert search(passes_below=10) == [50, 200]
    assert bracket({50: False, 200: False}) == Bracket(passed=None, failed=50)


def test_the_number_of_halvings_is_bounded() -> None:
    assert search(passes_below=730, halvings=1) == [50, 100, 200, 400, 800, 600]
    assert search(passes_below=730, halvings=3) == [50, 100, 200, 400, 800, 600, 700, 750]
