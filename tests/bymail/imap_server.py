"""A small real IMAP4rev1 server for the tests: asyncio, over a socket, in a thread.

It speaks what ``imaplib`` needs for ``bymail/imap.py`` — CAPABILITY, LOGIN,
SELECT, SEARCH / UID SEARCH (ALL, UNSEEN), FETCH / UID FETCH (BODY[],
BODY.PEEK[], FLAGS, UID), STORE / UID STORE (+FLAGS, -FLAGS, FLAGS), NOOP,
LOGOUT — on one mailbox, INBOX, held in memory. ``BODY[]`` sets ``\\Seen``,
``BODY.PEEK[]`` does not, as RFC 3501 says. ``hang_up_on_store``: the
connection is dropped when the client flags a message (a crash between the
fetch and the flag). ``stall_on``: the commands (``b"FETCH"``, ``b"STORE"``)
the server leaves unanswered, setting ``stalled``, until the client goes away:
the client is then stopped at that point for sure, where a test kills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from dataclasses import dataclass, field


@dataclass
class Stored:
    uid: int
    raw: bytes
    flags: set[str] = field(default_factory=set)


class Mailbox:
    def __init__(self, user: str, password: str) -> None:
        self.user = user
        self.password = password
        self.messages: list[Stored] = []
        self.next_uid = 1
        self.hang_up_on_store = False
        self.stall_on: set[bytes] = set()
        self.stalled = threading.Event()
        self.lock = threading.Lock()

    def append(self, raw: bytes) -> int:
        with self.lock:
            uid = self.next_uid
            self.next_uid += 1
            self.messages.append(Stored(uid, raw))
            return uid

    def flags_of(self, uid: int) -> set[str]:
        return next(m.flags for m in self.messages if m.uid == uid)


_TOKEN = re.compile(rb'"((?:[^"\\]|\\.)*)"|(\S+)')


def _args(line: bytes) -> list[bytes]:
    out = []
    for quoted, atom in _TOKEN.findall(line):
        out.append(re.sub(rb"\\(.)", rb"\1", quoted) if quoted or atom == b"" else atom)
    return out


def _sequence(spec: bytes, values: list[int]) -> list[int]:
    """The numbers of ``values`` named by an IMAP sequence set (``1``, ``2:4``, ``3:*``)."""
    chosen: list[int] = []
    top = max(values, default=0)
    for part in spec.split(b","):
        if b":" in part:
            low, high = part.split(b":")
            lo = top if low == b"*" else int(low)
            hi = top if high == b"*" else int(high)
            lo, hi = min(lo, hi), max(lo, hi)
            chosen += [v for v in values if lo <= v <= hi]
        else:
            n = top if part == b"*" else int(part)
            chosen += [v for v in values if v == n]
    return chosen


class _Session:
    def __init__(
        self, box: Mailbox, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.box = box
        self.reader = reader
        self.writer = writer
        self.authenticated = False
        self.selected = False

    def send(self, data: bytes) -> None:
        self.writer.write(data)

    async def run(self) -> None:
        self.send(b"* OK [CAPABILITY IMAP4rev1] test server ready\r\n")
        while True:
            line = await self.reader.readline()
            if not line:
                break
            parts = line.rstrip(b"\r\n").split(b" ", 2)
            tag = parts[0]
            command = parts[1].upper() if len(parts) > 1 else b""
            rest = parts[2] if len(parts) > 2 else b""
            uid = False
            if command == b"UID":
                uid = True
                command, _, rest = rest.partition(b" ")
                command = command.upper()
            if not await self.dispatch(tag, command, rest, uid):
                break
            await self.writer.drain()
        self.writer.close()

    async def dispatch(self, tag: bytes, command: bytes, rest: bytes, uid: bool) -> bool:
        box = self.box
        if command in box.stall_on:  # unanswered: the client waits here until it is killed
            box.stalled.set()
            while await self.reader.read(4096):
                pass
            return False
        if command == b"CAPABILITY":
            self.send(b"* CAPABILITY IMAP4rev1\r\n" + tag + b" OK CAPABILITY completed\r\n")
        elif command == b"NOOP":
            self.send(tag + b" OK NOOP completed\r\n")
        elif command == b"LOGOUT":
            self.send(b"* BYE logging out\r\n" + tag + b" OK LOGOUT completed\r\n")
            await self.writer.drain()
            return False
        elif command == b"LOGIN":
            args = _args(rest)
            if len(args) == 2 and args == [box.user.encode(), box.password.encode()]:
                self.authenticated = True
                self.send(tag + b" OK LOGIN completed\r\n")
            else:
                self.send(tag + b" NO [AUTHENTICATIONFAILED] Invalid credentials\r\n")
        elif not self.authenticated:
            self.send(tag + b" BAD log in first\r\n")
        elif command in {b"SELECT", b"EXAMINE"}:
            if _args(rest)[:1] != [b"INBOX"]:
                self.send(tag + b" NO no such mailbox\r\n")
                return True
            self.selected = True
            unseen = sum(1 for m in box.messages if "\\Seen" not in m.flags)
            self.send(
                b"* FLAGS (\\Seen \\Answered \\Flagged \\Deleted \\Draft)\r\n"
                + b"* %d EXISTS\r\n* 0 RECENT\r\n" % len(box.messages)
                + b"* OK [UNSEEN %d] unseen\r\n" % unseen
                + b"* OK [UIDVALIDITY 1] UIDs valid\r\n"
                + b"* OK [UIDNEXT %d] next\r\n" % box.next_uid
                + tag
                + b" OK [READ-WRITE] SELECT completed\r\n"
            )
        elif not self.selected:
            self.send(tag + b" BAD select a mailbox first\r\n")
        elif command == b"SEARCH":
            criteria = rest.upper().split()
            found = [
                (m.uid if uid else n)
                for n, m in enumerate(box.messages, 1)
                if b"UNSEEN" not in criteria or "\\Seen" not in m.flags
            ]
            self.send(b"* SEARCH" + b"".join(b" %d" % f for f in found) + b"\r\n")
            self.send(tag + b" OK SEARCH completed\r\n")
        elif command == b"FETCH":
            spec, _, items = rest.partition(b" ")
            items = items.upper()
            numbers = list(range(1, len(box.messages) + 1))
            keys = [m.uid for m in box.messages] if uid else numbers
            for key in _sequence(spec, keys):
                n = keys.index(key) + 1
                message = box.messages[n - 1]
                pieces = [b"UID %d" % message.uid]
                if b"BODY[]" in items and b"PEEK" not in items:
                    message.flags.add("\\Seen")
                if b"FLAGS" in items:
                    pieces.append(b"FLAGS (" + " ".join(sorted(message.flags)).encode() + b")")
                literal = b""
                if b"BODY" in items:
                    literal = message.raw
                    pieces.append(b"BODY[] {%d}" % len(literal))
                head = b"* %d FETCH (" % n + b" ".join(pieces)
                if literal:
                    self.send(head + b"\r\n" + literal + b")\r\n")
                else:
                    self.send(head + b")\r\n")
            self.send(tag + b" OK FETCH completed\r\n")
        elif command == b"STORE":
            if box.hang_up_on_store:
                self.writer.close()
                return False
            spec, _, change = rest.partition(b" ")
            mode, _, flags = change.partition(b" ")
            names = {f.decode() for f in flags.strip(b"()").split()}
            keys = [m.uid for m in box.messages] if uid else list(range(1, len(box.messages) + 1))
            for key in _sequence(spec, keys):
                n = keys.index(key) + 1
                message = box.messages[n - 1]
                mode_upper = mode.upper()
                if mode_upper.startswith(b"+FLAGS"):
                    message.flags |= names
                elif mode_upper.startswith(b"-FLAGS"):
                    message.flags -= names
                else:
                    message.flags = set(names)
                if b".SILENT" not in mode_upper:
                    flags_text = " ".join(sorted(message.flags)).encode()
                    self.send(b"* %d FETCH (UID %d FLAGS (%s))\r\n" % (n, message.uid, flags_text))
            self.send(tag + b" OK STORE completed\r\n")
        elif command in {b"CLOSE", b"EXPUNGE", b"CHECK"}:
            self.send(tag + b" OK " + command + b" completed\r\n")
        else:
            self.send(tag + b" BAD unknown command\r\n")
        return True


class ImapServer:
    """``with ImapServer(port, box):`` serves ``box`` on 127.0.0.1:``port`` from a thread."""

    def __init__(self, port: int, box: Mailbox) -> None:
        self.port = port
        self.box = box
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.server: asyncio.base_events.Server | None = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            await _Session(self.box, reader, writer).run()

    def __enter__(self) -> ImapServer:
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", self.port, reuse_address=True),
            self.loop,
        ).result(timeout=5)
        return self

    def __exit__(self, *exc: object) -> None:
        async def close() -> None:
            assert self.server is not None
            self.server.close()
            await self.server.wait_closed()

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(timeout=5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
