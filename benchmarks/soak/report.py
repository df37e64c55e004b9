"""The soak's checks and its printed summary.

Pure functions of what the run gathered (the players' samples and accepted
moves, the fault windows, the sink's counts, the database's audit, the
logs), so that they can be tested on made-up data. A *loss* or a *double*
fails the run (``Report.failures``); everything else is information.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.stats import Latency
from benchmarks.web.client import Sample


@dataclass(frozen=True)
class Window:
    """One fault: its monotonic and wall-clock start and end, and what was done."""

    name: str
    start: float
    end: float
    wall_start: float
    wall_end: float
    note: str = ""
    # Each log's size when the fault began and ``grace`` s after it ended: the lines
    # written in between are the window's (the processes' clocks are in no one zone).
    log_spans: dict[str, tuple[int, int]] = field(default_factory=dict)


@dataclass
class Played:
    samples: list[Sample]
    windows: list[Window]
    accepted: list[tuple[str, int, int]]  # (player, game, the move's number)
    mailed: list[tuple[str, str, int, int]]  # (player, Message-ID, game, the move's number)
    mail_fallbacks: dict[str, int]
    mail_players: int
    players: int
    seconds: float
    crashes: dict[str, int] = field(default_factory=dict)  # the simulated players' own errors
    push_players: int = 0  # the players with a device the push sink serves


@dataclass
class PushCounts:
    """What the push sink took: each push by its payload's id, when it first came, the 503s
    answered while it refused, and the requests refused for what they held."""

    ids: dict[str, int] = field(default_factory=dict)
    first_received: dict[str, float] = field(default_factory=dict)
    refused: int = 0
    rejected: dict[str, int] = field(default_factory=dict)


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    figures: dict[str, int] = field(default_factory=dict)  # the main counts, for a test

    @property
    def status(self) -> int:
        return 1 if self.failures else 0

    def text(self) -> str:
        verdict = (
            ["RESULT: no loss, no double"]
            if not self.failures
            else ["RESULT: FAILED", *(f"  - {f}" for f in self.failures)]
        )
        return "\n".join([*self.lines, "", *verdict])


def in_window(t: float, windows: list[Window], grace: float) -> bool:
    """``t`` (``time.monotonic()``) within a fault or ``grace`` s after it."""
    return any(w.start <= t <= w.end + grace for w in windows)


def check_moves(
    accepted: list[tuple[str, int, int]], moves: list[list[Any]]
) -> tuple[list[str], list[str]]:
    """Each accepted move in the database once, by its player: (lost, doubled), described."""
    rows = Counter((int(g), int(n)) for g, n, _who in moves)
    by = {(int(g), int(n)): who for g, n, who in moves}
    lost, doubled = [], []
    seen: Counter[tuple[int, int]] = Counter()
    for player, game, number in accepted:
        seen[(game, number)] += 1
        if rows[(game, number)] == 0:
            lost.append(f"game {game} move {number} by {player}: no Move row")
        elif by[(game, number)] != player:
            lost.append(
                f"game {game} move {number}: accepted from {player}, stored as {by[(game, number)]}'s"
            )
    for key, count in rows.items():
        if count > 1:
            doubled.append(f"game {key[0]} move {key[1]}: {count} Move rows")
    for key, count in seen.items():
        if count > 1:  # the site answered "played" twice for one position
            doubled.append(f"game {key[0]} move {key[1]}: accepted {count} times")
    return lost, doubled


def check_outbox(
    rows: list[list[Any]], channel: str, sink_ids: dict[str, int], id_of: Any, shown: str = ""
) -> dict[str, Any]:
    """Each ``channel`` row marked sent received exactly once at its sink, none left to send.

    ``rows``: the audit's outbox rows; ``sink_ids``: how many times the sink took each
    id; ``id_of(row)``: the id the sink counts the row's message by; ``shown``: the
    words before an id in what is said of a double.
    """
    mine = [row for row in rows if row[2] == channel]
    statuses = Counter(row[3] for row in mine)
    reasons = Counter(row[5] for row in mine if row[3] == "skipped")
    sent_ids = {id_of(row): row for row in mine if row[3] == "sent"}
    all_ids = {id_of(row) for row in mine}
    lost = [
        f"row {row[0]} ({row[1]}) marked sent, never received"
        for mid, row in sent_ids.items()
        if sink_ids.get(mid, 0) == 0
    ]
    doubled = [f"{shown}{mid} received {n} times" for mid, n in sink_ids.items() if n > 1]
    unsent_received = [
        mid for mid, n in sink_ids.items() if n and mid in all_ids and mid not in sent_ids
    ]
    stranger = sum(n for mid, n in sink_ids.items() if mid not in all_ids)
    stuck = [
        f"row {row[0]} ({row[1]}) still {row[3]}"
        for row in mine
        if row[3] in ("pending", "sending", "failed")
    ]
    return {
        "written": sum(statuses.values()),
        "statuses": dict(statuses),
        "skipped_reasons": dict(reasons.most_common(5)),
        "received": sum(sink_ids.values()),
        "lost": lost,
        "doubled": doubled,
        "stuck": stuck,
        "received_not_marked_sent": unsent_received,
        "stranger": stranger,
    }


def email_id(row: list[Any]) -> str:
    return str(row[4])  # the Message-ID, the same on every attempt


def push_id(row: list[Any]) -> str:
    return str(row[0])  # the row's id, in the payload of every attempt (notifications/push.py)


def check_emails(emails: list[list[Any]], sink_ids: dict[str, int]) -> dict[str, Any]:
    """Each email row sent exactly once at the SMTP sink (by Message-ID); the rows' statuses."""
    return check_outbox(emails, "email", sink_ids, email_id)


def check_pushes(rows: list[list[Any]], sink_ids: dict[str, int]) -> dict[str, Any]:
    """Each push row sent exactly once at the push sink (by the payload's ``id``, the row's)."""
    return check_outbox(rows, "push", sink_ids, push_id, shown="push row ")


def outbox_delays(
    rows: list[list[Any]], channel: str, id_of: Any, sink_times: dict[str, float], since: float
) -> Latency:
    """From a ``channel`` row's writing to its arrival at the sink, for the rows written
    after ``since`` (``time.time()``) and received."""
    return Latency.of(
        [
            sink_times[id_of(row)] - row[6]
            for row in rows
            if row[2] == channel and row[6] >= since and id_of(row) in sink_times
        ]
    )


def email_delays(emails: list[list[Any]], sink_times: dict[str, float], since: float) -> Latency:
    return outbox_delays(emails, "email", email_id, sink_times, since)


def check_mail_moves(
    mailed: list[tuple[str, str, int, int]],
    inbound: list[list[Any]],
    moves: list[list[Any]],
) -> tuple[Counter[str], list[str], list[str]]:
    """Each reply the mail-in server acknowledged stored once and decided: (states, lost, doubled)."""
    stored = Counter(row[0] for row in inbound)
    state_of = {row[0]: row for row in inbound}
    by = {(int(g), int(n)): who for g, n, who in moves}
    states: Counter[str] = Counter()
    lost, doubled = [], []
    for player, message_id, game, number in mailed:
        if stored[message_id] == 0:
            lost.append(f"reply {message_id} (game {game}) acknowledged, never stored")
            continue
        if stored[message_id] > 1:
            doubled.append(f"reply {message_id} stored {stored[message_id]} times")
        _mid, state, _game, move_number = state_of[message_id]
        states[state] += 1
        if state == "received":
            lost.append(f"reply {message_id} (game {game}) stored, never processed")
        elif state == "played" and by.get((game, number)) != player:
            lost.append(
                f"reply {message_id} played, but game {game} move {number} is not {player}'s"
            )
        if state == "played" and move_number is not None and move_number != number:
            lost.append(f"reply {message_id} played as move {move_number}, sent for {number}")
    return states, lost, doubled


_LEVEL = re.compile(rb"\b(ERROR|CRITICAL)\b|Traceback \(most recent call last\)")
_STAMP = re.compile(r"\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[,.\d]*( [+-]\d{4})?\]?:?")


def log_errors(logs: dict[str, Path], windows: list[Window]) -> dict[str, dict[str, Any]]:
    """Error lines in each log: how many, how many outside the fault windows, a few examples."""
    found: dict[str, dict[str, Any]] = {}
    for name, path in logs.items():
        try:
            data = path.read_bytes()
        except OSError:
            continue
        spans = [w.log_spans[name] for w in windows if name in w.log_spans]
        total = outside = 0
        examples: Counter[str] = Counter()
        offset = 0
        for line in data.splitlines(keepends=True):
            at, offset = offset, offset + len(line)
            if not _LEVEL.search(line):
                continue
            total += 1
            if not any(start <= at < end for start, end in spans):
                outside += 1
                text = _STAMP.sub("", line.decode(errors="replace"))
                examples[text[:160].strip()] += 1
        found[name] = {"lines": total, "outside": outside, "examples": examples.most_common(3)}
    return found


def _ms(value: float) -> str:
    return "–" if value != value else f"{value:.0f} ms"  # NaN: no sample


def fail_on_losses(
    out: Report, say: Callable[[str], None], noun: str, found: dict[str, Any]
) -> None:
    """Say the first ten of each loss, double or row left unsent; each fails the run."""
    for what, items in (
        (f"{noun} lost", found["lost"]),
        (f"{noun} not sent", found["stuck"]),
        (f"{noun} doubled", found["doubled"]),
    ):
        for item in items[:10]:
            say(f"    {what}: {item}")
        if items:
            out.failures.append(f"{what}: {len(items)}")


def build(
    *,
    config: Any,
    faults_run: tuple[str, ...],
    played: Played,
    audit: dict[str, Any],
    moves_before: int,
    sink_ids: dict[str, int],
    sink_times: dict[str, float],
    play_started: float,
    seed_drained_s: float,
    sink_refused: int,
    drained_s: float,
    alive: dict[str, bool],
    restarts: dict[str, int],
    exits: dict[str, list[int]] | None = None,
    log_errors: dict[str, dict[str, Any]],
    notes: list[str],
    services: Any,
    hosts: list[str] | None = None,
    pushes: PushCounts | None = None,
) -> Report:
    out = Report()
    say = out.lines.append
    grace = config.grace_s
    windows = played.windows
    say(
        f"Soak of {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC: {played.players} players "
        f"({played.mail_players} by email, {played.push_players} with a push device) for {played.seconds / 60:.1f} min, "
        f"{services.postgres_version}, {services.redis_version}"
    )
    if hosts:
        say(
            "Hosts (SOAK_HOSTS=1: a network namespace each; on disk its own data folder and "
            "the code, /tmp, /var/tmp, /dev/shm, the soak's folder and data/ empty):"
        )
        for line in hosts:
            say(f"  {line}")
    say(f"Faults ({len(windows)}; each window runs {grace:.0f} s past the fault's end):")
    for w in windows:
        say(f"  {dt.datetime.fromtimestamp(w.wall_start, dt.UTC):%H:%M:%S} {w.name}: {w.note}")
    for name in faults_run:
        if name not in {w.name for w in windows}:
            say(f"  {name}: not reached in this run")
    for note in notes:
        say(f"  note: {note}")

    # --- moves ---
    moves = audit["moves"]
    states, mail_lost, mail_doubled = check_mail_moves(played.mailed, audit["inbound"], moves)
    lost, doubled = check_moves(played.accepted, moves)
    submits = [s for s in played.samples if s.endpoint == "submit"]
    unanswered = sum(1 for s in submits if s.error)
    played_db = len(moves) - moves_before
    by_web = len(played.accepted)
    say("")
    say(
        f"Moves: {played_db} played in the database, {by_web} accepted on the page, "
        f"{len(played.mailed)} replies by email taken; lost {len(lost)}, doubled {len(doubled)}"
    )
    extra = played_db - by_web - states["played"]
    if extra > unanswered:
        doubled.append(
            f"{extra} more moves in the database than accepted and unanswered ({unanswered})"
        )
    say(
        f"  moves stored whose answer the player did not get (a fault): at most {max(extra, 0)}"
        f" of {unanswered} submits that failed"
    )
    games = audit["games"]
    broken = [
        f"game {g['id']}: {'; '.join(g['differences'][:3])}" for g in games if g["differences"]
    ]
    tiles = [f"game {g['id']}: {g['inventory']}" for g in games if g["inventory"]]
    finished = sum(1 for g in games if g["status"] == "finished")
    say(
        f"  games: {len(games)} ({finished} finished); audit differences in {len(broken)}, "
        f"tile inventory wrong in {len(tiles)}"
    )
    for what, items in (
        ("move lost", lost),
        ("move doubled", doubled),
        ("game audit", broken),
        ("tiles", tiles),
    ):
        for item in items[:10]:
            say(f"    {what}: {item}")
        if items:
            out.failures.append(f"{what}: {len(items)}")

    out.figures |= {"moves": played_db, "accepted": by_web, "mailed": len(played.mailed)}
    out.figures |= {"faults": len(windows)}

    # --- emails ---
    emails = check_emails(audit["emails"], sink_ids)
    out.figures |= {
        "emails sent": emails["statuses"].get("sent", 0),
        "emails received": emails["received"],
    }
    say("")
    say(
        f"Emails: {emails['written']} written, {emails['statuses'].get('sent', 0)} sent, "
        f"{emails['received']} received at the sink ({sink_refused} refused with 451); "
        f"lost {len(emails['lost']) + len(emails['stuck'])}, doubled {len(emails['doubled'])}"
    )
    say(
        f"  statuses: {emails['statuses']}; the seed's emails sent in {seed_drained_s:.0f} s"
        f" before play, the outbox drained in {drained_s:.0f} s after it"
    )
    delays = email_delays(audit["emails"], sink_times, play_started)
    if delays.count:
        say(
            f"  written during play to received at the sink: p50 {delays.p50 / 1000:.0f} s,"
            f" p95 {delays.p95 / 1000:.0f} s, max {delays.max / 1000:.0f} s ({delays.count} emails)"
        )
    if emails["skipped_reasons"]:
        say(f"  skipped, why: {emails['skipped_reasons']}")
    if emails["stranger"]:
        say(f"  {emails['stranger']} message(s) at the sink from no outbox row")
    if emails["received_not_marked_sent"]:
        say(f"  received but not marked sent: {len(emails['received_not_marked_sent'])}")
    fail_on_losses(out, say, "email", emails)

    # --- pushes ---
    sink = pushes or PushCounts()
    pushed = check_pushes(audit["emails"], sink.ids)
    out.figures |= {
        "pushes written": pushed["written"],
        "pushes sent": pushed["statuses"].get("sent", 0),
        "pushes received": pushed["received"],
    }
    say("")
    say(
        f"Pushes: {pushed['written']} written, {pushed['statuses'].get('sent', 0)} sent, "
        f"{pushed['received']} received at the push service ({sink.refused} refused with 503); "
        f"lost {len(pushed['lost']) + len(pushed['stuck'])}, doubled {len(pushed['doubled'])}"
    )
    say(f"  statuses: {pushed['statuses']}")
    push_delays = outbox_delays(audit["emails"], "push", push_id, sink.first_received, play_started)
    if push_delays.count:
        say(
            f"  written during play to received at the push service: p50 "
            f"{push_delays.p50 / 1000:.0f} s, p95 {push_delays.p95 / 1000:.0f} s, "
            f"max {push_delays.max / 1000:.0f} s ({push_delays.count} pushes)"
        )
    if pushed["skipped_reasons"]:
        say(f"  skipped, why: {pushed['skipped_reasons']}")
    if sink.rejected:
        say(f"  refused by the push service for what they held: {sink.rejected}")
    if pushed["stranger"]:
        say(f"  {pushed['stranger']} push(es) at the push service from no outbox row")
    if pushed["received_not_marked_sent"]:
        say(f"  received but not marked sent: {len(pushed['received_not_marked_sent'])}")
    fail_on_losses(out, say, "push", pushed)

    # --- replies by email ---
    say("")
    say(
        f"Replies by email: {len(played.mailed)} acknowledged by mail-in, decided as {dict(states)}; "
        f"lost {len(mail_lost)}, doubled {len(mail_doubled)}; played on the page instead: "
        f"{played.mail_fallbacks or 0}"
    )
    for what, items in (("reply lost", mail_lost), ("reply doubled", mail_doubled)):
        for item in items[:10]:
            say(f"    {what}: {item}")
        if items:
            out.failures.append(f"{what}: {len(items)}")

    # --- answers and latency ---
    samples = played.samples
    five = [s for s in samples if s.status >= 500]
    five_out = [s for s in five if not in_window(s.end, windows, grace)]
    failed = [s for s in samples if s.error and s.status < 500]
    failed_out = [s for s in failed if not in_window(s.end, windows, grace)]
    say("")
    say(
        f"Requests: {len(samples)}; 5xx {len(five)} ({len(five_out)} outside the fault windows); "
        f"other failures {len(failed)} ({len(failed_out)} outside)"
    )
    kinds = Counter(s.error for s in failed_out)
    if kinds:
        say(f"  failures outside the windows: {dict(kinds.most_common(5))}")
    by_fault: Counter[str] = Counter()
    for s in five:
        for w in windows:
            if w.start <= s.end <= w.end + grace:
                by_fault[w.name] += 1
    if by_fault:
        say(f"  5xx by fault: {dict(by_fault)}")
    say("  p95 outside the fault windows (p50, count):")
    for endpoint in ("page", "poll", "preview", "submit"):
        quiet = [
            s.seconds
            for s in samples
            if s.endpoint == endpoint and not s.error and not in_window(s.end, windows, grace)
        ]
        lat = Latency.of(quiet)
        say(f"    {endpoint:8} p95 {_ms(lat.p95):>8}  (p50 {_ms(lat.p50)}, {lat.count})")

    # --- processes and logs ---
    say("")
    if played.crashes:
        say(f"Simulated players' own errors (not the site's): {played.crashes}")
    say(
        f"Processes at the end: {', '.join(f'{k} ' + ('up' if v else 'DOWN') for k, v in alive.items())}; "
        f"restarted by the soak: {restarts}"
    )
    for name, codes in (exits or {}).items():
        say(
            f"  {name} exited on its own {len(codes)} time(s) (exit codes {codes}), started "
            "again 5 s later as systemd's Restart=always would: see its log"
        )
    for name, found in log_errors.items():
        say(
            f"Log {name}: {found['lines']} error line(s), {found['outside']} outside the fault windows"
        )
        for example, count in found["examples"]:
            say(f"    {count}x {example}")
    return out
