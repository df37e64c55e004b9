"""The load generator: simulated players talking HTTP to the bench server.

One asyncio process, one ``aiohttp`` session (own cookie jar) per player, all
sharing one connection pool. aiohttp is a dev dependency for this: its HTTP
parser is C, so the client costs the 2-core machine less CPU per request than
a pure-Python client would, and that CPU is taken from the server measured.

Two kinds of phase:

* closed loop (``saturate``): every worker sends its next request as soon as
  the last one is answered, for a fixed time; this measures how many requests
  per second the server can answer (its capacity), endpoint by endpoint;
* play (``play``): each player behaves as a player does on the page, with
  thinking time: load the game page; when it is their turn, preview a move and
  submit it; otherwise poll (``?since=``) until the game moves, then load the
  page again. This measures the latency players get at that load.

Every answer is checked the way the page would use it, and anything a player
playing only in turn would not get (a non-2xx status, a 409 "moved on", a
preview refusing a legal move, an error fragment) is counted as an error.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import aiohttp
from yarl import URL

from benchmarks.machine import cpu_reference_ms, load_average
from benchmarks.stats import Latency
from benchmarks.web import page
from rules import Move, Place

TIMEOUT_S = 30.0
QUERIES_HEADER = "X-Queries"


class Failed(Exception):
    """The answer was not what a player expects; the sample is already recorded."""


@dataclass(frozen=True)
class Sample:
    endpoint: str
    end: float  # time.monotonic() when the answer was read
    seconds: float
    status: int  # 0 when no answer came
    queries: int | None
    error: str = ""  # empty when the answer was as expected


@dataclass(frozen=True)
class Endpoint:
    """One endpoint's figures within a phase's measurement window."""

    name: str
    latency: Latency
    per_second: float
    errors: int  # over the whole phase, warm-up included
    error_examples: tuple[str, ...]
    statuses: dict[int, int]
    queries_median: float | None
    queries_max: int | None


@dataclass(frozen=True)
class PhaseResult:
    name: str
    workers: int
    window_s: float
    endpoints: dict[str, Endpoint]
    server_cpu_s: dict[str, float]  # CPU seconds within the window: gunicorn, postgres
    client_cpu_s: float  # this process's CPU time within the window
    load_before: tuple[float, float, float] | None
    extra: dict[str, float] = field(default_factory=dict)
    cpu_speed_ms: float | None = None  # the machine's CPU-speed line just before the phase

    @property
    def errors(self) -> int:
        return sum(e.errors for e in self.endpoints.values())

    @property
    def requests(self) -> int:
        return sum(e.latency.count for e in self.endpoints.values())

    def cpu_ms_per_request(self) -> float | None:
        """Server CPU (gunicorn + PostgreSQL) per request answered in the window."""
        done = self.requests
        return sum(self.server_cpu_s.values()) * 1000 / done if done else None


class Phase:
    """A bounded stretch of load: requests are recorded; the first ``warmup`` s are not timed."""

    def __init__(
        self,
        name: str,
        duration_s: float,
        warmup_s: float,
        cpu: Callable[[], dict[str, float]],
    ) -> None:
        self.name = name
        self.warmup_s = warmup_s
        self.duration_s = duration_s
        self.cpu = cpu
        self.samples: list[Sample] = []
        self.start = self.window_start = self.stop_at = 0.0
        self.marks: dict[str, tuple[dict[str, float], float]] = {}
        self.extra: Counter[str] = Counter()
        self.cpu_speed_ms: float | None = None

    def running(self) -> bool:
        return time.monotonic() < self.stop_at

    def record(self, sample: Sample) -> None:
        self.samples.append(sample)

    def _mark(self, name: str) -> None:
        self.marks[name] = (self.cpu(), time.process_time())

    async def run(self, workers: Sequence[Callable[[Phase], Awaitable[None]]]) -> PhaseResult:
        load = load_average()
        # How fast the machine is this minute: its speed drifts, so each figure has its own.
        self.cpu_speed_ms = cpu_reference_ms(repeats=3)
        loop = asyncio.get_running_loop()
        self.start = time.monotonic()
        self.window_start = self.start + self.warmup_s
        self.stop_at = self.start + self.duration_s
        self._mark("start")
        loop.call_at(loop.time() + self.warmup_s, self._mark, "window")
        loop.call_at(loop.time() + self.duration_s, self._mark, "stop")
        await asyncio.gather(*(worker(self) for worker in workers))
        if "stop" not in self.marks:  # every worker ended early (e.g. the games ended)
            self._mark("stop")
        return self.result(len(workers), load)

    def result(self, workers: int, load: tuple[float, float, float] | None) -> PhaseResult:
        window = [s for s in self.samples if self.window_start <= s.end <= self.stop_at]
        span = max(self.stop_at - self.window_start, 1e-9)
        names = sorted({s.endpoint for s in self.samples})
        endpoints = {}
        for name in names:
            mine = [s for s in window if s.endpoint == name]
            failed = [s for s in self.samples if s.endpoint == name and s.error]
            counted = [s.queries for s in mine if s.queries is not None]
            endpoints[name] = Endpoint(
                name=name,
                latency=Latency.of([s.seconds for s in mine if not s.error]),
                per_second=len(mine) / span,
                errors=len(failed),
                error_examples=tuple(sorted({s.error for s in failed}))[:5],
                statuses=dict(Counter(s.status for s in self.samples if s.endpoint == name)),
                queries_median=statistics.median(counted) if counted else None,
                queries_max=max(counted) if counted else None,
            )
        none: tuple[dict[str, float], float] = ({}, 0.0)  # a phase never run() has no marks
        cpu0, client0 = self.marks.get("window", self.marks.get("start", none))
        cpu1, client1 = self.marks.get("stop", none)
        return PhaseResult(
            name=self.name,
            workers=workers,
            window_s=span,
            endpoints=endpoints,
            server_cpu_s={k: cpu1[k] - cpu0.get(k, 0.0) for k in cpu1},
            client_cpu_s=client1 - client0,
            load_before=load,
            extra=dict(self.extra),
            cpu_speed_ms=self.cpu_speed_ms,
        )


@dataclass(frozen=True)
class Think:
    """A busy hour's human timings for the play phase, in seconds (uniform ranges).

    Every player has the game open at once and plays at once when it is their
    turn, as in a live session; the page's own cadence for the rest.
    """

    arrive: tuple[float, float] = (0.0, 10.0)  # players do not all open the page at once
    move: tuple[float, float] = (5.0, 30.0)  # looking at the board before placing tiles
    confirm: tuple[float, float] = (1.0, 4.0)  # reading the preview before pressing Play
    poll: float = 10.0  # the page's poll (DIAMINO_POLL_SECONDS' default)


class Player:
    """One signed-in player with their own cookies, as a browser would keep them."""

    def __init__(
        self,
        base_url: str,
        connector: aiohttp.BaseConnector,
        username: str = "",
        game: int = 0,
        session: str | None = None,
        seed: int = 0,
    ) -> None:
        self.username = username
        self.game = game
        self.base = base_url
        jar = aiohttp.CookieJar(unsafe=True)  # unsafe: cookies for an IP address host
        if session:
            jar.update_cookies({"sessionid": session}, URL(base_url))
        self.http = aiohttp.ClientSession(
            connector=connector,
            connector_owner=False,
            cookie_jar=jar,
            timeout=aiohttp.ClientTimeout(total=TIMEOUT_S),
        )
        self.csrf: str | None = None
        self.seen: page.Seen | None = None
        self.rng = random.Random(seed)
        # Every move the site accepted from this player: (game, the move's number).
        self.accepted: list[tuple[int, int]] = []

    @property
    def page_url(self) -> str:
        return f"/parties/{self.game}/"

    async def close(self) -> None:
        await self.http.close()

    async def call(
        self,
        phase: Phase,
        endpoint: str,
        method: str,
        path: str,
        check: Callable[[int, str], str],
        *,
        data: dict[str, str] | None = None,
        htmx: bool = False,
        params: dict[str, str] | None = None,
    ) -> tuple[int, str]:
        """One request, timed and checked; raises Failed after recording a bad answer."""
        headers = {}
        if htmx:
            headers["HX-Request"] = "true"
        if method == "POST" and self.csrf:
            headers["X-CSRFToken"] = self.csrf  # what htmx sends from <body hx-headers>
        started = time.perf_counter()
        try:
            async with self.http.request(
                method,
                self.base + path,
                data=data,
                params=params,
                headers=headers,
                allow_redirects=False,
            ) as answer:
                body = await answer.text()
                status = answer.status
                raw = answer.headers.get(QUERIES_HEADER)
        except (aiohttp.ClientError, TimeoutError) as exc:
            seconds = time.perf_counter() - started
            phase.record(Sample(endpoint, time.monotonic(), seconds, 0, None, type(exc).__name__))
            raise Failed from exc
        seconds = time.perf_counter() - started
        error = check(status, body)
        queries = int(raw) if raw and raw.isdigit() else None
        phase.record(Sample(endpoint, time.monotonic(), seconds, status, queries, error))
        if error:
            raise Failed(error)
        return status, body

    # --- what a player does -------------------------------------------------------

    async def load_page(self, phase: Phase, endpoint: str = "page") -> page.Seen:
        _, body = await self.call(phase, endpoint, "GET", self.page_url, _game_page)
        seen = page.read(body)
        self.csrf = seen.csrf_token or self.csrf
        self.seen = seen
        return seen

    async def poll(self, phase: Phase, since: str) -> bool:
        """The open page's poll with the token it shows; True when the game has moved on."""
        status, _ = await self.call(
            phase, "poll", "GET", self.page_url, _poll, htmx=True, params={"since": since}
        )
        return status == 200

    async def preview(self, phase: Phase, move: Place, version: int) -> None:
        await self.call(
            phase,
            "preview",
            "POST",
            self.page_url + "apercu/",
            _preview,
            data=page.form_fields(move, version),
            htmx=True,
        )

    async def submit(self, phase: Phase, move: Move, version: int) -> page.Seen:
        _, body = await self.call(
            phase,
            "submit",
            "POST",
            self.page_url + "jouer/",
            _submitted(version),
            data=page.form_fields(move, version),
            htmx=True,
        )
        self.seen = page.read(body)
        self.accepted.append((self.game, version + 1))
        return self.seen

    async def play(self, phase: Phase, think: Think) -> None:
        """Play as a person would, until the phase ends."""
        rng = self.rng
        await asyncio.sleep(rng.uniform(*think.arrive))
        seen: page.Seen | None = None
        while phase.running():
            try:
                if seen is None:
                    seen = await self.load_page(phase)
                if seen.over:
                    phase.extra["players whose game ended"] += 1
                    return
                if seen.my_turn:
                    seen = await self.take_turn(phase, think, seen)
                    continue
                await asyncio.sleep(think.poll)
                if phase.running() and await self.poll(phase, seen.since):
                    seen = None  # the game moved: open the page again, as from the email
            except Failed:
                seen = None
                await asyncio.sleep(0.5)

    async def take_turn(self, phase: Phase, think: Think, seen: page.Seen) -> page.Seen | None:
        """Think, then move on the page; the page as it is after (None: to be loaded)."""
        rng = self.rng
        await asyncio.sleep(rng.uniform(*think.move))
        move = page.choose(seen, rng)
        if isinstance(move, Place):
            await self.preview(phase, move, seen.version)
            await asyncio.sleep(rng.uniform(*think.confirm))
        else:
            phase.extra["exchanges and passes"] += 1
        return await self.submit(phase, move, seen.version)


# --- answer checks: "" when the answer is what the page expects -------------------


def _status(status: int, *expected: int) -> str:
    return "" if status in expected else f"HTTP {status}"


def _game_page(status: int, body: str) -> str:
    return _status(status, 200) or ("" if 'id="game-area"' in body else "not a game page")


def _poll(status: int, body: str) -> str:
    if status == 204:
        return ""
    return _status(status, 200) or ("" if 'id="game-area"' in body else "not a game fragment")


def _preview(status: int, body: str) -> str:
    return _status(status, 200) or ("" if page.preview_ok(body) else "preview refused the move")


def _submitted(version: int) -> Callable[[int, str], str]:
    def check(status: int, body: str) -> str:
        if error := _status(status, 200):
            return error
        if page.move_refused(body):
            return "move refused (moved on or illegal)"
        try:
            after = page.read(body)
        except page.PageError:
            return "not a game fragment"
        return "" if after.version == version + 1 else f"version {after.version} after {version}"

    return check


def _ok(status: int, body: str) -> str:
    return _status(status, 200)


# --- closed-loop workers --------------------------------------------------------------


def _get_worker(player: Player, endpoint: str, path: str) -> Callable[[Phase], Awaitable[None]]:
    async def work(phase: Phase) -> None:
        while phase.running():
            try:
                await player.call(phase, endpoint, "GET", path, _ok)
            except Failed:
                await asyncio.sleep(0.1)

    return work


def bare_worker(player: Player) -> Callable[[Phase], Awaitable[None]]:
    return _get_worker(player, "bare", "/_bench/bare")


def page_worker(player: Player) -> Callable[[Phase], Awaitable[None]]:
    async def work(phase: Phase) -> None:
        while phase.running():
            try:
                await player.load_page(phase)
            except Failed:
                await asyncio.sleep(0.1)

    return work


def preview_worker(player: Player, move: Place, version: int) -> Callable[[Phase], Awaitable[None]]:
    async def work(phase: Phase) -> None:
        while phase.running():
            try:
                await player.preview(phase, move, version)
            except Failed:
                await asyncio.sleep(0.1)

    return work


def poll_worker(player: Player) -> Callable[[Phase], Awaitable[None]]:
    """The waiting page's poll at the version the player last saw: nothing moves, so 204."""

    async def work(phase: Phase) -> None:
        since = player.seen.since if player.seen else "0"
        while phase.running():
            try:
                await player.poll(phase, since)
            except Failed:
                await asyncio.sleep(0.1)

    return work


def chain_worker(players: Sequence[Player]) -> Callable[[Phase], Awaitable[None]]:
    """One game played flat out: whoever is to move loads their page and submits at once."""

    async def work(phase: Phase) -> None:
        order = sorted(
            players,
            key=lambda p: p.seen.my_position if p.seen and p.seen.my_position is not None else 0,
        )
        turn = next((k for k, p in enumerate(order) if p.seen and p.seen.my_turn), 0)
        while phase.running():
            mover = order[turn % len(order)]
            try:
                seen = await mover.load_page(phase)
                if seen.over:
                    phase.extra["games that ended"] += 1
                    return
                if not seen.my_turn:  # someone left, or the guess was wrong: try the next seat
                    turn += 1
                    continue
                await mover.submit(phase, page.choose(seen, mover.rng), seen.version)
                turn += 1
            except Failed:
                await asyncio.sleep(0.1)

    return work


def by_game(players: Sequence[Player]) -> dict[int, list[Player]]:
    games: dict[int, list[Player]] = defaultdict(list)
    for player in players:
        games[player.game].append(player)
    return dict(games)
