"""The packed DAWG of a shipped word list as a file, read through ``mmap``.

``rules/data/wordlists/<id>.dawg`` holds the cells of ``rules.dawg.pack``
for the list ``<id>``, after a 128-byte header that names what they were
built from. It is built, not committed (5.5 MB for ``fr-1``; the build is
deterministic and takes a few seconds): ``make dawg``, or by the first
process that needs it. Every load checks the header against the word list's
metadata and the cells against their sha256 (~10 ms): a file of another
format version, another list or list text, the wrong size or a bad checksum
is never used. It is rebuilt in its place (a warning says why), or, when
that cannot be written, refused with ``DawgFileError`` naming the command.

Writing goes through a temporary file and ``os.replace``, so a process that
maps the file while another rebuilds it keeps reading the old, whole one,
and two processes building at once both leave a whole file.

Command line (``make dawg`` runs the first)::

    python -m rules.dawg_file build [--id fr-1]   # (re)build, print its sha256
    python -m rules.dawg_file check [--id fr-1]   # exit 1 with the reason when unusable
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import mmap
import os
import struct
import sys
import tempfile
from array import array
from pathlib import Path

from rules import wordlist
from rules.dawg import STRIDE, Dawg, pack

FORMAT_VERSION = 1
"""Raise it whenever the layout of ``rules.dawg`` changes: older files are rebuilt."""
MAGIC = b"DIAMDAWG"
_HEADER = struct.Struct("<8sIIIIII32s32s32s")
"""Magic, format version, header size, stride, nodes, words, cells, the list
id (ASCII, NUL-padded), the sha256 of the list's text, the sha256 of the cells."""
HEADER_SIZE = _HEADER.size  # 128: the cells that follow stay aligned

log = logging.getLogger(__name__)


class DawgFileError(RuntimeError):
    """The DAWG file of a list cannot be used and cannot be rebuilt here."""


class StaleDawgError(ValueError):
    """The file is not the DAWG of this list in this format (the message says why)."""


def path_of(list_id: str, directory: Path | None = None) -> Path:
    return (directory or wordlist.DATA_DIR) / f"{wordlist.resolve(list_id)}.dawg"


def _list_sha(list_id: str) -> bytes:
    return bytes.fromhex(str(wordlist.read_metadata(list_id)["sha256"]))


def encode(cells: array[int], nodes: int, words: int, list_id: str, list_sha: bytes) -> bytes:
    """The file's bytes: header, then the cells (little-endian 32-bit)."""
    if cells.itemsize != 4 or sys.byteorder != "little":
        raise DawgFileError("the DAWG file needs 32-bit cells on a little-endian machine")
    body = cells.tobytes()
    header = _HEADER.pack(
        MAGIC,
        FORMAT_VERSION,
        HEADER_SIZE,
        STRIDE,
        nodes,
        words,
        len(cells),
        list_id.encode("ascii"),
        list_sha,
        hashlib.sha256(body).digest(),
    )
    return header + body


def build(list_id: str = wordlist.DEFAULT, directory: Path | None = None) -> Path:
    """Build the DAWG file of ``list_id`` from its word list and put it in place."""
    resolved = wordlist.resolve(list_id)
    target = path_of(resolved, directory)
    # The temporary file first: a folder that cannot be written fails at once.
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            cells, nodes, words = pack(wordlist.load(resolved))
            out.write(encode(cells, nodes, words, resolved, _list_sha(resolved)))
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def check(data: bytes | mmap.mmap | memoryview, list_id: str, list_sha: bytes) -> tuple[int, int]:
    """(nodes, words) of a valid file; StaleDawgError saying what is wrong otherwise."""
    if len(data) < HEADER_SIZE:
        raise StaleDawgError(f"truncated: {len(data)} bytes, not even a header")
    magic, version, header_size, stride, nodes, words, count, name, sha, cells_sha = (
        _HEADER.unpack_from(data)
    )
    if magic != MAGIC:
        raise StaleDawgError("not a Diamino DAWG file")
    if version != FORMAT_VERSION:
        raise StaleDawgError(f"format version {version}, this code reads {FORMAT_VERSION}")
    built_for = name.rstrip(b"\0").decode("ascii", "replace")
    if built_for != list_id:
        raise StaleDawgError(f"built for the word list {built_for!r}, not {list_id!r}")
    if sha != list_sha:
        raise StaleDawgError(f"built from another text of {list_id} (its sha256 differs)")
    if header_size != HEADER_SIZE or stride != STRIDE or count != (nodes + 1) * STRIDE:
        raise StaleDawgError("its header does not describe this layout")
    if len(data) != HEADER_SIZE + 4 * count:
        raise StaleDawgError(f"{len(data)} bytes, expected {HEADER_SIZE + 4 * count}")
    if hashlib.sha256(memoryview(data)[HEADER_SIZE:]).digest() != cells_sha:
        raise StaleDawgError("corrupt: its cells do not match their sha256")
    return nodes, words


def open_checked(list_id: str, directory: Path | None = None) -> Dawg:
    """The mapped DAWG of ``list_id``; FileNotFoundError or StaleDawgError when unusable."""
    resolved = wordlist.resolve(list_id)
    with path_of(resolved, directory).open("rb") as source:
        if os.fstat(source.fileno()).st_size == 0:
            raise StaleDawgError("empty")
        mapped = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        nodes, words = check(mapped, resolved, _list_sha(resolved))
    except BaseException:
        mapped.close()
        raise
    cells = memoryview(mapped)[HEADER_SIZE:].cast("I")
    return Dawg(cells, nodes, words, keep=mapped)


def load(list_id: str = wordlist.DEFAULT, directory: Path | None = None) -> Dawg:
    """The DAWG of ``list_id`` from its file, built first when missing or unusable."""
    resolved = wordlist.resolve(list_id)
    target = path_of(resolved, directory)
    try:
        return open_checked(resolved, directory)
    except FileNotFoundError:
        log.warning("building %s (once: `make dawg` builds it ahead)", target)
    except StaleDawgError as exc:
        log.warning("%s is not used (%s): rebuilding it", target, exc)
    try:
        build(resolved, directory)
    except OSError as exc:
        raise DawgFileError(
            f"the DAWG file {target} is missing or stale and cannot be written ({exc}): "
            f"run `python -m rules.dawg_file build --id {resolved}` where it can"
        ) from exc
    return open_checked(resolved, directory)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules.dawg_file", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, what in (("build", "build the DAWG file"), ("check", "check the DAWG file")):
        command = commands.add_parser(name, help=what)
        command.add_argument("--id", default=wordlist.DEFAULT, help="list (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        resolved = wordlist.resolve(args.id)
    except wordlist.UnknownWordListError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    target = path_of(resolved)
    if args.command == "check":
        try:
            dawg = open_checked(resolved)
        except (FileNotFoundError, StaleDawgError) as exc:
            print(f"{target}: not usable ({exc}); run `make dawg`", file=sys.stderr)
            return 1
        print(f"{target}: ok, {dawg.word_count:,} words, {dawg.node_count:,} nodes")
        return 0
    build(resolved)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    print(f"{target}: {target.stat().st_size:,} bytes, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
